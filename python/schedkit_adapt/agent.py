"""The adaptation agent and its REINFORCE training on cached outcomes.

State at a decision: the model's layers (each description mapped to a frozen 16-d embedding, a
BiLSTM with 50 hidden units per direction over the sequence, an LSTM reducing it to 16-d) and the
time left (v_i = 5 sin(2 pi i t_left / t_budget), i = 1..8). A decider MLP 24 -> 128 -> 128 -> actions
gives the action logits. Training samples actions from softmax(logits / T), with the temperature T
decayed geometrically; evaluation is greedy.
"""

import hashlib
import itertools
import math
import os
import pickle
import time

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_sequence

from . import AdaptError
from .models import deepen, describe_model, make_model
from .simulate import load_cache

EMBEDDING_DIM = 16
ENCODER_HIDDEN = 50
MODEL_CODE_DIM = 16
TIME_FREQUENCIES = 8
TIME_AMPLITUDE = 5.0
DECIDER_HIDDEN = 128
ACCURACY_CAP = 0.999  # tan(pi/2) is infinite: a perfect accuracy gets the reward of 0.999


def layer_embedding(description):
    """A frozen random vector keyed by the description's SHA-256: the same string gets the same
    vector in every run and every process, and a layer never seen in training still gets one."""
    seed = int(hashlib.sha256(description.encode()).hexdigest()[:15], 16)
    return torch.randn(EMBEDDING_DIM, generator=torch.Generator().manual_seed(seed))


def time_encoding(time_left, budget):
    i = torch.arange(1, TIME_FREQUENCIES + 1, dtype=torch.float32)
    return TIME_AMPLITUDE * torch.sin(2 * math.pi * i * time_left / budget)


def reward(accuracy):
    """The reference's reward: 100 tan(acc pi / 2), steep near accuracy 1."""
    return 100.0 * math.tan(min(accuracy, ACCURACY_CAP) * math.pi / 2)


class Agent(nn.Module):
    def __init__(self, num_actions, seed=0):
        super().__init__()
        rng_state = torch.random.get_rng_state()
        torch.manual_seed(seed)
        self.num_actions = num_actions
        self.layer_encoder = nn.LSTM(EMBEDDING_DIM, ENCODER_HIDDEN, batch_first=True, bidirectional=True)
        self.model_reducer = nn.LSTM(2 * ENCODER_HIDDEN, MODEL_CODE_DIM, batch_first=True)
        self.decider = nn.Sequential(
            nn.Linear(MODEL_CODE_DIM + TIME_FREQUENCIES, DECIDER_HIDDEN), nn.ReLU(),
            nn.Linear(DECIDER_HIDDEN, DECIDER_HIDDEN), nn.ReLU(), nn.Linear(DECIDER_HIDDEN, num_actions))
        torch.random.set_rng_state(rng_state)

    def forward(self, layers, lengths, time_codes):
        """Action logits (N, actions) of N states: layer embeddings padded to (N, longest, EMBEDDING_DIM),
        the number of layers of each (N,), time encodings (N, TIME_FREQUENCIES)."""
        packed = pack_padded_sequence(layers, lengths, batch_first=True, enforce_sorted=False)
        encoded, _ = self.layer_encoder(packed)
        _, (reduced, _) = self.model_reducer(encoded)
        return self.decider(torch.cat([reduced[-1], time_codes], dim=1))

    def decide(self, descriptions, time_left, budget):
        """The greedy action for one state: the model's layer descriptions and the time left."""
        layers = torch.stack([layer_embedding(d) for d in descriptions]).unsqueeze(0)
        with torch.no_grad():
            logits = self(layers, torch.tensor([len(descriptions)]), time_encoding(time_left, budget).unsqueeze(0))
        return int(logits[0].argmax())


