"""Tests of python/schedkit_netllm (docs/netllm.md). Real `schedkit dag collect` runs (the CLI named
by $SCHEDKIT_CLI) and the real DagEnv (the compiled module on PYTHONPATH); tiny model sizes."""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

import numpy as np
import torch

from schedkit_netllm import NetllmError
from schedkit_netllm.__main__ import main as cli_main
from schedkit_netllm.backbone import (GPT2_SMALL, Gpt2, Gpt2Config, backbone_parameter_count,
                                      load_hf_gpt2)
from schedkit_netllm.dataset import PoolDataset
from schedkit_netllm.encoder import DecimaEncoder, GraphBatch
from schedkit_netllm.evaluate import EnvConfig, run_episodes
from schedkit_netllm.features import step_features
from schedkit_netllm.model import Decoder, ModelConfig, NetllmPolicy, StepItem
from schedkit_netllm.pool import Episode, RewardScale, read_pool, returns_to_go, write_pool
from schedkit_netllm.train import TrainConfig, load_model, train

import schedkit

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DECIMA = os.path.join(REPO, "data", "decima", "decima_tpch.json")
SMALL_ENV = dict(num_executors=10, job_arrival_cap=4, job_arrival_rate=4e-5,
                 moving_delay_ms=2000.0, warmup_delay_ms=1000.0)
TINY = ModelConfig(backbone=Gpt2Config(n_embd=32, n_layer=2, n_head=2, n_positions=256,
                                       vocab_size=1),
                   lora_rank=4, window=4, max_stages=40, max_timestep=512)


def collect(path, scheduler="decima", steps=300, seed=1):
    cli = os.environ["SCHEDKIT_CLI"]
    # In a sanitizer build this process runs with the sanitizer runtime preloaded (for the
    # instrumented module); the CLI links its own copy and refuses a second one.
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    subprocess.run([cli, "dag", "collect", "--scheduler", scheduler, "--steps", str(steps),
                    "--seed", str(seed), "--executors", "10", "--jobs", "4", "--out", path],
                   check=True, capture_output=True, env=env)


def decima_case_observations():
    """The hand-made observations of tests/dag/decima_cases.json as DagEnv observations."""
    with open(os.path.join(REPO, "tests", "dag", "decima_cases.json")) as f:
        cases = json.load(f)["cases"]
    out = []
    for c in cases:
        nodes, edges, node_job, ptr = [], [], [], [0]
        for j, job in enumerate(c["jobs"]):
            base = len(nodes)
            nodes += job["nodes"]
            node_job += [j] * len(job["nodes"])
            edges += [[p + base, ch + base] for p, ch in job["edges"]]
            ptr.append(len(nodes))
        out.append({"nodes": np.array(nodes, float),
                    "edge_links": np.array(edges, np.int64).reshape(-1, 2),
                    "dag_ptr": np.array(ptr), "num_committable_execs": np.array(c["num_committable"]),
                    "source_job_idx": np.array(c["source_job"]),
                    "exec_supplies": np.array(c["exec_supply"]), "node_job": np.array(node_job),
                    "schedulable_nodes": np.array([i for i, n in enumerate(nodes) if n[2]]),
                    "num_executors": np.array(c["num_executors"])})
    return cases, out


class Fixture(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="netllm_test_")
        cls.pool = os.path.join(cls.tmp, "pool.jsonl")
        collect(cls.pool)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)


