"""Datasets that exist offline: scikit-learn's digits (the default) and CIFAR-10's binary format."""

import gzip
import os
from dataclasses import dataclass

import numpy as np
import torch

from . import AdaptError

# Debian's python3-sklearn ships the digits as a gzipped CSV: 64 pixel values (0..16), then the label.
DIGITS_CSV = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"
CIFAR_RECORD_BYTES = 1 + 3 * 32 * 32  # label byte, then 1024 red, 1024 green, 1024 blue (row-major)
CIFAR_TRAIN_FILES = [f"data_batch_{i}.bin" for i in range(1, 6)]
CIFAR_TEST_FILE = "test_batch.bin"


@dataclass
class Dataset:
    """Normalised images (N, C, H, W) float32 and labels (N,) int64, split into train and test."""
    name: str
    train_x: torch.Tensor
    train_y: torch.Tensor
    test_x: torch.Tensor
    test_y: torch.Tensor
    num_classes: int

    @property
    def input_shape(self):
        return tuple(self.train_x.shape[1:])

    def to(self, device):
        return Dataset(self.name, self.train_x.to(device), self.train_y.to(device),
                       self.test_x.to(device), self.test_y.to(device), self.num_classes)

    def limited(self, max_train, max_test):
        """The first max_train / max_test samples (small runs for tests)."""
        return Dataset(self.name, self.train_x[:max_train], self.train_y[:max_train],
                       self.test_x[:max_test], self.test_y[:max_test], self.num_classes)


def _normalise(train_x, test_x):
    """Per-channel standardisation with the training set's statistics."""
    mean = train_x.mean(axis=(0, 2, 3), keepdims=True)
    std = train_x.std(axis=(0, 2, 3), keepdims=True) + 1e-8
    return (train_x - mean) / std, (test_x - mean) / std


def _as_dataset(name, train_x, train_y, test_x, test_y):
    train_x, test_x = _normalise(train_x.astype(np.float32), test_x.astype(np.float32))
    return Dataset(name, torch.from_numpy(np.ascontiguousarray(train_x, dtype=np.float32)),
                   torch.from_numpy(train_y.astype(np.int64)),
                   torch.from_numpy(np.ascontiguousarray(test_x, dtype=np.float32)),
                   torch.from_numpy(test_y.astype(np.int64)), 10)


def load_digits(path=DIGITS_CSV, test_fraction=0.25, split_seed=0):
    """The 1797 8x8 digits; a seeded permutation puts test_fraction of them in the test set."""
    if not os.path.exists(path):
        raise AdaptError(f"{path}: not found (install Debian's python3-sklearn, which ships the digits)")
    with gzip.open(path, "rt") as f:
        rows = [line for line in f.read().splitlines() if line.strip()]
    values = np.empty((len(rows), 65), dtype=np.float32)
    for i, row in enumerate(rows):
        fields = row.split(",")
        if len(fields) != 65:
            raise AdaptError(f"{path}:{i + 1}: expected 65 fields (64 pixels and a label), got {len(fields)}")
        try:
            values[i] = [float(v) for v in fields]
        except ValueError:
            raise AdaptError(f"{path}:{i + 1}: a field is not a number") from None
    images = values[:, :64].reshape(-1, 1, 8, 8)
    labels = values[:, 64].astype(np.int64)
    order = np.random.RandomState(split_seed).permutation(len(labels))
    n_test = int(round(len(labels) * test_fraction))
    test, train = order[:n_test], order[n_test:]
    return _as_dataset("digits", images[train], labels[train], images[test], labels[test])


def read_cifar_batch(path):
    """One CIFAR-10 binary batch file: (images uint8 (N, 3, 32, 32), labels int64 (N,))."""
    try:
        raw = np.fromfile(path, dtype=np.uint8)
    except OSError as e:
        raise AdaptError(f"{path}: cannot read ({e.strerror})") from None
    if raw.size == 0 or raw.size % CIFAR_RECORD_BYTES != 0:
        raise AdaptError(f"{path}: size {raw.size} bytes is not a multiple of the {CIFAR_RECORD_BYTES}-byte "
                         f"CIFAR-10 record")
    records = raw.reshape(-1, CIFAR_RECORD_BYTES)
    labels = records[:, 0].astype(np.int64)
    bad = np.nonzero(labels > 9)[0]
    if bad.size:
        raise AdaptError(f"{path}: record {bad[0] + 1}: label {labels[bad[0]]} is not in 0..9")
    return records[:, 1:].reshape(-1, 3, 32, 32), labels


def load_cifar10(directory):
    """CIFAR-10 in its published binary format from a local directory (data_batch_1..5.bin, test_batch.bin).

    Training batches that are absent are skipped (a subset is enough for small runs); the test batch is required.
    """
    train_paths = [os.path.join(directory, f) for f in CIFAR_TRAIN_FILES
                   if os.path.exists(os.path.join(directory, f))]
    if not train_paths:
        raise AdaptError(f"{directory}: no CIFAR-10 training batch (data_batch_1.bin .. data_batch_5.bin)")
    test_path = os.path.join(directory, CIFAR_TEST_FILE)
    if not os.path.exists(test_path):
        raise AdaptError(f"{test_path}: not found")
    batches = [read_cifar_batch(p) for p in train_paths]
    train_x = np.concatenate([b[0] for b in batches])
    train_y = np.concatenate([b[1] for b in batches])
    test_x, test_y = read_cifar_batch(test_path)
    return _as_dataset("cifar10", train_x, train_y, test_x, test_y)


def load_dataset(spec):
    """`digits` or `cifar10:DIR`."""
    if spec == "digits":
        return load_digits()
    if spec.startswith("cifar10:"):
        return load_cifar10(spec[len("cifar10:"):])
    raise AdaptError(f"--data: '{spec}' is neither 'digits' nor 'cifar10:DIR'")
