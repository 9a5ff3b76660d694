#!/usr/bin/python3
"""Statistical fidelity of `schedkit dag simulate` against spark-sched-sim (docs/fidelity.md).

Runs each scheduler on seeds FIRST..FIRST+N-1 of the default config and compares the mean avg
JCT with the reference (seeds 0-9 of the Python simulator, mean +- std, from
shared/docs/reference/spark-dag.md): our mean with its 95 % confidence interval (Student t),
the reference's 95 % interval for its mean, whether our mean falls inside it, and Welch's
two-sample t-test. Random streams differ between the implementations, so only distributions
can be compared.

  /usr/bin/python3 scripts/dag_fidelity.py [--cli build/schedkit] [--seeds 50] [--schedulers fair,fifo,fifo-half,decima]
"""
import argparse
import csv
import math
import os
import subprocess
import sys
import tempfile

from scipy import stats

# Reference: mean, std over seeds 0-9 (n = 10).
REFERENCE = {
    "fair": (60.3, 9.4),
    "fifo": (248.0, 130.9),
    "fifo-half": (85.0, 17.6),
    "decima": (53.7, 7.7),
}
REFERENCE_N = 10


def run(cli, scheduler, first, n):
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([cli, "dag", "simulate", "--scheduler", scheduler, "--seed", str(first),
                        "--episodes", str(n), "--out", out], check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(out, "episodes.csv")) as f:
            return [float(row["avg_jct_s"]) for row in csv.DictReader(f)]


def ci(mean, sd, n):
    half = stats.t.ppf(0.975, n - 1) * sd / math.sqrt(n)
    return mean - half, mean + half


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cli", default="build/schedkit")
    p.add_argument("--first-seed", type=int, default=0)
    p.add_argument("--seeds", type=int, default=50)
    p.add_argument("--schedulers", default="fair,fifo,fifo-half,decima")
    a = p.parse_args()
    print("| scheduler | schedkit mean avg JCT (s), seeds %d-%d | std | 95 %% CI of the mean "
          "| reference mean +- std (seeds 0-9) | reference 95 %% CI of the mean | inside | Welch p |"
          % (a.first_seed, a.first_seed + a.seeds - 1))
    print("|---|---|---|---|---|---|---|---|")
    ok = True
    for s in a.schedulers.split(","):
        values = run(a.cli, s, a.first_seed, a.seeds)
        n = len(values)
        mean = sum(values) / n
        sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
        lo, hi = ci(mean, sd, n)
        rm, rsd = REFERENCE[s]
        rlo, rhi = ci(rm, rsd, REFERENCE_N)
        inside = rlo <= mean <= rhi
        ok = ok and inside
        welch = stats.ttest_ind_from_stats(mean, sd, n, rm, rsd, REFERENCE_N, equal_var=False)
        print("| %s | %.1f | %.1f | [%.1f, %.1f] | %.1f +- %.1f | [%.1f, %.1f] | %s | %.2f |"
              % (s, mean, sd, lo, hi, rm, rsd, rlo, rhi, "yes" if inside else "NO", welch.pvalue))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
