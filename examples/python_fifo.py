"""A whole scheduling policy written in Python (docs/write-a-policy.md, "In Python").

    PYTHONPATH=build/python /usr/bin/python3 examples/python_fifo.py
    build/schedkit simulate --python examples/python_fifo.py:Fifo --policy py-fifo

First come, first served: at each decision the pending jobs, oldest first, start where the
run's placement module (best-fit unless --placement says otherwise) puts them; a job that
does not fit waits and younger ones may pass it, as with the built-in `fifo`. Run as a
script, it checks that its schedule equals the built-in fifo's, job for job.
"""
import schedkit


class Fifo(schedkit.Policy):
    name = "py-fifo"
    default_placement = "best-fit"

    def decide(self, view, events):
        decisions = schedkit.Decisions()
        free = view.free()  # a copy of the free resources to plan on
        for job in view.pending():  # ids by (submit time, id)
            if free.total_free_gpus == 0:
                break
            placement = view.place(job, free)  # empty (false) if it does not fit
            if placement:
                free.allocate(placement)
                decisions.start(job, placement)
        return decisions


if __name__ == "__main__":
    TRACE, CLUSTER = "data/traces/muri_trace3.csv", "data/clusters/muri_n8g8.csv"
    mine = schedkit.simulate(trace=TRACE, cluster=CLUSTER, policy=Fifo())
    builtin = schedkit.simulate(trace=TRACE, cluster=CLUSTER, policy="fifo")
    s = mine.summary
    print(f"{s['jobs']} jobs, avg JCT {s['avg_jct_s']:.0f} s, {s['decisions']} decisions "
          f"in {s['wall_s']:.3f} s (built-in fifo: {builtin.summary['wall_s']:.3f} s)")
    same = all(str(mine.jobs[c].tolist()) == str(builtin.jobs[c].tolist()) for c in mine.jobs)
    print("python FIFO == built-in fifo:", same)
