"""Decima's view of one DAG observation (docs/decima.md): node features, DAG heights for
level-by-level message passing, and what the heads need (schedulable nodes, commit caps)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

NODE_FEATURES = 5
JOB_FEATURES = 3  # the first three node features are per job
TASKS_SCALE = 200.0
WORK_SCALE = 1e5


@dataclass
class StepFeatures:
    x: np.ndarray            # float32 [n, 5]
    edges: np.ndarray        # int64 [e, 2] (parent, child), node indices
    height: np.ndarray       # int64 [n]: longest path to a node without children
    node_job: np.ndarray     # int64 [n]
    num_jobs: int
    job_x: np.ndarray        # float32 [J, 3]: commit cap / N, source flag, supply / N
    commit_cap: np.ndarray   # int64 [J]
    schedulable: np.ndarray  # int64 [k]: node indices, in the observation's order (capped)

    @property
    def num_nodes(self) -> int:
        return len(self.node_job)


def commit_caps(obs: dict) -> np.ndarray:
    """Per active job: all committable executors for the source job, else
    min(max(N - supply, 0), committable) (DagObservation::CommitCap)."""
    n_exec = int(obs["num_executors"])
    committable = int(obs["num_committable_execs"])
    supply = np.asarray(obs["exec_supplies"], dtype=np.int64)
    caps = np.minimum(np.maximum(n_exec - supply, 0), committable)
    source = int(obs["source_job_idx"])
    if 0 <= source < len(caps):
        caps[source] = committable
    return caps


def heights(num_nodes: int, edges: np.ndarray) -> np.ndarray:
    """Longest path from each node down to a node without children (0 for those)."""
    height = np.zeros(num_nodes, dtype=np.int64)
    if len(edges) == 0:
        return height
    parent, child = edges[:, 0], edges[:, 1]
    while True:  # at most depth + 1 rounds
        updated = height.copy()
        np.maximum.at(updated, parent, height[child] + 1)
        if np.array_equal(updated, height):
            return height
        height = updated


def step_features(obs: dict, max_stages: int) -> StepFeatures:
    """Decima's five node features (computed in double, stored float32, as its wrapper does)."""
    n_exec = float(obs["num_executors"])
    nodes = np.asarray(obs["nodes"], dtype=np.float64).reshape(-1, 3)
    node_job = np.asarray(obs["node_job"], dtype=np.int64)
    supply = np.asarray(obs["exec_supplies"], dtype=np.float64)
    caps = commit_caps(obs)
    source = int(obs["source_job_idx"])
    flag = np.where(np.arange(len(supply)) == source, 1.0, -1.0)
    job_x = np.stack([caps / n_exec, flag, supply / n_exec], axis=1)
    x = np.concatenate([job_x[node_job], nodes[:, :1] / TASKS_SCALE,
                        (nodes[:, 0] * nodes[:, 1] / WORK_SCALE)[:, None]], axis=1)
    edges = np.asarray(obs["edge_links"], dtype=np.int64).reshape(-1, 2)
    return StepFeatures(x=x.astype(np.float32), edges=edges, height=heights(len(node_job), edges),
                        node_job=node_job, num_jobs=len(supply),
                        job_x=job_x.astype(np.float32).reshape(-1, JOB_FEATURES),
                        commit_cap=caps,
                        schedulable=np.asarray(obs["schedulable_nodes"],
                                               dtype=np.int64)[:max_stages])
