"""A scheduling policy written in Python (docs/write-a-policy.md, "In Python").

    PYTHONPATH=build/python /usr/bin/python3 examples/python_policy.py

Shortest job first as a Python key; schedkit's built-in admission, placement (best-fit) and
preemption modules do the rest. It runs the shipped Muri trace and checks that the schedule
equals the built-in `sjf`'s job for job.
"""
import numpy as np

import schedkit

TRACE, CLUSTER = "data/traces/muri_trace3.csv", "data/clusters/muri_n8g8.csv"


class ShortestJobFirst(schedkit.SchedulingPolicy):
    name = "py-sjf"
    default_placement = "best-fit"
    default_preemption = "never"  # options={"preemption": "priority"} turns it on

    def key(self, job, now):
        # Lower runs first; ties go by (submit time, job id). A waiting job's key must not
        # change while it waits: this one never changes.
        return (job.solo_s,)


if __name__ == "__main__":  # `--python examples/python_policy.py:ShortestJobFirst` imports it
    mine = schedkit.simulate(trace=TRACE, cluster=CLUSTER, policy=ShortestJobFirst())
    builtin = schedkit.simulate(trace=TRACE, cluster=CLUSTER, policy="sjf")
    s = mine.summary
    print(f"{s['jobs']} jobs, avg JCT {s['avg_jct_s']:.0f} s, p99 {s['p99_jct_s']:.0f} s, "
          f"{s['decisions']} decisions in {s['wall_s']:.3f} s")
    same = all(np.array_equal(mine.jobs[c], builtin.jobs[c], equal_nan=c.endswith("_s"))
               for c in mine.jobs)
    print("python SJF == built-in sjf:", same)
