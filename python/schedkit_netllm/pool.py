"""Experience pools (`schedkit dag collect` JSON lines) read into episodes, and the dataset's
targets: rewards min-max normalised over the pool, return-to-go (gamma 1, scaled).

The pool format is documented column by column in docs/netllm.md."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

import numpy as np

from . import NetllmError

# Observation fields the policy reads; a pool may hold more (they are kept as read).
INT_FIELDS = ("edge_links", "dag_ptr", "num_committable_execs", "source_job_idx", "exec_supplies",
              "node_job", "schedulable_nodes", "num_executors")
FLOAT_FIELDS = ("nodes",)
LINE_KEYS = ("episode", "seed", "step", "state", "action", "reward", "done")


@dataclass
class Episode:
    """One episode of a pool: observations, the actions taken in them, rewards (ms, <= 0)."""
    seed: int
    states: list = field(default_factory=list)   # dicts of NumPy arrays, env.reset/step layout
    actions: list = field(default_factory=list)  # (stage_idx, num_exec) as the expert returned it
    rewards: list = field(default_factory=list)
    done: bool = False                           # the last step ended the episode
    truncated: bool = False                      # the pool's end cut it short

    def __len__(self) -> int:
        return len(self.actions)


def _fail(path: str, line_no: int, what: str) -> NetllmError:
    return NetllmError(f"{path}:{line_no}: {what}")


def _tensor(path: str, line_no: int, name: str, value, dtype) -> np.ndarray:
    if not isinstance(value, dict) or "shape" not in value or "data" not in value:
        raise _fail(path, line_no, f"state.{name}: expected {{\"shape\", \"data\"}}")
    shape, data = value["shape"], value["data"]
    if not isinstance(shape, list) or not all(isinstance(d, int) and d >= 0 for d in shape):
        raise _fail(path, line_no, f"state.{name}.shape: expected a list of sizes")
    if not isinstance(data, list) or len(data) != math.prod(shape):
        raise _fail(path, line_no, f"state.{name}.data: expected {math.prod(shape)} values")
    try:
        array = np.asarray(data, dtype=dtype)
    except (TypeError, ValueError):
        raise _fail(path, line_no, f"state.{name}.data: expected numbers") from None
    if dtype is np.int64 and not all(isinstance(v, int) and not isinstance(v, bool) for v in data):
        raise _fail(path, line_no, f"state.{name}.data: expected integers")
    return array.reshape(shape)


def _state(path: str, line_no: int, value) -> dict:
    if not isinstance(value, dict):
        raise _fail(path, line_no, "state: expected an object")
    state = {}
    for name in INT_FIELDS + FLOAT_FIELDS:
        if name not in value:
            raise _fail(path, line_no, f"state.{name}: missing")
        state[name] = _tensor(path, line_no, name, value[name],
                              np.int64 if name in INT_FIELDS else np.float64)
    n, k = len(state["node_job"]), len(state["schedulable_nodes"])
    if state["nodes"].shape != (n, 3):
        raise _fail(path, line_no, f"state.nodes.shape: expected [{n}, 3]")
    if k == 0:
        raise _fail(path, line_no, "state.schedulable_nodes: empty (no decision to take)")
    if state["schedulable_nodes"].min() < 0 or state["schedulable_nodes"].max() >= n:
        raise _fail(path, line_no, "state.schedulable_nodes: node index out of range")
    jobs = len(state["exec_supplies"])
    if len(state["dag_ptr"]) != jobs + 1 or (n and state["node_job"].max() >= jobs):
        raise _fail(path, line_no, "state.dag_ptr: inconsistent with exec_supplies and node_job")
    return state


def _check_line(path: str, line_no: int, text: str) -> dict:
    try:
        line = json.loads(text)
    except json.JSONDecodeError as e:
        raise _fail(path, line_no, f"not a JSON object (truncated line?): {e.msg}") from None
    if not isinstance(line, dict):
        raise _fail(path, line_no, "not a JSON object")
    for key in LINE_KEYS:
        if key not in line:
            raise _fail(path, line_no, f"{key}: missing")
    for key in ("episode", "seed", "step"):
        if not isinstance(line[key], int) or isinstance(line[key], bool) or line[key] < 0:
            raise _fail(path, line_no, f"{key}: expected an integer >= 0")
    action = line["action"]
    if (not isinstance(action, list) or len(action) != 2
            or not all(isinstance(a, int) and not isinstance(a, bool) for a in action)):
        raise _fail(path, line_no, "action: expected [stage_idx, num_exec] (two integers)")
    reward = line["reward"]
    if not isinstance(reward, (int, float)) or isinstance(reward, bool) or not reward <= 0:
        raise _fail(path, line_no, "reward: expected a number <= 0")
    for key in ("done", "truncated"):
        if not isinstance(line.get(key, False), bool):
            raise _fail(path, line_no, f"{key}: expected true or false")
    return line


def read_pool(path: str) -> list[Episode]:
    """Every episode of the pool at `path`, in file order. Raises NetllmError naming the file and
    line of the first bad line: not JSON, a missing or mistyped field, an action out of range,
    steps out of order, an episode that starts before the previous one ended or never ends."""
    episodes: list[Episode] = []
    try:
        handle = open(path, encoding="utf-8")
    except OSError as e:
        raise NetllmError(f"{path}: cannot open: {e.strerror}") from None
    with handle:
        line_no = 0
        for line_no, text in enumerate(handle, start=1):
            if not text.strip():
                raise _fail(path, line_no, "empty line")
            line = _check_line(path, line_no, text)
            current = episodes[-1] if episodes else None
            if current is None or current.done or current.truncated:
                if line["episode"] != len(episodes) or line["step"] != 0:
                    raise _fail(path, line_no, f"episode/step: expected episode {len(episodes)} "
                                               f"step 0, got {line['episode']}/{line['step']}")
                current = Episode(seed=line["seed"])
                episodes.append(current)
            elif line["episode"] != len(episodes) - 1:
                raise _fail(path, line_no, f"episode: episode {len(episodes) - 1} has no end "
                                           f"(no done=true before episode {line['episode']})")
            elif line["step"] != len(current) or line["seed"] != current.seed:
                raise _fail(path, line_no, f"step: expected {len(current)} of episode "
                                           f"{len(episodes) - 1} (seed {current.seed})")
            state = _state(path, line_no, line["state"])
            stage, num_exec = line["action"]
            if not -1 <= stage < len(state["schedulable_nodes"]):
                raise _fail(path, line_no, f"action: stage_idx {stage} outside -1.."
                                           f"{len(state['schedulable_nodes']) - 1}")
            if stage >= 0 and not 1 <= num_exec <= int(state["num_committable_execs"]):
                raise _fail(path, line_no, f"action: num_exec {num_exec} outside 1.."
                                           f"{int(state['num_committable_execs'])}")
            current.states.append(state)
            current.actions.append((stage, num_exec))
            current.rewards.append(float(line["reward"]))
            current.done = line["done"]
            current.truncated = line.get("truncated", False)
        if not episodes:
            raise NetllmError(f"{path}: empty pool")
        if not (episodes[-1].done or episodes[-1].truncated):
            raise _fail(path, line_no, f"done: episode {len(episodes) - 1} has no end "
                                       "(file cut short? its last line is not done or truncated)")
    return episodes


def write_pool(path: str, episodes: list[Episode]) -> None:
    """Writes `episodes` in the format read_pool reads (episodes renumbered from 0)."""
    with open(path, "w", encoding="utf-8") as out:
        for e_idx, episode in enumerate(episodes):
            for step, (state, action, reward) in enumerate(
                    zip(episode.states, episode.actions, episode.rewards)):
                last = step == len(episode) - 1
                line = {"episode": e_idx, "seed": episode.seed, "step": step,
                        "state": {k: {"shape": list(v.shape), "data": v.ravel().tolist()}
                                  for k, v in sorted(state.items())},
                        "action": list(action), "reward": reward,
                        "done": episode.done and last, "truncated": episode.truncated and last}
                out.write(json.dumps(line, separators=(",", ":")) + "\n")


@dataclass(frozen=True)
class RewardScale:
    """Min-max normalisation of rewards over a pool; returns-to-go are divided by `rtg_scale`."""
    low: float
    high: float
    rtg_scale: float = 1000.0

    def normalise(self, rewards) -> np.ndarray:
        span = self.high - self.low
        r = np.asarray(rewards, dtype=np.float64)
        return (r - self.low) / span if span > 0 else np.zeros_like(r)

    @classmethod
    def of(cls, episodes: list[Episode], rtg_scale: float = 1000.0) -> "RewardScale":
        rewards = np.concatenate([np.asarray(e.rewards, dtype=np.float64) for e in episodes])
        return cls(float(rewards.min()), float(rewards.max()), rtg_scale)


def returns_to_go(normalised_rewards: np.ndarray, rtg_scale: float) -> np.ndarray:
    """Undiscounted (gamma 1) sum of the rewards from each step to the episode's end, / scale."""
    return np.cumsum(np.asarray(normalised_rewards, dtype=np.float64)[::-1])[::-1] / rtg_scale


def complete_episodes(episodes: list[Episode]) -> list[Episode]:
    """The episodes that ran to their end (a truncated one has no true return-to-go)."""
    return [e for e in episodes if e.done]
