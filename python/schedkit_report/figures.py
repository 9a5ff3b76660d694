"""The report's figures: one function per figure, each (sweep, colours, out dir) -> ReportFigure.

Each drawn figure is written as figures/NAME.png (150 dpi) and figures/NAME.pdf. A figure whose
data the sweep lacks is returned with `skipped` set to the reason instead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import matplotlib
import numpy as np
from matplotlib.figure import Figure  # no pyplot: no global state, no GUI backend
from matplotlib.ticker import FuncFormatter

from .data import Point, Sweep
from .stats import mean_ci

HOUR = 3600.0
DPI = 150
SPANS_DECADES = 30.0  # a value axis spanning more than this factor is drawn on a log scale
# Stripped so that the same results give byte-identical figures (no dates, no versions).
_METADATA = {"png": {"Software": None},
             "pdf": {"Creator": None, "Producer": None, "CreationDate": None}}


@dataclass(frozen=True)
class ReportFigure:
    name: str  # file stem under figures/
    title: str
    caption: str
    skipped: str | None = None  # why it is not drawn; None when it is


def policy_colors(policies: list[str]) -> dict[str, tuple]:
    """One colour per policy, the same in every figure (tab10; tab20 for more than 10)."""
    palette = matplotlib.colormaps["tab10" if len(policies) <= 10 else "tab20"].colors
    return {p: palette[i % len(palette)] for i, p in enumerate(policies)}


def _save(fig: Figure, out: Path, name: str) -> None:
    for ext in ("png", "pdf"):
        fig.savefig(out / f"{name}.{ext}", dpi=DPI, metadata=_METADATA[ext], bbox_inches="tight")


def _seeds(sweep: Sweep, point: Point) -> str:
    seeds = sorted({r.seed for r in sweep.runs if r.point == point})
    return ", ".join(map(str, seeds))


def _pooled_jobs(sweep: Sweep, policy: str, point: Point) -> tuple[list[dict], int]:
    """Finished jobs of all seeds of `policy` at `point`, and how many jobs did not finish."""
    jobs = [j for r in sweep.runs_at(policy, point) for j in sweep.jobs(r)]
    finished = [j for j in jobs if j["outcome"] == "finished"]
    return finished, len(jobs) - len(finished)


def _grouped_bars(ax, categories: list[str], values: dict[str, list[float]],
                  colors: dict[str, tuple], errors: dict[str, list[float]] | None = None) -> None:
    """One group of bars per category, one bar per policy (NaN: no bar)."""
    width = 0.8 / max(len(values), 1)
    x = np.arange(len(categories))
    for i, (policy, ys) in enumerate(values.items()):
        xs = x + (i - (len(values) - 1) / 2) * width
        ax.bar(xs, ys, width, label=policy, color=colors[policy])
        # Error bars only where there is an interval (a point with one seed has none).
        yerr = np.asarray(errors[policy] if errors else [np.nan] * len(ys), dtype=float)
        has = np.isfinite(yerr) & np.isfinite(np.asarray(ys, dtype=float))
        if has.any():
            ax.errorbar(xs[has], np.asarray(ys, dtype=float)[has], yerr=yerr[has], fmt="none",
                        ecolor="black", capsize=3, linewidth=1)
    ax.set_xticks(x, categories, rotation=30 if len(categories) > 6 else 0)
    ax.set_axisbelow(True)


def _plain_log_x(ax) -> None:
    """Log x axis labelled 0.1, 1, 10 (not 10^-1); 2, 3 and 5 x 10^k too when it spans < 30x."""
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))

    def minor(v, _):
        lo, hi = ax.get_xlim()
        mantissa = round(v / 10 ** math.floor(math.log10(v)))
        return f"{v:g}" if hi < 30 * lo and mantissa in (2, 3, 5) else ""

    ax.xaxis.set_minor_formatter(FuncFormatter(minor))


def _utilisation_axis(ax, sweep: Sweep, points: list[Point]) -> None:
    """A top x axis at the same loads, labelled with the GPU utilisation measured there (mean of
    gpu_utilization over every run at the point, all policies and seeds), so a load reads as how
    busy the cluster was."""
    util = [float(np.mean([r.metrics["gpu_utilization"] for r in sweep.runs if r.point == p]))
            for p in points]
    top = ax.secondary_xaxis("top")
    top.set_xticks([p.load for p in points], [f"{100 * u:.0f}%" for u in util])
    top.set_xlabel("GPU utilisation (mean over the runs at each load)")


def _cdf_step(ax, sorted_values, policy: str, colors: dict) -> None:
    """One policy's empirical CDF of `sorted_values` (ascending)."""
    ax.step(sorted_values, np.arange(1, len(sorted_values) + 1) / len(sorted_values), where="post",
            label=policy, color=colors[policy])


