"""Estimates with an interval and one-sided tests: what every claim's part is judged on.

An `Estimate` is a quantity estimated from independent runs. Besides the point value it
answers, for any threshold t, two one-sided p-values: `p_above(t)` for H1 "the true value
is above t" and `p_below(t)` for H1 "it is below t". Its interval at level 1 - 2 alpha
is the set of t that neither test rejects at alpha, so a verdict read off the p-values
and the printed interval agree; `interval_at` gives it at any level (the engine's simultaneous
intervals).

Interval methods:
- exact binomial (Clopper-Pearson) for an error probability;
- for the difference of two error probabilities: the paired exact interval where the runs are
  paired (discordant runs), Newcombe's score interval where they are not (published cells);
- the exact conditional binomial for a ratio of two rare error probabilities (a Poisson
  rate ratio: exact for Poisson counts, conservative for binomial ones);
- Student's t for a mean and for a (paired or Welch) difference of means;
- the percentile bootstrap, resampling runs, for ratios, geometric means, slopes and
  any other smooth function of means (p-values (1 + #{b: stat_b <= t}) / (B + 1));
- exact values for quantities without noise (a program's optimum, an instance's variation).
"""
from __future__ import annotations

import dataclasses
import math
import zlib
from typing import Callable

import numpy as np

# Bootstrap resamples: p-values down to 1e-4, and quantiles at 0.025 / m for a claim of a few dozen parts.
BOOTSTRAP_RESAMPLES = 10_000
# A claim's t intervals take their tail at alpha / the allowance of their scale and run count
# (small_sample_allowance): "log" for t on a log ratio of means, "difference" for t on a mean or a difference
# of means, whose skewness the log does not tame. Rows (runs below which, allowance), the first that applies.
SKEWNESS_ALLOWANCE = {"log": [(100, 8.0), (None, 2.0)], "difference": [(100, 16.0), (None, 1.0)]}


@dataclasses.dataclass
class Estimate:
    value: float
    low: float
    high: float
    n: int                                   # independent runs (or trials) behind it
    method: str                              # the interval method, in words
    p_above: Callable[[float], float]        # H1: true value > t
    p_below: Callable[[float], float]        # H1: true value < t
    lower_bound: bool = False                # runs stopped at a cap: the value is at least this
    upper_bound: bool = False                # the comparator's runs stopped at a cap: at most this
    # (low, high) at a one-sided level alpha: the engine asks for the interval at the level its
    # multiplicity control needs (Bonferroni over a claim's parts), so the printed interval is the
    # one the verdict reads.
    interval_at: Callable[[float], tuple] | None = None
    # Every interval the design can give at level alpha, for designs with few outcomes (a binomial
    # count): whether "holds" and "does not hold" are both reachable is read off them.
    outcomes: Callable[[float], list] | None = None
    # The values the quantity can take under the design (e.g. [0, 1] for a probability, or a ratio
    # bounded by a pull cap); used, with the censoring, when `outcomes` is not given.
    value_range: tuple = (-math.inf, math.inf)
    alpha: float | None = None               # the one-sided level of (low, high)
    exact: bool = False                      # no sampling noise: the tests' p-values are 0 or 1 (engine.exact_p)

    def __post_init__(self):
        self._censor()

    def _censor(self):
        if self.lower_bound:
            # A censored estimate can show that the truth is large, never that it is small.
            self.p_below = _never
            self.high = math.inf
        if self.upper_bound:
            self.p_above = _never
            self.low = -math.inf

    def at_level(self, alpha: float) -> "Estimate":
        """A copy whose interval is at one-sided level alpha (two-sided 1 - 2 alpha)."""
        out = dataclasses.replace(self)
        if self.interval_at is not None:
            out.low, out.high = (float(v) for v in self.interval_at(alpha))
        out.alpha = alpha
        out._censor()
        return out

    def possible_intervals(self, alpha: float, thresholds=()) -> list:
        """Intervals the design could give at level alpha: its `outcomes`, else a point anywhere in
        its value range (at the range's ends and on either side of each threshold). Censoring is an
        outcome, not the design (runs stop at the cap only when they are slow), so it does not narrow
        what could be shown; the cap itself does, through the value range."""
        if self.outcomes is not None:
            found = list(self.outcomes(alpha))
        else:
            lo, hi = self.value_range
            points = [v for v in (lo, hi) if math.isfinite(v)]
            for t in thresholds:
                step = 1e-9 * max(1.0, abs(t))
                points += [t - step, t, t + step]
            if not math.isfinite(lo):
                points.append(min(list(thresholds) + [0.0]) - 1e9)
            if not math.isfinite(hi):
                points.append(max(list(thresholds) + [0.0]) + 1e9)
            found = [(p, p) for p in points if lo <= p <= hi]
        return found


