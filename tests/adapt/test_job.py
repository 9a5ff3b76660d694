"""Tests of the job side of the runtime tie (python/schedkit_adapt/job.py, examples/adaptive_training.py,
the shipped agent; docs/adapt.md "Under the runtime"). The service side, with real processes under a
real `schedkit serve`, is tests/runtime/adaptive_itest.cc. Run: PYTHONPATH=python python3 -m unittest test_job"""

import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

from schedkit_adapt import AdaptError
from schedkit_adapt.job import Events, allocation

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(ROOT, "examples", "adaptive_training.py")


def up(gpus, left=10.0):
    return json.dumps({"event": "up", "gpus": gpus, "gpu_ids": "0", "time_left_s": left, "time": 1.0}) + "\n"


class AllocationTest(unittest.TestCase):
    def test_reads_the_environment(self):
        before = time.monotonic()
        a = allocation({"SCHEDKIT_GPUS": "2", "SCHEDKIT_TIME_LIMIT_S": "90", "SCHEDKIT_TIME_LEFT_S": "30.5",
                        "SCHEDKIT_EVENTS": "/x/events.jsonl"})
        self.assertEqual((a.gpus, a.time_limit_s, a.time_left_s, a.events_path), (2, 90.0, 30.5, "/x/events.jsonl"))
        self.assertGreaterEqual(a.deadline, before + 30.5)
        self.assertLessEqual(a.time_left(), 30.5)
        self.assertEqual(a.time_left(now=a.deadline + 5), 0.0)

    def test_no_limit_or_one_given_outside_the_service(self):
        a = allocation({"SCHEDKIT_TIME_LIMIT_S": "", "SCHEDKIT_TIME_LEFT_S": ""})
        self.assertIsNone(a.deadline)
        self.assertIsNone(a.time_left())
        a = allocation({}, time_limit_s=20)
        self.assertEqual((a.time_limit_s, a.time_left_s, a.gpus), (20, 20, 0))

    def test_bad_values_name_the_variable(self):
        for env, message in [({"SCHEDKIT_TIME_LEFT_S": "soon"}, "$SCHEDKIT_TIME_LEFT_S: 'soon' is not a number"),
                             ({"SCHEDKIT_TIME_LIMIT_S": "-1"}, "$SCHEDKIT_TIME_LIMIT_S: '-1' is not a number"),
                             ({"SCHEDKIT_GPUS": "two"}, "$SCHEDKIT_GPUS: 'two' is not a GPU count")]:
            with self.assertRaises(AdaptError) as e:
                allocation(env)
            self.assertIn(message, str(e.exception))


class EventsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "events.jsonl")

    def tearDown(self):
        self.dir.cleanup()

    def append(self, text):
        with open(self.path, "a") as f:
            f.write(text)

    def test_whole_lines_only_in_order(self):
        events = Events(self.path)
        self.assertEqual(events.poll(), [])  # no file yet
        line = up(2)
        self.append(up(1) + line[:10])  # the service writes a line at once; a reader may still see half
        self.assertEqual([e["gpus"] for e in events.poll()], [1])
        self.assertEqual(events.poll(), [])
        self.append(line[10:])
        self.assertEqual([e["gpus"] for e in events.poll()], [2])

    def test_skip_existing_starts_after_earlier_runs(self):
        self.append(up(1) + up(2))
        events = Events(self.path, skip_existing=True)
        self.assertEqual(events.poll(), [])
        self.append(up(3))
        self.assertEqual([e["gpus"] for e in events.poll()], [3])

    def test_follow_yields_until_told_to_stop(self):
        self.append(up(1) + up(2))
        seen = []
        for event in Events(self.path).follow(poll_s=0.01, until=lambda: len(seen) == 2):
            seen.append(event["gpus"])
        self.assertEqual(seen, [1, 2])

    def test_malformed_lines_name_file_and_line(self):
        self.append(up(1) + "{oops\n")
        with self.assertRaises(AdaptError) as e:
            Events(self.path).poll()
        self.assertIn(f"{self.path}:2: not JSON", str(e.exception))
        with open(self.path, "w") as f:
            f.write(json.dumps({"event": "sideways", "gpus": 1}) + "\n")
        with self.assertRaises(AdaptError) as e:
            Events(self.path).poll()
        self.assertIn(f"{self.path}:1: field 'event' or 'gpus'", str(e.exception))


class ShippedAgentTest(unittest.TestCase):
    def test_deepens_at_the_first_decision_wherever_the_up_comes(self):
        """The example relies on it: the shipped agent (cnn1, trained on `early`) deepens the original
        model at its first decision for any share of the budget left."""
        import torch
        from schedkit_adapt.agent import load_agent
        from schedkit_adapt.models import NOTHING, describe_model, make_model
        torch.set_num_threads(1)
        agent, saved = load_agent(os.path.join(ROOT, "data", "adapt", "agent_cnn1.pt"))
        self.assertEqual(saved["trained_on"], ["../data/adapt/cnn1_early.json"])
        layers = describe_model(make_model("cnn1", (1, 8, 8), 10, seed=0))
        for share in [i / 20 for i in range(2, 21)]:
            self.assertNotEqual(agent.decide(layers, share * 400, 400), NOTHING, share)


class ExampleTest(unittest.TestCase):
    def run_example(self, *args, env=None):
        full_env = dict(os.environ, OMP_NUM_THREADS="1", **(env or {}))
        for name in ["SCHEDKIT_TIME_LIMIT_S", "SCHEDKIT_TIME_LEFT_S", "SCHEDKIT_EVENTS"]:
            full_env.setdefault(name, "")
        return subprocess.run([sys.executable, EXAMPLE, *args], capture_output=True, text=True, env=full_env,
                              timeout=120)

    def test_outside_the_service_trains_within_the_given_limit(self):
        r = self.run_example("--time-limit", "60", "--max-epochs", "3")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("start: model cnn1, 0 GPUs, ", r.stdout)
        self.assertNotIn("decision", r.stdout)  # no events file: never "up"
        self.assertRegex(r.stdout, r"final accuracy 0\.[0-9]{4} after 3 epochs, 11 layers")

    def test_bad_input_is_one_line_and_exit_1(self):
        r = self.run_example()
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr, "adaptive_training: no time limit: submit with `schedkit submit --time-limit S` "
                                   "or pass --time-limit S\n")
        r = self.run_example(env={"SCHEDKIT_TIME_LEFT_S": "x"})
        self.assertEqual((r.returncode, r.stderr),
                         (1, "adaptive_training: $SCHEDKIT_TIME_LEFT_S: 'x' is not a number of seconds\n"))


if __name__ == "__main__":
    unittest.main()
