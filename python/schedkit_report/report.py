"""Aggregation over seeds, aggregate.csv and the self-contained index.html."""

from __future__ import annotations

import base64
import csv
import html
import math
from dataclasses import dataclass
from pathlib import Path

from matplotlib.colors import to_hex

from .data import Point, Sweep
from .figures import DPI, HOUR, ReportFigure, draw_all, policy_colors
from .data import ReportError
from .stats import Estimate, PairedRatio, format_estimate, format_ratio, mean_ci, paired_ratio

# (results.csv column, table header, divisor for display)
TABLE_METRICS = (("avg_jct_s", "Avg JCT (h)", HOUR),
                 ("p99_jct_s", "p99 JCT (h)", HOUR),
                 ("makespan_s", "Makespan (h)", HOUR),
                 ("avg_slowdown", "Avg slowdown", 1),
                 ("p99_slowdown", "p99 slowdown", 1),
                 ("gpu_utilization", "GPU utilisation (%)", 0.01))


@dataclass(frozen=True)
class Aggregate:
    """One policy at one workload point, over its seeds."""

    policy: str
    point: Point
    n: int  # runs (seeds)
    estimates: dict[str, Estimate]  # by results.csv column
    rejected: int  # summed over the runs
    unfinished: int


def aggregate(sweep: Sweep) -> list[Aggregate]:
    rows = []
    for point in sweep.points:
        for policy in sweep.policies:
            runs = sweep.runs_at(policy, point)
            if runs:
                rows.append(Aggregate(
                    policy, point, len(runs),
                    {m: mean_ci(r.metrics[m] for r in runs) for m, _, _ in TABLE_METRICS},
                    int(sum(r.metrics["rejected"] for r in runs)),
                    int(sum(r.metrics["unfinished"] for r in runs))))
    return rows


def write_aggregate_csv(rows: list[Aggregate], path: Path) -> None:
    def num(x: float) -> str:
        return "" if math.isnan(x) else repr(x)

    with path.open("w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["policy", "cluster", "trace", "jobs_per_hour", "n"] +
                   [f"{m}_{s}" for m, _, _ in TABLE_METRICS for s in ("mean", "ci95")] +
                   ["rejected", "unfinished"])
        for a in rows:
            load = "" if a.point.load is None else f"{a.point.load:g}"
            w.writerow([a.policy, a.point.cluster, a.point.trace, load, a.n] +
                       [num(v) for m, _, _ in TABLE_METRICS
                        for v in (a.estimates[m].mean, a.estimates[m].half_width)] +
                       [a.rejected, a.unfinished])


# Statistics compared pairwise against the baseline (results.csv column, header).
PAIRED_METRICS = (("avg_jct_s", "Avg JCT ratio [95 % CI]"), ("p99_jct_s", "p99 JCT ratio [95 % CI]"),
                  ("avg_slowdown", "Avg slowdown ratio [95 % CI]"))


@dataclass(frozen=True)
class Paired:
    """One policy against the baseline at one workload point, paired by seed."""

    policy: str
    point: Point
    ratios: dict[str, PairedRatio]  # by results.csv column


def paired(sweep: Sweep, baseline: str) -> list[Paired]:
    rows = []
    for point in sweep.points:
        base_runs = sweep.runs_at(baseline, point)
        if not base_runs:
            continue
        for policy in sweep.policies:
            runs = sweep.runs_at(policy, point)
            if policy == baseline or not runs:
                continue
            rows.append(Paired(policy, point, {
                m: paired_ratio({r.seed: r.metrics[m] for r in runs},
                                {r.seed: r.metrics[m] for r in base_runs})
                for m, _ in PAIRED_METRICS}))
    return rows


