#!/usr/bin/env python3
"""Gavel's makespan experiment: makespan per policy over seeds, with a 95 % confidence interval,
and the per-seed ratios to Gavel's min_makespan (docs/gavel.md, "Makespan").

  scripts/gavel_makespan.py SWEEP_DIR [--csv OUT.csv]

Reads SWEEP_DIR/results.csv (bench/gavel_makespan.toml: one row per finished run). Prints one
markdown row per (cluster, policy label): runs, mean makespan in hours, 95 % CI half-width
(Student t over the seeds), min and max, and runs with unfinished jobs; then, per cluster, the
mean of the per-seed ratios (paired: one seed, one trace) of every label to the label `gavel`.
With --csv, writes the rows as CSV (columns: cluster, policy, runs, mean_makespan_h, ci95_h,
min_h, max_h, unfinished_runs). Exit 1 on a missing file.
"""
import argparse
import csv
import os
import sys

from gavel_window import mean_ci, paired_ratio, write_csv


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sweep_dir")
    ap.add_argument("--csv")
    args = ap.parse_args()
    results = os.path.join(args.sweep_dir, "results.csv")
    if not os.path.exists(results):
        sys.exit(f"{results}: no such file (run `schedkit sweep` first)")
    groups = {}  # (cluster, label) -> {seed: (makespan h, unfinished jobs)}
    with open(results, newline="") as f:
        for line, row in enumerate(csv.DictReader(f), start=2):
            try:
                value = (float(row["makespan_s"]) / 3600, int(row["unfinished"]))
                key = (os.path.basename(row["cluster"]), row["policy"])
            except (KeyError, ValueError) as e:
                sys.exit(f"{results}:{line}: bad makespan_s, unfinished, cluster or policy ({e})")
            groups.setdefault(key, {})[row["seed"]] = value
    rows = []
    print("| cluster | policy | runs | mean makespan (h) | 95 % CI | min | max | runs with unfinished jobs |")
    print("|---|---|---|---|---|---|---|---|")
    for (cluster, label), by_seed in sorted(groups.items()):
        v = [m for m, _ in by_seed.values()]
        mean, ci = mean_ci(v)
        unfinished = sum(1 for _, u in by_seed.values() if u > 0)
        rows.append([cluster, label, len(v), mean, ci, min(v), max(v), unfinished])
        print(f"| {cluster} | {label} | {len(v)} | {mean:.1f} | ± {ci:.1f} | {min(v):.1f} | "
              f"{max(v):.1f} | {unfinished} |")
    print()
    for (cluster, label), by_seed in sorted(groups.items()):
        gavel = groups.get((cluster, "gavel"))
        if label == "gavel" or gavel is None:
            continue
        mean, ci, n = paired_ratio(by_seed, gavel)
        print(f"{cluster}: {label} / gavel = {mean:.2f} ± {ci:.2f} (per-seed ratios, {n} seeds)")
    if args.csv:
        write_csv(args.csv, ["cluster", "policy", "runs", "mean_makespan_h", "ci95_h", "min_h",
                             "max_h", "unfinished_runs"], rows)


if __name__ == "__main__":
    main()
