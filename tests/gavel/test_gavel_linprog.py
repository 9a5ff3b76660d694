"""`schedkit gavel allocate` against an independent LP solver (scipy.optimize.linprog, HiGHS).

Random small instances (seeded): each policy's objective is recomputed from the printed
allocation and compared with linprog's optimum of the same formulation (docs/gavel.md).
Run by ctest as gavel_linprog_python; needs SCHEDKIT_CLI.
"""
import os
import random
import subprocess
import tempfile
import unittest

import numpy as np
from scipy.optimize import linprog

CLI = os.environ.get("SCHEDKIT_CLI", "build/schedkit")
INSTANCES = 25


def make_instance(rng):
    k = rng.choice([2, 3])
    types = [("t%d" % i, rng.randint(1, 4), round(rng.uniform(0.5, 3), 3)) for i in range(k)]
    jobs = []
    for j in range(rng.randint(2, 7)):
        if jobs and rng.random() < 0.4:
            # A twin of an earlier job (the LPs solve such jobs as one class), sometimes
            # down to its steps and times.
            twin = dict(rng.choice(jobs), id="j%d" % j)
            if rng.random() < 0.5:
                twin["steps"] = round(rng.uniform(1e3, 1e5), 1)
            jobs.append(twin)
            continue
        while True:
            sf = rng.choice([1, 1, 2])
            tput = [0.0 if rng.random() < 0.1 else round(rng.uniform(0.5, 5), 3) for _ in types]
            if any(t > 0 and sf <= n for t, (_, n, _) in zip(tput, types)):
                break
        since = round(rng.uniform(0, 5000), 1)
        jobs.append(dict(id="j%d" % j, sf=sf, w=round(rng.uniform(0.5, 2), 3),
                         steps=round(rng.uniform(1e3, 1e5), 1), since=since,
                         iso=round(rng.uniform(0, since), 1), tput=tput))
    return types, jobs


class Problem:
    """The instance as arrays: x is flattened j * K + k; runs[j, k] says where x may be > 0."""

    def __init__(self, types, jobs, agnostic=False):
        self.n = np.array([t[1] for t in types], float)
        self.cost = np.array([t[2] for t in types], float)
        self.sf = np.array([j["sf"] for j in jobs], float)
        self.w = np.array([j["w"] for j in jobs], float)
        self.steps = np.array([j["steps"] for j in jobs], float)
        self.since = np.array([j["since"] for j in jobs], float)
        self.iso = np.array([j["iso"] for j in jobs], float)
        self.T = np.array([j["tput"] for j in jobs], float)
        if agnostic:
            self.T = (self.T > 0).astype(float)
        self.m, self.k = self.T.shape
        self.runs = (self.T > 0) & (self.sf[:, None] <= self.n[None, :])

    def base(self, extra_vars=0, pairs=()):
        """A_ub, b_ub and bounds of the shared constraints. Variables: x, then one per pair
        (time co-located: in both jobs' rows, sf GPUs on its type), then extra_vars."""
        m, k, nv = self.m, self.k, self.m * self.k + len(pairs) + extra_vars
        rows, rhs = [], []
        for j in range(m):
            r = np.zeros(nv)
            r[j * k:(j + 1) * k] = 1
            for i, (a, b, _, _, _) in enumerate(pairs):
                if j in (a, b):
                    r[m * k + i] = 1
            rows.append(r)
            rhs.append(1)
        for kk in range(k):
            r = np.zeros(nv)
            for j in range(m):
                r[j * k + kk] = self.sf[j]
            for i, (a, _, pk, _, _) in enumerate(pairs):
                if pk == kk:
                    r[m * k + i] = self.sf[a]
            rows.append(r)
            rhs.append(self.n[kk])
        bounds = [(0, 1 if self.runs[j, kk] else 0) for j in range(m) for kk in range(k)]
        return rows, rhs, bounds + [(0, 1)] * len(pairs) + [(None, None)] * extra_vars

    def max_min(self, coeff):
        """max t s.t. sum_k coeff[j, k] x_jk >= t."""
        rows, rhs, bounds = self.base(1)
        for j in range(self.m):
            r = np.zeros(self.m * self.k + 1)
            r[j * self.k:(j + 1) * self.k] = -coeff[j]
            r[-1] = 1
            rows.append(r)
            rhs.append(0)
        c = np.zeros(self.m * self.k + 1)
        c[-1] = -1
        res = linprog(c, A_ub=np.array(rows), b_ub=np.array(rhs), bounds=bounds, method="highs")
        assert res.status == 0, res.message
        return -res.fun

    def floors_feasible(self, floors):
        rows, rhs, bounds = self.base()
        for j in range(self.m):
            r = np.zeros(self.m * self.k)
            r[j * self.k:(j + 1) * self.k] = -self.T[j]
            rows.append(r)
            rhs.append(-floors[j])
        res = linprog(np.zeros(self.m * self.k), A_ub=np.array(rows), b_ub=np.array(rhs),
                      bounds=bounds, method="highs")
        return res.status == 0

    def isolated_denominator(self):
        big_n = self.n.sum()
        xiso = self.n[None, :] / np.maximum(self.m * self.sf[:, None], big_n) * self.runs
        return self.iso + self.steps / (self.T * xiso).sum(axis=1)

    def check_feasible(self, tc, x):
        tc.assertTrue(np.all(x >= 0))
        tc.assertTrue(np.all(x[~self.runs] == 0))
        tc.assertTrue(np.all(x.sum(axis=1) <= 1 + 1e-7))
        tc.assertTrue(np.all((self.sf[:, None] * x).sum(axis=0) <= self.n + 1e-7))


