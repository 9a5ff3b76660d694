"""schedkit.simulate and Python scheduling keys (docs/write-a-policy.md, "In Python").

Every comparison is against the CLI's own files (`schedkit simulate --out`), run here on
the same inputs: built-in policies must give the CLI's numbers, and a Python key with the
rule of a built-in policy must give its jobs.csv byte for byte.
Needs PYTHONPATH=build/python and SCHEDKIT_CLI=build/schedkit (set by ctest).
"""
import csv
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

import schedkit

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.environ.get("SCHEDKIT_CLI", os.path.join(ROOT, "build", "schedkit"))
TINY_TRACE = os.path.join(ROOT, "data", "traces", "tiny.csv")
TINY_CLUSTER = os.path.join(ROOT, "data", "clusters", "tiny.csv")
CLUSTER_64 = os.path.join(ROOT, "data", "clusters", "muri_n8g8.csv")
EXAMPLE = os.path.join(ROOT, "examples", "python_policy.py")


class PySjf(schedkit.SchedulingPolicy):
    """Built-in sjf's rule: total solo runtime, shortest first."""

    def key(self, job, now):
        return (job.solo_s,)


class PyLas(schedkit.SchedulingPolicy):
    """Built-in las's rule: least attained GPU-seconds, re-examined every 300 s of a run."""
    default_preemption = "priority"

    def key(self, job, now):
        return (job.attained_gpu_s,)

    def next_key_change(self, job, now):
        return now + 300


class PyLasNoQuantum(PyLas):
    next_key_change = None  # only arrivals and completions re-examine the order


class LongestFirst(schedkit.SchedulingPolicy):
    def key(self, job, now):
        return -job.solo_s


def cli_run(out, trace, cluster, policy, opts=()):
    args = [CLI, "simulate", "--trace", trace, "--cluster", cluster, "--policy", policy,
            "--out", out]
    for o in opts:
        args += ["--opt", o]
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def read(path):
    with open(path, "rb") as f:
        return f.read()


class SimulateTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.gen500 = os.path.join(cls.tmp.name, "gen500.csv")
        # 500 jobs at 2/h on 64 GPUs (offered load about 1: queues form in bursts, so the
        # order matters, and SJF with preemption=priority preempts 434 times).
        subprocess.run([CLI, "generate", "--jobs", "500", "--jobs-per-hour", "2", "--seed", "3",
                        "--out", cls.gen500], check=True, stdout=subprocess.DEVNULL)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def dir(self, name):
        d = os.path.join(self.tmp.name, self.id().rsplit(".", 1)[-1] + "_" + name)
        os.makedirs(d, exist_ok=True)
        return d

    def check_same_as_cli(self, trace, cluster, policy, options):
        cli = self.dir("cli_" + policy)
        cli_run(cli, trace, cluster, policy, [f"{k}={v}" for k, v in options.items()])
        res = schedkit.simulate(trace=trace, cluster=cluster, policy=policy, options=options)
        with open(os.path.join(cli, "summary.json")) as f:
            summary = json.load(f)
        run = summary.pop("run")
        self.assertEqual(res.run, run)
        self.assertEqual(list(res.summary), list(summary))  # every statistic, same order
        for k, v in summary.items():
            if k != "wall_s":  # the simulator's own run time
                self.assertEqual(res.summary[k], v, k)
        with open(os.path.join(cli, "jobs.csv")) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(list(res.jobs), list(rows[0]))  # jobs.csv's columns, in order
        self.assertEqual(len(res.jobs["job_id"]), len(rows))
        for col, values in res.jobs.items():
            for i, row in enumerate(rows):
                v = values[i]
                if isinstance(v, str):
                    text = v
                elif isinstance(v, float) and math.isnan(v):
                    text = ""
                elif values.dtype.kind == "f":
                    text = "%.6f" % v
                else:
                    text = str(int(v))
                self.assertEqual(text, row[col], f"{col} of job {row['job_id']}")
        return res

    def test_builtin_policies_match_cli(self):
        self.check_same_as_cli(TINY_TRACE, TINY_CLUSTER, "fifo", {})
        res = self.check_same_as_cli(self.gen500, CLUSTER_64, "las", {"preemption": "priority"})
        self.assertGreater(res.summary["preemptions"], 0)  # the preemption path ran

    def test_engine_flags_match_cli(self):
        cli, py = self.dir("cli"), self.dir("py")
        subprocess.run([CLI, "simulate", "--trace", self.gen500, "--cluster", CLUSTER_64,
                        "--policy", "sjf", "--opt", "preemption=priority", "--overhead-s", "0",
                        "--runtime-factor", "1.5", "--out", cli],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        res = schedkit.simulate(trace=self.gen500, cluster=CLUSTER_64, policy=PySjf(),
                                options={"preemption": "priority"}, overhead_s=0,
                                runtime_factor=1.5, out=py)
        self.assertEqual(read(os.path.join(py, "jobs.csv")), read(os.path.join(cli, "jobs.csv")))
        self.assertEqual(res.run["runtime_factor"], "1.5")
        default = schedkit.simulate(trace=self.gen500, cluster=CLUSTER_64, policy="sjf",
                                    options={"preemption": "priority"})
        self.assertNotEqual(list(res.jobs["end_s"]), list(default.jobs["end_s"]))
        with self.assertRaisesRegex(ValueError, "overhead_s"):
            schedkit.simulate(trace=TINY_TRACE, cluster=TINY_CLUSTER, overhead_s=-1)
        with self.assertRaisesRegex(ValueError, "runtime_factor"):
            schedkit.simulate(trace=TINY_TRACE, cluster=TINY_CLUSTER, runtime_factor=0)

    def test_out_writes_the_cli_files(self):
        cli, py = self.dir("cli"), self.dir("py")
        cli_run(cli, TINY_TRACE, TINY_CLUSTER, "sjf")
        schedkit.simulate(trace=TINY_TRACE, cluster=TINY_CLUSTER, policy="sjf", out=py)
        for name in ("jobs.csv", "timeseries.csv"):
            self.assertEqual(read(os.path.join(py, name)), read(os.path.join(cli, name)), name)

    def test_python_sjf_equals_builtin_sjf(self):
        for trace, cluster in ((TINY_TRACE, TINY_CLUSTER), (self.gen500, CLUSTER_64)):
            for preemption in ("never", "priority"):
                with self.subTest(trace=os.path.basename(trace), preemption=preemption):
                    cli, py = self.dir("cli"), self.dir("py")
                    cli_run(cli, trace, cluster, "sjf", [f"preemption={preemption}"])
                    res = schedkit.simulate(trace=trace, cluster=cluster, policy=PySjf(),
                                            options={"preemption": preemption}, out=py)
                    self.assertEqual(read(os.path.join(py, "jobs.csv")),
                                     read(os.path.join(cli, "jobs.csv")))
                    self.assertEqual(res.run["policy"], "PySjf")
                    if trace == self.gen500:
                        self.assertGreater(res.summary["avg_queue_s"], 0)
                        if preemption == "priority":
                            self.assertGreater(res.summary["preemptions"], 0)

    def test_python_las_equals_builtin_las(self):
        # A key that changes while jobs run, and next_key_change waking the policy: built-in
        # las declares periodic_key_changes and is woken less often (4,122 decisions against
        # 27,031 on the 150-job trace), which must not change a single decision's outcome.
        gen150 = os.path.join(self.tmp.name, "gen150.csv")
        subprocess.run([CLI, "generate", "--jobs", "150", "--jobs-per-hour", "4", "--seed", "3",
                        "--out", gen150], check=True, stdout=subprocess.DEVNULL)
        for trace, cluster in ((TINY_TRACE, TINY_CLUSTER), (gen150, CLUSTER_64)):
            for policy, quantum in ((PyLas(), "300"), (PyLasNoQuantum(), "0")):
                with self.subTest(trace=os.path.basename(trace), quantum=quantum):
                    cli, py = self.dir("cli"), self.dir("py")
                    cli_run(cli, trace, cluster, "las", [f"quantum_s={quantum}"])
                    res = schedkit.simulate(trace=trace, cluster=cluster, policy=policy, out=py)
                    self.assertEqual(read(os.path.join(py, "jobs.csv")),
                                     read(os.path.join(cli, "jobs.csv")))
                    self.assertGreater(res.summary["preemptions"], 0)

    def test_the_key_decides(self):
        # The same comparison fails for another rule: the Python key is what orders jobs.
        cli, py = self.dir("cli"), self.dir("py")
        cli_run(cli, self.gen500, CLUSTER_64, "sjf")
        schedkit.simulate(trace=self.gen500, cluster=CLUSTER_64, policy=LongestFirst(), out=py)
        self.assertNotEqual(read(os.path.join(py, "jobs.csv")), read(os.path.join(cli, "jobs.csv")))

    def test_any_object_with_key(self):
        class Plain:
            name = "plain-sjf"
            default_placement = "best-fit"

            def key(self, job, now):
                return job.solo_s

        a = schedkit.simulate(trace=self.gen500, cluster=CLUSTER_64, policy=Plain())
        b = schedkit.simulate(trace=self.gen500, cluster=CLUSTER_64, policy="sjf")
        self.assertEqual(a.run["policy"], "plain-sjf")
        for col in ("end_s", "placement"):
            self.assertEqual(list(a.jobs[col]), list(b.jobs[col]))

    def test_job_fields_and_lifetime(self):
        seen = []

        class Spy(schedkit.SchedulingPolicy):
            def key(self, job, now):
                seen.append((job.id, job.gpus, job.submit_s, job.solo_s, job.user, job.running))
                self.last = job
                return job.submit_s

        spy = Spy()
        schedkit.simulate(trace=TINY_TRACE, cluster=TINY_CLUSTER, policy=spy)
        # tiny.csv's job 1: 2 GPUs at 0 s, 1000 iterations x 0.5 s, user bob.
        self.assertIn((1, 2, 0.0, 500.0, "bob", False), seen)
        with self.assertRaisesRegex(ValueError, "valid only during the key"):
            spy.last.id

    def test_errors(self):
        class TooLong(schedkit.SchedulingPolicy):
            def key(self, job, now):
                return (1, 2, 3, 4)

        class Raises(schedkit.SchedulingPolicy):
            def key(self, job, now):
                raise KeyError("no such model")

        class Builtin(schedkit.SchedulingPolicy):
            name = "sjf"

            def key(self, job, now):
                return 0

        class Backwards(PyLas):
            def next_key_change(self, job, now):
                return now

        run = lambda p, **kw: schedkit.simulate(trace=TINY_TRACE, cluster=TINY_CLUSTER, policy=p,
                                                **kw)
        with self.assertRaisesRegex(ValueError, r"TooLong.key\(job \d+\): returned 4 values"):
            run(TooLong())
        with self.assertRaisesRegex(ValueError,
                                    r"Backwards.next_key_change\(job \d+\).*not a time after now"):
            run(Backwards())
        with self.assertRaisesRegex(KeyError, "no such model"):
            run(Raises())
        with self.assertRaisesRegex(ValueError, "name is a built-in policy's"):
            run(Builtin())
        with self.assertRaisesRegex(TypeError, "key\\(job, now\\)"):
            run(object())
        with self.assertRaisesRegex(ValueError, "preemption"):
            run(PySjf(), options={"preemption": "sometimes"})
        with self.assertRaisesRegex(ValueError, "no-such-policy"):
            run("no-such-policy")
        with self.assertRaisesRegex(ValueError, "missing.csv"):
            schedkit.simulate(trace="missing.csv", cluster=TINY_CLUSTER)

    def test_to_pandas(self):
        res = schedkit.simulate(trace=TINY_TRACE, cluster=TINY_CLUSTER, policy="fifo")
        try:
            import pandas  # noqa: F401
        except ImportError:
            with self.assertRaises(ImportError):
                res.to_pandas()
            return
        df = res.to_pandas()
        self.assertEqual(list(df.columns), list(res.jobs))
        self.assertEqual(len(df), len(res.jobs["job_id"]))

    def test_docs_example_runs(self):
        # The example shown in docs/write-a-policy.md, run as a user would.
        out = subprocess.run([sys.executable, EXAMPLE], check=True, capture_output=True, text=True,
                             cwd=ROOT).stdout
        self.assertIn("python SJF == built-in sjf: True", out)
        with open(os.path.join(ROOT, "docs", "write-a-policy.md")) as f:
            page = f.read()
        listing = page.split("## In Python", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
        with open(EXAMPLE) as f:
            self.assertEqual(listing, f.read(), "docs/write-a-policy.md's example is stale")


if __name__ == "__main__":
    unittest.main()
