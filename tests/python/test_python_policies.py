"""Python policies in every command (docs/write-a-policy.md, "In Python").

A Python policy loaded with `--python MODULE:CLASS` (or a sweep file's `python` key) runs
in the embedded interpreter (libschedkit_pyembed.so) and must give the jobs.csv of the
built-in policy with the same rule, byte for byte: the whole-Policy FIFO of
examples/python_fifo.py against `fifo`, the SJF key of examples/python_policy.py against
`sjf`, in simulate, compare and sweep; `serve` runs them on real local processes; every
error is one line and exit status 1.
Needs SCHEDKIT_CLI=build/schedkit and PYTHONPATH=build/python (set by ctest);
SCHEDKIT_WITH_RUNTIME=1 when `serve` is built.
"""
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import schedkit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import serve_order  # noqa: E402  (tests/serve_order.py)

ROOT = Path(__file__).resolve().parents[2]
CLI = os.path.abspath(os.environ.get("SCHEDKIT_CLI", ROOT / "build" / "schedkit"))
WITH_RUNTIME = os.environ.get("SCHEDKIT_WITH_RUNTIME", "0") == "1"
TRACE = ROOT / "data" / "traces" / "muri_trace3.csv"
CLUSTER = ROOT / "data" / "clusters" / "muri_n8g8.csv"
FIFO = f"{ROOT / 'examples' / 'python_fifo.py'}:Fifo"
SJF = f"{ROOT / 'examples' / 'python_policy.py'}:ShortestJobFirst"

BAD = '''
import schedkit

class Boom(schedkit.Policy):
    def decide(self, view, events):
        if view.now > 1000:
            return 1 / 0

class BadKey(schedkit.SchedulingPolicy):
    def key(self, job, now):
        raise KeyError("no such model")

class Busy(schedkit.Policy):  # starts every job on GPU 0 of node 0
    def decide(self, view, events):
        d = schedkit.Decisions()
        for job in view.pending():
            d.start(job, schedkit.Placement.parse("n0:0"))
        return d

class Wrong(schedkit.Policy):
    def decide(self, view, events):
        return 5

class Ctor(schedkit.Policy):
    def __init__(self):
        raise RuntimeError("cannot build")

class Taken(schedkit.Policy):
    name = "fifo"

class Nothing:
    pass
'''


def run(*args, cwd=None):
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, cwd=cwd)


def check(*args, cwd=None):
    p = run(*args, cwd=cwd)
    if p.returncode != 0:
        raise AssertionError(f"{args} exited {p.returncode}:\n{p.stdout}\n{p.stderr}")
    return p.stdout


def read(path):
    return Path(path).read_bytes()


class PythonPoliciesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        cls.tmp = Path(cls._tmp.name)
        (cls.tmp / "bad.py").write_text(BAD)
        # 500 jobs at 2/h on 64 GPUs: queues form, and SJF with preemption=priority preempts.
        cls.gen500 = cls.tmp / "gen500.csv"
        check("generate", "--jobs", 500, "--jobs-per-hour", 2, "--seed", 3, "--out", cls.gen500)

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def simulate(self, out, *args, trace=TRACE):
        check("simulate", "--trace", trace, "--cluster", CLUSTER, "--out", out, *args)
        return read(Path(out) / "jobs.csv")

    def test_simulate_equals_the_builtin_with_the_same_rule(self):
        out = self.tmp / "simulate"
        self.assertEqual(self.simulate(out / "fifo", "--policy", "fifo"),
                         self.simulate(out / "py-fifo", "--python", FIFO, "--policy", "py-fifo"))
        self.assertEqual(self.simulate(out / "sjf", "--policy", "sjf"),
                         self.simulate(out / "py-sjf", "--python", SJF, "--policy", "py-sjf"))
        # The options of every ordering policy reach a Python key's too.
        p = ("--opt", "preemption=priority")
        builtin = self.simulate(out / "sjf-p", "--policy", "sjf", *p, trace=self.gen500)
        self.assertEqual(builtin, self.simulate(out / "py-sjf-p", "--python", SJF,
                                                "--policy", "py-sjf", *p, trace=self.gen500))
        self.assertNotEqual(builtin, self.simulate(out / "sjf-n", "--policy", "sjf",
                                                   trace=self.gen500))
        # The run's --placement reaches View.place: another placement, another schedule.
        self.assertEqual(
            self.simulate(out / "fifo-c", "--policy", "fifo", "--placement", "first-fit",
                          trace=self.gen500),
            self.simulate(out / "py-fifo-c", "--python", FIFO, "--policy", "py-fifo",
                          "--placement", "first-fit", trace=self.gen500))

    def test_compare_gives_the_builtins_rows(self):
        out = self.tmp / "compare"
        stdout = check("compare", "--trace", TRACE, "--cluster", CLUSTER, "--python", FIFO,
                       "--python", SJF, "--policies", "fifo,py-fifo,sjf,py-sjf", "--threads", 4,
                       "--out", out)
        rows = {line.split()[0]: line.split()[1:] for line in stdout.splitlines()[1:]}
        self.assertEqual(rows["fifo"], rows["py-fifo"])
        self.assertEqual(rows["sjf"], rows["py-sjf"])
        self.assertNotEqual(rows["fifo"], rows["sjf"])
        for name in ("fifo", "sjf"):
            self.assertEqual(read(out / name / "jobs.csv"), read(out / f"py-{name}" / "jobs.csv"))
        with open(out / "comparison.csv") as f:
            table = {r["policy"]: r for r in csv.DictReader(f)}
        for name in ("fifo", "sjf"):
            mine, builtin = dict(table[f"py-{name}"]), dict(table[name])
            for row in (mine, builtin):
                del row["policy"], row["wall_s"]
            self.assertEqual(mine, builtin)

    def test_sweep_loads_the_python_its_file_names_and_threads_change_nothing(self):
        folder = self.tmp / "sweep"
        folder.mkdir()
        # A module name, found in the sweep file's folder; a file, relative to it.
        shutil.copy(ROOT / "examples" / "python_fifo.py", folder / "my_fifo.py")
        sjf_file = os.path.relpath(ROOT / "examples" / "python_policy.py", folder)
        (folder / "py.toml").write_text(f"""
name = "py"
python = ["my_fifo:Fifo", "{sjf_file}:ShortestJobFirst"]
clusters = ["{CLUSTER}"]
seeds = [1, 2]
[workload]
traces = ["{TRACE}", "{self.gen500}"]
[[policy]]
name = "fifo"
[[policy]]
name = "py-fifo"
[[policy]]
name = "sjf"
[[policy]]
name = "py-sjf"
options = {{ preemption = "never" }}
""")
        results = {}
        for threads in (1, 4):
            out = self.tmp / f"sweep-{threads}"
            # The file the sweep names, also named on the command line: loaded once.
            also = ["--python", SJF] if threads == 1 else []
            check("sweep", folder / "py.toml", "--out", out, "--threads", threads, *also,
                  cwd=self.tmp)
            runs = sorted(p.name for p in (out / "runs").iterdir())
            self.assertEqual(len(runs), 16, runs)
            for run_id in runs:
                if run_id.startswith("py-"):
                    self.assertEqual(read(out / "runs" / run_id / "jobs.csv"),
                                     read(out / "runs" / run_id[3:] / "jobs.csv"), run_id)
            with open(out / "results.csv") as f:
                results[threads] = [{k: v for k, v in r.items() if k != "wall_s"}
                                    for r in csv.DictReader(f)]
        self.assertEqual(results[1], results[4])

    def one_line_error(self, p, *expected):
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)
        self.assertTrue(p.stderr.startswith("schedkit: "), p.stderr)
        for text in expected:
            self.assertIn(text, p.stderr)

    def test_errors_are_one_line(self):
        bad = self.tmp / "bad.py"
        sim = ("simulate", "--trace", TRACE, "--cluster", CLUSTER)
        self.one_line_error(run(*sim, "--python", "no_such_module:X", "--policy", "X"),
                            "no_such_module:X: ModuleNotFoundError: No module named 'no_such_module'")
        self.one_line_error(run(*sim, "--python", f"{bad}:Missing", "--policy", "Missing"),
                            f"{bad}:Missing: module", "has no class 'Missing'")
        self.one_line_error(run(*sim, "--python", "nowhere/p.py:X", "--policy", "X"),
                            "nowhere/p.py:X: no such Python file")
        self.one_line_error(run(*sim, "--python", "bad", "--policy", "X"), "expected MODULE:CLASS")
        self.one_line_error(run(*sim, "--python", f"{bad}:Nothing", "--policy", "Nothing"),
                            "TypeError", "key(job, now) or decide(view, events)")
        self.one_line_error(run(*sim, "--python", f"{bad}:Taken", "--policy", "fifo"),
                            "policy 'fifo' is already registered by the built-ins")
        # Raised during the run: the run ends with the exception's last traceback line.
        for cls, text in (("Boom", "Boom: ZeroDivisionError: division by zero"),
                          ("BadKey", "BadKey: KeyError: 'no such model'"),
                          ("Wrong", "Wrong: TypeError: Wrong.decide(view, events): returned 5"),
                          ("Ctor", "Ctor: creating the policy object: RuntimeError: cannot build")):
            with self.subTest(cls=cls):
                self.one_line_error(run(*sim, "--python", f"{bad}:{cls}", "--policy", cls), text)
        # A decision the engine refuses: the engine's error.
        self.one_line_error(run(*sim, "--python", f"{bad}:Busy", "--policy", "Busy"),
                            "Busy: decision at t=", "asks for")
        # In compare, the failing run is named.
        self.one_line_error(run("compare", "--trace", TRACE, "--cluster", CLUSTER, "--python",
                                f"{bad}:Boom", "--policies", "fifo,Boom"), "Boom: ", "ZeroDivision")
        # In a sweep file, at its line.
        sweep = self.tmp / "bad.toml"
        sweep.write_text('name = "bad"\npython = [\n  "no_such_module:X",\n]\n'
                         '[workload]\njobs_per_hour = [1]\n[[policy]]\nname = "fifo"\n')
        self.one_line_error(run("sweep", sweep, "--out", self.tmp / "bad-sweep"),
                            f"{sweep}:3: key 'python': no_such_module:X: ModuleNotFoundError")
        # Slurm's array tasks load only the file's python key.
        good = self.tmp / "good.toml"
        good.write_text('[workload]\njobs_per_hour = [1]\n[[policy]]\nname = "fifo"\n')
        self.one_line_error(run("sweep", good, "--slurm", "--python", FIFO),
                            "--python with --slurm: name the Python policies in the sweep file's")

    def test_what_a_policy_prints_comes_out(self):
        (self.tmp / "chatty.py").write_text(
            "import sys\nfrom python_fifo import Fifo\n\n"
            "class Chatty(Fifo):\n"
            "    name = 'chatty'\n"
            "    def decide(self, view, events):\n"
            "        if not hasattr(self, 'said'):\n"
            "            self.said = True\n"
            "            print('hello from decide')\n"
            "            print('and stderr', file=sys.stderr)\n"
            "        return super().decide(view, events)\n")
        # PYTHONPATH reaches the embedded interpreter: chatty.py imports the example.
        env = dict(os.environ, PYTHONPATH=str(ROOT / "examples"))
        p = subprocess.run([CLI, "simulate", "--trace", TRACE, "--cluster", CLUSTER, "--python",
                            f"{self.tmp / 'chatty.py'}:Chatty", "--policy", "chatty"],
                           capture_output=True, text=True, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("hello from decide\n", p.stdout)
        self.assertIn("policy chatty", p.stdout)
        self.assertIn("and stderr\n", p.stderr)

    @unittest.skipUnless(shutil.which("ldd"), "no ldd")
    def test_the_command_does_not_link_libpython(self):
        # The interpreter comes with libschedkit_pyembed.so, opened only for --python.
        linked = subprocess.run(["ldd", CLI], capture_output=True, text=True, check=True).stdout
        self.assertNotIn("libpython", linked)
        embed = Path(CLI).parent / "libschedkit_pyembed.so"
        self.assertIn("libpython", subprocess.run(["ldd", embed], capture_output=True, text=True,
                                                  check=True).stdout)

    def test_policies_lists_python_policies_with_their_origin(self):
        out = check("policies", "--python", FIFO, "--python", SJF)
        self.assertIn(f"py-fifo           Python policy py-fifo (decide) (plugin python {FIFO})", out)
        self.assertIn(f"(plugin python {SJF})", out)
        self.assertIn("admission: none (admits jobs itself)", out)

    @unittest.skipUnless(WITH_RUNTIME, "schedkit built without the runtime (serve)")
    def test_serve_runs_python_policies_on_real_processes(self):
        # FIFO runs b before c; SJF (by the duration estimate) c (10 s) before b (100 s).
        for spec, name, order in ((FIFO, "py-fifo", "a\nb\nc\n"), (SJF, "py-sjf", "a\nc\nb\n")):
            with self.subTest(policy=name):
                self.assertEqual(serve_order.run_order(self, CLI, ["--python", spec], name,
                                                       self.tmp / f"serve-{name}"), order)


class InPythonTest(unittest.TestCase):
    """The same policies through schedkit.simulate, in this interpreter."""

    def test_the_fifo_example_runs_and_equals_fifo(self):
        p = subprocess.run(["/usr/bin/python3", "examples/python_fifo.py"], cwd=ROOT,
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("python FIFO == built-in fifo: True", p.stdout)

    def test_the_page_shows_the_fifo_example_as_it_is(self):
        page = (ROOT / "docs" / "write-a-policy.md").read_text()
        listing = (ROOT / "examples" / "python_fifo.py").read_text()
        self.assertTrue(f"```python\n{listing}```" in page, "the page's listing differs")

    def test_errors_in_decide_reach_the_caller(self):
        ns = {}
        exec(BAD, ns)
        run = lambda policy: schedkit.simulate(trace=str(TRACE), cluster=str(CLUSTER), policy=policy)
        with self.assertRaises(ZeroDivisionError):
            run(ns["Boom"]())
        with self.assertRaisesRegex(ValueError, "Busy: decision at t=.*asks for"):
            run(ns["Busy"])  # A class: called for the run.
        with self.assertRaisesRegex(TypeError, "return a schedkit.Decisions or None"):
            run(ns["Wrong"]())

    def test_reject_preempt_and_wake_at_are_applied(self):
        class Picky(schedkit.Policy):
            """FIFO that rejects jobs of 8 GPUs or more and, woken every hour, preempts the
            running job that started last."""

            def decide(self, view, events):
                d = schedkit.Decisions()
                rejected = set()
                for j in events.arrived:
                    if view.job(j).gpus >= 8:
                        d.reject(j, "too wide")
                        rejected.add(j)
                running = view.running()
                if events.woken and running:
                    d.preempt(max(running, key=lambda j: (view.job(j).first_start_s, j)))
                free = view.free()
                with self_test.assertRaises(IndexError):
                    free.free_gpus(free.num_nodes)
                for j in view.pending():
                    p = view.place(j, free) if j not in rejected else None
                    if p:
                        free.allocate(p)
                        d.start(j, p)
                if running or view.pending():  # Asked forever, wake-ups never end the run.
                    d.wake_at = view.now + 3600
                return d

        self_test = self
        res = schedkit.simulate(trace=str(TRACE), cluster=str(CLUSTER), policy=Picky)
        wide = res.jobs["gpus"] >= 8
        self.assertGreater(wide.sum(), 0)
        self.assertTrue(all(o == "rejected" for o in res.jobs["outcome"][wide]))
        self.assertTrue(all(o == "finished" for o in res.jobs["outcome"][~wide]))
        self.assertEqual(res.summary["rejected"], wide.sum())
        self.assertGreater(res.summary["preemptions"], 0)

    def test_view_and_jobs_are_valid_only_during_decide(self):
        class Keeper(schedkit.Policy):
            def decide(self, view, events):
                self.view = view
                for j in events.arrived:
                    job = view.job(j)
                    assert job.state == "pending" and job.gpus > 0 and not job.placement
                    self.job = job

        keeper = Keeper()
        schedkit.simulate(trace=str(TRACE), cluster=str(CLUSTER), policy=keeper)
        with self.assertRaisesRegex(ValueError, "valid only during"):
            keeper.view.now
        with self.assertRaisesRegex(ValueError, "valid only during"):
            keeper.job.gpus


if __name__ == "__main__":
    unittest.main()