def write_instance(folder, types, jobs):
    cluster = os.path.join(folder, "cluster.csv")
    with open(cluster, "w") as f:
        f.write("type,gpus,cost_per_hour\n")
        for name, n, cost in types:
            f.write("%s,%d,%r\n" % (name, n, cost))
    path = os.path.join(folder, "jobs.csv")
    with open(path, "w") as f:
        f.write("job,scale_factor,weight,steps_left,time_since_arrival,isolated_time," +
                ",".join("throughput_" + t[0] for t in types) + "\n")
        for j in jobs:
            f.write("%s,%d,%r,%r,%r,%r,%s\n" % (j["id"], j["sf"], j["w"], j["steps"], j["since"],
                                                 j["iso"], ",".join(repr(t) for t in j["tput"])))
    return path, cluster


def make_pairs(rng, types, jobs):
    """(a, b, type, throughput_a, throughput_b): co-located at 30-90 % of alone, same sf."""
    pairs = []
    for a in range(len(jobs)):
        for b in range(a + 1, len(jobs)):
            for k, (_, n, _) in enumerate(types):
                ja, jb = jobs[a], jobs[b]
                if (ja["sf"] == jb["sf"] <= n and ja["tput"][k] > 0 and jb["tput"][k] > 0
                        and rng.random() < 0.3):
                    pairs.append((a, b, k, round(ja["tput"][k] * rng.uniform(0.3, 0.9), 3),
                                  round(jb["tput"][k] * rng.uniform(0.3, 0.9), 3)))
    return pairs


def allocate(policy, jobs_path, cluster_path, m, k, pairs_path=None, num_pairs=0):
    cmd = [CLI, "gavel", "allocate", "--policy", policy, "--jobs", jobs_path, "--cluster",
           cluster_path] + (["--pairs", pairs_path] if pairs_path else [])
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    assert lines[0] == "job,type,fraction"
    values = [float(line.split(",")[2]) for line in lines[1:-1]]
    x = np.array(values[:m * k]).reshape(m, k)
    assert len(values) == m * k + num_pairs
    if pairs_path:
        return x, np.array(values[m * k:]), float(lines[-1].split()[1].split("=")[1])
    assert lines[-1].startswith("# objective=")
    return x, float(lines[-1].split()[1].split("=")[1])


def packed_rates(p, pairs, extra_vars=0):
    """R[j] @ variables = job j's packed throughput (alone on each type, plus its co-located
    throughput in each pair it is in), over base(extra_vars, pairs)'s variables."""
    m, k = p.m, p.k
    rates = np.zeros((m, m * k + len(pairs) + extra_vars))
    for j in range(m):
        rates[j, j * k:(j + 1) * k] = p.T[j]
    for i, (a, b, _, ta, tb) in enumerate(pairs):
        rates[a, m * k + i] = ta
        rates[b, m * k + i] = tb
    return rates


