"""Decima's graph encoder (docs/decima.md) over a batch of observations at once: the batch is one
disjoint graph, so each DAG level costs one batched product however many steps it holds."""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from . import NetllmError
from .features import JOB_FEATURES, NODE_FEATURES, StepFeatures

EMBED = 16
HIDDEN = (32, 16)


@dataclass
class GraphBatch:
    """Observations side by side: node, edge and job indices offset into one graph."""
    x: torch.Tensor           # [N, 5]
    leaf_update: torch.Tensor # [N] bool: a node without children in an observation with edges
    levels: list              # per height >= 1: (node indices, edge indices whose parent is there)
    children: torch.Tensor    # [E] child node of each edge
    parents: torch.Tensor     # [E]
    node_job: torch.Tensor    # [N] global job index
    job_step: torch.Tensor    # [J] step of each job
    job_x: torch.Tensor       # [J, 3]
    job_cap: torch.Tensor     # [J] commit cap (executors a stage of the job may get now)
    node_offset: np.ndarray   # [S + 1]
    job_offset: np.ndarray    # [S + 1]

    @property
    def num_steps(self) -> int:
        return len(self.node_offset) - 1

    @classmethod
    def of(cls, steps: list[StepFeatures], device) -> "GraphBatch":
        node_offset = np.cumsum([0] + [s.num_nodes for s in steps])
        job_offset = np.cumsum([0] + [s.num_jobs for s in steps])
        edges = np.concatenate([s.edges + o for s, o in zip(steps, node_offset)] or
                               [np.zeros((0, 2), np.int64)]).reshape(-1, 2)
        height = np.concatenate([s.height for s in steps])
        has_edges = np.concatenate([np.full(s.num_nodes, len(s.edges) > 0) for s in steps])
        levels = []
        for level in range(1, int(height.max(initial=0)) + 1):
            nodes = np.flatnonzero(height == level)
            edge_idx = np.flatnonzero(height[edges[:, 0]] == level)
            levels.append((torch.as_tensor(nodes, device=device),
                           torch.as_tensor(edge_idx, device=device)))
        t = lambda a, dtype=None: torch.as_tensor(a, dtype=dtype, device=device)
        return cls(
            x=t(np.concatenate([s.x for s in steps])),
            leaf_update=t((height == 0) & has_edges),
            levels=levels, children=t(edges[:, 1]), parents=t(edges[:, 0]),
            node_job=t(np.concatenate([s.node_job + o for s, o in zip(steps, job_offset)])),
            job_step=t(np.repeat(np.arange(len(steps)), [s.num_jobs for s in steps])),
            job_x=t(np.concatenate([s.job_x for s in steps]).reshape(-1, JOB_FEATURES)),
            job_cap=t(np.concatenate([s.commit_cap for s in steps])),
            node_offset=node_offset, job_offset=job_offset)


def mlp(sizes, activation) -> nn.Sequential:
    """Linear layers at even indices with `activation` between them (Decima's state_dict names)."""
    layers = []
    for i, (n_in, n_out) in enumerate(zip(sizes, sizes[1:])):
        if i:
            layers.append(activation())
        layers.append(nn.Linear(n_in, n_out))
    return nn.Sequential(*layers)


class DecimaEncoder(nn.Module):
    """Node, DAG and global embeddings of Decima's encoder (LeakyReLU 0.2 between layers)."""

    def __init__(self):
        super().__init__()
        act = lambda: nn.LeakyReLU(0.2)
        self.node_encoder = nn.Module()
        self.node_encoder.mlp_prep = mlp((NODE_FEATURES, *HIDDEN, EMBED), act)
        self.node_encoder.mlp_msg = mlp((EMBED, *HIDDEN, EMBED), act)
        self.node_encoder.mlp_update = mlp((EMBED, *HIDDEN, EMBED), act)
        self.dag_encoder = nn.Module()
        self.dag_encoder.mlp = mlp((NODE_FEATURES + EMBED, *HIDDEN, EMBED), act)
        self.global_encoder = nn.Module()
        self.global_encoder.mlp = mlp((EMBED, *HIDDEN, EMBED), act)

    def load_decima(self, path: str) -> None:
        """Copies the encoder tensors of a Decima weights JSON (data/decima/README.md)."""
        try:
            with open(path, encoding="utf-8") as f:
                tensors = json.load(f)["tensors"]
        except OSError as e:
            raise NetllmError(f"{path}: cannot open: {e.strerror}") from None
        except (json.JSONDecodeError, KeyError, TypeError):
            raise NetllmError(f"{path}: not a Decima weights file ({{\"tensors\": ...}})") from None
        state = {}
        for name, param in self.state_dict().items():
            entry = tensors.get("encoder." + name)
            if entry is None:
                raise NetllmError(f"{path}: tensors.encoder.{name}: missing")
            if list(entry.get("shape", [])) != list(param.shape):
                raise NetllmError(f"{path}: tensors.encoder.{name}.shape: expected "
                                  f"{list(param.shape)}, got {entry.get('shape')}")
            state[name] = torch.tensor(entry["data"], dtype=torch.float32).reshape(param.shape)
        self.load_state_dict(state)

    def forward(self, g: GraphBatch):
        """Returns (h_node [N, 16], h_dag [J, 16], h_glob [S, 16])."""
        enc = self.node_encoder
        h0 = enc.mlp_prep(g.x)
        # Leaves of observations with edges get mlp_update(h0); an observation without any edge
        # keeps h0 (spark-sched-sim's _forward_no_mp).
        h = torch.where(g.leaf_update[:, None], enc.mlp_update(h0), h0)
        for nodes, edge_idx in g.levels:
            parents = g.parents[edge_idx]
            messages = enc.mlp_msg(h[g.children[edge_idx]])
            summed = torch.zeros_like(h).index_add(0, parents, messages)
            h = h.index_copy(0, nodes, h0[nodes] + enc.mlp_update(summed[nodes]))
        per_node = self.dag_encoder.mlp(torch.cat([g.x, h], dim=1))
        h_dag = torch.zeros(len(g.job_x), EMBED, device=h.device).index_add(0, g.node_job, per_node)
        per_job = self.global_encoder.mlp(h_dag)
        h_glob = torch.zeros(g.num_steps, EMBED, device=h.device).index_add(0, g.job_step, per_job)
        return h, h_dag, h_glob
