"""`test`: the policy as a scheduler in the DAG environment (target-return conditioning), beside
the C++ baselines on the same seeds and config."""

from __future__ import annotations

import csv
import time
from dataclasses import dataclass

import torch

from . import NetllmError
from .features import step_features
from .model import Decoder, NetllmPolicy, StepItem
from .pool import RewardScale

BASELINES = ("fair", "fifo", "fifo-half", "decima")


@dataclass(frozen=True)
class EnvConfig:
    """DagEnv's options (the published config by default)."""
    num_executors: int = 50
    job_arrival_cap: int = 200
    job_arrival_rate: float = 4e-5
    moving_delay_ms: float = 2000.0
    warmup_delay_ms: float = 1000.0

    def kwargs(self) -> dict:
        return dict(self.__dict__)


@dataclass
class EpisodeResult:
    scheduler: str
    seed: int
    avg_jct_s: float
    jobs: int
    decisions: int
    total_reward: float   # ms, = -(sum of JCTs)
    wall_s: float


def _schedkit():
    try:
        import schedkit
    except ImportError:
        raise NetllmError("the schedkit module is not importable: build target schedkit_python "
                          "and put build/python on PYTHONPATH") from None
    return schedkit


def run_episodes(policy: NetllmPolicy, scale: RewardScale, target_return: float,
                 seeds: list[int], env_config: EnvConfig, greedy: bool) -> list[EpisodeResult]:
    """One episode per seed, all in lockstep (one batched decision per round). The
    return-to-go starts at `target_return` and loses each step's normalised reward / scale;
    sampling draws from a torch generator seeded with the episode's seed. An episode's wall_s
    is the batch's wall time shared equally."""
    schedkit = _schedkit()
    envs = [schedkit.DagEnv(**env_config.kwargs()) for _ in seeds]
    observations = [env.reset(seed) for env, seed in zip(envs, seeds)]
    decoder = Decoder(policy, greedy, [torch.Generator().manual_seed(s) for s in seeds])
    rtg = [target_return] * len(seeds)
    total = [0.0] * len(seeds)
    active = list(range(len(seeds)))
    infos, decisions, t0 = {}, 0, time.perf_counter()
    while active:
        currents = [StepItem(step_features(observations[i], policy.config.max_stages), rtg[i],
                             decisions) for i in active]
        actions = decoder.decide(currents)
        still = []
        for row, (i, (stage, exec_class)) in enumerate(zip(active, actions)):
            observations[i], reward, terminated, _, info = envs[i].step((stage, exec_class + 1))
            total[i] += float(reward)
            rtg[i] -= float(scale.normalise([reward])[0]) / scale.rtg_scale
            if terminated:
                infos[i] = info
            else:
                still.append(row)
        decisions += 1
        if len(still) < len(active):
            decoder.keep(still)
            active = [active[row] for row in still]
    wall = (time.perf_counter() - t0) / len(seeds)
    return [EpisodeResult("netllm", seed, float(infos[i]["avg_jct_s"]),
                          round(float(infos[i]["sum_jct_s"]) / float(infos[i]["avg_jct_s"])),
                          int(infos[i]["steps"]), total[i], wall)
            for i, seed in enumerate(seeds)]


def run_baseline(name: str, seed: int, env_config: EnvConfig) -> EpisodeResult:
    t0 = time.perf_counter()
    r = _schedkit().dag_simulate(name, seed=seed, **env_config.kwargs())
    return EpisodeResult(name, seed, float(r["avg_jct_s"]), int(r["jobs"]), int(r["decisions"]),
                         float(r["total_reward"]), time.perf_counter() - t0)


def write_csv(path: str, results: list[EpisodeResult]) -> None:
    """Columns: scheduler, seed, avg_jct_s, jobs, decisions, total_reward_ms, wall_s."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["scheduler", "seed", "avg_jct_s", "jobs", "decisions", "total_reward_ms",
                    "wall_s"])
        for r in results:
            w.writerow([r.scheduler, r.seed, f"{r.avg_jct_s:.6f}", r.jobs, r.decisions,
                        f"{r.total_reward:.3f}", f"{r.wall_s:.4f}"])


def summarise(results: list[EpisodeResult]) -> list[str]:
    """One line per scheduler: mean avg JCT and its 95 % CI (Student t) over the seeds."""
    from schedkit_report.stats import mean_ci
    lines = []
    for name in dict.fromkeys(r.scheduler for r in results):
        rows = [r for r in results if r.scheduler == name]
        e = mean_ci([r.avg_jct_s for r in rows])
        decisions = sum(r.decisions for r in rows)
        wall = sum(r.wall_s for r in rows)
        lines.append(f"{name:<10} avg JCT {e.mean:8.3f} s  95% CI [{e.low:.3f}, {e.high:.3f}]  "
                     f"n={e.n}  {decisions / wall if wall > 0 else float('nan'):,.0f} "
                     "decisions/s")
    return lines
