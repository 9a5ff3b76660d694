#!/usr/bin/python3
"""Decima's forward pass in plain PyTorch, written from ../shared/docs/reference/spark-dag.md
(the "Decima policy" section: spark-sched-sim's DecimaObsWrapper features and its
NodeEncoder / DagEncoder / GlobalEncoder / StagePolicyNetwork / ExecPolicyNetwork), not from
schedkit's C++. It produces the golden values that DecimaModelTest compares the C++ model with.

  decima_reference.py WEIGHTS CASES                 # prints the golden JSON
  decima_reference.py WEIGHTS CASES --check GOLDEN  # recomputes; exit 1 if GOLDEN differs

Exit code 77 (ctest's skip) when torch cannot be imported.
"""
import argparse
import json
import sys

try:
    import torch
    from torch import nn
except ImportError:
    print("torch is not importable: skipped", file=sys.stderr)
    sys.exit(77)

NUM_TASKS_SCALE = 200.0
WORK_SCALE = 1e5


def make_mlp(tensors, prefix, act):
    """nn.Sequential(Linear, act, Linear, act, ..., Linear) from the `prefix`.{0,2,4}.* tensors."""
    layers = []
    i = 0
    while f"{prefix}.{i}.weight" in tensors:
        w = tensors[f"{prefix}.{i}.weight"]
        b = tensors[f"{prefix}.{i}.bias"]
        lin = nn.Linear(w["shape"][1], w["shape"][0])
        with torch.no_grad():
            lin.weight.copy_(torch.tensor(w["data"], dtype=torch.float32).view(*w["shape"]))
            lin.bias.copy_(torch.tensor(b["data"], dtype=torch.float32))
        if layers:
            layers.append(act())
        layers.append(lin)
        i += 2
    return nn.Sequential(*layers)


class Decima:
    def __init__(self, path):
        t = json.load(open(path))["tensors"]
        leaky = lambda: nn.LeakyReLU(0.2)
        self.prep = make_mlp(t, "encoder.node_encoder.mlp_prep", leaky)
        self.msg = make_mlp(t, "encoder.node_encoder.mlp_msg", leaky)
        self.update = make_mlp(t, "encoder.node_encoder.mlp_update", leaky)
        self.dag = make_mlp(t, "encoder.dag_encoder.mlp", leaky)
        self.glob = make_mlp(t, "encoder.global_encoder.mlp", leaky)
        self.stage = make_mlp(t, "stage_policy_network.mlp_score", nn.Tanh)
        self.exec = make_mlp(t, "exec_policy_network.mlp_score", nn.Tanh)

    @torch.no_grad()
    def forward(self, case):
        n_exec = case["num_executors"]
        committable = case["num_committable"]
        src = case["source_job"]
        jobs = case["jobs"]
        # Per-job commit cap: min(max(N - supply, 0), committable); the source job gets all.
        caps = []
        for j, supply in enumerate(case["exec_supply"]):
            caps.append(committable if j == src else min(max(n_exec - supply, 0), committable))
        rows, edges, ptr, schedulable = [], [], [0], []
        for j, job in enumerate(jobs):
            base = ptr[-1]
            for k, (remaining, recent, sched) in enumerate(job["nodes"]):
                rows.append([caps[j] / n_exec, 1.0 if j == src else -1.0,
                             case["exec_supply"][j] / n_exec, remaining / NUM_TASKS_SCALE,
                             remaining * recent / WORK_SCALE])
                if sched:
                    schedulable.append((base + k, j))
            edges += [(base + p, base + c) for p, c in job["edges"]]
            ptr.append(base + len(job["nodes"]))
        x = torch.tensor(rows, dtype=torch.float32)
        n = x.shape[0]

        # Node encoder: messages flow from children to parents, one DAG level at a time.
        if not edges:
            h = self.prep(x)
        else:
            h0 = self.prep(x)
            h = torch.zeros_like(h0)
            has_child = torch.zeros(n, dtype=torch.bool)
            for p, _ in edges:
                has_child[p] = True
            h[~has_child] = self.update(h0[~has_child])
            # Topological generations (depth from the roots); edges grouped by their parent's
            # generation, processed from the deepest generation back to the roots.
            depth = [0] * n
            for p, c in sorted(edges):  # Parents precede children in node order.
                depth[c] = max(depth[c], depth[p] + 1)
            for g in range(max(depth), -1, -1):
                level = [(p, c) for p, c in edges if depth[p] == g]
                if not level:
                    continue
                senders = sorted({c for _, c in level})
                receivers = sorted({p for p, _ in level})
                msg = torch.zeros_like(h)
                msg[senders] = self.msg(h[senders])
                adj = torch.zeros(n, n)
                for p, c in level:
                    adj[p, c] = 1.0
                agg = adj @ msg
                h[receivers] = h0[receivers] + self.update(agg[receivers])

        per_node = self.dag(torch.cat([x, h], dim=1))
        h_dag = torch.stack([per_node[ptr[j]:ptr[j + 1]].sum(0) for j in range(len(jobs))])
        h_glob = self.glob(h_dag).sum(0)

        stage_in = torch.stack([torch.cat([x[v], h[v], h_dag[j], h_glob]) for v, j in schedulable])
        stage_logits = self.stage(stage_in).squeeze(-1)

        k = torch.arange(n_exec) / n_exec
        exec_logits = []
        for j in range(len(jobs)):
            summary = torch.cat([x[ptr[j], :3], h_dag[j], h_glob])
            inp = torch.cat([summary.repeat(n_exec, 1), k.unsqueeze(1)], dim=1)
            exec_logits.append(self.exec(inp).squeeze(-1).tolist())
        return {"name": case["name"], "stage_logits": stage_logits.tolist(),
                "exec_logits": exec_logits, "h_glob": h_glob.tolist()}


def compare(a, b, path, tol):
    if isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            return [f"{path}: length {len(a)} vs {len(b) if isinstance(b, list) else b}"]
        return sum((compare(x, y, f"{path}[{i}]", tol) for i, (x, y) in enumerate(zip(a, b))), [])
    if isinstance(a, dict):
        return sum((compare(a[k], b.get(k), f"{path}.{k}", tol) for k in a), [])
    if isinstance(a, float) and abs(a - b) > tol:
        return [f"{path}: {a} vs golden {b}"]
    return [] if a == b or isinstance(a, float) else [f"{path}: {a} vs {b}"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("weights")
    ap.add_argument("cases")
    ap.add_argument("--check", help="golden file to compare with (tolerance 1e-6)")
    a = ap.parse_args()
    torch.set_num_threads(1)
    model = Decima(a.weights)
    out = {"about": "Written by tests/dag/decima_reference.py from decima_cases.json; "
                    "do not edit by hand.",
           "cases": [model.forward(c) for c in json.load(open(a.cases))["cases"]]}
    if not a.check:
        json.dump(out, sys.stdout, indent=1)
        print()
        return 0
    errors = compare(out, json.load(open(a.check)), "golden", 1e-6)
    for e in errors[:20]:
        print(e, file=sys.stderr)
    print("golden file %s" % ("matches" if not errors else "is STALE: regenerate it"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
