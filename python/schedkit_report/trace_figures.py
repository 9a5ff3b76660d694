"""Figures of `schedkit trace stats TRACE --figures DIR`, drawn from DIR/stats.json only.

Usage: python3 -m schedkit_report.trace_figures DIR   (the CLI runs it after writing stats.json)

Writes DIR/gpu_demand.{png,pdf} (jobs per GPU count), DIR/runtime_cdf.{png,pdf} (solo runtime
CDF, log x) and DIR/arrivals_per_hour.{png,pdf} (jobs submitted in each hour of the trace).
Every number plotted is a value of stats.json (keys in docs/cli.md, `trace stats`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from matplotlib.figure import Figure  # no pyplot: no global state, no GUI backend

from .figures import _save

FIGURES = ("gpu_demand", "runtime_cdf", "arrivals_per_hour")


class TraceFiguresError(Exception):
    pass


def load_stats(folder: Path) -> dict:
    path = folder / "stats.json"
    try:
        stats = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise TraceFiguresError(f"{path}: cannot read the trace stats ({e})") from e
    for key in ("jobs", "jobs_by_gpus", "runtime_cdf_s", "arrivals_by_hour"):
        if key not in stats:
            raise TraceFiguresError(f"{path}: missing key '{key}'")
    if stats["jobs"] == 0:
        raise TraceFiguresError(f"{path}: the trace has no job; nothing to draw")
    return stats


def gpu_demand(stats: dict, out: Path) -> None:
    gpus = sorted(stats["jobs_by_gpus"], key=int)
    fig = Figure(figsize=(6, 3.5))
    ax = fig.add_subplot()
    ax.bar(range(len(gpus)), [stats["jobs_by_gpus"][g] for g in gpus], color="tab:blue")
    ax.set_xticks(range(len(gpus)), gpus)
    ax.set_xlabel("GPUs asked")
    ax.set_ylabel("jobs")
    ax.set_title(f"GPU demand ({stats['jobs']} jobs)")
    _save(fig, out, "gpu_demand")


def runtime_cdf(stats: dict, out: Path) -> None:
    values = stats["runtime_cdf_s"]
    m = len(values)
    fractions = [(k + 1) / m for k in range(m)]
    # A log axis cannot show a zero runtime: those points sit at the axis' left edge.
    positive = [v for v in values if v > 0]
    floor = min(positive) if positive else 1.0
    fig = Figure(figsize=(6, 3.5))
    ax = fig.add_subplot()
    xs = [max(v, floor) for v in values]
    # Starts at 0 below the shortest runtime; reaches k/m at the k-th point.
    ax.step([xs[0]] + xs, [0.0] + fractions, where="post", color="tab:blue")
    ax.set_xscale("log")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("solo runtime (s, log scale)")
    ax.set_ylabel("fraction of jobs")
    ax.set_title(f"Runtime CDF (p50 {stats['runtime_p50_s']:.0f} s, p99 {stats['runtime_p99_s']:.0f} s)")
    ax.grid(True, which="major", alpha=0.3)
    _save(fig, out, "runtime_cdf")


def arrivals_per_hour(stats: dict, out: Path) -> None:
    counts = stats["arrivals_by_hour"]
    fig = Figure(figsize=(6, 3.5))
    ax = fig.add_subplot()
    ax.bar(range(len(counts)), counts, width=1.0, align="edge", color="tab:blue")
    ax.set_xlabel(f"hours after the first submission (at {stats['first_submit_s']:g} s)")
    ax.set_ylabel("jobs submitted")
    ax.set_title(f"Arrivals per hour (mean {stats['arrivals_per_hour']:.2f} jobs/h)")
    _save(fig, out, "arrivals_per_hour")


def draw(folder: Path) -> list[Path]:
    stats = load_stats(folder)
    gpu_demand(stats, folder)
    runtime_cdf(stats, folder)
    arrivals_per_hour(stats, folder)
    return [folder / f"{name}.{ext}" for name in FIGURES for ext in ("png", "pdf")]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python3 -m schedkit_report.trace_figures DIR", file=sys.stderr)
        return 2
    try:
        written = draw(Path(argv[0]))
    except TraceFiguresError as e:
        print(f"schedkit: {e}", file=sys.stderr)
        return 1
    for path in written:
        print(f"  figure {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
