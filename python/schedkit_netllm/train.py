"""`train`: AdamW on the adapters, encoder, embeddings and heads (the backbone stays frozen),
linear warm-up, gradient clipping and accumulation, checkpoints, resumable, seeded."""

from __future__ import annotations

import math
import os
import sys
import time
from dataclasses import dataclass

import numpy as np
import torch

from . import NetllmError
from .backbone import Gpt2, load_hf_gpt2
from .dataset import PoolDataset
from .model import ModelConfig, NetllmPolicy
from .pool import RewardScale

MODEL_FILE = "model.pt"
CHECKPOINT_FILE = "checkpoint.pt"
DEFAULT_DECIMA = os.path.join(os.path.dirname(__file__), "..", "..", "data", "decima",
                              "decima_tpch.json")


@dataclass(frozen=True)
class TrainConfig:
    steps: int = 1000            # optimizer steps
    batch_size: int = 8          # windows per forward pass
    accumulation: int = 4        # forward passes per optimizer step
    lr: float = 1e-4
    weight_decay: float = 1e-4
    warmup: int = 100            # linear warm-up (optimizer steps)
    clip: float = 0.25
    seed: int = 0
    checkpoint_every: int = 200

    def __post_init__(self):
        if min(self.steps, self.batch_size, self.accumulation, self.checkpoint_every) < 1:
            raise NetllmError("train: --steps, --batch-size, --accumulation and "
                              "--checkpoint-every must be >= 1")
        if self.lr <= 0 or self.weight_decay < 0 or self.warmup < 0 or self.clip <= 0:
            raise NetllmError("train: --lr and --clip must be > 0, --weight-decay and --warmup "
                              ">= 0")


def build_policy(config: ModelConfig, backbone_dir: str | None, encoder_init: str, seed: int,
                 device: str, log=print) -> NetllmPolicy:
    """A fresh policy: the backbone from `backbone_dir` (HuggingFace GPT-2 layout) or from `seed`;
    the encoder from Decima's weights (`encoder_init` = a weights JSON) or from `seed` ("seed")."""
    torch.manual_seed(seed)
    if backbone_dir:
        backbone = load_hf_gpt2(backbone_dir)
        config = ModelConfig(**{**config.__dict__, "backbone": backbone.config})
        log(f"backbone: {backbone_dir} ({backbone.config.n_layer} layers, hidden "
            f"{backbone.config.n_embd})")
    else:
        backbone = Gpt2(config.backbone)
        log(f"backbone: no --backbone: initialised from seed {seed} (no pretrained knowledge; "
            f"{config.backbone.n_layer} layers, hidden {config.backbone.n_embd})")
    policy = NetllmPolicy(config, backbone)
    if encoder_init != "seed":
        policy.encoder.load_decima(encoder_init)
    return policy.to(device)


def save_model(path: str, policy: NetllmPolicy, scale: RewardScale, max_return: float,
               meta: dict) -> None:
    torch.save({"format": "schedkit-netllm-1", "config": policy.config.to_dict(),
                "state": policy.state_dict(), "reward_low": scale.low, "reward_high": scale.high,
                "rtg_scale": scale.rtg_scale, "max_return": max_return, "meta": meta}, path)


def load_model(directory: str, device: str = "cpu"):
    """(policy in eval mode, RewardScale, max_return, meta) from `directory`/model.pt."""
    path = os.path.join(directory, MODEL_FILE)
    try:
        saved = torch.load(path, map_location=device)
    except FileNotFoundError:
        raise NetllmError(f"{path}: missing (train a model first: docs/netllm.md)") from None
    except Exception as e:
        raise NetllmError(f"{path}: not a netllm model: {e}".splitlines()[0]) from None
    if not isinstance(saved, dict) or saved.get("format") != "schedkit-netllm-1":
        raise NetllmError(f"{path}: not a netllm model (format schedkit-netllm-1)")
    config = ModelConfig.from_dict(saved["config"])
    policy = NetllmPolicy(config)
    policy.load_state_dict(saved["state"])
    return (policy.to(device).eval(),
            RewardScale(saved["reward_low"], saved["reward_high"], saved["rtg_scale"]),
            float(saved["max_return"]), saved.get("meta", {}))


