"""Training windows from experience pools: K consecutive steps of one episode, each carrying its
observation's features, return-to-go, timestep and the expert's action (executor as a class)."""

from __future__ import annotations

import numpy as np

from . import NetllmError
from .features import step_features
from .model import StepItem, trim_window
from .pool import Episode, RewardScale, complete_episodes, read_pool, returns_to_go


class PoolDataset:
    def __init__(self, episodes: list[Episode], max_stages: int, rtg_scale: float = 1000.0,
                 source: str = "pool"):
        complete = complete_episodes(episodes)
        if not complete:
            raise NetllmError(f"{source}: no complete episode (collect more --steps)")
        self.scale = RewardScale.of(complete, rtg_scale)
        self.episodes: list[list[StepItem]] = []
        for episode in complete:
            rtg = returns_to_go(self.scale.normalise(episode.rewards), rtg_scale)
            self.episodes.append([
                StepItem(step_features(state, max_stages), float(rtg[t]), t,
                         (stage, num_exec - 1))
                for t, (state, (stage, num_exec)) in enumerate(zip(episode.states,
                                                                   episode.actions))])
        self.dropped = len(episodes) - len(complete)
        self.max_return = max(items[0].rtg for items in self.episodes)
        self._ends = np.cumsum([len(items) for items in self.episodes])

    @classmethod
    def from_files(cls, paths: list[str], max_stages: int, rtg_scale: float = 1000.0):
        episodes = [e for path in paths for e in read_pool(path)]
        return cls(episodes, max_stages, rtg_scale, source=", ".join(paths))

    def __len__(self) -> int:
        return int(self._ends[-1])

    def window(self, index: int, k: int, n_positions: int) -> list[StepItem]:
        """The K steps ending at flat step `index` (fewer at an episode's start)."""
        e = int(np.searchsorted(self._ends, index, side="right"))
        t = index - (int(self._ends[e - 1]) if e else 0)
        return trim_window(self.episodes[e][max(0, t - k + 1):t + 1], n_positions)

    def sample(self, rng: np.random.Generator, batch: int, k: int,
               n_positions: int) -> list[list[StepItem]]:
        """`batch` windows whose last step is uniform over every step of the pool."""
        return [self.window(int(i), k, n_positions) for i in rng.integers(0, len(self), batch)]