def write_paired_csv(rows: list[Paired], baseline: str, path: Path) -> None:
    def num(x: float) -> str:
        return "" if math.isnan(x) else repr(x)

    with path.open("w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["policy", "baseline", "cluster", "trace", "jobs_per_hour", "n"] +
                   [f"{m}_{s}" for m, _ in PAIRED_METRICS for s in ("ratio", "ci95_low", "ci95_high", "wins")])
        for p in rows:
            load = "" if p.point.load is None else f"{p.point.load:g}"
            n = p.ratios[PAIRED_METRICS[0][0]].n
            w.writerow([p.policy, baseline, p.point.cluster, p.point.trace, load, n] +
                       [v for m, _ in PAIRED_METRICS for v in
                        (num(p.ratios[m].ratio), num(p.ratios[m].low), num(p.ratios[m].high),
                         p.ratios[m].wins)])


_CSS = """
body { font-family: system-ui, sans-serif; color: #222; margin: 0; background: #fafafa; }
main { max-width: 1100px; margin: 0 auto; padding: 1.5em 2em; background: #fff; }
h1 { margin-top: 0; } h2 { border-bottom: 1px solid #ddd; padding-bottom: .2em; margin-top: 1.8em; }
table { border-collapse: collapse; margin: .5em 0 1.2em; font-size: .92em; }
th, td { border: 1px solid #ccc; padding: .3em .7em; text-align: right; }
th { background: #f0f0f0; } td:first-child, th:first-child { text-align: left; }
.swatch { display: inline-block; width: .9em; height: .9em; margin-right: .4em;
          vertical-align: -.1em; border-radius: 2px; }
figure { margin: 1.5em 0; } figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: .92em; color: #444; max-width: 60em; }
.note { color: #555; font-size: .92em; max-width: 60em; }
"""


def _e(text) -> str:
    return html.escape(str(text))


def _policy_cell(policy: str, colors: dict) -> str:
    return f'<span class="swatch" style="background:{to_hex(colors[policy])}"></span>{_e(policy)}'


def _tables(sweep: Sweep, rows: list[Aggregate], colors: dict) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in
                   ["Policy", "n"] + [h for _, h, _ in TABLE_METRICS] + ["Not finished"])
    parts = []
    for point in sweep.points:
        body = "".join(
            f"<tr><td>{_policy_cell(a.policy, colors)}</td><td>{a.n}</td>" +
            "".join(f"<td>{_e(format_estimate(a.estimates[m], scale))}</td>"
                    for m, _, scale in TABLE_METRICS) +
            f"<td>{a.rejected + a.unfinished}</td></tr>"
            for a in rows if a.point == point)
        parts.append(f"<h3>{_e(point.label())}</h3>\n<table><tr>{head}</tr>{body}</table>")
    return "\n".join(parts)


def _paired_tables(sweep: Sweep, rows: list[Paired], baseline: str, colors: dict) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in
                   ["Policy", "n"] + [h for _, h in PAIRED_METRICS] + ["Lower avg JCT on"])
    parts = []
    for point in sweep.points:
        body = "".join(
            f"<tr><td>{_policy_cell(p.policy, colors)}</td><td>{p.ratios['avg_jct_s'].n}</td>" +
            "".join(f"<td>{_e(format_ratio(p.ratios[m]))}</td>" for m, _ in PAIRED_METRICS) +
            f"<td>{p.ratios['avg_jct_s'].wins} of {p.ratios['avg_jct_s'].n} seeds</td></tr>"
            for p in rows if p.point == point)
        if body:
            parts.append(f"<h3>{_e(point.label())}</h3>\n<table><tr>{head}</tr>{body}</table>")
    if not parts:
        return f'<p class="note">No workload point has runs of both {_e(baseline)} and another policy.</p>'
    return "\n".join(parts)


def _figures(figures: list[ReportFigure], figure_dir: Path) -> str:
    parts, number = [], 0
    for f in figures:
        if f.skipped:
            parts.append(f'<p class="note" id="{f.name}"><b>{_e(f.title)}</b>: not shown, '
                         f"{_e(f.skipped)}</p>")
            continue
        number += 1
        png = (figure_dir / f"{f.name}.png").read_bytes()
        # Shown at 96 CSS px per inch (the PNG has 150 dots per inch), so text keeps its size.
        width = int.from_bytes(png[16:20], "big") * 96 // DPI
        parts.append(
            f'<figure id="{f.name}"><img src="data:image/png;base64,'
            f'{base64.b64encode(png).decode("ascii")}" width="{width}" alt="{_e(f.title)}">'
            f"<figcaption><b>Figure {number}. {_e(f.title)}.</b> {_e(f.caption)} "
            f"Files: figures/{f.name}.png, figures/{f.name}.pdf.</figcaption></figure>")
    return "\n".join(parts)