class Progress:
    """One status line (loss, speed, ETA): redrawn on a terminal, every 10 % otherwise."""

    def __init__(self, total: int, start: int, stream=sys.stderr):
        self.total, self.start, self.stream = total, start, stream
        self.t0 = time.monotonic()
        self.tty = stream.isatty()
        self.last_draw = 0.0

    def update(self, step: int, loss: float) -> None:
        now = time.monotonic()
        done = step - self.start
        rate = done / max(now - self.t0, 1e-9)
        eta = (self.total - step) / rate if rate > 0 else math.inf
        bar = "#" * int(20 * step / self.total)
        line = (f"step {step}/{self.total} [{bar:<20}] loss {loss:.4f} {rate:.2f} steps/s "
                f"ETA {eta // 60:.0f}m{eta % 60:02.0f}s")
        if self.tty and (now - self.last_draw > 0.5 or step == self.total):
            self.stream.write("\r" + line + ("\n" if step == self.total else ""))
            self.last_draw = now
        elif not self.tty and (step == self.total or
                               step % max(1, (self.total - self.start) // 10) == 0):
            self.stream.write(line + "\n")
        self.stream.flush()


def train(pools: list[str], out: str, model_config: ModelConfig, config: TrainConfig,
          backbone_dir: str | None = None, encoder_init: str = DEFAULT_DECIMA,
          device: str = "cpu", resume: bool = False, log=print) -> dict:
    """Trains into `out` (model.pt for `test`, checkpoint.pt to resume). Returns a summary."""
    os.makedirs(out, exist_ok=True)
    data = PoolDataset.from_files(pools, model_config.max_stages)
    log(f"pool: {len(data)} steps in {len(data.episodes)} complete episodes "
        f"({data.dropped} truncated dropped); rewards [{data.scale.low:.0f}, "
        f"{data.scale.high:.0f}] ms; max return-to-go {data.max_return:.4f}")
    policy = build_policy(model_config, backbone_dir, encoder_init, config.seed, device, log)
    params = policy.trainable_parameters()
    log(f"parameters: {sum(p.numel() for p in policy.parameters()):,} in all, "
        f"{sum(p.numel() for p in params):,} trained")
    optimizer = torch.optim.AdamW(params, lr=config.lr, weight_decay=config.weight_decay)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min(1.0, (s + 1) / config.warmup) if config.warmup else 1.0)
    rng = np.random.default_rng(config.seed)
    step, losses = 0, []
    checkpoint = os.path.join(out, CHECKPOINT_FILE)
    if resume:
        step, losses = _restore(checkpoint, policy, optimizer, schedule, rng)
        log(f"resumed at step {step}")
    n_positions = policy.config.backbone.n_positions
    progress = Progress(config.steps, step)
    t0 = time.monotonic()
    start_step = step
    policy.train()
    while step < config.steps:
        total = 0.0
        for _ in range(config.accumulation):
            windows = data.sample(rng, config.batch_size, policy.config.window, n_positions)
            loss = policy.loss(windows) / config.accumulation
            loss.backward()
            total += float(loss)
        torch.nn.utils.clip_grad_norm_(params, config.clip)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad(set_to_none=True)
        step += 1
        losses.append(total)
        progress.update(step, float(np.mean(losses[-50:])))
        if step % config.checkpoint_every == 0 or step == config.steps:
            _save(checkpoint, policy, optimizer, schedule, rng, step, losses)
            save_model(os.path.join(out, MODEL_FILE), policy, data.scale, data.max_return,
                       {"steps": step, "pools": pools, "seed": config.seed})
    elapsed = time.monotonic() - t0
    return {"steps": step, "losses": losses, "seconds": elapsed,
            "steps_per_s": (step - start_step) / elapsed if elapsed > 0 else math.nan}


def _save(path, policy, optimizer, schedule, rng, step, losses) -> None:
    tmp = path + ".tmp"
    torch.save({"state": policy.state_dict(), "optimizer": optimizer.state_dict(),
                "schedule": schedule.state_dict(), "rng": rng.bit_generator.state,
                "torch_rng": torch.get_rng_state(), "step": step, "losses": losses}, tmp)
    os.replace(tmp, path)


def _restore(path, policy, optimizer, schedule, rng):
    try:
        saved = torch.load(path, map_location="cpu")
    except FileNotFoundError:
        raise NetllmError(f"{path}: missing: nothing to --resume") from None
    policy.load_state_dict(saved["state"])
    optimizer.load_state_dict(saved["optimizer"])
    schedule.load_state_dict(saved["schedule"])
    rng.bit_generator.state = saved["rng"]
    torch.set_rng_state(saved["torch_rng"])
    return saved["step"], list(saved["losses"])
