"""The `schedkit` Python module's environment contract (docs/learning.md): shapes and dtypes as
described, masks, determinism by seed, illegal actions raise ValueError and change nothing, and
the episode's summed reward is minus the sum of the JCTs. Run by ctest with /usr/bin/python3 and
PYTHONPATH=build/python."""
import os
import random
import tempfile
import unittest

import numpy as np

import schedkit

TRACE_HEADER = ("job_id,submit_s,gpus,duration_s,iterations,iteration_time_s,model,batch_size,"
                "stage_io_s,stage_gpu_s,stage_net_s,cpus,mem_gb,user,vc,priority\n")
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TINY_CLUSTER = os.path.join(SOURCE, "data", "clusters", "tiny.csv")  # 2 nodes x 4 GPUs.


def cluster_env(**kw):
    args = dict(num_jobs=40, jobs_per_hour=6, max_queued=8, max_running=16)
    args.update(kw)
    return schedkit.ClusterEnv(**args)


def dag_env():
    return schedkit.DagEnv(num_executors=10, job_arrival_cap=6)


def cluster_legal(obs, rng):
    legal = list(np.flatnonzero(obs["action_mask"]))
    if obs["can_wait"] == 1:
        legal.append(-1)
    return int(rng.choice(legal))


def dag_legal(obs, rng):
    k = len(obs["schedulable_nodes"])
    return (rng.randrange(k), rng.randint(1, int(obs["num_committable_execs"])))


def cluster_dims(obs, env):
    return {"Q": obs["queued"].shape[0], "R": obs["running"].shape[0]}


def dag_dims(obs, env):
    return {"n": obs["nodes"].shape[0], "e": obs["edge_links"].shape[0],
            "J": obs["job_ids"].shape[0], "J + 1": obs["job_ids"].shape[0] + 1,
            "k": obs["schedulable_nodes"].shape[0]}


def run_episode(env, seed, choose, rng_seed=0, max_steps=100000):
    """(observations, rewards, last info) of one episode with `choose`."""
    rng = random.Random(rng_seed)
    obs = env.reset(seed)
    observations, rewards = [obs], []
    for _ in range(max_steps):
        obs, reward, terminated, truncated, info = env.step(choose(obs, rng))
        observations.append(obs)
        rewards.append(reward)
        if terminated or truncated:
            return observations, rewards, info
    raise AssertionError("episode did not end")


class ContractMixin:
    """Checks shared by both environments; subclasses set make, choose, dims."""

    def check_against_space(self, env, obs):
        space = env.observation_space
        self.assertEqual(sorted(obs), sorted(space))
        dims = self.dims(obs, env)
        for name, field in space.items():
            array = obs[name]
            self.assertIsInstance(array, np.ndarray, name)
            self.assertEqual(str(array.dtype), field["dtype"], name)
            want = [d.strip() for d in field["shape"].strip("[]").split(",") if d.strip()]
            self.assertEqual(len(array.shape), len(want), name)
            for got, symbol in zip(array.shape, want):
                self.assertEqual(got, int(symbol) if symbol.isdigit() else dims[symbol],
                                 f"{name} {field['shape']}")

    def test_observations_match_the_described_space(self):
        env = self.make()
        observations, _, _ = run_episode(env, 1, self.choose)
        for obs in observations:
            self.check_against_space(env, obs)
        self.assertTrue(env.action_space)
        self.assertIn("reward", env.spaces)

    def test_same_seed_same_episode(self):
        a_obs, a_rew, _ = run_episode(self.make(), 3, self.choose)
        b_obs, b_rew, _ = run_episode(self.make(), 3, self.choose)
        self.assertEqual(a_rew, b_rew)
        self.assertEqual(len(a_obs), len(b_obs))
        for x, y in zip(a_obs, b_obs):
            for k in x:
                np.testing.assert_array_equal(x[k], y[k])
        _, c_rew, _ = run_episode(self.make(), 4, self.choose)
        self.assertNotEqual(a_rew, c_rew)

    def test_reset_restarts_the_episode(self):
        env = self.make()
        first = env.reset(5)
        env.step(self.choose(first, random.Random(0)))
        again = env.reset(5)
        for k in first:
            np.testing.assert_array_equal(first[k], again[k])

    def test_illegal_actions_raise_and_change_nothing(self):
        env, twin = self.make(), self.make()
        obs = env.reset(2)
        twin.reset(2)
        for bad in self.illegal(obs):
            with self.assertRaises(ValueError, msg=repr(bad)):
                env.step(bad)
        action = self.choose(obs, random.Random(0))
        got, want = env.step(action), twin.step(action)
        self.assertEqual(got[1:4], want[1:4])
        for k in got[0]:
            np.testing.assert_array_equal(got[0][k], want[0][k])

    def test_step_before_reset_raises(self):
        with self.assertRaises(ValueError):
            self.make().step(self.choose(self.make().reset(0), random.Random(0)))

    def test_summed_reward_is_minus_sum_of_jcts(self):
        _, rewards, info = run_episode(self.make(), 6, self.choose)
        self.assertTrue(all(r <= 0 for r in rewards))
        self.assertAlmostEqual(sum(rewards) / (-info["sum_jct_s"] * self.reward_per_second), 1.0,
                               places=9)


