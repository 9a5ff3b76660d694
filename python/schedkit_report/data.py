"""Reading a `schedkit sweep` output folder (formats: docs/outputs.md, docs/report.md)."""

from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np


class ReportError(Exception):
    """Bad input: the message names the file and what is wrong with it."""


PARAM_COLUMNS = ("run_id", "policy", "policy_name", "placement", "admission", "options", "cluster",
                 "trace", "jobs_per_hour", "seed", "compat")
METRIC_COLUMNS = ("jobs", "rejected", "unfinished", "avg_jct_s", "p50_jct_s", "p95_jct_s",
                  "p99_jct_s", "makespan_s", "avg_queue_s", "p999_queue_s", "avg_slowdown",
                  "p99_slowdown", "gpu_utilization",
                  "preemptions", "events", "wall_s")
JOB_COLUMNS = ("job_id", "gpus", "submit_s", "first_start_s", "end_s", "jct_s", "queue_s",
               "executed_s", "preemptions", "outcome", "placement", "vc")
TIMESERIES_COLUMNS = ("time_s", "pending", "running", "busy_gpus")
FTF_COLUMNS = ("job_id", "jct_s", "isolated_s", "rho")  # ftf.csv (themis)


@dataclass(frozen=True)
class Point:
    """A workload point: everything that defines a run except the policy and the seed."""

    cluster: str
    trace: str  # "generated" for the built-in generator, else the trace file's stem
    load: float | None  # jobs_per_hour of a generated trace; None for a trace file

    def label(self) -> str:
        work = f"{self.load:g} jobs/h" if self.load is not None else f"trace {self.trace}"
        return f"cluster {self.cluster}, {work}"


@dataclass(frozen=True)
class Run:
    params: dict[str, str]
    metrics: dict[str, float]  # NaN where results.csv leaves the field empty

    @property
    def run_id(self) -> str:
        return self.params["run_id"]

    @property
    def policy(self) -> str:
        return self.params["policy"]  # the label, unique per sweep policy entry

    @property
    def seed(self) -> int:
        return int(self.params["seed"])

    @property
    def point(self) -> Point:
        load = self.params["jobs_per_hour"]
        return Point(self.params["cluster"], self.params["trace"], float(load) if load else None)


def _read_csv(path: Path, columns: tuple[str, ...]) -> list[dict[str, str]]:
    """Rows of a CSV file with at least `columns`, as dicts; ReportError if it is missing or bad."""
    if not path.is_file():
        raise ReportError(f"{path}: missing")
    with path.open(newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in columns if c not in (reader.fieldnames or ())]
        if missing:
            more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
            raise ReportError(f"{path}: missing column(s) {', '.join(missing[:5])}{more}")
        rows = list(reader)
    for line, row in enumerate(rows, start=2):
        if None in row or None in row.values():
            raise ReportError(f"{path}:{line}: expected {len(reader.fieldnames)} fields")
    return rows


def _number(path: Path, line: int, column: str, text: str) -> float:
    if text == "":
        return math.nan
    try:
        return float(text)
    except ValueError:
        raise ReportError(f"{path}:{line}: {column} is not a number: '{text}'") from None