def _never(_t) -> float:
    return 1.0


def _clip(p) -> float:
    return float(min(1.0, max(0.0, p)))


# ------------------------------------------------------------------ binomial

def proportion(k: int, n: int, alpha: float) -> Estimate:
    """Error probability k / n; exact binomial tests and the Clopper-Pearson interval."""
    from scipy.stats import binom

    k, n = int(k), int(n)
    low, high = clopper_pearson(k, n, alpha)

    def p_above(t):
        return 1.0 if t >= 1 else (0.0 if t < 0 else _clip(binom.sf(k - 1, n, t)))

    def p_below(t):
        return 1.0 if t <= 0 else (0.0 if t > 1 else _clip(binom.cdf(k, n, t)))

    def outcomes(a):
        ks = np.arange(n + 1)
        return list(zip(*clopper_pearson(ks, n, a)))

    return Estimate(k / n, low, high, n, "exact binomial (Clopper-Pearson)", p_above, p_below,
                    interval_at=lambda a: clopper_pearson(k, n, a), outcomes=outcomes, value_range=(0.0, 1.0))


def clopper_pearson(k, n: int, alpha: float):
    """The exact interval of a binomial proportion (k may be an array of counts): beta quantiles.
    betaincinv is the function scipy's beta.ppf evaluates, without its ~30 us of argument checks a call
    (the p-value bisections call this ~35,000 times in P1-RAGE's claims alone); the parameters are
    valid by construction (a, b >= 1, 0 < alpha < 1)."""
    from scipy.special import betaincinv

    k = np.asarray(k)
    with np.errstate(invalid="ignore"):
        low = np.where(k == 0, 0.0, betaincinv(np.maximum(k, 1), n - k + 1, alpha))
        high = np.where(k == n, 1.0, betaincinv(k + 1, np.maximum(n - k, 1), 1 - alpha))
    if low.ndim == 0:
        return float(low), float(high)
    return low.astype(float), high.astype(float)


def newcombe_interval(e1, n1, e2, n2, alpha: float) -> tuple[float, float]:
    """Newcombe's hybrid score interval of p1 - p2 (Wilson intervals of each, combined)."""
    from scipy.stats import norm

    z = float(norm.isf(alpha))

    def wilson(e, n):
        p = e / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        return centre - half, centre + half

    p1, p2 = e1 / n1, e2 / n2
    l1, u1 = wilson(e1, n1)
    l2, u2 = wilson(e2, n2)
    d = p1 - p2
    return (d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2))