class CacheEnvironment:
    """A scenario replayed from its cache: the state at each decision of any action prefix."""

    def __init__(self, cache):
        self.cache = cache

    def layers_after(self, prefix):
        """Layer descriptions of the model after the deepenings in prefix (their BatchNorm statistics
        do not change a description, so a zero probe suffices)."""
        model = make_model(self.cache.model, self.cache.input_shape, self.cache.num_classes, seed=0)
        probe = torch.zeros((2,) + tuple(self.cache.input_shape))
        for action in prefix:
            if action < self.cache.num_actions - 1:  # the last action is "nothing"
                deepen(model, action, probe)
        return describe_model(model)

    def states(self):
        """Every decision state of the scenario (one per action prefix shorter than a sequence), batched
        as Agent.forward takes them, and the row of each prefix."""
        if not hasattr(self, "_states"):
            prefixes = [p for d in range(self.cache.decisions)
                        for p in itertools.product(range(self.cache.num_actions), repeat=d)]
            embedded = [torch.stack([layer_embedding(d) for d in self.layers_after(p)]) for p in prefixes]
            times = [self.cache.sequences[p + (0,) * (self.cache.decisions - len(p))]["time_left"][len(p)]
                     for p in prefixes]
            self._states = (pad_sequence(embedded, batch_first=True), torch.tensor([len(e) for e in embedded]),
                            torch.stack([time_encoding(t, self.cache.scenario.budget_s) for t in times]),
                            {p: row for row, p in enumerate(prefixes)})
        return self._states

    def accuracy(self, actions):
        return self.cache.sequences[tuple(actions)]["accuracy"]


def greedy_sequence(agent, env):
    layers, lengths, times, row = env.states()
    with torch.no_grad():
        logits = agent(layers, lengths, times)
    prefix = ()
    while len(prefix) < env.cache.decisions:
        prefix += (int(logits[row[prefix]].argmax()),)
    return list(prefix)


def rank(env, actions):
    """1 + the number of sequences with a strictly higher accuracy."""
    accuracy = env.accuracy(actions)
    return 1 + sum(1 for o in env.cache.sequences.values() if o["accuracy"] > accuracy)


