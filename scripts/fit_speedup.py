#!/usr/bin/env python3
"""Fits the elastic-job scaling model (include/schedkit/scaling.h) to Muri's profile table.

For each model of data/muri_profile_table.csv (iteration time at 1..32 GPUs, per-GPU batch
fixed), an ordinary least-squares line step(w) = alpha + beta * (w - 1) through the measured
iteration times (ms), one point per distinct (GPUs, iteration time) row; beta is clamped at
0 (alpha then the mean). The default curve ('*', for jobs whose model the table lacks) is a
1000-ms step with beta = 1000 x the median of the models' beta / alpha. Nothing is tuned.

    python3 scripts/fit_speedup.py > data/optimus/speedup.csv
"""
import csv
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, "..", "data", "muri_profile_table.csv")


def fit(points):
    n = len(points)
    mx = sum(w - 1 for w, _ in points) / n
    my = sum(t for _, t in points) / n
    sxx = sum((w - 1 - mx) ** 2 for w, _ in points)
    sxy = sum((w - 1 - mx) * (t - my) for w, t in points)
    beta = sxy / sxx if sxx > 0 else 0.0
    if beta < 0:
        return my, 0.0
    return my - beta * mx, beta


def main():
    rows = {}
    with open(TABLE, newline="") as f:
        for r in csv.DictReader(f):
            key = (int(r["num_gpu"]), float(r["iteration_time_ms"]))
            rows.setdefault(r["model_name"], set()).add(key)
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["model", "alpha_ms", "beta_ms", "points"])
    ratios = []
    for model in sorted(rows):
        alpha, beta = fit(sorted(rows[model]))
        ratios.append(beta / alpha)
        out.writerow([model, f"{alpha:.4f}", f"{beta:.4f}", len(rows[model])])
    out.writerow(["*", "1000", f"{1000 * statistics.median(ratios):.4f}", 0])


if __name__ == "__main__":
    main()
