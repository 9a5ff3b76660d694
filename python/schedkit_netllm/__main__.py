"""`python3 -m schedkit_netllm collect|train|test` (docs/netllm.md)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

import torch

from . import NetllmError
from .backbone import Gpt2Config
from .evaluate import BASELINES, EnvConfig, run_baseline, run_episodes, summarise, write_csv
from .model import STAGE_HEADS, ModelConfig
from .train import DEFAULT_DECIMA, TrainConfig, load_model, train

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def seeds(text: str) -> list[int]:
    """'0-49' or '3' or '1,4,7'."""
    out = []
    try:
        for part in text.split(","):
            lo, _, hi = part.partition("-")
            out.extend(range(int(lo), int(hi or lo) + 1))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--seeds: expected e.g. 0-49 or 1,4,7, got {text!r}")
    if not out:
        raise argparse.ArgumentTypeError(f"--seeds: no seed in {text!r}")
    return out


def add_env_options(p: argparse.ArgumentParser) -> None:
    d = EnvConfig()
    p.add_argument("--executors", type=int, default=d.num_executors)
    p.add_argument("--jobs", type=int, default=d.job_arrival_cap)
    p.add_argument("--arrival-rate", type=float, default=d.job_arrival_rate)
    p.add_argument("--moving-delay", type=float, default=d.moving_delay_ms)
    p.add_argument("--warmup-delay", type=float, default=d.warmup_delay_ms)


def env_config(a) -> EnvConfig:
    return EnvConfig(a.executors, a.jobs, a.arrival_rate, a.moving_delay, a.warmup_delay)


def cmd_collect(a) -> int:
    """Runs `schedkit dag collect` once per --scheduler NAME:STEPS and concatenates the pools
    (episodes renumbered; seeds continue from one scheduler to the next)."""
    cli = a.schedkit or os.environ.get("SCHEDKIT_CLI") or os.path.join(REPO, "build", "schedkit")
    seed = a.seed
    episode = 0
    with open(a.out, "w", encoding="utf-8") as out, tempfile.TemporaryDirectory() as tmp:
        for spec in a.scheduler:
            name, _, steps = spec.partition(":")
            part = os.path.join(tmp, "part.jsonl")
            cmd = [cli, "dag", "collect", "--scheduler", name, "--steps", steps or "1000",
                   "--seed", str(seed), "--out", part, "--executors", str(a.executors),
                   "--jobs", str(a.jobs), "--arrival-rate", repr(a.arrival_rate),
                   "--moving-delay", repr(a.moving_delay), "--warmup-delay", repr(a.warmup_delay)]
            try:
                done = subprocess.run(cmd, capture_output=True, text=True)
            except OSError as e:
                raise NetllmError(f"{cli}: cannot run: {e.strerror} (--schedkit PATH)") from None
            if done.returncode:
                raise NetllmError(f"collect {spec}: {done.stderr.strip() or done.stdout.strip()}")
            print(done.stdout.strip())
            first = episode
            with open(part, encoding="utf-8") as f:
                for text in f:
                    line = json.loads(text)
                    line["episode"] += first
                    episode = line["episode"] + 1
                    seed = line["seed"] + 1
                    out.write(json.dumps(line, separators=(",", ":")) + "\n")
    print(f"collect: {episode} episodes -> {a.out}")
    return 0


def cmd_train(a) -> int:
    torch.set_num_threads(a.threads)
    backbone = Gpt2Config(n_embd=a.hidden, n_layer=a.layers, n_head=a.heads,
                          n_positions=a.positions, vocab_size=1)
    model = ModelConfig(backbone=backbone, lora_rank=a.lora_rank, lora_alpha=a.lora_alpha,
                        lora_dropout=a.lora_dropout, window=a.window, max_stages=a.max_stages,
                        max_timestep=a.max_timestep, stage_head=a.stage_head)
    config = TrainConfig(steps=a.steps, batch_size=a.batch_size, accumulation=a.accumulation,
                         lr=a.lr, weight_decay=a.weight_decay, warmup=a.warmup, clip=a.clip,
                         seed=a.seed, checkpoint_every=a.checkpoint_every)
    summary = train(a.pool, a.out, model, config, a.backbone, a.encoder_init, a.device, a.resume)
    losses = summary["losses"]
    print(f"train: {summary['steps']} steps, loss {losses[0]:.4f} -> "
          f"{sum(losses[-50:]) / len(losses[-50:]):.4f} (mean of the last 50), "
          f"{summary['steps_per_s']:.2f} steps/s -> {a.out}/model.pt")
    return 0


def cmd_test(a) -> int:
    torch.set_num_threads(a.threads)
    policy, scale, max_return, meta = load_model(a.model, a.device)
    target = max_return if a.target_return is None else a.target_return
    config = env_config(a)
    print(f"model: {a.model} ({meta.get('steps', '?')} training steps); target return "
          f"{target:.4f}; actions {'greedy' if a.greedy else 'sampled'}; {config}")
    results = []
    for first in range(0, len(a.seeds), a.batch):
        batch = run_episodes(policy, scale, target, a.seeds[first:first + a.batch], config,
                             a.greedy)
        for r in batch:
            print(f"netllm seed {r.seed}: avg JCT {r.avg_jct_s:.3f} s, {r.decisions} decisions",
                  flush=True)
        results.extend(batch)
    for name in a.baselines:
        results.extend(run_baseline(name, seed, config) for seed in a.seeds)
    for line in summarise(results):
        print(line)
    if a.csv:
        write_csv(a.csv, results)
        print(f"per-episode results -> {a.csv}")
    return 0


def cmd_bench(a) -> int:
    from .bench import decisions_per_second, train_steps_per_second
    torch.set_num_threads(a.threads)
    policy = load_model(a.model, a.device)[0]
    for batch in a.batches:
        r = decisions_per_second(policy, batch, a.rounds, env_config(a))
        print(f"decide: batch {batch}: {r['decisions']} decisions, {r['cpu_per_s']:,.0f} "
              f"decisions per CPU second ({r['wall_per_s']:,.0f} per wall second)", flush=True)
    if a.pool:
        policy = load_model(a.model, a.device)[0]  # a fresh copy: the training changes it
        r = train_steps_per_second(policy, a.pool, a.train_steps, a.batch_size, a.accumulation)
        print(f"train: {r['steps']} steps of {a.batch_size} x {a.accumulation} windows: "
              f"{r['cpu_per_s']:.2f} steps per CPU second ({r['wall_per_s']:.2f} per wall "
              "second)")
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python3 -m schedkit_netllm",
                                description="NetLLM for DAG job scheduling (docs/netllm.md)")
    sub = p.add_subparsers(dest="command", required=True)

    c = sub.add_parser("collect", help="experience pool from `schedkit dag collect`")
    c.add_argument("--scheduler", action="append", required=True,
                   help="NAME[:STEPS] (decima, fair, fifo-half, ...); repeat to mix")
    c.add_argument("--seed", type=int, default=1, help="first episode's seed (NetLLM: 1)")
    c.add_argument("--out", required=True)
    c.add_argument("--schedkit", help="the schedkit CLI (default: $SCHEDKIT_CLI or build/schedkit)")
    add_env_options(c)
    c.set_defaults(run=cmd_collect)

    m, t = ModelConfig(), TrainConfig()
    tr = sub.add_parser("train", help="train a policy from pools")
    tr.add_argument("--pool", action="append", required=True, help="pool file (repeatable)")
    tr.add_argument("--out", required=True, help="model folder (model.pt, checkpoint.pt)")
    tr.add_argument("--backbone", help="GPT-2 folder in the HuggingFace layout (config.json, "
                                       "pytorch_model.bin); default: a seeded small backbone")
    tr.add_argument("--hidden", type=int, default=m.backbone.n_embd)
    tr.add_argument("--layers", type=int, default=m.backbone.n_layer)
    tr.add_argument("--heads", type=int, default=m.backbone.n_head)
    tr.add_argument("--positions", type=int, default=m.backbone.n_positions)
    tr.add_argument("--lora-rank", type=int, default=m.lora_rank)
    tr.add_argument("--lora-alpha", type=float, default=m.lora_alpha)
    tr.add_argument("--lora-dropout", type=float, default=m.lora_dropout)
    tr.add_argument("--window", type=int, default=m.window, help="K steps of context")
    tr.add_argument("--max-stages", type=int, default=m.max_stages)
    tr.add_argument("--max-timestep", type=int, default=m.max_timestep)
    tr.add_argument("--stage-head", choices=STAGE_HEADS, default=m.stage_head)
    tr.add_argument("--encoder-init", default=DEFAULT_DECIMA,
                    help="Decima weights JSON for the encoder, or 'seed'")
    tr.add_argument("--steps", type=int, default=t.steps)
    tr.add_argument("--batch-size", type=int, default=t.batch_size)
    tr.add_argument("--accumulation", type=int, default=t.accumulation)
    tr.add_argument("--lr", type=float, default=t.lr)
    tr.add_argument("--weight-decay", type=float, default=t.weight_decay)
    tr.add_argument("--warmup", type=int, default=t.warmup)
    tr.add_argument("--clip", type=float, default=t.clip)
    tr.add_argument("--seed", type=int, default=t.seed)
    tr.add_argument("--checkpoint-every", type=int, default=t.checkpoint_every)
    tr.add_argument("--resume", action="store_true", help="continue from OUT/checkpoint.pt")
    tr.set_defaults(run=cmd_train)

    te = sub.add_parser("test", help="run the policy in the DAG environment beside baselines")
    te.add_argument("--model", default=os.path.join(REPO, "data", "netllm"))
    te.add_argument("--seeds", type=seeds, default=seeds("0-49"))
    te.add_argument("--greedy", action="store_true", help="argmax actions (default: sampled)")
    te.add_argument("--target-return", type=float,
                    help="initial return-to-go (default: the pool's maximum)")
    te.add_argument("--baselines", type=lambda s: [b for b in s.split(",") if b],
                    default=list(BASELINES), help="comma-separated; empty for none")
    te.add_argument("--csv", help="per-episode results")
    te.add_argument("--batch", type=int, default=50,
                    help="episodes run in lockstep, their decisions batched (default 50)")
    add_env_options(te)
    te.set_defaults(run=cmd_test)
    be = sub.add_parser("bench", help="decisions/s of a model; training steps/s on a pool")
    be.add_argument("--model", default=os.path.join(REPO, "data", "netllm"))
    be.add_argument("--batches", type=lambda s: [int(b) for b in s.split(",")],
                    default=[1, 50], help="lockstep episodes per round (comma-separated)")
    be.add_argument("--rounds", type=int, default=200)
    be.add_argument("--pool", help="also time training steps on this pool")
    be.add_argument("--train-steps", type=int, default=20)
    be.add_argument("--batch-size", type=int, default=8)
    be.add_argument("--accumulation", type=int, default=1)
    add_env_options(be)
    be.set_defaults(run=cmd_bench)
    for s in (tr, te, be):
        s.add_argument("--device", default="cpu", help="cpu or cuda")
        s.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except (NetllmError, ValueError, OSError) as e:  # ValueError: schedkit's bad status
        print(f"schedkit_netllm: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
