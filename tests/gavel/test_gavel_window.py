"""scripts/gavel_window.py: Gavel's windowed mean JCT over seeds, with hand-computed numbers,
and once on a real (tiny) sweep of the simulated Gavel policy."""
import csv
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "gavel_window.py")


def write_run(sweep, run_id, jcts_h, submit_last=1e9):
    """A run whose job i has JCT jcts_h[i] hours, submitted at i seconds (ends before the
    last arrival at submit_last unless that is small)."""
    d = os.path.join(sweep, "runs", run_id)
    os.makedirs(d)
    with open(os.path.join(d, "jobs.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["job_id", "submit_s", "jct_s", "end_s", "outcome"])
        for i, h in enumerate(jcts_h):
            w.writerow([i, i, h * 3600, i + h * 3600, "finished"])
        w.writerow([len(jcts_h), submit_last, 1, submit_last + 1, "finished"])


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


class GavelWindowTest(unittest.TestCase):
    def test_window_means_ci_and_paired_ratio(self):
        with tempfile.TemporaryDirectory() as sweep:
            rows = []
            # Window [1, 3): jobs 1 and 2. las-agnostic seeds 0/1: means 3 and 5 h; las-gavel
            # 1.5 and 2.5 h: ratios 2 and 2, mean 2, CI 0.
            for label, seed, jcts in [("las-agnostic", 0, [100, 2, 4]),
                                      ("las-agnostic", 1, [100, 4, 6]),
                                      ("las-gavel", 0, [100, 1, 2]),
                                      ("las-gavel", 1, [100, 2, 3])]:
                run_id = f"{label}__s{seed}"
                write_run(sweep, run_id, jcts)
                rows.append({"run_id": run_id, "policy": label, "jobs_per_hour": "4.8",
                             "seed": seed})
            with open(os.path.join(sweep, "results.csv"), "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=["run_id", "policy", "jobs_per_hour", "seed"])
                w.writeheader()
                w.writerows(rows)
            out_csv = os.path.join(sweep, "w.csv")
            r = run(sweep, "--begin", "1", "--end", "3", "--csv", out_csv)
            self.assertEqual(r.returncode, 0, r.stderr)
            # Mean 4 h; stdev of (3, 5) is sqrt(2); CI = 12.706 x sqrt(2) / sqrt(2) = 12.706.
            self.assertIn("| las-agnostic | 4.8 | 2 | 4.00 | ± 12.71 | 3.00 | 5.00 | 0 |", r.stdout)
            self.assertIn("las at 4.8 jobs/h: agnostic / Gavel = 2.00 ± 0.00", r.stdout)
            with open(out_csv, newline="") as f:
                got = list(csv.DictReader(f))
            self.assertEqual([g["mean_jct_h"] for g in got], ["4.0", "2.0"])
            # Window [0, 3) adds job 0 (100 h): means 106/3 and 110/3; stdev 0.943, CI =
            # 12.706 x 0.943 / sqrt(2) = 8.47.
            r = run(sweep, "--begin", "0", "--end", "3")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("| las-agnostic | 4.8 | 2 | 36.00 | ± 8.47 | 35.33 | 36.67 | 0 |",
                          r.stdout)

    def test_unsteady_and_bad_input(self):
        with tempfile.TemporaryDirectory() as sweep:
            write_run(sweep, "a", [1, 2], submit_last=10)  # Both end after the last arrival.
            with open(os.path.join(sweep, "results.csv"), "w") as f:
                f.write("run_id,policy,jobs_per_hour,seed\na,las-gavel,1,0\n")
            r = run(sweep, "--begin", "0", "--end", "2")
            self.assertEqual(r.returncode, 0, r.stderr)
            # One run: no CI; min = max = its mean; both window jobs late.
            self.assertIn("| las-gavel | 1 | 1 | 1.50 | ± nan | 1.50 | 1.50 | 2 |", r.stdout)
            r = run(sweep, "--begin", "0", "--end", "5")  # The window holds 3 jobs, not 5.
            self.assertEqual(r.returncode, 1)
            self.assertIn("3 jobs in the window [0, 5), expected 5", r.stderr)
            r = run(os.path.join(sweep, "nope"))
            self.assertEqual(r.returncode, 1)
            self.assertIn("results.csv: no such file", r.stderr)

    @unittest.skipUnless(os.environ.get("SCHEDKIT_CLI"), "needs SCHEDKIT_CLI")
    def test_a_real_sweep(self):
        with tempfile.TemporaryDirectory() as tmp:
            config = os.path.join(tmp, "g.toml")
            with open(config, "w") as f:
                f.write('clusters = ["gavel_36x3.csv"]\nseeds = [0, 1]\noverhead_s = 0\n'
                        '[workload]\njobs = 60\njobs_per_hour = [4.8]\ndurations = "gavel"\n'
                        '[[policy]]\nname = "gavel"\nlabel = "las-agnostic"\n'
                        'options = { objective = "max_min_fairness" }\n'
                        '[[policy]]\nname = "gavel"\nlabel = "las-gavel"\n')
            out = os.path.join(tmp, "out")
            r = subprocess.run([os.environ["SCHEDKIT_CLI"], "sweep", config, "--out", out,
                                "--threads", "1"], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            r = run(out, "--begin", "10", "--end", "40")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("| las-gavel | 4.8 | 2 |", r.stdout)
            self.assertIn("las at 4.8 jobs/h: agnostic / Gavel =", r.stdout)


if __name__ == "__main__":
    unittest.main()