def with_column(jobs_path, name, values):
    """A copy of the jobs file with one more column (one value per job); returns its path."""
    out = jobs_path[:-4] + "_" + name + ".csv"
    with open(jobs_path) as f:
        lines = f.read().splitlines()
    with open(out, "w") as f:
        f.write(lines[0] + "," + name + "\n")
        for line, v in zip(lines[1:], values):
            f.write(line + "," + v + "\n")
    return out


def water_filling(p, teq, entity, entity_weight, pairs=(), fifo=()):
    """Gavel's water filling written independently: per level, max c s.t. every unheld job's
    (sf_j / w_j) (n_j - so_far_j) >= c, n_j = R_j / Teq_j (R_j packed with `pairs`), held
    jobs keep their n_j, unheld ones at least so_far_j; w_j = W_e w_j / (summed w of e's
    unheld jobs), or for an entity in `fifo` W_e for its first unheld job and 0 for the others
    (out of the objective and never held while at 0), or the job's own w without an entity;
    then a job is held when it cannot
    exceed so_far_j (times 1 + 1e-6) with every other job at its bound. Returns each job's
    final n_j."""
    m = p.m
    held = {}
    so_far = np.zeros(m)
    n_rows = packed_rates(p, pairs, 1) / teq[:, None]
    nvar = n_rows.shape[1]

    def bounds_rows(skip=None):
        rows, rhs, bounds = p.base(1, pairs)
        for j in range(m):
            if j != skip:
                rows.append(-n_rows[j])
                rhs.append(-(held[j] if j in held else so_far[j]))
        return rows, rhs, bounds

    while len(held) < m:
        unheld = [j for j in range(m) if j not in held]
        w = {}
        for j in unheld:
            e = entity[j]
            if e is None:
                w[j] = p.w[j]
            elif e in fifo:
                w[j] = entity_weight[e] if j == min(i for i in unheld if entity[i] == e) else 0
            else:
                total = sum(p.w[i] for i in unheld if entity[i] == e)
                w[j] = entity_weight[e] * p.w[j] / total
        rows, rhs, bounds = bounds_rows()
        unheld = [j for j in unheld if w[j] > 0]
        for j in unheld:  # c <= (sf / w) (n_j - so_far_j)
            r = -n_rows[j] * p.sf[j] / w[j]
            r[-1] = 1
            rows.append(r)
            rhs.append(-so_far[j] * p.sf[j] / w[j])
        c = np.zeros(nvar)
        c[-1] = -1
        res = linprog(c, A_ub=np.array(rows), b_ub=np.array(rhs), bounds=bounds, method="highs")
        assert res.status == 0, res.message
        for j in unheld:
            so_far[j] += -res.fun * w[j] / p.sf[j]
        for j in unheld:
            rows, rhs, bounds = bounds_rows()
            res = linprog(np.concatenate([-n_rows[j][:-1], [0]]), A_ub=np.array(rows),
                          b_ub=np.array(rhs), bounds=bounds[:-1] + [(0, 0)], method="highs")
            assert res.status == 0, res.message
            if -res.fun <= so_far[j] * (1 + 1e-6) + 1e-9:
                held[j] = so_far[j]
    return np.array([held[j] for j in range(m)])


