#!/usr/bin/env python3
"""Blox's figures as sweeps (docs/blox.md): runs bench/blox_fig6.toml, blox_fig12.toml and
blox_dual_load.toml under --compat blox, draws each with `schedkit report`, and prints the
numbers of docs/blox.md as markdown tables.

  scripts/blox_figures.py [--out out/blox] [--cli build/schedkit] [--threads N] [--only fig6,...]

A policy a config names that this build does not register (`optimus` before the optimus branch
is merged) is left out of the run, and the script says so. Per (policy label, jobs/h) it prints
the runs, the mean over seeds of each run's average JCT over its measured job ids (hours) with its
95 % CI half-width (Student t), and `late`: how many measured jobs of all its runs ended after the
trace's last arrival (they were measured while the load was draining). Exit 1 on a failed run.
"""
import argparse
import csv
import json
import math
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = {"fig6": "blox_fig6.toml", "fig12": "blox_fig12.toml", "dual": "blox_dual_load.toml"}
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228]


def mean_ci(values):
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.nan
    t = T95[len(values) - 2] if len(values) - 1 <= len(T95) else 1.96
    return mean, t * statistics.stdev(values) / math.sqrt(len(values))


def registered_policies(cli):
    out = subprocess.run([cli, "policies", "--json"], capture_output=True, text=True, check=True)
    return {p["name"] for p in json.loads(out.stdout)["policies"]}


def without_unknown_policies(text, known):
    """The config with every [[policy]] table whose name is not registered removed."""
    head, *tables = re.split(r"(?m)^\[\[policy\]\]\n", text)
    kept, dropped = [], []
    for table in tables:
        name = re.search(r'(?m)^name = "([^"]+)"', table).group(1)
        (kept if name in known else dropped).append((name, table))
    return head + "".join("[[policy]]\n" + t for _, t in kept), [n for n, _ in dropped]


def late_jobs(jobs_csv, first, last):
    """Measured jobs that ended after the trace's last arrival."""
    with open(jobs_csv, newline="") as f:
        rows = list(csv.DictReader(f))
    last_submit = max(float(r["submit_s"]) for r in rows)
    return sum(1 for r in rows if first <= int(r["job_id"]) <= last and r["end_s"]
               and float(r["end_s"]) > last_submit)


def measured_jobs(run_dir):
    """The run's measurement window (summary.json's run block, e.g. "3000-4000")."""
    with open(run_dir / "summary.json") as f:
        first, last = json.load(f)["run"]["measured_jobs"].split("-")
    return int(first), int(last)


def table(out_dir):
    with open(out_dir / "results.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    groups = {}
    for r in rows:
        groups.setdefault((r["policy"], float(r["jobs_per_hour"])), []).append(r)
    lines = ["| policy | jobs/h | runs | avg JCT (h) | 95 % CI (h) | late |", "|---|---|---|---|---|---|"]
    for (policy, load), runs in groups.items():
        jct_h = [float(r["avg_jct_s"]) / 3600 for r in runs]
        late = sum(late_jobs(out_dir / "runs" / r["run_id"] / "jobs.csv",
                             *measured_jobs(out_dir / "runs" / r["run_id"])) for r in runs)
        mean, ci = mean_ci(jct_h)
        lines.append(f"| {policy} | {load:g} | {len(runs)} | {mean:.2f} | "
                     f"{'-' if math.isnan(ci) else f'{ci:.2f}'} | {late} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="out/blox")
    ap.add_argument("--cli", default=str(ROOT / "build" / "schedkit"))
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--only", default=",".join(CONFIGS))
    args = ap.parse_args()
    known = registered_policies(args.cli)
    out_root = Path(args.out)
    out_root.mkdir(parents=True, exist_ok=True)
    for key in args.only.split(","):
        source = ROOT / "bench" / CONFIGS[key]
        text, dropped = without_unknown_policies(source.read_text(), known)
        config = out_root / CONFIGS[key]
        # Relative paths (the cluster) resolve next to the config, then in data/: keep both.
        config.write_text(text)
        if dropped:
            print(f"{key}: not registered in this build, left out: {', '.join(dropped)}")
        sweep_dir = out_root / key
        start = time.monotonic()
        cmd = [args.cli, "sweep", str(config), "--out", str(sweep_dir)]
        if args.threads:
            cmd += ["--threads", str(args.threads)]
        if subprocess.run(cmd, stdout=subprocess.DEVNULL).returncode != 0:
            sys.exit(f"blox_figures: {key}: schedkit sweep failed")
        wall = time.monotonic() - start
        if subprocess.run([args.cli, "report", str(sweep_dir)], stdout=subprocess.DEVNULL).returncode:
            sys.exit(f"blox_figures: {key}: schedkit report failed")
        print(f"\n### {key} ({CONFIGS[key]}, sweep wall time {wall:.0f} s)\n")
        print(table(sweep_dir))


if __name__ == "__main__":
    main()
