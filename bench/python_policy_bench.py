"""Cost of a Python scheduling key (docs/performance.md, "Python policies").

    PYTHONPATH=build/python /usr/bin/python3 bench/python_policy_bench.py TRACE [CLUSTER]

Runs the built-in `sjf` and the same rule as a Python key (identical schedules: tests/python/
test_simulate.py) three times each, alternating, with preemption never and priority, and prints
the simulator run times (summary wall_s), the decisions, the Python key calls (counted in a
separate run) and the extra time per decision and per key call (best of 3 against best of 3).
"""
import sys

import schedkit

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
