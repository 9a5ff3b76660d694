#!/usr/bin/env python3
"""REINFORCE on a schedkit learning environment (docs/learning.md), CPU PyTorch.

A small MLP scores each candidate (a queued job that fits, or a schedulable DAG stage); the
policy samples from the softmax over the candidates. Training runs episodes in groups that share
a seed and subtracts Decima's time-based baseline (the group's mean return-to-go at the same
simulated time). At the end it evaluates the trained policy (greedy) against a random policy and
heuristics on held-out seeds and prints average JCTs.

    PYTHONPATH=build/python python3 examples/reinforce.py --env cluster --minutes 3
    PYTHONPATH=build/python python3 examples/reinforce.py --env dag --minutes 3
"""
import argparse
import math
import random
import sys
import time

import numpy as np
import torch

import schedkit


# ----------------------------------------------------------------------------------------------
# Environments: how to build one, the candidates at a decision point, and reference policies.

class Task:
    """An environment, the candidates at a decision point and reference policies."""

    def run(self, seed, choose):
        """Average JCT (s) of one episode with choose(obs, rng) -> action."""
        rng = random.Random(seed)
        obs = self.env.reset(seed)
        while True:
            obs, _, done, _, info = self.env.step(choose(obs, rng))
            if done:
                return info["avg_jct_s"]


class ClusterTask(Task):
    """Candidates: queued rows that fit (the policy never waits: the environment only stops
    where some job fits). Features: log GPUs, log wait, log remaining (oracle), load."""
    unit, unit_name = 3600.0, "h"
    features = 6

    def __init__(self, size):
        self.env = schedkit.ClusterEnv(num_jobs=size["jobs"], jobs_per_hour=size["rate"],
                                       max_queued=32)

    def candidates(self, obs):
        rows = np.flatnonzero(obs["action_mask"])
        q = obs["queued"][rows]
        load = np.array([float(obs["free_gpus"]) / float(obs["total_gpus"]),
                         math.log1p(float(obs["num_queued"])),
                         math.log1p(float(obs["num_running"]))])
        x = np.concatenate([np.log1p(q[:, 0:1]), np.log1p(q[:, 1:3] / 3600.0),
                            np.tile(load, (len(rows), 1))], axis=1)
        return x, rows

    @staticmethod
    def action(obs, row):
        return int(row)

    def references(self, seeds):
        out = {}
        for name, pick in (("fifo", lambda q, rows: rows[0]),
                           ("sjf", lambda q, rows: rows[np.argmin(q[rows, 2])])):
            out[name] = np.mean([self.run(seed, lambda obs, rng: pick(
                obs["queued"], np.flatnonzero(obs["action_mask"]))) for seed in seeds])
        return out



class DagTask(Task):
    """Candidates: schedulable stages; the policy commits every committable executor (the
    environment cuts the number to the stage's demand). Features per stage: log tasks left,
    log recent task duration, log work left in its job, its job's executor share, commit cap,
    source-job flag, log active jobs."""
    unit, unit_name = 1.0, "s"
    features = 7

    def __init__(self, size):
        self.size = dict(num_executors=size["executors"], job_arrival_cap=size["jobs"],
                         job_arrival_rate=size["rate"])
        self.env = schedkit.DagEnv(**self.size)

    def candidates(self, obs):
        nodes, ptr = obs["nodes"], obs["dag_ptr"]
        num_jobs = len(ptr) - 1
        work = nodes[:, 0] * nodes[:, 1] / 1000.0
        job_work = np.add.reduceat(work, ptr[:-1]) if num_jobs else np.zeros(0)
        rows = obs["schedulable_nodes"]
        jobs = obs["node_job"][rows]
        n_exec = float(obs["num_executors"])
        committable = float(obs["num_committable_execs"])
        source = int(obs["source_job_idx"])
        cap = np.where(jobs == source, committable,
                       np.clip(n_exec - obs["exec_supplies"][jobs], 0, committable))
        x = np.stack([np.log1p(nodes[rows, 0]), np.log1p(nodes[rows, 1] / 1000.0),
                      np.log1p(job_work[jobs]), obs["exec_supplies"][jobs] / n_exec,
                      cap / n_exec, (jobs == source).astype(float),
                      np.full(len(rows), math.log1p(num_jobs))], axis=1)
        return x, np.arange(len(rows))

    @staticmethod
    def action(obs, idx):
        return (int(idx), int(obs["num_committable_execs"]))

    def references(self, seeds):
        return {name: np.mean([schedkit.dag_simulate(name, seed=s, **self.size)["avg_jct_s"]
                               for s in seeds]) for name in ("fair", "fifo")}