def proportion_difference(e1: int, n1: int, e2: int, n2: int, alpha: float) -> Estimate:
    """p1 - p2 of two independent binomials: Newcombe's score interval, and the p-values that agree with
    it at every threshold (a margin as well as 0)."""
    e1, n1, e2, n2 = int(e1), int(n1), int(e2), int(n2)
    above, below = p_values_from(lambda a: newcombe_interval(e1, n1, e2, n2, a))
    low, high = newcombe_interval(e1, n1, e2, n2, alpha)

    def outcomes(a):
        # the extremes of the design (every error on one side), and equal error rates at a few levels
        cases = [(0, n2), (n1, 0), (0, 0), (n1, n2)] + [(n1 // q, n2 // q) for q in (2, 4, 10)]
        return [newcombe_interval(x1, n1, x2, n2, a) for x1, x2 in cases]

    return Estimate(e1 / n1 - e2 / n2, low, high, min(n1, n2),
                    "Newcombe's score interval (unpaired)", above, below,
                    interval_at=lambda a: newcombe_interval(e1, n1, e2, n2, a), outcomes=outcomes,
                    value_range=(-1.0, 1.0))


def paired_proportion_difference(n10: int, n01: int, n: int, alpha: float) -> Estimate:
    """p_a - p_b from n paired runs (common random numbers): n10 runs where only a erred, n01 where only b
    did. The difference is psi (2 pi - 1), psi = P(a run is discordant), pi = P(a erred | discordant);
    its interval combines the exact (Clopper-Pearson) bounds of psi and pi, each at alpha / 2
    (Bonferroni), so each side errs with probability at most alpha whatever the correlation; p-values
    are read off the same intervals (the smallest level at which the bound passes t)."""
    n10, n01, n = int(n10), int(n01), int(n)

    def interval(a):
        return paired_interval(n10, n01, n, a)

    def outcomes(a):
        cases = [(0, n), (n, 0), (0, 0), (n // 4, n // 4), (n // 20, n // 20)]
        return [paired_interval(x10, x01, n, a) for x10, x01 in cases]

    p_above, p_below = p_values_from(interval)
    return Estimate((n10 - n01) / n, *interval(alpha), n,
                    "paired exact (discordant runs: Clopper-Pearson bounds of their rate and split)", p_above, p_below,
                    interval_at=interval, outcomes=outcomes, value_range=(-1.0, 1.0))


def paired_interval(n10: int, n01: int, n: int, alpha: float) -> tuple[float, float]:
    """The interval of paired_proportion_difference at one-sided level alpha."""
    d = n10 + n01
    psi_lo, psi_hi = clopper_pearson(d, n, alpha / 2)
    pi_lo, pi_hi = clopper_pearson(n10, d, alpha / 2) if d else (0.0, 1.0)
    lo_edge, hi_edge = 2 * pi_lo - 1, 2 * pi_hi - 1
    low = psi_hi * lo_edge if lo_edge < 0 else psi_lo * lo_edge
    high = psi_hi * hi_edge if hi_edge > 0 else psi_lo * hi_edge
    return low, high


def p_values_from(interval_at):
    """One-sided p-values that agree with a family of intervals: p_above(t) is the smallest one-sided
    level a at which the interval's lower bound passes t (bisection on a; intervals narrow as a grows)."""
    def smallest(passes):
        if not passes(0.5):
            return 1.0
        lo, hi = 1e-12, 0.5
        if passes(lo):
            return lo
        for _ in range(40):
            mid = math.sqrt(lo * hi)
            lo, hi = (lo, mid) if passes(mid) else (mid, hi)
        return hi

    def p_above(t):
        return smallest(lambda a: interval_at(a)[0] > t)

    def p_below(t):
        return smallest(lambda a: interval_at(a)[1] < t)

    return p_above, p_below


def rate_ratio(e1: int, n1: int, e2: int, n2: int, alpha: float) -> Estimate:
    """p1 / p2 for rare errors: given s = e1 + e2, e1 ~ Binomial(s, rho n1 / (rho n1 + n2)) when
    p1 = rho p2 (exact for Poisson counts, conservative for binomial ones). For paired runs whose errors
    correlate positively (common random numbers) e1 - pi s varies less than the binomial says, so the
    test stays conservative (tests/test_claims_engine.py checks its size on correlated pairs)."""
    from scipy.stats import binom

    e1, n1, e2, n2 = int(e1), int(n1), int(e2), int(n2)
    s = e1 + e2

    def pi(rho):
        return rho * n1 / (rho * n1 + n2)

    def p_above(rho):
        return 1.0 if s == 0 else _clip(binom.sf(e1 - 1, s, pi(rho)))

    def p_below(rho):
        return 1.0 if s == 0 else _clip(binom.cdf(e1, s, pi(rho)))

    def rho_of(p):
        return math.inf if p >= 1 else p * n2 / ((1 - p) * n1)

    def interval(x1, x2, a):
        total = x1 + x2
        if total == 0:
            return 0.0, math.inf
        lo, hi = clopper_pearson(x1, total, a)     # of pi, the share of the errors that are e1's
        return rho_of(lo), rho_of(hi)

    low, high = interval(e1, e2, alpha)

    def outcomes(a):
        cases = [(0, n2), (n1, 0), (n1, n2)] + [(n1 // q, n2 // q) for q in (2, 10, 100)]
        return [interval(x1, x2, a) for x1, x2 in cases]

    value = math.nan if s == 0 else (math.inf if e2 == 0 else (e1 / n1) / (e2 / n2))
    return Estimate(value, low, high, min(n1, n2), "exact conditional binomial (rate ratio)", p_above, p_below,
                    interval_at=lambda a: interval(e1, e2, a), outcomes=outcomes, value_range=(0.0, math.inf))


# ------------------------------------------------------------------ means

def small_sample_allowance(n: int, scale: str = "log") -> float:
    """The factor a claim's t quantile is divided by at n runs (SKEWNESS_ALLOWANCE): its tail is taken at
    alpha / allowance. At 10-25 skewed runs (stopping times, regrets: lognormal spreads 0.1-0.5, paired or
    not, correlated up to 0.8) a t interval's tail errs up to 4.7 times as often as alpha on the log scale at
    alpha = 0.125% (the percentile bootstrap's too, 2-4 times at 1.25%), and up to 1.8 times on differences at
    0.83%; at 100 runs a log ratio's still 1.1-1.2 times at 2.5%. With the allowance each errs at most alpha
    at the tail levels the studies' claims use (tests/test_claims_coverage.py shows it, and fails the
    intervals without it)."""
    for below, allowance in SKEWNESS_ALLOWANCE[scale]:
        if below is None or n < below:
            return allowance
    return 1.0


def allowance_text(allowance: float) -> str:
    return f", quantile at alpha / {allowance:g} (small-sample allowance)" if allowance != 1.0 else ""


def _t_tests(mean: float, se: float, df: float, allowance: float = 1.0):
    """One-sided t p-values; with an allowance k, k times the t tail (capped at 1), so that p < alpha exactly
    where the interval at alpha (its quantile at alpha / k) lies beyond the threshold."""
    from scipy.stats import t as student

    def p_above(t):
        if se == 0:
            return 0.0 if mean > t else 1.0
        return _clip(allowance * student.sf((mean - t) / se, df))

    def p_below(t):
        if se == 0:
            return 0.0 if mean < t else 1.0
        return _clip(allowance * student.cdf((mean - t) / se, df))

    return p_above, p_below


def mean(values, alpha: float, allowance: float = 1.0) -> Estimate:
    """Mean of independent runs: Student's t (the quantile at alpha / allowance, small_sample_allowance)."""
    from scipy.stats import t as student

    x = np.asarray(values, float)
    n = x.size
    m = float(x.mean())
    if n < 2:
        return Estimate(m, -math.inf, math.inf, n, "Student's t (one run: no interval)", _half, _half)
    se = float(x.std(ddof=1) / math.sqrt(n))
    p_above, p_below = _t_tests(m, se, n - 1, allowance)

    def interval(a):
        q = float(student.isf(a / allowance, n - 1))
        return m - q * se, m + q * se

    return Estimate(m, *interval(alpha), n, "Student's t" + allowance_text(allowance), p_above, p_below,
                    interval_at=interval)


def _half(_t) -> float:
    return 1.0


def mean_difference(a, b, alpha: float, paired: bool, allowance: float = 1.0) -> Estimate:
    """mean(a) - mean(b): paired runs (common random numbers) by the t interval of the differences,
    independent ones by Welch's t (the quantile at alpha / allowance, small_sample_allowance)."""
    from scipy.stats import t as student

    a, b = np.asarray(a, float), np.asarray(b, float)
    if paired:
        if a.size != b.size:
            raise ValueError(f"paired difference of {a.size} and {b.size} runs")
        est = mean(a - b, alpha, allowance)
        est.method = "paired Student's t" + allowance_text(allowance)
        return est
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    se = math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / (a.size - 1) + vb ** 2 / (b.size - 1)) if se > 0 else 1.0
    d = float(a.mean() - b.mean())
    p_above, p_below = _t_tests(d, se, df, allowance)

    def interval(alpha_):
        q = float(student.isf(alpha_ / allowance, df))
        return d - q * se, d + q * se

    return Estimate(d, *interval(alpha), min(a.size, b.size), "Welch's t" + allowance_text(allowance), p_above,
                    p_below, interval_at=interval)


# ------------------------------------------------------------------ small run counts: t on the log scale

def log_ratio_se(a, b, paired: bool):
    """log(mean a / mean b) and its delta-method standard error and degrees of freedom, over the last axis
    (runs; leading axes are independent worlds, so a simulation computes many at once). Paired runs: the
    influence a_i / mean a - b_i / mean b of each run, n - 1 degrees of freedom; independent ones: each
    series' own, Welch's degrees of freedom."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    ma, mb = a.mean(axis=-1), b.mean(axis=-1)
    value = np.log(ma / mb)
    if paired:
        n = a.shape[-1]
        influence = a / ma[..., None] - b / mb[..., None]
        return value, influence.std(axis=-1, ddof=1) / math.sqrt(n), np.full(np.shape(value), n - 1.0)
    va = (a / ma[..., None]).var(axis=-1, ddof=1) / a.shape[-1]
    vb = (b / mb[..., None]).var(axis=-1, ddof=1) / b.shape[-1]
    with np.errstate(invalid="ignore", divide="ignore"):
        df = (va + vb) ** 2 / (va ** 2 / (a.shape[-1] - 1) + vb ** 2 / (b.shape[-1] - 1))
    return value, np.sqrt(va + vb), np.where(np.isfinite(df), df, 1.0)


def t_interval(value, se, df, alpha: float, allowance: float = 1.0):
    """value -/+ t quantile x se, the quantile at alpha / allowance (arrays broadcast)."""
    from scipy.stats import t as student

    q = student.isf(alpha / allowance, df)
    return value - q * se, value + q * se


def log_t(log_value: float, se: float, df: float, alpha: float, n: int, method: str, allowance: float,
          shift: float = 0.0) -> Estimate:
    """An estimate of exp(log_value) + shift whose interval is the t interval on the log scale (exp'd, then
    shifted: a ratio, or a ratio minus 1), with p-values that agree with it at every threshold."""
    log_value, se, df = float(log_value), float(se), float(df)
    p_log_above, p_log_below = _t_tests(log_value, se, df, allowance)

    def p_above(t):
        return 0.0 if t - shift <= 0 else p_log_above(math.log(t - shift))

    def p_below(t):
        return 1.0 if t - shift <= 0 else p_log_below(math.log(t - shift))

    def interval(a):
        lo, hi = t_interval(log_value, se, df, a, allowance)
        return math.exp(lo) + shift, math.exp(hi) + shift

    if not math.isfinite(se) or se != se:
        return Estimate(math.exp(log_value) + shift, -math.inf, math.inf, n, method + " (too few runs: no interval)",
                        _half, _half, interval_at=lambda _a: (-math.inf, math.inf))
    return Estimate(math.exp(log_value) + shift, *interval(alpha), n, method + allowance_text(allowance), p_above,
                    p_below, interval_at=interval, value_range=(shift, math.inf))


def ratio_of_means_t(a, b, alpha: float, paired: bool, shift: float = 0.0) -> Estimate:
    """mean a / mean b (+ shift) at small run counts: Student's t on log(mean a / mean b) with the delta
    method's standard error (t-on-log), the quantile at alpha / small_sample_allowance(n)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    n = min(a.size, b.size)
    if n < 2:
        value = float(a.mean() / b.mean()) + shift
        return Estimate(value, -math.inf, math.inf, n, "t on the log ratio (one run: no interval)", _half, _half,
                        interval_at=lambda _a: (-math.inf, math.inf))
    value, se, df = log_ratio_se(a, b, paired)
    method = ("paired t on the log ratio of means, delta-method s.e." if paired else
              "Welch's t on the log ratio of means, delta-method s.e. of the independent series")
    return log_t(value, se, df, alpha, n, method, small_sample_allowance(n), shift)


def log_geomean_se(pairs, paired: bool, shared: bool):
    """mean over settings of log(mean a_s / mean b_s), its delta-method standard error and degrees of
    freedom, over the last axis (runs; leading axes are independent worlds). Within a setting a and b are
    paired when `paired`; across settings the runs are paired when `shared` (settings that play the same
    seeds), else independent (Welch's degrees of freedom over the independent pieces)."""
    pairs = [(np.asarray(a, float), np.asarray(b, float)) for a, b in pairs]
    k = len(pairs)
    value = np.mean([np.log(a.mean(axis=-1) / b.mean(axis=-1)) for a, b in pairs], axis=0)

    def relative(x):
        return x / x.mean(axis=-1, keepdims=True)

    if shared:
        influence = np.mean([relative(a) - relative(b) for a, b in pairs], axis=0)
        n = influence.shape[-1]
        return value, influence.std(axis=-1, ddof=1) / math.sqrt(n), np.full(np.shape(value), n - 1.0)
    pieces = []         # (variance of the mean, degrees of freedom) of each independent piece
    for a, b in pairs:
        if paired:
            d = relative(a) - relative(b)
            pieces.append((d.var(axis=-1, ddof=1) / d.shape[-1] / k ** 2, d.shape[-1] - 1.0))
        else:
            pieces += [(relative(x).var(axis=-1, ddof=1) / x.shape[-1] / k ** 2, x.shape[-1] - 1.0) for x in (a, b)]
    var = sum(v for v, _ in pieces)
    with np.errstate(invalid="ignore", divide="ignore"):
        df = var ** 2 / sum(v ** 2 / f for v, f in pieces)
    return value, np.sqrt(var), np.where(np.isfinite(df), df, 1.0)


def geomean_ratio_t(pairs, alpha: float, paired: bool, shared: bool) -> Estimate:
    """exp(mean over settings of log(mean a_s / mean b_s)), the geometric mean over settings of a ratio of
    means: Student's t on the log scale, delta-method standard error (t-on-log, log_geomean_se), the quantile
    at alpha / small_sample_allowance(runs)."""
    pairs = [(np.asarray(a, float), np.asarray(b, float)) for a, b in pairs]
    n = min(min(a.size, b.size) for a, b in pairs)
    method = f"t on the log of the geometric mean over {len(pairs)} settings, delta-method s.e."
    if n < 2:
        value = float(np.mean([np.log(a.mean() / b.mean()) for a, b in pairs]))
        return Estimate(math.exp(value), -math.inf, math.inf, n, method + " (one run: no interval)", _half, _half,
                        interval_at=lambda _a: (-math.inf, math.inf))
    if shared and len({x.size for a, b in pairs for x in (a, b)}) != 1:
        raise ValueError("settings that share seeds need as many runs in every series")
    value, se, df = log_geomean_se(pairs, paired, shared)
    return log_t(value, se, df, alpha, n, method + (", runs paired across settings" if shared else ""),
                 small_sample_allowance(n))


def min_step_interval(gaps, alpha: float, allowance: float, shared: bool = True):
    """The interval of min_k (mean gap_{k+1} - mean gap_k) over consecutive settings. gaps: (..., settings,
    runs) per-run values of each setting. Shared seeds: run i of every setting is paired, so each step is a
    paired t of the per-run steps; otherwise each setting's runs are independent (Welch). The lower bound is
    the smallest step's lower bound at alpha (it bounds the true smallest step, whichever it is); the upper
    bound the smallest upper bound with each step's at alpha / (steps) (Bonferroni: the bound must hold for
    every step, since the smallest is not known)."""
    gaps = np.asarray(gaps, float)
    steps = gaps.shape[-2] - 1
    if shared:
        per_run = gaps[..., 1:, :] - gaps[..., :-1, :]
        n = per_run.shape[-1]
        value, se = per_run.mean(axis=-1), per_run.std(axis=-1, ddof=1) / math.sqrt(n)
        df = np.full(np.shape(value), n - 1.0)
    else:
        m, v = gaps.mean(axis=-1), gaps.var(axis=-1, ddof=1) / gaps.shape[-1]
        value, var = m[..., 1:] - m[..., :-1], v[..., 1:] + v[..., :-1]
        se = np.sqrt(var)
        with np.errstate(invalid="ignore", divide="ignore"):
            df = var ** 2 / ((v[..., 1:] ** 2 + v[..., :-1] ** 2) / (gaps.shape[-1] - 1))
        df = np.where(np.isfinite(df), df, 1.0)
    low, _ = t_interval(value, se, df, alpha, allowance)
    _, high = t_interval(value, se, df, alpha / steps, allowance)
    return value.min(axis=-1), low.min(axis=-1), high.min(axis=-1)


def best_of_groups_difference(a_rows, b_rows, n_select: int, alpha: float) -> tuple[Estimate, int, int]:
    """min over group A of the mean minus min over group B of the mean, for points run on the same
    seeds (rows: points, columns: seeds, in one order; e.g. a tuning grid split by one option's value).

    The best point of a group is chosen on the first `n_select` seeds and judged on the rest: the best of
    many noisy means is too low, the more so the more points, so judging the chosen points on the seeds
    that chose them makes the larger group look better (with 1 point against 300 equal ones, a paired t
    on all seeds read "the group of 300 is better" in ~45% of worlds at a 2.5% level).
    With i* and j* chosen, theta = min_A mu - min_B mu is at most max_j (mu_i* - mu_j) and at least
    min_i (mu_i - mu_j*); the interval takes the paired t bounds of these differences on the judged seeds,
    Bonferroni over the |B| upper and the |A| lower bounds (each side at one-sided level alpha).
    Returns the estimate and the rows chosen in A and in B."""
    from scipy.stats import t as student

    a, b = np.atleast_2d(np.asarray(a_rows, float)), np.atleast_2d(np.asarray(b_rows, float))
    if a.shape[1] != b.shape[1]:
        raise ValueError(f"groups run on {a.shape[1]} and {b.shape[1]} seeds")
    n = a.shape[1] - n_select
    i = int(np.argmin(a[:, :n_select].mean(axis=1)))
    j = int(np.argmin(b[:, :n_select].mean(axis=1)))
    value = float(a[i, n_select:].mean() - b[j, n_select:].mean())
    method = (f"best point of each group chosen on the first {n_select} seeds, judged on the other {n}: paired "
              f"Student's t, Bonferroni over the {a.shape[0]} + {b.shape[0]} points")
    if n_select < 1 or n < 2:
        return Estimate(value, -math.inf, math.inf, max(n, 0), method + " (too few seeds: no interval)",
                        _half, _half, interval_at=lambda _a: (-math.inf, math.inf)), i, j
    against_b = a[i, n_select:][None, :] - b[:, n_select:]    # i* against every point of B
    against_a = a[:, n_select:] - b[j, n_select:][None, :]    # every point of A against j*

    def bounds(d, level):
        m, se = d.mean(axis=1), d.std(axis=1, ddof=1) / math.sqrt(n)
        q = float(student.isf(level, n - 1))
        return m - q * se, m + q * se

    def interval(level):
        return float(bounds(against_a, level / a.shape[0])[0].min()), float(bounds(against_b, level / b.shape[0])[1].max())

    p_above, p_below = p_values_from(interval)
    return Estimate(value, *interval(alpha), n, method, p_above, p_below, interval_at=interval), i, j


# ------------------------------------------------------------------ bootstrap

def stream_seed(*labels) -> int:
    """A fixed bootstrap seed per claim part: the same numbers on every run and machine."""
    return zlib.crc32("/".join(map(str, labels)).encode("utf-8"))


def bootstrap(statistic, groups, alpha: float, seed: int, method: str = "",
              resamples: int = BOOTSTRAP_RESAMPLES, shared: bool = False) -> Estimate:
    """Percentile bootstrap of statistic(*samples) over independent runs.

    groups: a list of groups; a group is a tuple of equally long 1-d arrays whose runs are paired
    (common random numbers) and are resampled together. With `shared`, every group is resampled
    with the same run indices: the runs of different groups are paired too (settings that play the
    same seeds), so all groups must have as many runs. statistic(*arrays) must accept arrays with a
    leading resample axis (shape (B, n)) and return B values.
    """
    rng = np.random.default_rng(seed)
    flat = [np.asarray(x, float) for g in groups for x in g]
    value = float(statistic(*[x[None, :] for x in flat])[0])
    draws = []
    if shared:
        sizes = {len(x) for g in groups for x in g}
        if len(sizes) != 1:
            raise ValueError(f"a shared-index bootstrap needs the same number of runs in every group, got {sorted(sizes)}")
        idx = rng.integers(0, sizes.pop(), size=(resamples, len(flat[0])))
        draws = [x[idx] for x in flat]
    else:
        for g in groups:
            n = len(g[0])
            idx = rng.integers(0, n, size=(resamples, n))
            draws += [np.asarray(x, float)[idx] for x in g]
    stats = np.asarray(statistic(*draws), float)
    n_runs = min(len(g[0]) for g in groups)
    return from_draws(value, stats, alpha, n_runs,
                      method or f"percentile bootstrap ({resamples} resamples of the runs"
                      + (", paired across groups)" if shared else ")"))


def from_draws(value: float, stats, alpha: float, n: int, method: str) -> Estimate:
    """An estimate whose interval and tests are read off resampled values of the statistic."""
    stats = np.asarray(stats, float)
    stats = stats[np.isfinite(stats)] if np.any(~np.isfinite(stats)) else stats
    B = stats.size

    def p_above(t):
        return (1.0 + np.count_nonzero(stats <= t)) / (B + 1.0)

    def p_below(t):
        return (1.0 + np.count_nonzero(stats >= t)) / (B + 1.0)

    def interval(a):
        return (float(np.quantile(stats, a)), float(np.quantile(stats, 1 - a))) if B else (-math.inf, math.inf)

    return Estimate(value, *interval(alpha), n, method, p_above, p_below, interval_at=interval)


# ------------------------------------------------------------------ exact

def exact(value: float, method: str = "exact (no sampling noise)") -> Estimate:
    v = float(value)
    return Estimate(v, v, v, 0, method, lambda t: 0.0 if v > t else 1.0, lambda t: 0.0 if v < t else 1.0,
                    interval_at=lambda _a: (v, v), exact=True)
