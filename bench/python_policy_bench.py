"""Cost of Python policies (docs/performance.md, "Python policies").

    PYTHONPATH=build/python /usr/bin/python3 bench/python_policy_bench.py TRACE [CLUSTER]

Runs the built-in `sjf` and the same rule as a Python key (identical schedules: tests/python/
test_simulate.py) three times each, alternating, with preemption never and priority, and prints
the simulator run times (summary wall_s), the decisions, the Python key calls (counted in a
separate run) and the extra time per decision and per key call (best of 3 against best of 3).
Then the same for the built-in `fifo` and the whole-Policy FIFO of examples/python_fifo.py
(identical schedules: tests/python/test_python_policies.py), once through schedkit.simulate
and once through the CLI's embedded interpreter (`schedkit simulate --python ...`, its
summary.json wall_s, and the whole command's time, interpreter start included);
$SCHEDKIT_CLI names the command (default build/schedkit).
"""
import json
import os
import subprocess
import sys
import tempfile
import time

import schedkit

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
from python_fifo import Fifo  # noqa: E402

TRACE = sys.argv[1]
CLUSTER = sys.argv[2] if len(sys.argv) > 2 else "data/clusters/muri_n8g8.csv"


class PySjf(schedkit.SchedulingPolicy):
    def key(self, job, now):
        return (job.solo_s,)


class CountingSjf(PySjf):
    calls = 0

    def key(self, job, now):
        CountingSjf.calls += 1
        return (job.solo_s,)


for preemption in ("never", "priority"):
    opts = {"preemption": preemption}
    CountingSjf.calls = 0
    schedkit.simulate(trace=TRACE, cluster=CLUSTER, policy=CountingSjf(), options=opts)
    builtin, python = [], []
    for _ in range(3):
        b = schedkit.simulate(trace=TRACE, cluster=CLUSTER, policy="sjf", options=opts).summary
        p = schedkit.simulate(trace=TRACE, cluster=CLUSTER, policy=PySjf(), options=opts).summary
        builtin.append(b["wall_s"])
        python.append(p["wall_s"])
    extra = min(python) - min(builtin)
    print(f"preemption={preemption}: {b['decisions']} decisions, {CountingSjf.calls} key calls; "
          f"sjf {' / '.join(f'{t:.3f}' for t in builtin)} s, "
          f"python {' / '.join(f'{t:.3f}' for t in python)} s; "
          f"+{extra / b['decisions'] * 1e6:.1f} us per decision, "
          f"{extra / CountingSjf.calls * 1e6:.2f} us per key call")


def cli_run(policy, *args):
    """(summary wall_s, the command's own wall time) of one `schedkit simulate`."""
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        subprocess.run([os.environ.get("SCHEDKIT_CLI", "build/schedkit"), "simulate", "--trace",
                        TRACE, "--cluster", CLUSTER, "--policy", policy, "--out", out, *args],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        command = time.perf_counter() - start
        with open(os.path.join(out, "summary.json")) as f:
            return json.load(f)["wall_s"], command


FIFO_SPEC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples",
                         "python_fifo.py") + ":Fifo"
builtin, python, cli_builtin, cli_python = [], [], [], []
for _ in range(3):
    b = schedkit.simulate(trace=TRACE, cluster=CLUSTER, policy="fifo").summary
    p = schedkit.simulate(trace=TRACE, cluster=CLUSTER, policy=Fifo()).summary
    builtin.append(b["wall_s"])
    python.append(p["wall_s"])
    cli_builtin.append(cli_run("fifo"))
    cli_python.append(cli_run("py-fifo", "--python", FIFO_SPEC))
d = b["decisions"]
extra = min(python) - min(builtin)
cli_extra = min(t for t, _ in cli_python) - min(t for t, _ in cli_builtin)
print(f"fifo vs Python Policy FIFO: {d} decisions; schedkit.simulate: fifo "
      f"{' / '.join(f'{t:.3f}' for t in builtin)} s, python {' / '.join(f'{t:.3f}' for t in python)} s, "
      f"+{extra / d * 1e6:.1f} us per decision")
print(f"  CLI (embedded): fifo {' / '.join(f'{t:.3f}' for t, _ in cli_builtin)} s, python "
      f"{' / '.join(f'{t:.3f}' for t, _ in cli_python)} s, +{cli_extra / d * 1e6:.1f} us per decision; "
      f"whole command: fifo {min(c for _, c in cli_builtin):.3f} s, "
      f"python {min(c for _, c in cli_python):.3f} s (best of 3)")
