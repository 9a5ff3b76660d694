"""Training a job through a scenario, and the cache of all 64 action sequences' outcomes.

`simulate_scenario` trains the 4 + 16 + 64 branches of the decision tree once each: the prefix up to
the first decision is trained once, and at each decision the job's whole state (model, optimiser,
learning-rate schedule position, clock) is copied into one branch per action. Every random draw
comes from a generator keyed by (seed, epoch number), never from shared state, so a branch performs
exactly the operations a from-scratch run of its sequence performs: `run_sequence` is that run, and
the tests check that both give identical outcomes.
"""

import copy
import json
import os
import sys
import time
from dataclasses import asdict, dataclass

import torch

from . import AdaptError
from .models import NOTHING, NUM_ACTIONS, deepen, describe_model, make_model, multiply_adds
from .scenario import DECISIONS, Clock, scenario_from_json

CACHE_FORMAT = "schedkit-adapt-cache/1"


@dataclass(frozen=True)
class TrainingSettings:
    batch_size: int = 64
    lr: float = 0.01        # Adam's learning rate, reset to this on every adaptation
    lr_decay: float = 0.9   # per epoch since the last reset
    probe_size: int = 256   # training samples whose statistics a new BatchNorm undoes


class TrainingContext:
    """What every branch of a scenario shares and never changes: data, model name, seed, settings."""

    def __init__(self, data, model_name, scenario, seed, settings=TrainingSettings(), device="cpu"):
        self.data = data.to(device)
        self.model_name = model_name
        self.scenario = scenario
        self.seed = seed
        self.settings = settings
        self.device = device
        self.probe_x = self.data.train_x[:settings.probe_size]


def sequence_key(actions):
    return ",".join(str(a) for a in actions)


class TrainingJob:
    """One job's mutable state; copy it with `branch` to explore another action from here."""

    def __init__(self, context):
        self.context = context
        self.model = make_model(context.model_name, context.data.input_shape, context.data.num_classes,
                                context.seed).to(context.device)
        self.clock = Clock(context.scenario, multiply_adds(self.model))
        self.multiply_adds = self.clock.base_multiply_adds
        self._reset_optimiser()
        self.epoch = 0
        self.time_left_at_decisions = []

    def branch(self):
        return copy.deepcopy(self, memo={id(self.context): self.context})

    def _reset_optimiser(self):
        self.optimiser = torch.optim.Adam(self.model.parameters(), lr=self.context.settings.lr)
        self.epochs_since_reset = 0

    def train_epoch(self):
        settings, data = self.context.settings, self.context.data
        for group in self.optimiser.param_groups:
            group["lr"] = settings.lr * settings.lr_decay ** self.epochs_since_reset
        shuffle = torch.Generator().manual_seed(self.context.seed * 1_000_003 + self.epoch)
        order = torch.randperm(len(data.train_y), generator=shuffle).to(self.context.device)
        self.model.train()
        # Full batches only: a batch of one would break BatchNorm, and each epoch reshuffles anyway.
        for start in range(0, len(order) - settings.batch_size + 1, settings.batch_size):
            batch = order[start:start + settings.batch_size]
            self.optimiser.zero_grad()
            loss = torch.nn.functional.cross_entropy(self.model(data.train_x[batch]), data.train_y[batch])
            loss.backward()
            self.optimiser.step()
        self.clock.advance(self.multiply_adds)
        self.epoch += 1
        self.epochs_since_reset += 1

    def train_while_fits(self, until_up=False):
        while self.clock.fits(self.multiply_adds) and not (until_up and self.clock.is_up):
            self.train_epoch()

    def adapt(self, action):
        """Deepen block `action` (Net2Net) and start a new optimiser at the initial learning rate;
        NOTHING leaves model and optimiser alone."""
        if action != NOTHING:
            deepen(self.model, action, self.context.probe_x)
            self.multiply_adds = multiply_adds(self.model)
            self._reset_optimiser()

    def decide(self, action):
        """A decision point: record the time left, apply the action, train the next epoch if it fits."""
        self.time_left_at_decisions.append(self.clock.time_left)
        self.adapt(action)
        if len(self.time_left_at_decisions) < DECISIONS:
            if self.clock.fits(self.multiply_adds):
                self.train_epoch()
        else:
            self.train_while_fits()

    def accuracy(self):
        data = self.context.data
        self.model.eval()
        with torch.no_grad():
            correct = (self.model(data.test_x).argmax(dim=1) == data.test_y).sum().item()
        return correct / len(data.test_y)

    def outcome(self):
        return {"time_left": self.time_left_at_decisions, "total_time": self.clock.now,
                "accuracy": self.accuracy(), "epochs": self.epoch, "layers": len(describe_model(self.model))}


def start_job(context):
    """A job trained up to its first decision point."""
    job = TrainingJob(context)
    job.train_while_fits(until_up=True)
    if not job.clock.is_up:
        raise AdaptError(f"scenario '{context.scenario.name}': the budget ends before the 'up' at "
                         f"{context.scenario.up_at_s} s")
    return job


