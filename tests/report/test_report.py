"""End-to-end test of `python3 -m schedkit_report` (docs/report.md) on sweeps run by the real CLI.

Environment: SCHEDKIT_CLI (default: build/schedkit of this checkout), SCHEDKIT_SKIP_BROWSER=1 to
skip the headless-Chromium rendering check when /usr/bin/chromium is missing (else it fails).
"""

import base64
import csv
import math
import os
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYTHON_DIR = ROOT / "python"
sys.path.insert(0, str(PYTHON_DIR))

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.image  # noqa: E402

from schedkit_report.stats import Estimate, format_estimate, mean_ci, paired_ratio, t975  # noqa: E402

CLI = os.environ.get("SCHEDKIT_CLI", str(ROOT / "build" / "schedkit"))
CHROMIUM = "/usr/bin/chromium"
T975_DF1 = 12.706204736  # Student t, 0.975 quantile, 1 degree of freedom

GENERATED_SWEEP = """
name = "report-test"
seeds = [1, 2]
overhead_s = 10
[workload]
jobs = 100
jobs_per_hour = [2, 4]
[[policy]]
name = "fifo"
[[policy]]
name = "srtf"
"""

# Issue 19: a trace sweep with one seed crashed the report (NaN error bars).
ONE_SEED_TRACE_SWEEP = f"""
name = "report-one-seed"
seeds = [0]
clusters = ["{ROOT / 'data/clusters/tiny.csv'}"]
[workload]
traces = ["{ROOT / 'data/traces/tiny.csv'}"]
[[policy]]
name = "fifo"
[[policy]]
name = "srtf"
"""

TRACE_SWEEP = f"""
name = "report-trace"
seeds = [1, 2]
clusters = ["{ROOT / 'data/clusters/tiny.csv'}"]
[workload]
traces = ["{ROOT / 'data/traces/tiny.csv'}"]
[[policy]]
name = "fifo"
[[policy]]
name = "tiresias"
[[policy]]
name = "themis"
"""


def run(*args, env_extra=None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(PYTHON_DIR), **(env_extra or {}))
    return subprocess.run(args, capture_output=True, text=True, timeout=120, env=env)


def sweep_and_report(tmp: Path, name: str, toml: str) -> Path:
    """Runs the sweep and the report; returns the sweep folder (report in SWEEP/report)."""
    config, out = tmp / f"{name}.toml", tmp / name
    config.write_text(toml)
    done = run(CLI, "sweep", str(config), "--out", str(out), "--threads", "2")
    if done.returncode != 0:
        raise AssertionError(f"schedkit sweep failed:\n{done.stderr}")
    done = run(sys.executable, "-m", "schedkit_report", str(out))
    if done.returncode != 0:
        raise AssertionError(f"schedkit_report failed:\n{done.stderr}")
    return out


def read_csv(path: Path) -> list[dict]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


class ReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not Path(CLI).is_file():
            raise unittest.SkipTest(f"no schedkit binary at {CLI} (set SCHEDKIT_CLI)")
        cls._tmp = tempfile.TemporaryDirectory(prefix="schedkit_report_test_")
        cls.tmp = Path(cls._tmp.name)
        cls.sweep = sweep_and_report(cls.tmp, "generated", GENERATED_SWEEP)
        cls.report = cls.sweep / "report"
        cls.html = (cls.report / "index.html").read_text(encoding="utf-8")
        cls.trace_report = sweep_and_report(cls.tmp, "traces", TRACE_SWEEP) / "report"
        cls.one_seed_report = sweep_and_report(cls.tmp, "one-seed", ONE_SEED_TRACE_SWEEP) / "report"

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def assert_figure(self, report: Path, name: str):
        png, pdf = report / "figures" / f"{name}.png", report / "figures" / f"{name}.pdf"
        self.assertTrue(png.is_file(), png)
        self.assertTrue(pdf.is_file(), pdf)
        self.assertTrue(pdf.read_bytes().startswith(b"%PDF"), pdf)
        self.assertGreater(pdf.stat().st_size, 5000, pdf)
        pixels = matplotlib.image.imread(png)[..., :3]
        self.assertGreater(min(pixels.shape[:2]), 300, png)
        self.assertGreater(pixels.std(), 0.05, f"{png} looks blank")

    def test_figures_of_a_generated_sweep(self):
        for name in ("jct_cdf", "avg_jct", "timeline"):
            with self.subTest(figure=name):
                self.assert_figure(self.report, name)
        # Generated jobs have no virtual cluster; neither fifo nor srtf writes ftf.csv.
        self.assertFalse((self.report / "figures" / "vc_jct.png").exists())
        self.assertFalse((self.report / "figures" / "ftf_cdf.png").exists())
        self.assertIn("Finish-time fairness CDF</b>: not shown, not applicable", self.html)

    def test_figures_of_a_trace_sweep(self):
        for name in ("jct_cdf", "avg_jct", "timeline", "vc_jct", "ftf_cdf"):
            with self.subTest(figure=name):
                self.assert_figure(self.trace_report, name)
        # Only themis measures finish-time fairness: its runs write ftf.csv, with rho = JCT /
        # isolated time for every finished job, and the figure's caption names only it.
        runs = self.trace_report.parent / "runs"
        for run_dir in sorted(runs.iterdir()):
            ftf = run_dir / "ftf.csv"
            self.assertEqual(ftf.exists(), run_dir.name.startswith("themis"), run_dir.name)
            if not ftf.exists():
                continue
            rows = read_csv(ftf)
            finished = [j for j in read_csv(run_dir / "jobs.csv") if j["outcome"] == "finished"]
            self.assertEqual(sorted(int(r["job_id"]) for r in rows),
                             sorted(int(j["job_id"]) for j in finished))
            jct = {j["job_id"]: float(j["jct_s"]) for j in finished}
            for r in rows:
                self.assertAlmostEqual(float(r["jct_s"]), jct[r["job_id"]], places=3)
                self.assertAlmostEqual(float(r["rho"]), float(r["jct_s"]) / float(r["isolated_s"]))
        html = (self.trace_report / "index.html").read_text(encoding="utf-8")
        self.assertIn("Only policies that write ftf.csv appear: themis:", html)

    def test_one_seed_trace_sweep(self):
        for name in ("jct_cdf", "avg_jct", "timeline"):
            with self.subTest(figure=name):
                self.assert_figure(self.one_seed_report, name)
        html = (self.one_seed_report / "index.html").read_text(encoding="utf-8")
        self.assertIn("± —", html)  # one seed: no interval, said so
        (row,) = read_csv(self.one_seed_report / "paired.csv")
        self.assertEqual((row["policy"], row["baseline"], row["n"]), ("srtf", "fifo", "1"))
        self.assertEqual(row["avg_jct_s_ci95_low"], "")

    def test_measured_window_limits_the_per_job_figures(self):
        # Issue 16: a summary over job ids 20-39 (measure_jobs); the CDF takes those jobs only.
        from schedkit_report.data import Sweep
        out = sweep_and_report(self.tmp, "window", GENERATED_SWEEP.replace(
            'overhead_s = 10', 'overhead_s = 10\nmeasure_jobs = [20, 39]'))
        sweep = Sweep(out)
        for r in sweep.runs:
            self.assertEqual(sweep.measured_jobs(r), (20, 39))
            ids = [int(j["job_id"]) for j in sweep.jobs(r)]
            self.assertEqual(ids, list(range(20, 40)))
            self.assertEqual(r.metrics["jobs"], 20)
        self.assertIn("fifo: 40", (out / "report" / "index.html").read_text(encoding="utf-8"))

    def test_paired_ratio_matches_hand_computation(self):
        results = read_csv(self.sweep / "results.csv")
        (row,) = [r for r in read_csv(self.report / "paired.csv") if r["jobs_per_hour"] == "4"]
        self.assertEqual((row["policy"], row["baseline"], row["n"]), ("srtf", "fifo", "2"))
        by = {(r["policy"], r["seed"]): float(r["avg_jct_s"]) for r in results
              if r["jobs_per_hour"] == "4"}
        logs = [math.log(by[("srtf", s)] / by[("fifo", s)]) for s in ("1", "2")]
        # n = 2: geometric mean exp((l1 + l2) / 2), half-width in logs t(1) * |l1 - l2| / 2.
        centre, half = sum(logs) / 2, T975_DF1 * abs(logs[0] - logs[1]) / 2
        self.assertAlmostEqual(float(row["avg_jct_s_ratio"]), math.exp(centre), delta=1e-12)
        self.assertAlmostEqual(float(row["avg_jct_s_ci95_low"]), math.exp(centre - half),
                               delta=1e-3 * math.exp(centre - half))
        self.assertAlmostEqual(float(row["avg_jct_s_ci95_high"]), math.exp(centre + half),
                               delta=1e-3 * math.exp(centre + half))
        self.assertEqual(int(row["avg_jct_s_wins"]),
                         sum(by[("srtf", s)] < by[("fifo", s)] for s in ("1", "2")))
        self.assertIn("Paired comparison against fifo", self.html)

    def test_paired_interval_excludes_one_when_a_policy_wins_on_every_seed(self):
        # Per-policy intervals overlap widely (the workloads differ a lot between seeds), but
        # the policy is 10 % +- 1 % better on each: the paired interval says so.
        base = {1: 100.0, 2: 300.0, 3: 200.0, 4: 500.0}
        better = {1: 89.0, 2: 273.0, 3: 181.0, 4: 452.0}
        r = paired_ratio(better, base)
        self.assertEqual((r.n, r.wins), (4, 4))
        self.assertLess(r.high, 1.0)
        self.assertGreater(r.low, 0.85)
        self.assertLess(mean_ci(better.values()).low, mean_ci(base.values()).high)

    def test_unknown_baseline_is_one_line_error(self):
        done = run(sys.executable, "-m", "schedkit_report", str(self.sweep), "--out",
                   str(self.tmp / "nobase"), "--baseline", "nope")
        self.assertEqual(done.returncode, 1)
        self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
        self.assertIn("--baseline 'nope': no such policy", done.stderr)

    def test_html_is_self_contained(self):
        self.assertIsNone(re.search(r"https?://", self.html, re.IGNORECASE))
        self.assertNotIn("<script", self.html)
        self.assertNotIn("<link", self.html)
        sources = re.findall(r'src="([^"]*)"', self.html)
        self.assertEqual(len(sources), 3)  # jct_cdf, avg_jct, timeline
        for src, name in zip(sources, ("jct_cdf", "avg_jct", "timeline")):
            prefix = "data:image/png;base64,"
            self.assertTrue(src.startswith(prefix), src[:40])
            self.assertEqual(base64.b64decode(src[len(prefix):]),
                             (self.report / "figures" / f"{name}.png").read_bytes())
        self.assertIn("Sweep report: generated", self.html)  # named after the folder
        self.assertIn("8 runs", self.html)

    def test_confidence_interval_matches_hand_computation(self):
        results = [r for r in read_csv(self.sweep / "results.csv")
                   if r["policy"] == "srtf" and r["jobs_per_hour"] == "4"]
        self.assertEqual(sorted(r["seed"] for r in results), ["1", "2"])
        (row,) = [r for r in read_csv(self.report / "aggregate.csv")
                  if r["policy"] == "srtf" and r["jobs_per_hour"] == "4"]
        self.assertEqual(row["n"], "2")
        for metric in ("avg_jct_s", "p99_jct_s", "makespan_s", "avg_slowdown", "p99_slowdown",
                       "gpu_utilization"):
            a, b = (float(r[metric]) for r in results)
            # n = 2: s = |a - b| / sqrt(2), half-width = t(1) * s / sqrt(2) = t(1) * |a - b| / 2.
            mean, half = (a + b) / 2, T975_DF1 * abs(a - b) / 2
            with self.subTest(metric=metric):
                self.assertAlmostEqual(float(row[f"{metric}_mean"]), mean, delta=1e-9 * abs(mean))
                # 1e-4: the built-in t table (used without scipy) has 3 decimals.
                self.assertAlmostEqual(float(row[f"{metric}_ci95"]), half,
                                       delta=1e-4 * half + 1e-12)
        a, b = (float(r["avg_jct_s"]) for r in results)
        cell = format_estimate(Estimate(2, (a + b) / 2, T975_DF1 * abs(a - b) / 2), 3600)
        self.assertIn(f"<td>{cell}</td>", self.html)

    def test_t_quantiles(self):
        self.assertAlmostEqual(t975(1), T975_DF1, places=2)
        self.assertAlmostEqual(t975(30), 2.042, places=3)
        self.assertAlmostEqual(t975(1000), 1.962, places=2)

    def test_bad_input_is_one_line_error(self):
        empty = self.tmp / "empty"
        empty.mkdir(exist_ok=True)
        cases = ((empty, "results.csv: missing"), (self.tmp / "absent", "no such folder"))
        for folder, message in cases:
            with self.subTest(folder=folder.name):
                done = run(sys.executable, "-m", "schedkit_report", str(folder))
                self.assertNotEqual(done.returncode, 0)
                lines = done.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, done.stderr)
                self.assertTrue(lines[0].startswith("schedkit report: "), lines[0])
                self.assertIn(message, lines[0])

    def test_schedkit_report_subcommand_forwards_arguments(self):
        out = self.tmp / "via-cli"
        done = run(CLI, "report", str(self.sweep), "--out", str(out),
                   env_extra={"SCHEDKIT_PYTHON_DIR": str(PYTHON_DIR)})
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertTrue((out / "index.html").is_file())

    def test_page_renders_in_headless_chromium(self):
        if not Path(CHROMIUM).exists():
            if os.environ.get("SCHEDKIT_SKIP_BROWSER") == "1":
                self.skipTest("no /usr/bin/chromium and SCHEDKIT_SKIP_BROWSER=1")
            self.fail("/usr/bin/chromium is missing: install the Debian package chromium "
                      "(scripts/setup.sh does) or set SCHEDKIT_SKIP_BROWSER=1")
        shot = self.tmp / "screenshot.png"
        done = run(CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                   f"--user-data-dir={self.tmp / 'chromium-profile'}", f"--screenshot={shot}",
                   "--window-size=1200,2000", (self.report / "index.html").as_uri())
        self.assertTrue(shot.is_file(), f"chromium wrote no screenshot:\n{done.stderr}")
        pixels = matplotlib.image.imread(shot)[..., :3]
        self.assertEqual(pixels.shape[:2], (2000, 1200))
        self.assertGreater(pixels.std(), 0.05, "the rendered page is blank")
        # Colour (not grey) covers > 0.1 % of the page only if the embedded figures were drawn:
        # the policy swatches alone cover about 0.02 %.
        colored = (pixels.max(axis=-1) - pixels.min(axis=-1)) > 0.2
        self.assertGreater(colored.mean(), 0.001, "no figure visible in the rendered page")


if __name__ == "__main__":
    unittest.main()