def learn(agent, envs, episodes, batch=16, temperature=10.0, temperature_decay=0.9, temperature_every=100,
          lr=1e-3, lr_decay=0.99, lr_every=500, baseline=False, rounds=1, seed=1, log=None):
    """REINFORCE without a baseline, `episodes` on each environment: in turn when rounds = 1 (the
    reference's curriculum), else in `rounds` interleaved slices (env 1, env 2, ..., env 1, ...).

    Each Adam step takes `batch` episodes: loss = mean over their actions of -log p_T(a) * R, with
    p_T = softmax(logits / T) and R the episode's reward. T (at least 1) and the learning rate decay
    geometrically every temperature_every / lr_every episodes of an environment. Returns the CPU
    seconds spent.
    """
    optimiser = torch.optim.Adam(agent.parameters(), lr=lr)
    sampler = torch.Generator().manual_seed(seed)
    start = time.process_time()
    done = [0] * len(envs)
    for round_index in range(rounds):
        for i, env in enumerate(envs):
            end = episodes * (round_index + 1) // rounds
            layers, lengths, times, row = env.states()
            for first in range(done[i], end, batch):
                t = max(temperature * temperature_decay ** (first // temperature_every), 1.0)
                for group in optimiser.param_groups:
                    group["lr"] = lr * lr_decay ** (first // lr_every)
                log_p = torch.log_softmax(agent(layers, lengths, times) / t, dim=1)
                terms, rewards = [], []
                for _ in range(min(batch, end - first)):
                    prefix, chosen = (), []
                    while len(prefix) < env.cache.decisions:
                        state_log_p = log_p[row[prefix]]
                        action = int(torch.multinomial(state_log_p.exp().detach(), 1, generator=sampler))
                        chosen.append(state_log_p[action])
                        prefix += (action,)
                    terms.append(-torch.stack(chosen).mean())
                    rewards.append(reward(env.accuracy(prefix)))
                returns = torch.tensor(rewards)
                if baseline:
                    returns = returns - returns.mean()
                optimiser.zero_grad()
                (torch.stack(terms) * returns).mean().backward()
                optimiser.step()
                if log and (first // batch + 1) % 50 == 0:
                    log(f"{env.cache.path}: episode {first + batch}/{episodes}, T {t:.2f}, "
                        f"greedy {greedy_sequence(agent, env)}")
            done[i] = end
    return time.process_time() - start


def save_agent(agent, path, trained_on, episodes, seconds):
    try:
        torch.save({"format": "schedkit-adapt-agent/1", "num_actions": agent.num_actions,
                    "state_dict": agent.state_dict(), "trained_on": trained_on, "episodes": episodes,
                    "training_cpu_s": seconds}, path)
    except (OSError, RuntimeError) as e:
        raise AdaptError(f"--out: {path}: cannot write ({e})") from None


def load_agent(path):
    try:
        saved = torch.load(path, map_location="cpu")
    except (OSError, RuntimeError, EOFError, pickle.UnpicklingError) as e:
        raise AdaptError(f"{path}: cannot load an agent ({e})") from None
    if not isinstance(saved, dict) or saved.get("format") != "schedkit-adapt-agent/1":
        raise AdaptError(f"{path}: field 'format' is not 'schedkit-adapt-agent/1'")
    agent = Agent(saved["num_actions"])
    try:
        agent.load_state_dict(saved["state_dict"])
    except (KeyError, RuntimeError) as e:
        raise AdaptError(f"{path}: field 'state_dict' does not fit the agent ({str(e).splitlines()[0]})") from None
    agent.eval()
    return agent, saved


def evaluate(agent, env):
    """The agent's greedy sequence against the best, no adaptation and uniformly random choices."""
    outcomes = env.cache.sequences
    nothing = tuple([env.cache.num_actions - 1] * env.cache.decisions)
    chosen = greedy_sequence(agent, env)
    ranks = [rank(env, s) for s in outcomes]
    return {"cache": env.cache.path, "best": max(o["accuracy"] for o in outcomes.values()),
            "nothing": env.accuracy(nothing), "nothing_rank": rank(env, nothing),
            "learned": chosen, "learned_accuracy": env.accuracy(chosen), "learned_rank": rank(env, chosen),
            "random_accuracy": sum(o["accuracy"] for o in outcomes.values()) / len(outcomes),
            "random_rank": sum(ranks) / len(ranks)}


def format_row(result):
    seq = "".join("0123456789"[a] for a in result["learned"])
    name = os.path.splitext(os.path.basename(result["cache"]))[0]
    return (f"| {name} | {result['best']:.4f} | {result['nothing']:.4f} ({result['nothing_rank']}) "
            f"| {seq}: {result['learned_accuracy']:.4f} ({result['learned_rank']}) "
            f"| {result['random_accuracy']:.4f} ({result['random_rank']:.1f}) |")


TABLE_HEADER = ("| cache | best accuracy | no adaptation (rank) | learned sequence: accuracy (rank) "
                "| random: mean accuracy (mean rank) |\n|---|---|---|---|---|")


def parse_seeds(text):
    """`--seeds 1,2,3` or `--seeds 1-5`: distinct seeds >= 0, in the order given."""
    seeds = []
    for part in text.split(","):
        try:
            first, _, last = part.partition("-")
            seeds += list(range(int(first), int(last or first) + 1))
        except ValueError:
            raise AdaptError(f"--seeds: '{text}' is not a list of seeds such as 1,2,3 or 1-5") from None
    if not seeds or len(set(seeds)) != len(seeds) or min(seeds) < 0:
        raise AdaptError(f"--seeds: '{text}' must name distinct seeds >= 0")
    return seeds


def seeds_row(results):
    """One cache's learned ranks over several training seeds: each, their mean, sample standard
    deviation and range, and how many seeds reach the top 5 and rank 1."""
    first = results[0]
    ranks = [r["learned_rank"] for r in results]
    mean = sum(ranks) / len(ranks)
    sd = math.sqrt(sum((r - mean) ** 2 for r in ranks) / (len(ranks) - 1)) if len(ranks) > 1 else 0.0
    name = os.path.splitext(os.path.basename(first["cache"]))[0]
    return (f"| {name} | {first['best']:.4f} | {first['nothing']:.4f} ({first['nothing_rank']}) "
            f"| {' '.join(str(r) for r in ranks)} | {mean:.1f} ± {sd:.1f} ({min(ranks)}-{max(ranks)}) "
            f"| {sum(r <= 5 for r in ranks)}/{len(ranks)} | {sum(r == 1 for r in ranks)}/{len(ranks)} "
            f"| {first['random_rank']:.1f} |")


SEEDS_HEADER = ("| cache | best accuracy | no adaptation (rank) | learned rank, seed by seed | mean ± sd (range) "
                "| top 5 | rank 1 | random: mean rank |\n|---|---|---|---|---|---|---|---|")


def cmd_learn(args):
    seeds = parse_seeds(args.seeds) if args.seeds is not None else [args.seed]
    if len(seeds) > 1 and "{seed}" not in args.out:
        raise AdaptError(f"--out: {args.out}: with several --seeds, name each agent's file with {{seed}}")
    if not os.path.isdir(os.path.dirname(os.path.abspath(args.out))):
        raise AdaptError(f"--out: {args.out}: its folder does not exist")
    envs = [CacheEnvironment(load_cache(p)) for p in args.cache]
    actions = {env.cache.num_actions for env in envs}
    if len(actions) != 1:
        raise AdaptError("--cache: the caches have different numbers of actions")
    num_actions = actions.pop()
    log = (lambda line: print(line, flush=True)) if args.verbose else None
    results = []
    for seed in seeds:
        agent = Agent(num_actions, seed=seed)
        seconds = learn(agent, envs, args.episodes, batch=args.batch, temperature=args.temperature, lr=args.lr,
                        baseline=args.baseline == "batch-mean", rounds=args.rounds, seed=seed, log=log)
        out = args.out.replace("{seed}", str(seed))
        save_agent(agent, out, args.cache, args.episodes, seconds)
        print(f"{out}: trained on {', '.join(args.cache)} ({args.episodes} episodes each, seed {seed}) "
              f"in {seconds:.1f} CPU s")
        results.append([evaluate(agent, env) for env in envs])
        print(TABLE_HEADER)
        for result in results[-1]:
            print(format_row(result))
    if len(seeds) > 1:
        print(f"seeds {','.join(str(s) for s in seeds)}:")
        print(SEEDS_HEADER)
        for i in range(len(envs)):
            print(seeds_row([per_seed[i] for per_seed in results]))
    return 0


def cmd_evaluate(args):
    agent, _ = load_agent(args.agent)
    print(TABLE_HEADER)
    for path in args.cache:
        env = CacheEnvironment(load_cache(path))
        if env.cache.num_actions != agent.num_actions:
            raise AdaptError(f"{path}: {env.cache.num_actions} actions, the agent has {agent.num_actions}")
        print(format_row(evaluate(agent, env)))
    return 0


def add_agent_commands(sub):
    learn_parser = sub.add_parser("learn", help="train the agent with REINFORCE on caches (several = a curriculum)")
    learn_parser.add_argument("--cache", nargs="+", required=True, help="cache files, trained on in this order")
    learn_parser.add_argument("--episodes", type=int, default=3000, help="episodes per cache (default 3000)")
    learn_parser.add_argument("--temperature", type=float, default=10.0, help="initial exploration temperature")
    learn_parser.add_argument("--batch", type=int, default=16, help="episodes per Adam step (default 16)")
    learn_parser.add_argument("--lr", type=float, default=1e-3, help="Adam's initial learning rate (default 1e-3)")
    learn_parser.add_argument("--baseline", choices=["none", "batch-mean"], default="none",
                              help="subtract the batch's mean reward (default none, as the reference)")
    learn_parser.add_argument("--rounds", type=int, default=1,
                              help="with several caches, interleave them in this many slices (default 1: in turn)")
    learn_parser.add_argument("--seed", type=int, default=1)
    learn_parser.add_argument("--seeds", default=None,
                              help="train one agent per seed (1,2,3 or 1-5) and summarise the ranks over seeds")
    learn_parser.add_argument("--out", required=True, help="the agent's file ({seed} in it: one per seed)")
    learn_parser.add_argument("--verbose", action="store_true", help="print the greedy sequence every 500 episodes")
    learn_parser.set_defaults(run=cmd_learn)
    eval_parser = sub.add_parser("evaluate", help="rank the agent's greedy sequence among all, per cache")
    eval_parser.add_argument("--agent", required=True)
    eval_parser.add_argument("--cache", nargs="+", required=True)
    eval_parser.set_defaults(run=cmd_evaluate)