def _finish_cdf(fig: Figure, ax, out: Path, name: str, xlabel: str, title: str) -> None:
    """Log x axis, labels, grid and legend of a CDF figure; saves it as `name`."""
    _plain_log_x(ax)
    ax.set(xlabel=xlabel, ylabel="Fraction of finished jobs", ylim=(0, 1.02), title=title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(title="Policy")
    _save(fig, out, name)


def jct_cdf(sweep: Sweep, colors: dict, out: Path) -> ReportFigure:
    point = sweep.representative
    fig = Figure(figsize=(7, 4.5))
    ax = fig.add_subplot()
    notes = []
    for policy in sweep.policies:
        finished, not_finished = _pooled_jobs(sweep, policy, point)
        jct = np.sort([float(j["jct_s"]) for j in finished]) / HOUR
        if len(jct):
            _cdf_step(ax, jct, policy, colors)
        notes.append(f"{policy}: {len(jct)}" + (f" ({not_finished} not finished)" if not_finished
                                                 else ""))
    _finish_cdf(fig, ax, out, "jct_cdf", "Job completion time (h, log scale)",
                f"JCT CDF, {point.label()}")
    return ReportFigure("jct_cdf", "Job completion time CDF", (
        f"Empirical CDF of the completion time of finished jobs, per policy, pooling the jobs of "
        f"all seeds ({_seeds(sweep, point)}) at one workload point: {point.label()} (the "
        f"{'highest load' if point.load is not None else 'first trace'} of the first cluster). "
        f"Rejected and unfinished jobs have no JCT and are left out. Finished jobs per policy: "
        f"{'; '.join(notes)}."))


def avg_jct_vs_load(sweep: Sweep, colors: dict, out: Path) -> ReportFigure:
    fig = Figure(figsize=(6.5 * len(sweep.clusters), 4.5))
    axes = fig.subplots(1, len(sweep.clusters), squeeze=False)[0]
    for ax, cluster in zip(axes, sweep.clusters):
        points = [p for p in sweep.points if p.cluster == cluster]
        est = {policy: [mean_ci(r.metrics["avg_jct_s"] / HOUR for r in sweep.runs_at(policy, p))
                        for p in points] for policy in sweep.policies}
        if sweep.has_loads:
            x = [p.load for p in points]
            for policy, es in est.items():
                ax.plot(x, [e.mean for e in es], "o-", label=policy, color=colors[policy])
                ax.fill_between(x, [e.low for e in es], [e.high for e in es], alpha=0.15,
                                color=colors[policy], linewidth=0)
            ax.set_xticks(x)
            ax.set_xlabel("Load (jobs/h)")
            _utilisation_axis(ax, sweep, points)
        else:
            _grouped_bars(ax, [p.trace for p in points],
                          {p: [e.mean for e in es] for p, es in est.items()}, colors,
                          {p: [e.half_width for e in es] for p, es in est.items()})
            ax.set_xlabel("Trace")
        ax.set(ylabel="Average JCT (h)", title=f"Average JCT, cluster {cluster}")
        means = [e.mean for es in est.values() for e in es if math.isfinite(e.mean) and e.mean > 0]
        if means and max(means) > SPANS_DECADES * min(means):
            ax.set_yscale("log")
            ax.set_ylabel("Average JCT (h, log scale)")
        else:
            ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        ax.legend(title="Policy")
    by = "vs load" if sweep.has_loads else "per trace"
    band = "the shaded band" if sweep.has_loads else "the error bar"
    log_note = (f" The y axis is logarithmic in a panel whose means span more than "
                f"{SPANS_DECADES:g}x.")
    _save(fig, out, "avg_jct")
    return ReportFigure("avg_jct", f"Average JCT {by}", (
        f"Average JCT of finished jobs (results.csv avg_jct_s), mean over seeds, {by}; {band} is "
        f"the 95 % Student-t confidence interval of that mean (none where a point has one seed)"
        f"{'; the top axis gives the GPU utilisation measured at each load (mean over all runs there)' if sweep.has_loads else ''}. "
        f"One panel per cluster.{log_note}"))


def timeline(sweep: Sweep, colors: dict, out: Path) -> ReportFigure:
    point = sweep.representative
    gpus, how = sweep.cluster_gpus(point.cluster)
    fig = Figure(figsize=(8, 6))
    pending_ax, util_ax = fig.subplots(2, 1, sharex=True)
    for policy in sweep.policies:
        runs = sweep.runs_at(policy, point)
        if not runs:
            continue
        ts = sweep.timeseries(runs[0])
        t = ts["time_s"] / HOUR
        pending_ax.step(t, ts["pending"], where="post", label=policy, color=colors[policy],
                        linewidth=1)
        util_ax.step(t, 100 * ts["busy_gpus"] / gpus, where="post", label=policy,
                     color=colors[policy], linewidth=1)
    pending_ax.set(ylabel="Pending jobs", title=f"Queue and utilisation, {point.label()}")
    util_ax.set(xlabel="Simulated time (h)", ylabel=f"GPU utilisation (% of {gpus:g} GPUs)",
                ylim=(0, 105))
    for ax in (pending_ax, util_ax):
        ax.grid(True, alpha=0.3)
    pending_ax.legend(title="Policy")
    _save(fig, out, "timeline")
    seed = min(r.seed for r in sweep.runs if r.point == point)
    return ReportFigure("timeline", "Queue length and GPU utilisation over time", (
        f"Top: jobs pending (queued, preempted or not yet admitted). Bottom: GPUs allocated to "
        f"running jobs as a share of the cluster's {gpus:g} GPUs ({how}). One run per policy: "
        f"{point.label()}, seed {seed}. Both are step functions of timeseries.csv."))


def vc_jct(sweep: Sweep, colors: dict, out: Path) -> ReportFigure:
    point = sweep.representative
    pooled = {policy: _pooled_jobs(sweep, policy, point)[0] for policy in sweep.policies}
    vcs = sorted({j["vc"] for jobs in pooled.values() for j in jobs if j["vc"]})
    title = "Average JCT per virtual cluster"
    if not vcs:
        return ReportFigure("vc_jct", title, "", skipped="the jobs have no virtual cluster (vc).")
    no_vc = "(no VC)"
    categories = vcs + ([no_vc] if any(not j["vc"] for js in pooled.values() for j in js) else [])

    def mean_jct(jobs: list[dict], vc: str) -> float:
        xs = [float(j["jct_s"]) / HOUR for j in jobs if (j["vc"] or no_vc) == vc]
        return float(np.mean(xs)) if xs else np.nan

    fig = Figure(figsize=(max(6.5, 0.9 * len(categories) * len(sweep.policies) ** 0.5), 4.5))
    ax = fig.add_subplot()
    _grouped_bars(ax, categories, {p: [mean_jct(js, vc) for vc in categories]
                                   for p, js in pooled.items()}, colors)
    ax.set(xlabel="Virtual cluster", ylabel="Average JCT (h)", title=f"{title}, {point.label()}")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(title="Policy")
    _save(fig, out, "vc_jct")
    return ReportFigure("vc_jct", title, (
        f"Average JCT of the finished jobs of each virtual cluster (jobs.csv vc), pooling all "
        f"seeds ({_seeds(sweep, point)}) at {point.label()}. No error bars: jobs of one run are "
        f"not independent samples. {no_vc}: jobs the trace gives no VC."))


def finish_time_fairness(sweep: Sweep, colors: dict, out: Path) -> ReportFigure:
    """CDF of finish-time fairness rho = JCT / isolated finish time, per policy that writes it.

    A policy that measures it (themis) writes runs/<id>/ftf.csv (docs/outputs.md); the others
    are left out of the figure, and it is skipped when no run of the sweep has the file.
    """
    point = sweep.representative
    fig = Figure(figsize=(7, 4.5))
    ax = fig.add_subplot()
    notes = []
    for policy in sweep.policies:
        rho = np.sort([float(row["rho"]) for r in sweep.runs_at(policy, point)
                       for row in sweep.ftf(r)])
        if len(rho):
            _cdf_step(ax, rho, policy, colors)
            notes.append(f"{policy}: {len(rho)} jobs, {np.mean(rho <= 1):.0%} with rho <= 1")
    if not notes:
        return ReportFigure("ftf_cdf", "Finish-time fairness CDF", "", skipped=(
            "not applicable: no policy of this sweep writes ftf.csv (themis does, with "
            "isolated_time=seconds)."))
    ax.axvline(1.0, color="grey", linestyle=":", linewidth=1)
    _finish_cdf(fig, ax, out, "ftf_cdf", "Finish-time fairness rho = JCT / isolated time (log scale)",
                f"Finish-time fairness CDF, {point.label()}")
    return ReportFigure("ftf_cdf", "Finish-time fairness CDF", (
        f"Empirical CDF of Themis' finish-time fairness rho (a job's completion time over its "
        f"finish time alone on a 1/N share of the cluster; rho <= 1: the job did no worse than on "
        f"its fair share) of finished jobs, from each run's ftf.csv, pooling all seeds "
        f"({_seeds(sweep, point)}) at {point.label()}. Only policies that write ftf.csv appear: "
        f"{'; '.join(notes)}."))


FIGURES = (jct_cdf, avg_jct_vs_load, timeline, vc_jct, finish_time_fairness)


def draw_all(sweep: Sweep, out: Path) -> list[ReportFigure]:
    out.mkdir(parents=True, exist_ok=True)
    colors = policy_colors(sweep.policies)
    return [draw(sweep, colors, out) for draw in FIGURES]