class PoolTest(Fixture):
    def test_pool_round_trips_and_replays_with_the_action_offset(self):
        episodes = read_pool(self.pool)
        self.assertGreaterEqual(len(episodes), 2)
        copy = os.path.join(self.tmp, "copy.jsonl")
        write_pool(copy, episodes)
        again = read_pool(copy)
        for a, b in zip(episodes, again):
            self.assertEqual((a.seed, a.actions, a.rewards, a.done, a.truncated),
                             (b.seed, b.actions, b.rewards, b.done, b.truncated))
            for sa, sb in zip(a.states, b.states):
                for k in sa:
                    np.testing.assert_array_equal(sa[k], sb[k])
        # The dataset's executor class is num_exec - 1; the environment gets class + 1 back and
        # must walk through exactly the pool's states and rewards.
        data = PoolDataset(episodes, max_stages=1000)
        env = schedkit.DagEnv(**SMALL_ENV)
        for episode, items in zip([e for e in episodes if e.done], data.episodes):
            obs = env.reset(episode.seed)
            for state, item, (stage, num_exec), reward in zip(episode.states, items,
                                                               episode.actions, episode.rewards):
                self.assertEqual(item.action, (stage, num_exec - 1))
                for k, v in state.items():
                    np.testing.assert_array_equal(obs[k], v, err_msg=k)
                obs, r, terminated, _, _ = env.step((item.action[0], item.action[1] + 1))
                self.assertEqual(r, reward)
            self.assertTrue(terminated)

    def bad(self, lines, message):
        path = os.path.join(self.tmp, "bad.jsonl")
        with open(path, "w") as f:
            f.writelines(lines)
        with self.assertRaises(NetllmError) as e:
            read_pool(path)
        self.assertIn(message, str(e.exception))
        self.assertEqual(len(str(e.exception).splitlines()), 1)

    def test_bad_pools_name_file_line_and_field(self):
        with open(self.pool) as f:
            lines = f.readlines()
        self.bad(lines[:3] + [lines[3][:50]], "bad.jsonl:4: not a JSON object (truncated line?)")
        wrong = json.loads(lines[2])
        wrong["reward"] = "x"
        self.bad(lines[:2] + [json.dumps(wrong) + "\n"], "bad.jsonl:3: reward: expected a number")
        wrong = json.loads(lines[1])
        del wrong["state"]["nodes"]
        self.bad(lines[:1] + [json.dumps(wrong) + "\n"], "bad.jsonl:2: state.nodes: missing")
        wrong = json.loads(lines[1])
        wrong["action"] = [99, 1]
        self.bad(lines[:1] + [json.dumps(wrong) + "\n"], "bad.jsonl:2: action: stage_idx 99")
        end = next(i for i, l in enumerate(lines) if json.loads(l)["done"])
        self.bad(lines[:end], f"bad.jsonl:{end}: done: episode 0 has no end")
        self.bad(lines[:end] + lines[end + 1:end + 2], f"bad.jsonl:{end + 1}: episode: episode 0 "
                                                       "has no end")

    def test_return_to_go_on_a_hand_made_pool(self):
        _, observations = decima_case_observations()
        state = observations[0]
        episodes = [Episode(seed=0, states=[state] * 3, actions=[(0, 2)] * 3,
                            rewards=[-10.0, 0.0, -40.0], done=True),
                    Episode(seed=1, states=[state] * 2, actions=[(1, 1)] * 2,
                            rewards=[-20.0, -30.0], done=True),
                    Episode(seed=2, states=[state], actions=[(0, 1)], rewards=[-1000.0],
                            truncated=True)]
        path = os.path.join(self.tmp, "hand.jsonl")
        write_pool(path, episodes)
        data = PoolDataset(read_pool(path), max_stages=100, rtg_scale=10.0)
        # min -40, max 0 over complete episodes: normalised 0.75, 1, 0 and 0.5, 0.25
        self.assertEqual(data.dropped, 1)
        self.assertEqual((data.scale.low, data.scale.high), (-40.0, 0.0))
        self.assertEqual([i.rtg for i in data.episodes[0]], [0.175, 0.1, 0.0])
        self.assertEqual([i.rtg for i in data.episodes[1]], [0.075, 0.025])
        self.assertEqual(data.max_return, 0.175)
        self.assertEqual([i.action for i in data.episodes[1]], [(1, 0), (1, 0)])
        np.testing.assert_allclose(returns_to_go(RewardScale(-4, 0, 1).normalise([-4, -2, 0]), 1),
                                   [1.5, 1.5, 1.0])