class ClusterEnvTest(ContractMixin, unittest.TestCase):
    make = staticmethod(cluster_env)
    choose = staticmethod(cluster_legal)
    dims = staticmethod(cluster_dims)
    reward_per_second = 1.0

    @staticmethod
    def illegal(obs):
        masked = [int(i) for i in np.flatnonzero(obs["action_mask"] == 0)]
        return [len(obs["action_mask"]), -2, (0, 0), [], "x", 0.5] + masked[:2]

    def test_masks(self):
        observations, _, _ = run_episode(cluster_env(), 0, cluster_legal)
        for obs in observations[:-1]:
            self.assertTrue(np.all(obs["action_mask"] <= obs["queued_mask"]))
            self.assertTrue(obs["action_mask"].any())  # A decision point offers a start.
            np.testing.assert_array_equal(obs["queued_ids"] >= 0, obs["queued_mask"] == 1)
            np.testing.assert_array_equal(obs["running_ids"] >= 0, obs["running_mask"] == 1)
            self.assertEqual(obs["queued_mask"].sum(), min(8, int(obs["num_queued"])))
            self.assertEqual(obs["running_mask"].sum(), min(16, int(obs["num_running"])))
            busy = obs["running"][:, 0][obs["running_mask"] == 1].sum()
            if obs["num_running"] <= 16:
                self.assertEqual(busy + obs["free_gpus"], obs["total_gpus"])
            self.assertTrue(np.all(obs["queued"][obs["queued_mask"] == 0] == 0))
        self.assertEqual(observations[-1]["queued_mask"].sum(), 0)

    def test_hidden_remaining(self):
        obs = cluster_env(expose_remaining=False).reset(0)
        self.assertTrue(np.all(obs["queued"][obs["queued_mask"] == 1, 2] == -1))

    def test_hand_computed_episode_on_a_trace(self):
        # Job 0 (4 GPUs, 100 s) at 0; job 1 (8 GPUs, 50 s) at 10 waits until 100: JCTs 100, 140.
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "two.csv")
            with open(path, "w") as f:
                f.write(TRACE_HEADER + "0,0,4,100,,,m,1,,,,,,u,,0\n1,10,8,50,,,m,1,,,,,,u,,0\n")
            env = schedkit.ClusterEnv(trace=path, cluster=TINY_CLUSTER, max_queued=2)
            for seed in (0, 1):  # A trace is the same episode whatever the seed.
                obs, rewards, info = run_episode(env, seed, lambda o, r: 0)
                self.assertEqual(rewards, [-190.0, -50.0])
                self.assertEqual(info["avg_jct_s"], 120.0)

    def test_preemption_and_the_episode_summary(self):
        # Job 0 (8 GPUs, 100 s) at 0, job 1 (4 GPUs, 10 s) at 10: the C++ test's episode.
        # Start 0; at 10 stop it (action Q + 0 = 2); start 1; wait; resume 0 at 20 -> 110.
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "two.csv")
            with open(path, "w") as f:
                f.write(TRACE_HEADER + "0,0,8,100,,,m,1,,,,,,u,,0\n1,10,4,10,,,m,1,,,,,,u,,0\n")
            env = schedkit.ClusterEnv(trace=path, cluster=TINY_CLUSTER, max_queued=2,
                                      max_running=2, preemption=True)
            obs = env.reset(0)
            rewards = []
            for action in (0, 2, 1, -1, 0):
                obs, reward, terminated, truncated, info = env.step(action)
                rewards.append(reward)
            self.assertTrue(terminated)
            self.assertEqual(rewards, [-10.0, 0.0, 0.0, -20.0, -90.0])
            self.assertEqual(info["preemptions"], 1.0)
            self.assertEqual(info["avg_jct_s"], 60.0)
            self.assertAlmostEqual(info["avg_slowdown"], 1.05)
            self.assertEqual(info["steps_with_hidden_queue"], 0.0)
            with self.assertRaises(ValueError):  # No preemption: action 2 is out of range.
                plain = schedkit.ClusterEnv(trace=path, cluster=TINY_CLUSTER, max_queued=2)
                plain.reset(0)
                plain.step(2)

    def test_bad_config_raises(self):
        with self.assertRaisesRegex(ValueError, "max_queued"):
            cluster_env(max_queued=0)
        with self.assertRaisesRegex(ValueError, "nowhere"):
            cluster_env(placement="nowhere")
        with self.assertRaisesRegex(ValueError, "/nonexistent/trace.csv"):
            cluster_env(trace="/nonexistent/trace.csv")


class DagEnvTest(ContractMixin, unittest.TestCase):
    make = staticmethod(dag_env)
    choose = staticmethod(dag_legal)
    dims = staticmethod(dag_dims)
    reward_per_second = 1000.0  # The DAG env's rewards are in ms.

    @staticmethod
    def illegal(obs):
        k = len(obs["schedulable_nodes"])
        return [(k, 1), (-2, 1), (0, 0), (0,), (0, 1, 2), ("a", 1), (0.5, 1)]

    def test_masks_and_pointers(self):
        observations, _, _ = run_episode(dag_env(), 0, dag_legal)
        for obs in observations[:-1]:
            n = obs["nodes"].shape[0]
            self.assertEqual(obs["dag_ptr"][0], 0)
            self.assertEqual(obs["dag_ptr"][-1], n)
            self.assertTrue(np.all(np.diff(obs["dag_ptr"]) > 0))
            schedulable = np.flatnonzero(obs["nodes"][:, 2] == 1)
            np.testing.assert_array_equal(obs["schedulable_nodes"], schedulable)
            self.assertGreater(obs["num_committable_execs"], 0)
        self.assertEqual(observations[-1]["nodes"].shape, (0, 3))

    def test_dag_simulate_reference(self):
        s = schedkit.dag_simulate("fair", seed=0, num_executors=10, job_arrival_cap=6)
        self.assertEqual(s["jobs"], 6)
        self.assertAlmostEqual(s["total_reward"] / (-6 * s["avg_jct_s"] * 1000), 1.0, places=9)
        with self.assertRaisesRegex(ValueError, "nobody"):
            schedkit.dag_simulate("nobody")


if __name__ == "__main__":
    unittest.main()