SIZES = {  # (training, smoke)
    "cluster": ({"jobs": 300, "rate": 60.0}, {"jobs": 12, "rate": 4.0}),
    "dag": ({"executors": 50, "jobs": 50, "rate": 4e-5}, {"executors": 5, "jobs": 3, "rate": 1e-5}),
}


# ----------------------------------------------------------------------------------------------
# Policy and training.

class Scorer(torch.nn.Module):
    def __init__(self, features, hidden):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(features, hidden), torch.nn.Tanh(),
                                       torch.nn.Linear(hidden, hidden), torch.nn.Tanh(),
                                       torch.nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


def rollout(task, scorer, seed):
    """One sampled episode: log-probabilities, rewards and simulated times per step."""
    obs = task.env.reset(seed)
    logps, rewards, times = [], [], []
    while True:
        x, rows = task.candidates(obs)
        dist = torch.distributions.Categorical(
            logits=scorer(torch.as_tensor(x, dtype=torch.float32)))
        i = dist.sample()
        logps.append(dist.log_prob(i))
        times.append(float(obs["wall_time"]))
        obs, reward, done, _, info = task.env.step(task.action(obs, rows[int(i)]))
        rewards.append(reward)
        if done:
            return logps, np.array(rewards), np.array(times), info["avg_jct_s"]


def train(task, scorer, args, deadline):
    opt = torch.optim.Adam(scorer.parameters(), lr=args.lr)
    iteration = 0
    while iteration < args.iterations and time.time() < deadline:
        seed = args.seed * 100003 + iteration  # Every group of episodes shares one workload.
        episodes = [rollout(task, scorer, seed) for _ in range(args.group)]
        returns = [np.cumsum(r[::-1])[::-1] for _, r, _, _ in episodes]
        scale = max(1e-9, np.mean([abs(g[0]) for g in returns]))
        loss = 0
        for (logps, _, times, _), g in zip(episodes, returns):
            baseline = np.mean([np.interp(times, t, h) for (_, _, t, _), h in
                                zip(episodes, returns)], axis=0)
            adv = torch.as_tensor((g - baseline) / scale, dtype=torch.float32)
            loss = loss - (torch.stack(logps) * adv).sum() / len(episodes)
        opt.zero_grad()
        loss.backward()
        opt.step()
        iteration += 1
        if iteration % args.log_every == 0:
            jct = np.mean([e[3] for e in episodes]) / task.unit
            print(f"iter {iteration:4d}  sampled avg JCT {jct:8.3f} {task.unit_name}", flush=True)
    return iteration


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--env", choices=["cluster", "dag"], default="cluster")
    p.add_argument("--minutes", type=float, default=3.0, help="training time budget")
    p.add_argument("--iterations", type=int, default=10**9)
    p.add_argument("--group", type=int, default=4, help="episodes per update (same seed)")
    p.add_argument("--hidden", type=int, default=32)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--eval-seeds", type=int, default=20)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--log-every", type=int, default=10)
    p.add_argument("--smoke", action="store_true", help="tiny size, a few seconds (the ctest)")
    args = p.parse_args()
    if args.smoke:
        args.iterations, args.eval_seeds, args.group, args.log_every = 3, 2, 2, 1
    torch.manual_seed(args.seed)
    size = SIZES[args.env][1 if args.smoke else 0]
    task = (ClusterTask if args.env == "cluster" else DagTask)(size)
    scorer = Scorer(task.features, args.hidden)
    print(f"env {args.env} {size}: training for up to {args.minutes} min", flush=True)
    start = time.time()
    iterations = train(task, scorer, args, start + 60 * args.minutes)
    print(f"trained {iterations} iterations ({iterations * args.group} episodes) in "
          f"{time.time() - start:.0f} s", flush=True)

    seeds = range(10**6, 10**6 + args.eval_seeds)  # Held out: training seeds are small.

    def greedy(obs, rng):
        x, rows = task.candidates(obs)
        with torch.no_grad():
            i = int(torch.argmax(scorer(torch.as_tensor(x, dtype=torch.float32))))
        return task.action(obs, rows[i])

    def uniform(obs, rng):
        _, rows = task.candidates(obs)
        return task.action(obs, rows[rng.randrange(len(rows))])

    results = {"trained": np.mean([task.run(s, greedy) for s in seeds]),
               "random": np.mean([task.run(s, uniform) for s in seeds])}
    results.update(task.references(seeds))
    print(f"avg JCT over {args.eval_seeds} held-out seeds ({task.unit_name}):")
    for name, value in results.items():
        print(f"  {name:8s} {value / task.unit:10.3f}")
    if not all(math.isfinite(v) and v > 0 for v in results.values()):
        sys.exit("non-finite or non-positive JCT")


if __name__ == "__main__":
    main()