class ModelTest(unittest.TestCase):
    def test_encoder_matches_decima_reference_embeddings(self):
        cases, observations = decima_case_observations()
        encoder = DecimaEncoder()
        encoder.load_decima(DECIMA)
        with open(os.path.join(REPO, "tests", "dag", "decima_golden.json")) as f:
            golden = json.load(f)["cases"]
        _, _, h_glob = encoder(GraphBatch.of([step_features(o, 100) for o in observations], "cpu"))
        for g, h in zip(golden, h_glob):
            np.testing.assert_allclose(h.detach().numpy(), g["h_glob"], atol=1e-5, err_msg=g["name"])

    def test_adapters_start_as_identity_and_only_they_encoder_and_heads_learn(self):
        torch.manual_seed(0)
        plain = Gpt2(TINY.backbone)
        adapted = Gpt2(TINY.backbone)
        adapted.load_state_dict(plain.state_dict())
        frozen = {k: v.clone() for k, v in plain.state_dict().items()}
        policy = NetllmPolicy(TINY, adapted)
        policy.eval()
        x = torch.randn(2, 7, TINY.backbone.n_embd)
        valid = torch.ones(2, 7, dtype=torch.bool)
        torch.testing.assert_close(adapted(x, valid), plain(x, valid), rtol=0, atol=0)
        _, observations = decima_case_observations()
        items = [StepItem(step_features(o, 40), 1.0, t, (0, 1)) for t, o in enumerate(observations)]
        policy.train()
        policy.loss([items, items[:2]]).backward()
        for name, p in policy.named_parameters():
            in_backbone = name.startswith("backbone.")
            is_adapter = "lora_" in name
            self.assertEqual(p.requires_grad, not in_backbone or is_adapter, name)
            if in_backbone and not is_adapter:
                self.assertIsNone(p.grad, name)
            elif "lora_A" not in name:  # A's gradient is zero while B is zero
                self.assertIsNotNone(p.grad, name)
                # (a bias feeding one softmax gets no gradient: shifting all scores changes nothing)
                if name.endswith("weight") or "lora_B" in name:
                    self.assertGreater(float(p.grad.abs().sum()), 0, name)
        for k, v in frozen.items():
            torch.testing.assert_close(adapted.state_dict()[k], v)

    def test_cached_batched_decoding_gives_the_logits_of_the_whole_window(self):
        torch.manual_seed(1)
        policy = NetllmPolicy(TINY).eval()
        with torch.no_grad():
            for p in policy.parameters():
                p.add_(0.05 * torch.randn_like(p))  # adapters away from zero
        seeds = [2, 3, 4]
        envs = [schedkit.DagEnv(**SMALL_ENV) for _ in seeds]
        observations = [env.reset(s) for env, s in zip(envs, seeds)]
        decoder = Decoder(policy, False, [torch.Generator().manual_seed(s) for s in seeds])
        rebuilds = compared = 0
        for t in range(3 * TINY.window):
            currents = [StepItem(step_features(o, TINY.max_stages), 1.0 - 0.01 * t, t)
                        for o in observations]
            fits = decoder.fits(currents)
            contexts = [steps[len(steps) - n:] for steps, n in zip(decoder.steps, decoder.cached)]
            actions = decoder.decide(currents)
            if not fits:
                rebuilds += 1
                contexts = [steps[len(steps) - n:-1]
                            for steps, n in zip(decoder.steps, decoder.cached)]
            stage_cached, exec_cached = decoder.last_logits
            for row, (context, current) in enumerate(zip(contexts, currents)):
                with torch.no_grad():
                    stage_logits, exec_logits, _, _ = policy([context + [current]], "full")
                k = current.num_stage_tokens()
                torch.testing.assert_close(stage_cached[row][:k], stage_logits[-1][:k])
                torch.testing.assert_close(exec_cached[row], exec_logits[-1])
                compared += 1
            observations = [env.step((s, c + 1))[0] for env, (s, c) in zip(envs, actions)]
            if min(len(o["node_job"]) for o in observations) == 0:
                break  # an episode ended
        self.assertGreater(compared, 3 * TINY.window)
        self.assertGreater(rebuilds, 1)

    def test_bad_model_and_environment_options_give_one_line_errors(self):
        import contextlib
        import io
        tmp = tempfile.mkdtemp(prefix="netllm_cli_")
        self.addCleanup(shutil.rmtree, tmp)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(cli_main(["test", "--model", tmp, "--seeds", "0"]), 1)
        self.assertRegex(err.getvalue(), r"^schedkit_netllm: .*model.pt: missing .*\n$")
        torch.save({"format": "other"}, os.path.join(tmp, "model.pt"))
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(cli_main(["test", "--model", tmp, "--seeds", "0"]), 1)
        self.assertIn("model.pt: not a netllm model", err.getvalue())
        err = io.StringIO()
        with contextlib.redirect_stderr(err):  # the shipped model, an impossible config
            self.assertEqual(cli_main(["test", "--executors", "0", "--seeds", "0"]), 1)
        self.assertEqual(len(err.getvalue().splitlines()), 1)
        self.assertIn("executors", err.getvalue())

    def test_gpt2_loader_reads_the_huggingface_layout(self):
        self.assertEqual(backbone_parameter_count(GPT2_SMALL), 124_439_808)
        tmp = tempfile.mkdtemp(prefix="netllm_gpt2_")
        self.addCleanup(shutil.rmtree, tmp)
        config = Gpt2Config(n_embd=16, n_layer=2, n_head=2, n_positions=32, vocab_size=11)
        torch.manual_seed(3)
        source = Gpt2(config)
        # As GPT2LMHeadModel saves it: `transformer.` prefix, lm_head, causal-mask buffers.
        state = {"transformer." + k: v for k, v in source.state_dict().items()}
        state["lm_head.weight"] = source.wte.weight.clone()
        state["transformer.h.0.attn.bias"] = torch.ones(1, 1, 32, 32)
        with open(os.path.join(tmp, "config.json"), "w") as f:
            json.dump({**config.to_dict(), "model_type": "gpt2", "n_inner": None}, f)
        torch.save(state, os.path.join(tmp, "pytorch_model.bin"))
        loaded = load_hf_gpt2(tmp)
        x, valid = torch.randn(1, 5, 16), torch.ones(1, 5, dtype=torch.bool)
        torch.testing.assert_close(loaded(x, valid), source(x, valid), rtol=0, atol=0)
        self.assertEqual(loaded.state_dict()["h.1.attn.c_attn.weight"].shape, (16, 48))
        del state["transformer.h.1.mlp.c_fc.bias"]
        torch.save(state, os.path.join(tmp, "pytorch_model.bin"))
        with self.assertRaisesRegex(NetllmError, r"pytorch_model.bin: tensor h.1.mlp.c_fc.bias "
                                                 "missing"):
            load_hf_gpt2(tmp)


