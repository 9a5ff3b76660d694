"""Mean and 95 % Student-t confidence interval over seeds; number formatting for the tables."""

from __future__ import annotations

import math
from dataclasses import dataclass

# t_{0.975, df} for df = 1..30 (two-sided 95 %); 1.96 (normal) beyond. Used without scipy.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
         2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
         2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def t975(df: int) -> float:
    """The 0.975 quantile of Student's t with `df` degrees of freedom (df >= 1)."""
    try:
        from scipy.stats import t
    except ImportError:
        return _T975[df - 1] if df <= len(_T975) else 1.96
    return float(t.ppf(0.975, df))


@dataclass(frozen=True)
class Estimate:
    n: int
    mean: float
    half_width: float  # of the 95 % CI; NaN when n < 2

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width


def mean_ci(values) -> Estimate:
    """Mean of the finite `values` and the half-width t_{0.975,n-1} * s / sqrt(n) of its 95 % CI,
    s the sample standard deviation (n - 1 in the denominator)."""
    xs = [float(v) for v in values if math.isfinite(v)]
    n = len(xs)
    if n == 0:
        return Estimate(0, math.nan, math.nan)
    mean = sum(xs) / n
    if n < 2:
        return Estimate(n, mean, math.nan)
    s = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    return Estimate(n, mean, t975(n - 1) * s / math.sqrt(n))


def decimals(x: float, significant: int = 4) -> int:
    """Decimals that show `x` with about `significant` significant digits (0 to 6)."""
    if not math.isfinite(x) or x == 0:
        return 2
    return min(6, max(0, significant - 1 - math.floor(math.log10(abs(x)))))


def format_estimate(e: Estimate, scale: float = 1.0) -> str:
    """'mean ± half-width' of `e` divided by `scale`, both with the mean's decimals."""
    if e.n == 0:
        return "—"
    mean = e.mean / scale
    d = decimals(mean)
    if math.isnan(e.half_width):
        return f"{mean:,.{d}f} ± —"
    return f"{mean:,.{d}f} ± {e.half_width / scale:,.{d}f}"


@dataclass(frozen=True)
class PairedRatio:
    """A policy against a baseline on the same workloads (seeds), one ratio per seed."""

    n: int  # seeds both have a finite, positive value for
    ratio: float  # geometric mean of the per-seed ratios policy / baseline
    low: float  # 95 % CI of that geometric mean; NaN when n < 2
    high: float
    wins: int  # seeds where the policy's value is lower than the baseline's


def paired_ratio(policy: dict[int, float], baseline: dict[int, float]) -> PairedRatio:
    """Per-seed ratios r_i = policy_i / baseline_i over the seeds both have; their geometric mean
    exp(mean(log r_i)) with the paired 95 % CI exp(mean(log r) +/- t_{0.975,n-1} s / sqrt(n)),
    s the sample standard deviation of log r_i. Pairing removes the workload's own variation, so a
    policy that wins on every seed gets an interval below 1 even where the per-policy intervals
    overlap."""
    seeds = sorted(k for k in policy.keys() & baseline.keys()
                   if math.isfinite(policy[k]) and math.isfinite(baseline[k])
                   and policy[k] > 0 and baseline[k] > 0)
    logs = [math.log(policy[k] / baseline[k]) for k in seeds]
    wins = sum(policy[k] < baseline[k] for k in seeds)
    est = mean_ci(logs)
    if est.n == 0:
        return PairedRatio(0, math.nan, math.nan, math.nan, 0)
    if est.n < 2:
        return PairedRatio(1, math.exp(est.mean), math.nan, math.nan, wins)
    return PairedRatio(est.n, math.exp(est.mean), math.exp(est.low), math.exp(est.high), wins)


def format_ratio(r: PairedRatio) -> str:
    """'0.912 [0.871, 0.955]' (or '0.912 [—]' with one seed; '—' with none)."""
    if r.n == 0:
        return "—"
    if math.isnan(r.low):
        return f"{r.ratio:.3f} [—]"
    return f"{r.ratio:.3f} [{r.low:.3f}, {r.high:.3f}]"
