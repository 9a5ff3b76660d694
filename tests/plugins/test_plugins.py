"""Policies as plugins, end to end (docs/write-a-policy.md).

schedkit is installed into a temporary prefix, examples/plugin is configured and built
against it with find_package (a fresh CMake project), and its policies run through
`policies`, `simulate`, `compare`, `sweep` and `serve` of the installed binary. Its
`example-sjf` re-implements the built-in `sjf`: their jobs.csv must be byte-identical.
Plugins that must be refused (tests/plugins/*_plugin.cc) are built in the tree.

Environment (set by ctest, cmake/plugin.cmake): SCHEDKIT_BUILD_DIR, SCHEDKIT_SOURCE_DIR,
SCHEDKIT_TEST_PLUGIN_DIR (the refused plugins), SCHEDKIT_CXX and SCHEDKIT_GENERATOR (the
compiler and CMake generator schedkit was built with), SCHEDKIT_WITH_RUNTIME (1 if `serve` is built).
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import serve_order  # noqa: E402  (tests/serve_order.py)

BUILD = Path(os.environ["SCHEDKIT_BUILD_DIR"])
SOURCE = Path(os.environ["SCHEDKIT_SOURCE_DIR"])
BAD_PLUGINS = Path(os.environ["SCHEDKIT_TEST_PLUGIN_DIR"])
CXX = os.environ.get("SCHEDKIT_CXX", "c++")
GENERATOR = os.environ.get("SCHEDKIT_GENERATOR", "Ninja")
WITH_RUNTIME = os.environ.get("SCHEDKIT_WITH_RUNTIME", "0") == "1"

TRACE = SOURCE / "data" / "traces" / "muri_trace3.csv"
CLUSTER = SOURCE / "data" / "clusters" / "muri_n8g8.csv"


def check(argv, **kwargs):
    """Runs argv; fails the test with its output if it exits non-zero."""
    p = subprocess.run([str(a) for a in argv], capture_output=True, text=True, **kwargs)
    if p.returncode != 0:
        raise AssertionError(f"{argv} exited {p.returncode}:\n{p.stdout}\n{p.stderr}")
    return p.stdout


class PluginTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmpdir = tempfile.TemporaryDirectory(prefix="schedkit-plugins-")
        cls.tmp = Path(cls.tmpdir.name)
        prefix = cls.tmp / "prefix"
        check(["cmake", "--install", BUILD, "--prefix", prefix])
        cls.cli = prefix / "bin" / "schedkit"
        build = cls.tmp / "build"
        check(["cmake", "-S", SOURCE / "examples" / "plugin", "-B", build, "-G", GENERATOR,
               f"-DCMAKE_PREFIX_PATH={prefix}", "-DCMAKE_BUILD_TYPE=Release",
               f"-DCMAKE_CXX_COMPILER={CXX}"])
        check(["cmake", "--build", build])
        cls.plugin = build / "libexample_policies.so"

    @classmethod
    def tearDownClass(cls):
        cls.tmpdir.cleanup()

    def schedkit(self, *args, cwd=None):
        return subprocess.run([str(self.cli)] + [str(a) for a in args], capture_output=True,
                              text=True, cwd=cwd)

    def simulate(self, out, *args):
        p = self.schedkit("simulate", "--trace", TRACE, "--cluster", CLUSTER, "--out", out, *args)
        self.assertEqual(p.returncode, 0, p.stderr)
        return (Path(out) / "jobs.csv").read_bytes()

    def assertRefused(self, args, message, cwd=None):
        """The command exits 1 with exactly one line on stderr, matching `message`."""
        p = self.schedkit(*args, cwd=cwd)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertEqual(p.stderr.count("\n"), 1, p.stderr)
        self.assertRegex(p.stderr, message)

    def test_policies_lists_the_plugins_modules_and_where_they_come_from(self):
        p = self.schedkit("policies", "--plugin", self.plugin)
        self.assertEqual(p.returncode, 0, p.stderr)
        for name in ("fewest-gpus", "example-sjf"):
            self.assertRegex(p.stdout, rf"\n  {name} +.*\(plugin {re.escape(str(self.plugin))}\)\n")
        builtin = re.search(r"\n  sjf +(.*)\n", p.stdout)
        self.assertIsNotNone(builtin, p.stdout)
        self.assertNotIn("(plugin", builtin.group(1))  # A built-in: no origin.
        self.assertNotIn("example-sjf", self.schedkit("policies").stdout)

    def test_simulate_a_plugin_policy_equals_the_builtin_with_the_same_rule(self):
        out = self.tmp / "simulate"
        builtin = self.simulate(out / "sjf", "--policy", "sjf")
        plugin = self.simulate(out / "example-sjf", "--plugin", self.plugin, "--policy", "example-sjf")
        self.assertEqual(builtin, plugin)
        # The options every ordering policy gets reach the plugin's too.
        builtin = self.simulate(out / "sjf-p", "--policy", "sjf", "--opt", "preemption=priority")
        plugin = self.simulate(out / "example-sjf-p", "--plugin", self.plugin,
                               "--policy", "example-sjf", "--opt", "preemption=priority")
        self.assertEqual(builtin, plugin)
        self.assertNotEqual(builtin, self.simulate(out / "sjf-never", "--policy", "sjf"))
        # The plugin's other rule is its own: another schedule than SJF's.
        fewest = self.simulate(out / "fewest", "--plugin", self.plugin, "--policy", "fewest-gpus")
        self.assertNotEqual(fewest, plugin)

    def test_the_page_shows_the_example_as_it_is(self):
        page = (SOURCE / "docs" / "write-a-policy.md").read_text()
        for name, fence in (("example_policies.cc", "cpp"), ("CMakeLists.txt", "cmake")):
            listing = (SOURCE / "examples" / "plugin" / name).read_text()
            if name == "CMakeLists.txt":  # The page shows it without its leading comment.
                listing = listing[listing.index("cmake_minimum_required"):]
            with self.subTest(file=name):
                self.assertIn(f"```{fence}\n{listing}```", page)

    def test_a_plugin_policy_needs_its_plugin(self):
        p = self.schedkit("simulate", "--policy", "example-sjf")
        self.assertEqual(p.returncode, 1)
        self.assertIn("example-sjf", p.stderr)

    def test_compare_runs_plugin_policies_beside_builtins(self):
        p = self.schedkit("compare", "--trace", TRACE, "--cluster", CLUSTER, "--plugin", self.plugin,
                          "--policies", "sjf,example-sjf,fewest-gpus")
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = {line.split()[0]: line.split()[1:] for line in p.stdout.splitlines()
                if line.split() and line.split()[0] in ("sjf", "example-sjf", "fewest-gpus")}
        self.assertEqual(set(rows), {"sjf", "example-sjf", "fewest-gpus"}, p.stdout)
        self.assertEqual(rows["sjf"], rows["example-sjf"])
        self.assertNotEqual(rows["sjf"], rows["fewest-gpus"])

    def test_sweep_loads_the_plugins_its_file_names_relative_to_the_file(self):
        folder = self.tmp / "sweep"
        folder.mkdir()
        rel = os.path.relpath(self.plugin, folder)
        (folder / "plugin.toml").write_text(f"""
