"""scripts/fgd_figure.py: the allocation-against-arrival SVG from `schedkit fgd run --out`."""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "fgd_figure.py")
HEADER = "policy,seed,pods_arrived,pods_placed,arrived_gpu_pct,allocated_gpu_pct,frag_gpu_pct\n"


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


class FgdFigureTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def write(self, text):
        with open(os.path.join(self.dir, "curve.csv"), "w") as f:
            f.write(text)

    def test_one_line_per_policy_with_the_mean_over_seeds(self):
        self.write(HEADER +
                   "fgd,1,1,1,1.5,1.5,3.0\nfgd,1,2,2,2.5,2.0,3.0\n"
                   "fgd,2,1,1,1.2,1.0,3.0\nfgd,2,2,2,2.2,2.0,3.0\n"
                   "random,1,1,1,1.0,1.0,3.0\nrandom,1,2,1,2.0,1.0,3.0\n")
        r = run(self.dir)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.dir, "allocation.svg")) as f:
            first = f.read()
        self.assertEqual(first.count("<polyline"), 2)
        # fgd at 2 % arrived: mean of 2.0 and 2.0; at 1 %: mean of 1.5 and 1.0.
        self.assertIn("fgd (2.00)", first)
        self.assertIn("random (1.00)", first)
        self.assertEqual(run(self.dir).returncode, 0)
        with open(os.path.join(self.dir, "allocation.svg")) as f:
            self.assertEqual(f.read(), first)  # Byte-identical.

    def test_bad_input_is_one_line_naming_the_file_and_line(self):
        self.write(HEADER + "fgd,1,1,1,x,1.0,3.0\n")
        r = run(self.dir)
        self.assertEqual(r.returncode, 1)
        self.assertIn("curve.csv:2: arrived/allocated is not a number", r.stderr)
        self.assertEqual(r.stderr.count("\n"), 1)
        self.write("policy,seed\n")
        self.assertIn("curve.csv:1: expected the header", run(self.dir).stderr)
        r = run(os.path.join(self.dir, "missing"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot read", r.stderr)


if __name__ == "__main__":
    unittest.main()
