"""`bench`: decisions per second of a model and training steps per second, in CPU time of this
process (so the figures hold on a loaded machine) and wall time."""

from __future__ import annotations

import time

import numpy as np
import torch

from .dataset import PoolDataset
from .evaluate import EnvConfig, _schedkit
from .features import step_features
from .model import Decoder, StepItem


def _clocks():
    return time.process_time(), time.perf_counter()


def decisions_per_second(policy, batch: int, rounds: int, env_config: EnvConfig) -> dict:
    """`rounds` lockstep rounds of `batch` default episodes (seeds 0..batch-1), sampled actions;
    the environment's own steps and the feature code are included."""
    schedkit = _schedkit()
    envs = [schedkit.DagEnv(**env_config.kwargs()) for _ in range(batch)]
    observations = [env.reset(seed) for seed, env in enumerate(envs)]
    decoder = Decoder(policy, False, [torch.Generator().manual_seed(s) for s in range(batch)])
    cpu0, wall0 = _clocks()
    decisions = 0
    for t in range(rounds):
        currents = [StepItem(step_features(o, policy.config.max_stages), 1.0, t)
                    for o in observations]
        actions = decoder.decide(currents)
        for i, (stage, exec_class) in enumerate(actions):
            observations[i], _, terminated, _, _ = envs[i].step((stage, exec_class + 1))
            if terminated:
                raise RuntimeError("bench: an episode ended; use fewer --rounds")
        decisions += len(actions)
    cpu1, wall1 = _clocks()
    return {"decisions": decisions, "cpu_per_s": decisions / (cpu1 - cpu0),
            "wall_per_s": decisions / (wall1 - wall0)}


def train_steps_per_second(policy, pool: str, steps: int, batch_size: int, accumulation: int,
                           seed: int = 0) -> dict:
    """Optimizer steps (AdamW, clipping) on windows of `pool`; loading the pool is excluded."""
    data = PoolDataset.from_files([pool], policy.config.max_stages)
    policy.train()
    params = policy.trainable_parameters()
    optimizer = torch.optim.AdamW(params, lr=1e-4)
    rng = np.random.default_rng(seed)
    n_positions = policy.config.backbone.n_positions
    cpu0, wall0 = _clocks()
    for _ in range(steps):
        for _ in range(accumulation):
            windows = data.sample(rng, batch_size, policy.config.window, n_positions)
            (policy.loss(windows) / accumulation).backward()
        torch.nn.utils.clip_grad_norm_(params, 0.25)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
    cpu1, wall1 = _clocks()
    return {"steps": steps, "cpu_per_s": steps / (cpu1 - cpu0),
            "wall_per_s": steps / (wall1 - wall0)}