name = "plugin"
plugins = ["{rel}"]
clusters = ["{CLUSTER}"]
[workload]
traces = ["{TRACE}"]
[[policy]]
name = "sjf"
[[policy]]
name = "example-sjf"
""")
        # From another folder: the plugin's path is the file's, not the working directory's.
        p = self.schedkit("sweep", folder / "plugin.toml", "--out", folder / "out", cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        runs = sorted((folder / "out" / "runs").iterdir())
        self.assertEqual([r.name.split("_")[0] for r in runs], ["example-sjf", "sjf"])
        self.assertEqual((runs[0] / "jobs.csv").read_bytes(), (runs[1] / "jobs.csv").read_bytes())
        builtin = self.simulate(self.tmp / "sweep-sjf", "--policy", "sjf")
        self.assertEqual((runs[1] / "jobs.csv").read_bytes(), builtin)

    def test_sweep_names_the_line_of_a_plugin_it_cannot_load(self):
        folder = self.tmp / "sweep-bad"
        folder.mkdir()
        (folder / "bad.toml").write_text('name = "bad"\nplugins = [\n  "missing.so",\n]\n'
                                         '[workload]\njobs_per_hour = [1]\n[[policy]]\nname = "sjf"\n')
        self.assertRefused(["sweep", folder / "bad.toml", "--out", folder / "out"],
                           rf"^schedkit: {re.escape(str(folder / 'bad.toml'))}:3: key 'plugins': "
                           rf"{re.escape(str(folder / 'missing.so'))}: no such plugin file\n$")

    def test_sweep_on_slurm_takes_plugins_from_the_file_only(self):
        sweep = self.tmp / "minimal.toml"
        sweep.write_text('name = "m"\n[workload]\njobs = 10\njobs_per_hour = [1]\n'
                         '[[policy]]\nname = "fifo"\n')
        self.assertRefused(["sweep", sweep, "--slurm", "--plugin", self.plugin],
                           r"--plugin with --slurm: name the plugins in the sweep file's `plugins` key")

    def test_loading_a_plugin_twice_loads_it_once(self):
        p = self.schedkit("policies", "--plugin", self.plugin, "--plugin", self.plugin)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.count("\n  example-sjf "), 1)

    def test_refused_plugins_say_why_in_one_line(self):
        garbage = self.tmp / "garbage.so"
        garbage.write_text("this is not a shared object\n" * 20)
        copy = self.tmp / "copy.so"
        shutil.copy(self.plugin, copy)
        plugin = re.escape(str(self.plugin))
        cases = [
            (self.tmp / "missing.so", r"missing\.so: no such plugin file"),
            (garbage, r"garbage\.so: cannot load: .*invalid ELF header"),
            (BAD_PLUGINS / "libschedkit_test_not_a_plugin.so",
             r"not_a_plugin\.so: not a schedkit plugin \(no symbol schedkit_plugin_abi"),
            (BAD_PLUGINS / "libschedkit_test_old_abi_plugin.so",
             r"old_abi_plugin\.so: built against 'schedkit 0\.0\.1 headers 0123456789abcdef', "
             r"this is 'schedkit [0-9.]+ headers [0-9a-f]{16}': rebuild the plugin"),
            (BAD_PLUGINS / "libschedkit_test_empty_plugin.so",
             r"empty_plugin\.so: registers nothing \(no policy, placement or admission\)"),
            (BAD_PLUGINS / "libschedkit_test_clash_plugin.so",
             r"clash_plugin\.so: policy 'fifo' is already registered by the built-ins"),
            (BAD_PLUGINS / "libschedkit_test_twice_plugin.so",
             r"twice_plugin\.so: 'twice' is registered twice"),
            (BAD_PLUGINS / "libschedkit_test_bad_name_plugin.so",
             r"bad_name_plugin\.so: admission name 'admit all': use 1\.\.64 letters, digits, "
             r"'-', '_' or '\.'"),
        ]
        for path, message in cases:
            for command in (["policies"], ["simulate", "--policy", "fifo"], ["compare"]):
                with self.subTest(plugin=path.name, command=command[0]):
                    self.assertRefused(command + ["--plugin", path], rf"^schedkit: .*{message}")
        # Two plugins with one name: the second is refused, naming the first.
        self.assertRefused(["policies", "--plugin", self.plugin, "--plugin", copy],
                           rf"^schedkit: {re.escape(str(copy))}: policy 'fewest-gpus' is already "
                           rf"registered by plugin {plugin}\n$")

    @unittest.skipUnless(WITH_RUNTIME, "schedkit built without the runtime (serve)")
    def test_serve_runs_a_plugin_policy(self):
        # SJF by the duration estimate: c (10 s) before b (100 s), which came first.
        order = serve_order.run_order(self, self.cli, ["--plugin", self.plugin], "example-sjf",
                                      self.tmp / "serve")
        self.assertEqual(order, "a\nc\nb\n")


if __name__ == "__main__":
    unittest.main()