def render_html(sweep: Sweep, rows: list[Aggregate], pairs: list[Paired], baseline: str,
                figures: list[ReportFigure], figure_dir: Path) -> str:
    colors = policy_colors(sweep.policies)
    seeds = sorted({r.seed for r in sweep.runs})
    policies = ", ".join(_policy_cell(p, colors) for p in sweep.policies)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>schedkit report: {_e(sweep.name)}</title>
<style>{_CSS}</style>
</head>
<body>
<main>
<h1>Sweep report: {_e(sweep.name)}</h1>
<p>{len(sweep.runs)} runs in results.csv: {len(sweep.policies)} policies, {len(sweep.points)}
workload points, seeds {_e(", ".join(map(str, seeds)))}.</p>
<p>Policies: {policies}.</p>
<h2>Results per workload point</h2>
<p class="note">Each cell is the mean over the seeds (n runs) of the per-run statistic in
results.csv, &plusmn; the half-width of its 95&nbsp;% confidence interval,
t<sub>0.975,&nbsp;n&minus;1</sub>&nbsp;&middot;&nbsp;s&nbsp;/&nbsp;&radic;n with s the sample
standard deviation over seeds (&ldquo;&mdash;&rdquo; when n&nbsp;=&nbsp;1). JCT statistics are over
finished jobs only; &ldquo;Not finished&rdquo; counts rejected and unfinished jobs over all n runs.
Machine-readable (in seconds and fractions): aggregate.csv.</p>
{_tables(sweep, rows, colors)}
<h2>Paired comparison against {_e(baseline)}</h2>
<p class="note">Each policy against the baseline on the same workloads: for every seed both ran,
the ratio policy&nbsp;/&nbsp;baseline of the per-run statistic; the cell is the geometric mean of
those ratios with its paired 95&nbsp;% confidence interval,
exp(mean(log&nbsp;r)&nbsp;&plusmn;&nbsp;t<sub>0.975,&nbsp;n&minus;1</sub>&nbsp;&middot;&nbsp;s&nbsp;/&nbsp;&radic;n)
with s the standard deviation of log&nbsp;r over seeds. Below 1 is better than the baseline; an
interval that excludes 1 is a difference the seeds support, even where the per-policy intervals
above overlap. Machine-readable: paired.csv.</p>
{_paired_tables(sweep, pairs, baseline, colors)}
<h2>Figures</h2>
{_figures(figures, figure_dir)}
</main>
</body>
</html>
"""


def build_report(results_dir: str | Path, out_dir: str | Path | None = None,
                 baseline: str | None = None) -> Path:
    """Writes OUT/index.html, OUT/aggregate.csv, OUT/paired.csv and OUT/figures/*; returns the
    index.html path. `baseline` is the policy label the others are compared with (default: the
    sweep's first policy).

    Raises ReportError on bad input."""
    sweep = Sweep(Path(results_dir))
    baseline = sweep.policies[0] if baseline is None else baseline
    if baseline not in sweep.policies:
        raise ReportError(f"--baseline {baseline!r}: no such policy in {sweep.root / 'results.csv'} "
                          f"(policies: {', '.join(sweep.policies)})")
    out = Path(out_dir) if out_dir is not None else sweep.root / "report"
    figure_dir = out / "figures"
    figures = draw_all(sweep, figure_dir)
    rows = aggregate(sweep)
    write_aggregate_csv(rows, out / "aggregate.csv")
    pairs = paired(sweep, baseline)
    write_paired_csv(pairs, baseline, out / "paired.csv")
    index = out / "index.html"
    index.write_text(render_html(sweep, rows, pairs, baseline, figures, figure_dir), encoding="utf-8")
    return index
