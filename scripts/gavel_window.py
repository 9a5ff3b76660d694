#!/usr/bin/env python3
"""Gavel's measurement: mean JCT over a window of a generated trace's jobs, per sweep run, then
the mean over seeds with a 95 % confidence interval (docs/gavel.md, "Results").

  scripts/gavel_window.py SWEEP_DIR [--begin 4000] [--end 5000] [--csv OUT.csv]

Reads SWEEP_DIR/results.csv (one row per finished run) and each run's runs/<run_id>/jobs.csv.
A run's value is the mean JCT, in hours, of the jobs whose id is in [begin, end) (Gavel's
generated traces number jobs from 0 in arrival order; its notebooks measure jobs 4000-4999).
The window is steady only if its jobs end before the trace's last arrival (load never drops while
it is measured): the jobs that end later are counted (`late`), never dropped.

Prints one markdown row per (policy label, jobs/h): runs, mean, 95 % CI half-width (Student t
over the seeds), min and max, and the late window jobs of all its runs; then, for each pair of labels 'X-agnostic' / 'X-gavel', the mean
of their per-seed ratios (paired: one seed, one trace) with its 95 % CI. With --csv, writes the rows as CSV (columns: policy, jobs_per_hour, runs,
mean_jct_h, ci95_h, min_h, max_h, late_jobs). Exit 1 on a missing file or an empty window.
"""
import argparse
import csv
import math
import os
import statistics
import sys

# Two-sided 95 % Student t quantiles by degrees of freedom (1..30); 1.96 beyond.
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
       2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
       2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t95(df):
    return T95[df - 1] if df <= len(T95) else 1.96


def mean_ci(v):
    """Mean and 95 % CI half-width (NaN for one value)."""
    mean = statistics.fmean(v)
    if len(v) < 2:
        return mean, math.nan
    return mean, t95(len(v) - 1) * statistics.stdev(v) / math.sqrt(len(v))


def paired_ratio(by_seed, base):
    """Mean and 95 % CI of the per-seed ratios by_seed[s][0] / base[s][0] (paired: one seed,
    one trace), and how many seeds both have."""
    ratios = [by_seed[s][0] / base[s][0] for s in by_seed if s in base]
    return (*mean_ci(ratios), len(ratios))


def write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def window_jct_h(jobs_csv, begin, end):
    """Mean JCT (h) of the window's jobs, and how many ended after the last arrival."""
    jcts, ends, last_submit = [], [], 0.0
    with open(jobs_csv, newline="") as f:
        for line, row in enumerate(csv.DictReader(f), start=2):
            try:
                job, submit = int(row["job_id"]), float(row["submit_s"])
            except (KeyError, ValueError) as e:
                sys.exit(f"{jobs_csv}:{line}: bad job_id or submit_s ({e})")
            last_submit = max(last_submit, submit)
            if begin <= job < end:
                if row["outcome"] != "finished":
                    sys.exit(f"{jobs_csv}:{line}: job {job} of the window did not finish")
                jcts.append(float(row["jct_s"]))
                ends.append(float(row["end_s"]))
    if len(jcts) != end - begin:
        sys.exit(f"{jobs_csv}: {len(jcts)} jobs in the window [{begin}, {end}), "
                 f"expected {end - begin}")
    return statistics.fmean(jcts) / 3600, sum(1 for e in ends if e > last_submit)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sweep_dir")
    ap.add_argument("--begin", type=int, default=4000)
    ap.add_argument("--end", type=int, default=5000)
    ap.add_argument("--csv")
    args = ap.parse_args()
    if not 0 <= args.begin < args.end:
        sys.exit("--begin must be >= 0 and below --end")
    results = os.path.join(args.sweep_dir, "results.csv")
    if not os.path.exists(results):
        sys.exit(f"{results}: no such file (run `schedkit sweep` first)")
    groups = {}  # (label, load) -> [(value, steady)]
    with open(results, newline="") as f:
        for row in csv.DictReader(f):
            jobs = os.path.join(args.sweep_dir, "runs", row["run_id"], "jobs.csv")
            if not os.path.exists(jobs):
                sys.exit(f"{jobs}: no such file")
            key = (row["policy"], float(row["jobs_per_hour"]))
            groups.setdefault(key, {})[row["seed"]] = window_jct_h(jobs, args.begin, args.end)
    rows = []
    print(f"| policy | jobs/h | runs | mean JCT (h), jobs {args.begin}-{args.end - 1} | 95 % CI | "
          "min | max | late jobs |")
    print("|---|---|---|---|---|---|---|---|")
    for (label, load), by_seed in sorted(groups.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        v = [x for x, _ in by_seed.values()]
        mean, ci = mean_ci(v)
        late = sum(n for _, n in by_seed.values())
        rows.append([label, load, len(v), mean, ci, min(v), max(v), late])
        print(f"| {label} | {load:g} | {len(v)} | {mean:.2f} | ± {ci:.2f} | {min(v):.2f} | "
              f"{max(v):.2f} | {late} |")
    print()
    for (label, load), by_seed in sorted(groups.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        aware = groups.get((label[:-len("-agnostic")] + "-gavel", load))
        if not label.endswith("-agnostic") or aware is None:
            continue
        # Paired by seed: both policies ran the same generated trace.
        mean, ci, n = paired_ratio(by_seed, aware)
        print(f"{label[:-len('-agnostic')]} at {load:g} jobs/h: agnostic / Gavel = {mean:.2f} "
              f"± {ci:.2f} (per-seed ratios, {n} seeds)")
    if args.csv:
        write_csv(args.csv, ["policy", "jobs_per_hour", "runs", "mean_jct_h", "ci95_h", "min_h",
                             "max_h", "late_jobs"], rows)


if __name__ == "__main__":
    main()