class Sweep:
    """The runs of a sweep folder; per-run files are read lazily, once."""

    def __init__(self, root: Path):
        self.root = root
        self.name = root.resolve().name
        path = root / "results.csv"
        if not root.is_dir():
            raise ReportError(f"{root}: no such folder")
        if not path.is_file():
            raise ReportError(f"{path}: missing (is {root} a schedkit sweep output folder?)")
        self.runs = []
        for line, row in enumerate(_read_csv(path, PARAM_COLUMNS + METRIC_COLUMNS), start=2):
            if not row["seed"].isdigit():
                raise ReportError(f"{path}:{line}: seed is not a whole number: '{row['seed']}'")
            _number(path, line, "jobs_per_hour", row["jobs_per_hour"])
            metrics = {c: _number(path, line, c, row[c]) for c in METRIC_COLUMNS}
            self.runs.append(Run({c: row[c] for c in PARAM_COLUMNS}, metrics))
        if not self.runs:
            raise ReportError(f"{path}: no runs (the sweep finished none)")
        self._jobs: dict[str, list[dict[str, str]]] = {}
        self._timeseries: dict[str, dict[str, np.ndarray]] = {}

    @cached_property
    def policies(self) -> list[str]:
        """Policy labels in results.csv order (= the sweep file's order)."""
        return list(dict.fromkeys(r.policy for r in self.runs))

    @cached_property
    def clusters(self) -> list[str]:
        return list(dict.fromkeys(r.params["cluster"] for r in self.runs))

    @cached_property
    def points(self) -> list[Point]:
        """Workload points: by cluster (file order), then load ascending or traces in file order."""
        order = {p: i for i, p in enumerate(dict.fromkeys(r.point for r in self.runs))}
        return sorted(order, key=lambda p: (self.clusters.index(p.cluster),
                                            p.load if p.load is not None else order[p]))

    @cached_property
    def has_loads(self) -> bool:
        return any(p.load is not None for p in self.points)

    @cached_property
    def representative(self) -> Point:
        """The first cluster's highest load, or its first trace."""
        candidates = [p for p in self.points if p.cluster == self.clusters[0]]
        return candidates[-1] if candidates[0].load is not None else candidates[0]

    def runs_at(self, policy: str, point: Point) -> list[Run]:
        """The runs of `policy` at `point`, by seed."""
        return sorted((r for r in self.runs if r.policy == policy and r.point == point),
                      key=lambda r: r.seed)

    def ftf(self, run: Run) -> list[dict[str, str]]:
        """The run's ftf.csv rows (job_id, jct_s, isolated_s, rho), measured jobs only; [] when
        its policy writes none."""
        path = self.root / "runs" / run.run_id / "ftf.csv"
        if not path.exists():
            return []
        rows = _read_csv(path, FTF_COLUMNS)
        window = self.measured_jobs(run)
        if window is not None:
            rows = [j for j in rows if window[0] <= int(j["job_id"]) <= window[1]]
        return rows

    def jobs(self, run: Run) -> list[dict[str, str]]:
        """The run's jobs.csv rows; only the measured ones when its summary is over a window."""
        if run.run_id not in self._jobs:
            rows = _read_csv(self.root / "runs" / run.run_id / "jobs.csv", JOB_COLUMNS)
            window = self.measured_jobs(run)
            if window is not None:
                rows = [j for j in rows if window[0] <= int(j["job_id"]) <= window[1]]
            self._jobs[run.run_id] = rows
        return self._jobs[run.run_id]

    def measured_jobs(self, run: Run) -> tuple[int, int] | None:
        """The job ids the run's summary is over (summary.json run.measured_jobs), or None."""
        path = self.root / "runs" / run.run_id / "summary.json"
        if not path.is_file():
            return None
        try:
            text = json.loads(path.read_text()).get("run", {}).get("measured_jobs")
        except (OSError, ValueError) as e:
            raise ReportError(f"{path}: not readable JSON ({e})") from e
        if text is None:
            return None
        first, sep, last = str(text).partition("-")
        if not (sep and first.isdigit() and last.isdigit()):
            raise ReportError(f"{path}: run.measured_jobs is not FIRST-LAST: '{text}'")
        return int(first), int(last)

    def timeseries(self, run: Run) -> dict[str, np.ndarray]:
        """Columns of the run's timeseries.csv as float arrays."""
        if run.run_id not in self._timeseries:
            path = self.root / "runs" / run.run_id / "timeseries.csv"
            rows = _read_csv(path, TIMESERIES_COLUMNS)
            self._timeseries[run.run_id] = {
                c: np.array([_number(path, i, c, row[c]) for i, row in enumerate(rows, start=2)])
                for c in TIMESERIES_COLUMNS}
        return self._timeseries[run.run_id]

    def cluster_gpus(self, cluster: str) -> tuple[float, str]:
        """The cluster's GPU count and how it was found.

        results.csv does not name the cluster's size, but summary.json defines
        gpu_utilization = B / (G x makespan_s) with B the busy-GPU integral of timeseries.csv,
        so G = B / (gpu_utilization x makespan_s), rounded to a whole GPU (the median over the
        cluster's runs). Falls back to the most GPUs ever busy when no run has a utilisation.
        """
        runs = [r for r in self.runs if r.params["cluster"] == cluster]
        estimates = []
        for r in runs:
            ts = self.timeseries(r)
            busy = float(np.sum(ts["busy_gpus"][:-1] * np.diff(ts["time_s"])))
            denom = r.metrics["gpu_utilization"] * r.metrics["makespan_s"]
            if denom > 0 and busy > 0:
                estimates.append(busy / denom)
        if estimates:
            return float(round(float(np.median(estimates)))), "derived from gpu_utilization"
        most = max((float(np.max(self.timeseries(r)["busy_gpus"], initial=0)) for r in runs),
                   default=0.0)
        return max(most, 1.0), "the most GPUs busy at once in any run (cluster size unknown)"