class TrainTestTest(Fixture):
    def tiny_train(self, out, steps, resume=False, config=TrainConfig()):
        cfg = TrainConfig(**{**config.__dict__, "steps": steps})
        return train([self.pool], out, TINY, cfg, encoder_init=DECIMA, resume=resume,
                     log=lambda *_: None)

    def test_short_training_lowers_the_loss_and_resumes_exactly(self):
        config = TrainConfig(batch_size=4, accumulation=1, lr=3e-3, warmup=5, clip=1.0,
                             checkpoint_every=20)
        out = os.path.join(self.tmp, "run")
        losses = self.tiny_train(out, 60, config=config)["losses"]
        self.assertLess(np.mean(losses[-10:]), 0.8 * np.mean(losses[:10]))
        # 6 steps straight == 3 steps, then 3 more resumed from the checkpoint
        straight, split = os.path.join(self.tmp, "a"), os.path.join(self.tmp, "b")
        config = TrainConfig(batch_size=2, accumulation=2, warmup=2, checkpoint_every=3)
        self.tiny_train(straight, 6, config=config)
        self.tiny_train(split, 3, config=config)
        self.tiny_train(split, 6, resume=True, config=config)
        a, b = (torch.load(os.path.join(d, "model.pt"))["state"] for d in (straight, split))
        for k in a:
            torch.testing.assert_close(a[k], b[k], rtol=0, atol=0, msg=k)

    def test_test_runs_episodes_and_its_jct_is_the_environments(self):
        out = os.path.join(self.tmp, "model")
        self.tiny_train(out, 2, config=TrainConfig(batch_size=2, accumulation=1))
        policy, scale, max_return, _ = load_model(out)
        config = EnvConfig(**SMALL_ENV)
        for greedy in (False, True):
            for r in run_episodes(policy, scale, max_return, [5, 6, 7], config, greedy):
                self.assertEqual(r.jobs, 4)
                self.assertAlmostEqual(r.avg_jct_s, -r.total_reward / r.jobs / 1000, places=9)
        # Same seeds and batch: the same episodes, sampled draws included.
        once = run_episodes(policy, scale, max_return, [5, 6, 7], config, False)
        again = run_episodes(policy, scale, max_return, [5, 6, 7], config, False)
        self.assertEqual([(r.avg_jct_s, r.decisions) for r in once],
                         [(r.avg_jct_s, r.decisions) for r in again])
        # Batching changes an episode's logits only by float rounding (padded products), so
        # greedy episodes are those run alone.
        batch = run_episodes(policy, scale, max_return, [5, 6, 7], config, True)
        alone = run_episodes(policy, scale, max_return, [6], config, True)[0]
        self.assertEqual((alone.avg_jct_s, alone.decisions), (batch[1].avg_jct_s,
                                                              batch[1].decisions))
        from schedkit_netllm.bench import decisions_per_second, train_steps_per_second
        speed = decisions_per_second(policy, 2, 3, config)
        self.assertEqual(speed["decisions"], 6)
        self.assertGreater(speed["cpu_per_s"], 0)
        self.assertGreater(train_steps_per_second(load_model(out)[0], self.pool, 1, 2, 1)[
            "cpu_per_s"], 0)
        csv_path = os.path.join(self.tmp, "episodes.csv")
        code = cli_main(["test", "--model", out, "--seeds", "0-1", "--executors", "10", "--jobs",
                         "4", "--baselines", "fair,decima", "--csv", csv_path])
        self.assertEqual(code, 0)
        with open(csv_path) as f:
            rows = f.read().splitlines()
        self.assertEqual(rows[0], "scheduler,seed,avg_jct_s,jobs,decisions,total_reward_ms,wall_s")
        self.assertEqual([r.split(",")[0] for r in rows[1:]], ["netllm"] * 2 + ["fair"] * 2 +
                         ["decima"] * 2)
        fair = schedkit.dag_simulate("fair", seed=1, **SMALL_ENV)
        self.assertAlmostEqual(float(rows[4].split(",")[2]), fair["avg_jct_s"], places=5)


if __name__ == "__main__":
    unittest.main()
