"""scripts/gavel_makespan.py: makespan per (cluster, policy) over seeds and the per-seed ratios
to `gavel`, with hand-computed numbers."""
import csv
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "gavel_makespan.py")
FIELDS = ["run_id", "policy", "cluster", "seed", "makespan_s", "unfinished"]


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


class GavelMakespanTest(unittest.TestCase):
    def test_means_ci_ratios_and_csv(self):
        with tempfile.TemporaryDirectory() as sweep:
            # fifo: 300 and 500 h (mean 400, stdev sqrt(2) x 100, CI 12.706 x 100 = 1270.6);
            # gavel: 100 and 250 h; per-seed ratios 3 and 2: mean 2.5, CI 12.706 x 0.5 = 6.35.
            rows = [("fifo", 0, 300, 0), ("fifo", 1, 500, 2), ("gavel", 0, 100, 0),
                    ("gavel", 1, 250, 0)]
            with open(os.path.join(sweep, "results.csv"), "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(FIELDS)
                for policy, seed, hours, unfinished in rows:
                    w.writerow([f"{policy}{seed}", policy, "/x/gavel_36x3", seed, hours * 3600,
                                unfinished])
            out_csv = os.path.join(sweep, "m.csv")
            r = run(sweep, "--csv", out_csv)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("| gavel_36x3 | fifo | 2 | 400.0 | ± 1270.6 | 300.0 | 500.0 | 1 |",
                          r.stdout)
            self.assertIn("| gavel_36x3 | gavel | 2 | 175.0 | ± 953.0 | 100.0 | 250.0 | 0 |",
                          r.stdout)
            self.assertIn("gavel_36x3: fifo / gavel = 2.50 ± 6.35 (per-seed ratios, 2 seeds)",
                          r.stdout)
            with open(out_csv, newline="") as f:
                got = list(csv.DictReader(f))
            self.assertEqual([g["mean_makespan_h"] for g in got], ["400.0", "175.0"])

    def test_bad_input(self):
        with tempfile.TemporaryDirectory() as sweep:
            r = run(sweep)
            self.assertEqual(r.returncode, 1)
            self.assertIn("results.csv: no such file", r.stderr)
            with open(os.path.join(sweep, "results.csv"), "w") as f:
                f.write(",".join(FIELDS) + "\na,fifo,c,0,x,0\n")
            r = run(sweep)
            self.assertEqual(r.returncode, 1)
            self.assertIn("results.csv:2: bad makespan_s", r.stderr)


if __name__ == "__main__":
    unittest.main()
