"""One `schedkit serve` scenario that shows a policy's order on real local processes, shared by
the plugin and Python-policy tests (tests/plugins/test_plugins.py,
tests/python/test_python_policies.py).

One GPU: job `a` holds it until the test says go; `b` (duration estimate 100 s) and `c` (10 s)
queue behind it, in that order. The order the three ran in, as they wrote it, is returned:
FIFO gives a, b, c; SJF (by the estimate) a, c, b.
"""
import signal
import subprocess
import time
from pathlib import Path


def run_order(test, cli, load_args, policy, work):
    """Serves `policy` (after `load_args`, e.g. ["--plugin", LIB]) in the folder `work`,
    runs the scenario and returns the order ("a\\nc\\nb\\n"). Fails `test` on any error."""
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    state, order, go, log_path = work / "state", work / "order", work / "go", work / "serve.log"

    def check(*args):
        p = subprocess.run([str(cli), *map(str, args)], capture_output=True, text=True)
        test.assertEqual(p.returncode, 0, f"{args}:\n{p.stdout}\n{p.stderr}")
        return p.stdout

    with open(log_path, "w") as log:
        server = subprocess.Popen(
            [str(cli), "serve", *map(str, load_args), "--policy", policy, "--gpus", "1",
             "--state-dir", str(state), "--listen", "127.0.0.1:0", "--poll-s", "0.05"],
            stdout=log, stderr=subprocess.STDOUT)

    def wait_until(condition, timeout_s=30):
        deadline = time.monotonic() + timeout_s
        while not condition():
            test.assertIsNone(server.poll(), log_path.read_text())
            test.assertLess(time.monotonic(), deadline, log_path.read_text())
            time.sleep(0.05)

    def submit(name, duration, wait_for_go=False):
        wait = f"while [ ! -e {go} ]; do sleep 0.05; done; " if wait_for_go else ""
        check("submit", "--state-dir", state, "--duration", duration, "--shell", "--",
              f"{wait}echo {name} >> {order}")

    def count(state_name):
        listing = check("jobs", "--state-dir", state, "--state", state_name)
        return len(listing.splitlines()) - 1  # Less the header.

    try:
        wait_until(lambda: (state / "address").exists())
        test.assertIn(f"policy {policy}", check("status", "--state-dir", state))
        submit("a", "1", wait_for_go=True)
        wait_until(lambda: count("RUNNING") == 1)
        submit("b", "100")
        submit("c", "10")
        wait_until(lambda: count("PENDING") == 2)
        go.touch()
        wait_until(lambda: count("SUCCEEDED") == 3)
        return order.read_text()
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