class LinprogTest(unittest.TestCase):
    def test_random_instances(self):
        rng = random.Random(17)
        self.rng = random.Random(18)
        with tempfile.TemporaryDirectory() as folder:
            for case in range(INSTANCES):
                types, jobs = make_instance(rng)
                paths = write_instance(folder, types, jobs)
                with self.subTest(case=case):
                    self.check_instance(types, jobs, paths)

    def check_instance(self, types, jobs, paths):
        p = Problem(types, jobs)
        m, k = p.m, p.k

        def run(policy):
            x, obj = allocate(policy, *paths, m, k)
            p.check_feasible(self, x)
            return x, obj

        # Max-min fairness: coefficients sf_j T_jk / (w_j Teq_j), Teq the equal split.
        for policy, agnostic in (("max_min_fairness", True), ("max_min_fairness_perf", False)):
            q = Problem(types, jobs, agnostic)
            teq = (q.T * q.n[None, :] / q.n.sum()).sum(axis=1)
            coeff = q.T * (q.sf / (q.w * teq))[:, None]
            x, obj = run(policy)
            best = q.max_min(coeff)
            self.assertAlmostEqual(obj, best, delta=1e-6 * max(1, best), msg=policy)
            # (max_min_fairness returns the centre of the allocations within 1e-7 of t*.)
            self.assertGreaterEqual((coeff * x).sum(axis=1).min(), best - 1e-6 * max(1, best),
                                    policy)
            # Water filling: its first level is that optimum, and no job falls below it.
            x, obj = run(policy.replace("max_min_fairness", "max_min_fairness_water_filling"))
            self.assertAlmostEqual(obj, best, delta=1e-6 * max(1, best), msg=policy)
            self.assertGreaterEqual((coeff * x).sum(axis=1).min(), best - 1e-6 * max(1, best),
                                    policy)

        # Water filling with entities (two, random weights; some jobs in none) against the
        # independent implementation: every job's final normalised throughput.
        entity = [self.rng.choice([None, "e0", "e1"]) for _ in jobs]
        named = sorted({e for e in entity if e is not None})
        if named:
            entity_weight = {e: round(self.rng.uniform(0.5, 3), 3) for e in named}
            fifo = {e for e in named if self.rng.random() < 0.5}
            ent_path = with_column(paths[0], "entity", [e or "" for e in entity])
            out = subprocess.run(
                [CLI, "gavel", "allocate", "--policy", "max_min_fairness_water_filling_perf",
                 "--jobs", ent_path, "--cluster", paths[1], "--entity-weights",
                 ",".join("%s=%r%s" % (e, entity_weight[e], ":fifo" if e in fifo else "")
                          for e in named)],
                capture_output=True, text=True, check=True)
            x = np.array([float(line.split(",")[2])
                          for line in out.stdout.splitlines()[1:-1]]).reshape(m, k)
            p.check_feasible(self, x)
            teq = (p.T * p.n[None, :] / p.n.sum()).sum(axis=1)
            expect = water_filling(p, teq, entity, entity_weight, fifo=fifo)
            got = (p.T * x).sum(axis=1) / teq
            # (A fifo job that waits for its turn may get the hair its held predecessors leave
            # below their levels, 1e-7 relative: up to a few 1e-6 normalised.)
            np.testing.assert_allclose(got, expect, rtol=1e-5, atol=1e-5,
                                       err_msg="water filling with entities")

        # Deadlines (SLO rows) for max_throughput: some jobs must run at a random share of
        # their best rate (above 1: unreachable); if linprog finds the rows infeasible, the
        # command drops them all.
        slo = [round(j["steps"] / (self.rng.uniform(0.1, 1.5) * max(j["tput"])), 1)
               if self.rng.random() < 0.5 else None for j in jobs]
        if any(v is not None for v in slo):
            slo_path = with_column(paths[0], "slo_s", ["" if v is None else repr(v) for v in slo])
            rows, rhs, bounds = p.base()
            for j, v in enumerate(slo):
                if v is not None:
                    r = np.zeros(m * k)
                    r[j * k:(j + 1) * k] = -p.T[j]
                    rows.append(r)
                    rhs.append(-p.steps[j] / v)
            res = linprog(-p.T.ravel(), A_ub=np.array(rows), b_ub=np.array(rhs), bounds=bounds,
                          method="highs")
            dropped = res.status != 0
            if dropped:
                rows, rhs, bounds = p.base()
                res = linprog(-p.T.ravel(), A_ub=np.array(rows), b_ub=np.array(rhs),
                              bounds=bounds, method="highs")
            out = subprocess.run([CLI, "gavel", "allocate", "--policy", "max_throughput",
                                  "--jobs", slo_path, "--cluster", paths[1]],
                                 capture_output=True, text=True, check=True)
            last = out.stdout.splitlines()[-1]
            self.assertTrue(last.endswith(" slos=dropped" if dropped else " slos=kept"), last)
            obj = float(last.split()[1].split("=")[1])
            self.assertAlmostEqual(obj, -res.fun, delta=1e-6 * max(1, -res.fun), msg="slo")
            x = np.array([float(line.split(",")[2])
                          for line in out.stdout.splitlines()[1:-1]]).reshape(m, k)
            if not dropped:
                for j, v in enumerate(slo):
                    if v is not None:
                        self.assertGreaterEqual((p.T[j] * x[j]).sum(),
                                                p.steps[j] / v * (1 - 1e-6))

        # Packed max-min: pair variables count in both jobs' rows and once on their type.
        pairs = make_pairs(self.rng, types, jobs)
        pairs_path = os.path.join(os.path.dirname(paths[0]), "pairs.csv")
        with open(pairs_path, "w") as f:
            f.write("job_a,job_b,type,throughput_a,throughput_b\n")
            for a, b, kk, ta, tb in pairs:
                f.write("%s,%s,%s,%r,%r\n" % (jobs[a]["id"], jobs[b]["id"], types[kk][0], ta, tb))
        teq = (p.T * p.n[None, :] / p.n.sum()).sum(axis=1)
        scale = p.sf / (p.w * teq)
        nv = m * k + len(pairs) + 1
        rows, rhs, bounds = p.base(1, pairs)
        for j in range(m):
            r = np.zeros(nv)
            r[j * k:(j + 1) * k] = -scale[j] * p.T[j]
            for i, (a, b, kk, ta, tb) in enumerate(pairs):
                if j == a:
                    r[m * k + i] = -scale[j] * ta
                elif j == b:
                    r[m * k + i] = -scale[j] * tb
            r[-1] = 1
            rows.append(r)
            rhs.append(0)
        c = np.zeros(nv)
        c[-1] = -1
        res = linprog(c, A_ub=np.array(rows), b_ub=np.array(rhs), bounds=bounds, method="highs")
        x, pair_x, obj = allocate("max_min_fairness_packed", *paths, m, k, pairs_path, len(pairs))
        self.assertAlmostEqual(obj, -res.fun, delta=1e-6 * max(1, -res.fun), msg="packed")
        self.assertGreaterEqual(obj, Problem(types, jobs).max_min(
            p.T * scale[:, None]) - 1e-7)  # Packing never loses.
        self.check_packed(p, pairs, paths, pairs_path)
        # Packed water filling (no entities) against the independent one over packed R_j.
        x, pair_x, _ = allocate("max_min_fairness_water_filling_packed", *paths, m, k, pairs_path,
                                len(pairs))
        p.check_feasible(self, x)
        got = packed_rates(p, pairs) @ np.concatenate([x.ravel(), pair_x]) / teq
        expect = water_filling(p, teq, [None] * m, {}, pairs)
        np.testing.assert_allclose(got, expect, rtol=1e-5, atol=1e-7,
                                   err_msg="packed water filling")

        # Max total throughput and throughput per dollar.
        for policy, gain in (("max_throughput", p.T), ("min_cost", p.T / p.cost[None, :])):
            rows, rhs, bounds = p.base()
            res = linprog(-gain.ravel(), A_ub=np.array(rows), b_ub=np.array(rhs), bounds=bounds,
                          method="highs")
            x, obj = run(policy)
            self.assertAlmostEqual(obj, -res.fun, delta=1e-6 * max(1, -res.fun), msg=policy)
            self.assertAlmostEqual((gain * x).sum(), obj, delta=1e-6 * max(1, obj))

        # Min makespan: the exact optimum is an LP in u = 1/T (max u with R_j >= s_j u);
        # Gavel's bisection returns a feasible T at most 5% above it.
        x, obj = run("min_makespan")
        t_star = 1 / p.max_min(p.T / p.steps[:, None])
        self.assertGreaterEqual(obj, t_star * (1 - 1e-9))
        self.assertLessEqual(obj, max(t_star, 100) * 1.05 * (1 + 1e-9))
        self.assertTrue(np.all((p.T * x).sum(axis=1) >= p.steps / obj * (1 - 1e-6)))

        # Finish-time fairness: the printed objective is the worst rho of the printed
        # allocation, and no allocation reaches a worst rho 1e-4 below it.
        for policy, agnostic in (("finish_time_fairness", True), ("finish_time_fairness_perf", False)):
            q = Problem(types, jobs, agnostic)
            d = q.isolated_denominator()
            x, obj = run(policy)
            rho = (q.since + q.steps / (q.T * x).sum(axis=1)) / d
            self.assertAlmostEqual(rho.max(), obj, delta=1e-9 * obj, msg=policy)
            r = obj * (1 - 1e-4)
            if np.all(r * d > q.since):
                self.assertFalse(q.floors_feasible(q.steps / (r * d - q.since)), policy)
            # The isolated share is feasible, so the optimum is at most its worst rho.
            big_n = q.n.sum()
            xiso = q.n[None, :] / np.maximum(m * q.sf[:, None], big_n) * q.runs
            rho_iso = (q.since + q.steps / (q.T * xiso).sum(axis=1)) / d
            self.assertLessEqual(obj, rho_iso.max() * (1 + 1e-9))

        # FIFO perf: arrival order, fastest type with room, stop at the first that fits nowhere.
        x, obj = run("fifo_perf")
        free = p.n.copy()
        expect = np.zeros((m, k))
        for j in range(m):
            room = [kk for kk in range(k) if p.runs[j, kk] and free[kk] >= p.sf[j]]
            if not room:
                break
            best = max(room, key=lambda kk: (p.T[j, kk], -kk))
            expect[j, best] = 1
            free[best] -= p.sf[j]
        np.testing.assert_array_equal(x, expect)
        self.assertEqual(obj, expect.sum())

    def check_packed(self, p, pairs, paths, pairs_path):
        """The packed LPs against linprog on the same packed R_j."""
        m, k = p.m, p.k

        def run(policy):
            x, pair_x, obj = allocate(policy, *paths, m, k, pairs_path, len(pairs))
            p.check_feasible(self, x)
            return np.concatenate([x.ravel(), pair_x]), obj

        # Throughput (per dollar): a pair's time adds both jobs' co-located throughputs.
        for policy, price in (("max_throughput_packed", np.ones(k)), ("min_cost_packed", p.cost)):
            gain = packed_rates(p, pairs).sum(axis=0)
            gain[:m * k] /= np.tile(price, m)
            for i, (_, _, kk, _, _) in enumerate(pairs):
                gain[m * k + i] /= price[kk]
            rows, rhs, bounds = p.base(0, pairs)
            res = linprog(-gain, A_ub=np.array(rows), b_ub=np.array(rhs), bounds=bounds,
                          method="highs")
            v, obj = run(policy)
            self.assertAlmostEqual(obj, -res.fun, delta=1e-6 * max(1, -res.fun), msg=policy)
            self.assertAlmostEqual(gain @ v, obj, delta=1e-6 * max(1, obj), msg=policy)

        # Min makespan packed: T* = 1 / max u s.t. R_j >= s_j u; the bisection's T is feasible
        # and at most 5 % above T* (or above its window's bottom, 100 s).
        rows, rhs, bounds = p.base(1, pairs)
        rates = packed_rates(p, pairs, 1)
        for j in range(m):
            r = -rates[j]
            r[-1] = p.steps[j]
            rows.append(r)
            rhs.append(0)
        c = np.zeros(len(bounds))
        c[-1] = -1
        res = linprog(c, A_ub=np.array(rows), b_ub=np.array(rhs), bounds=bounds, method="highs")
        t_star = 1 / -res.fun
        v, obj = run("min_makespan_packed")
        self.assertGreaterEqual(obj, t_star * (1 - 1e-9))
        self.assertLessEqual(obj, max(t_star, 100) * 1.05 * (1 + 1e-9))
        self.assertTrue(np.all(packed_rates(p, pairs) @ v >= p.steps / obj * (1 - 1e-6)))

        # Finish-time fairness packed: the objective is the worst rho of the printed allocation
        # (pairs counted), and no packed allocation has a worst rho 1e-4 below it.
        d = p.isolated_denominator()
        v, obj = run("finish_time_fairness_packed")
        rho = (p.since + p.steps / (packed_rates(p, pairs) @ v)) / d
        self.assertAlmostEqual(rho.max(), obj, delta=1e-9 * obj)
        r = obj * (1 - 1e-4)
        if np.all(r * d > p.since):
            rows, rhs, bounds = p.base(0, pairs)
            rows += list(-packed_rates(p, pairs))
            rhs += list(-p.steps / (r * d - p.since))
            res = linprog(np.zeros(len(bounds)), A_ub=np.array(rows), b_ub=np.array(rhs),
                          bounds=bounds, method="highs")
            self.assertNotEqual(res.status, 0)


if __name__ == "__main__":
    unittest.main()