def run_sequence(context, actions):
    """Train one action sequence from scratch: the reference the cache's branching must equal."""
    job = start_job(context)
    for action in actions:
        job.decide(action)
    return job.outcome()


class Progress:
    """A progress bar on stderr (one line per quarter when stderr is not a terminal)."""

    def __init__(self, total, label):
        self.total, self.label, self.done, self.start = total, label, 0, time.monotonic()
        self.tty = sys.stderr.isatty()

    def elapsed(self):
        return time.monotonic() - self.start

    def step(self):
        self.done += 1
        elapsed = self.elapsed()
        eta = elapsed / self.done * (self.total - self.done)
        bar = "#" * (30 * self.done // self.total)
        line = f"{self.label} [{bar:<30}] {self.done}/{self.total} sequences, {elapsed:.0f} s, ETA {eta:.0f} s"
        if self.tty:
            print("\r" + line, end="\n" if self.done == self.total else "", file=sys.stderr, flush=True)
        elif self.done % max(1, self.total // 4) == 0 or self.done == self.total:
            print(line, file=sys.stderr, flush=True)


def simulate_scenario(context, progress=None):
    """Outcomes of all NUM_ACTIONS ** DECISIONS sequences, keyed by sequence_key."""
    outcomes = {}

    def explore(job, prefix):
        for action in range(NUM_ACTIONS):
            child = job.branch() if action < NUM_ACTIONS - 1 else job  # the last branch reuses the parent
            child.decide(action)
            if len(prefix) + 1 == DECISIONS:
                outcomes[sequence_key(prefix + [action])] = child.outcome()
                if progress:
                    progress.step()
            else:
                explore(child, prefix + [action])

    explore(start_job(context), [])
    return dict(sorted(outcomes.items()))


def write_cache(path, context, data_spec, outcomes, command):
    cache = {"format": CACHE_FORMAT, "command": command, "model": context.model_name, "data": data_spec,
             "input_shape": list(context.data.input_shape), "num_classes": context.data.num_classes,
             "seed": context.seed, "scenario": context.scenario.to_json(),
             "training": asdict(context.settings), "torch": torch.__version__, "sequences": outcomes}
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(cache, f, indent=1, sort_keys=True)
        f.write("\n")


@dataclass
class Cache:
    """A scenario's outcomes, as the agent reads them."""
    path: str
    model: str
    input_shape: tuple
    num_classes: int
    scenario: object
    sequences: dict  # tuple of actions -> {"time_left": [...], "total_time": s, "accuracy": a}
    num_actions: int
    decisions: int


def _require(fields, name, kind, where):
    if name not in fields:
        raise AdaptError(f"{where}: missing field '{name}'")
    if not isinstance(fields[name], kind):
        raise AdaptError(f"{where}: field '{name}' has the wrong type")
    return fields[name]


def load_cache(path):
    try:
        with open(path) as f:
            raw = json.load(f)
    except OSError as e:
        raise AdaptError(f"{path}: cannot read ({e.strerror})") from None
    except json.JSONDecodeError as e:
        raise AdaptError(f"{path}:{e.lineno}: not JSON ({e.msg})") from None
    if not isinstance(raw, dict) or raw.get("format") != CACHE_FORMAT:
        raise AdaptError(f"{path}: field 'format' is not '{CACHE_FORMAT}'")
    sequences = {}
    for key, outcome in _require(raw, "sequences", dict, path).items():
        where = f"{path}: sequence '{key}'"
        try:
            actions = tuple(int(a) for a in key.split(","))
        except ValueError:
            raise AdaptError(f"{where}: the key is not a comma-separated list of actions") from None
        time_left = _require(outcome, "time_left", list, where)
        accuracy = _require(outcome, "accuracy", (int, float), where)
        if len(time_left) != len(actions):
            raise AdaptError(f"{where}: field 'time_left' has {len(time_left)} values for {len(actions)} decisions")
        if not 0.0 <= accuracy <= 1.0:
            raise AdaptError(f"{where}: field 'accuracy' {accuracy} is not in [0, 1]")
        sequences[actions] = {"time_left": [float(t) for t in time_left], "accuracy": float(accuracy),
                              "total_time": float(outcome.get("total_time", 0.0))}
    if not sequences:
        raise AdaptError(f"{path}: field 'sequences' is empty")
    decisions = len(next(iter(sequences)))
    num_actions = 1 + max(a for actions in sequences for a in actions)
    if len(sequences) != num_actions ** decisions or any(len(a) != decisions for a in sequences):
        raise AdaptError(f"{path}: field 'sequences' must hold all {num_actions}^{decisions} sequences")
    return Cache(path, _require(raw, "model", str, path), tuple(_require(raw, "input_shape", list, path)),
                 _require(raw, "num_classes", int, path),
                 scenario_from_json(_require(raw, "scenario", dict, path), path), sequences, num_actions,
                 decisions)
