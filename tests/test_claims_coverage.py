"""Coverage of the claims engine's intervals at small run counts, by simulation, at the tail levels the
studies' claims use (each part's one-sided level is 2.5% / m for a claim of m parts: 1.25% and 0.125% for
LinGapE's claims of 2 and 20 parts at 10 runs, 2.5% and 0.83% for OPKB's of 1 and 3 parts at 25 seeds), on
data shaped like the studies' (stopping times and regrets: lognormal spreads 0.1-0.5, the series of a run
paired and correlated up to 0.8, or independent).

A tail covers when its bound lies beyond the truth at most alpha of the time (plus three Monte Carlo
standard errors). Every estimator is simulated through the engine's own vectorised interval code (the same
functions the estimates call with one world); the suite plants under-covering intervals itself and checks
that the same test fails them: the percentile bootstrap the engine used before, and the t intervals
without the small-sample allowance."""
import math

import numpy as np
import pytest

from linbandits.claims import estimates as est

WORLDS = 100_000
NO_ALLOWANCE = {"log": [(None, 1.0)], "difference": [(None, 1.0)]}      # the planted bug: plain t intervals


def miss_rates(low, high, truth) -> tuple[float, float]:
    """How often the lower bound lies above the truth, and the upper bound below it."""
    return float(np.mean(low > truth)), float(np.mean(high < truth))


def covers(rates, alpha: float, worlds: int) -> bool:
    tolerance = 3 * math.sqrt(alpha * (1 - alpha) / worlds)
    return all(r <= alpha + tolerance for r in rates)


def lognormal_pairs(rng, worlds, n, sa, sb, rho, scale_b=3.0):
    """Two series of n paired runs per world, lognormal with log-spreads sa, sb and log-correlation rho; the
    true ratio of their means."""
    z1 = rng.standard_normal((worlds, n))
    z2 = rho * z1 + math.sqrt(1 - rho ** 2) * rng.standard_normal((worlds, n))
    a, b = np.exp(sa * z1), scale_b * np.exp(sb * z2)
    return a, b, math.exp(sa ** 2 / 2) / (scale_b * math.exp(sb ** 2 / 2))


# the shapes: (spread of a, spread of b, correlation); LinGapE's XY-static runs spread ~0.15, its LinGapE runs
# ~0.4 (docs/lingape.md: 10 runs at d = 2 from 315,509 to 1,076,287), OPKB's regrets over instance seeds
# ~0.3-0.5 and strongly correlated (every algorithm of a seed plays the same instance)
LINGAPE_SHAPES = [(0.15, 0.4, 0.0), (0.15, 0.4, 0.6), (0.4, 0.15, 0.3), (0.4, 0.4, 0.6), (0.1, 0.5, 0.6)]
OPKB_SHAPES = [(0.3, 0.3, 0.8), (0.5, 0.3, 0.8), (0.1, 0.5, 0.6), (0.5, 0.1, 0.0), (0.5, 0.5, 0.0)]
LINGAPE_LEVELS = (0.0125, 0.00125)     # claims of 2 and of 20 parts
OPKB_LEVELS = (0.025, 0.025 / 3)       # claims of 1 and of 3 parts


def ratio_rates(n, shape, alpha, seed, worlds=WORLDS):
    """Miss rates of the engine's ratio of means at n paired runs (estimates.ratio_of_means_t's interval)."""
    a, b, truth = lognormal_pairs(np.random.default_rng(seed), worlds, n, *shape)
    value, se, df = est.log_ratio_se(a, b, paired=True)
    low, high = est.t_interval(value, se, df, alpha, est.small_sample_allowance(n))
    return miss_rates(low, high, math.log(truth))


@pytest.mark.parametrize("n,shapes,levels", [(10, LINGAPE_SHAPES, LINGAPE_LEVELS), (25, OPKB_SHAPES, OPKB_LEVELS)])
def test_ratio_of_means_covers_at_the_claims_levels(n, shapes, levels):
    for i, shape in enumerate(shapes):
        for alpha in levels:
            rates = ratio_rates(n, shape, alpha, seed=100 + i)
            assert covers(rates, alpha, WORLDS), (n, shape, alpha, rates)


def test_the_vectorised_interval_is_the_estimates_interval():
    """The simulation computes the interval the engine prints: one world through ratio_of_means_t."""
    a, b, _ = lognormal_pairs(np.random.default_rng(1), 3, 10, 0.15, 0.4, 0.3)
    value, se, df = est.log_ratio_se(a, b, paired=True)
    low, high = est.t_interval(value, se, df, 0.00125, est.small_sample_allowance(10))
    for w in range(3):
        e = est.ratio_of_means_t(a[w], b[w], 0.00125, paired=True).at_level(0.00125)
        assert (e.low, e.high) == pytest.approx((math.exp(low[w]), math.exp(high[w])), rel=1e-12)
        assert e.p_above(e.low) == pytest.approx(0.00125, rel=1e-6)
        assert e.p_below(e.high) == pytest.approx(0.00125, rel=1e-6)


def test_planted_t_on_log_without_the_allowance_is_caught(monkeypatch):
    """The plain t-on-log (no allowance) under-covers on LinGapE's shapes at 0.125%: the test must say so."""
    monkeypatch.setattr(est, "SKEWNESS_ALLOWANCE", NO_ALLOWANCE)
    failed = [shape for i, shape in enumerate(LINGAPE_SHAPES)
              if not covers(ratio_rates(10, shape, 0.00125, seed=100 + i), 0.00125, WORLDS)]
    assert failed


def test_planted_percentile_bootstrap_at_ten_runs_is_caught(monkeypatch):
    """The engine's old interval for LinGapE's ratios, the percentile bootstrap of the runs (est.bootstrap),
    under-covers at 10 runs at 1.25% a side: the same coverage test fails it."""
    monkeypatch.setattr(est, "BOOTSTRAP_RESAMPLES", 2000)
    worlds, alpha = 1500, 0.0125
    a, b, truth = lognormal_pairs(np.random.default_rng(7), worlds, 10, 0.15, 0.4, 0.3)
    bounds = np.array([(e.low, e.high) for e in
                       (est.bootstrap(lambda x, y: x.mean(axis=1) / y.mean(axis=1), [(a[w], b[w])], alpha, w)
                        for w in range(worlds))])
    assert not covers(miss_rates(bounds[:, 0], bounds[:, 1], truth), alpha, worlds)


# ------------------------------------------------------------------ Student's t at small run counts

def difference_rates(n, shape, alpha, seed, worlds=WORLDS):
    """Miss rates of the engine's paired t of a mean difference (OPKB's seeds_mean_difference)."""
    a, b, _ = lognormal_pairs(np.random.default_rng(seed), worlds, n, *shape, scale_b=1.2)
    sa, sb = shape[0], shape[1]
    truth = math.exp(sa ** 2 / 2) - 1.2 * math.exp(sb ** 2 / 2)
    d = a - b
    se, df = d.std(axis=1, ddof=1) / math.sqrt(n), np.full(worlds, n - 1.0)
    low, high = est.t_interval(d.mean(axis=1), se, df, alpha, est.small_sample_allowance(n, "difference"))
    return miss_rates(low, high, truth)


def test_paired_t_of_regrets_covers_at_the_claims_levels():
    for i, shape in enumerate(OPKB_SHAPES):
        for alpha in OPKB_LEVELS:
            rates = difference_rates(25, shape, alpha, seed=200 + i)
            assert covers(rates, alpha, WORLDS), (shape, alpha, rates)


def test_the_paired_t_is_the_estimates_interval():
    a, b, _ = lognormal_pairs(np.random.default_rng(2), 1, 25, 0.5, 0.3, 0.8)
    allowance = est.small_sample_allowance(25, "difference")
    e = est.mean_difference(a[0], b[0], 0.025, paired=True, allowance=allowance)
    d = a[0] - b[0]
    low, high = est.t_interval(d.mean(), d.std(ddof=1) / 5, 24.0, 0.025, allowance)
    assert allowance > 1
    assert (e.low, e.high) == pytest.approx((low, high), rel=1e-12)


def test_planted_paired_t_without_the_allowance_is_caught(monkeypatch):
    monkeypatch.setattr(est, "SKEWNESS_ALLOWANCE", NO_ALLOWANCE)
    failed = [shape for i, shape in enumerate(OPKB_SHAPES)
              if not covers(difference_rates(25, shape, OPKB_LEVELS[1], seed=200 + i), OPKB_LEVELS[1], WORLDS)]
    assert failed


# ------------------------------------------------------------------ LinGapE's smallest step of a gap

def step_rates(shape, alpha, seed, worlds=WORLDS, settings=3, n=10):
    """Miss rates of gap_growth's interval (estimates.min_step_interval) on settings that share seeds: the gap
    mean a - mean b grows by a known step from one setting to the next, every run's noise lognormal."""
    rng = np.random.default_rng(seed)
    sa, sb, rho = shape
    gaps, truths = [], []
    for k in range(settings):
        a, b, _ = lognormal_pairs(rng, worlds, n, sa, sb, rho, scale_b=1.0)
        scale = 2.0 + k      # a's scale grows with the setting: the gap grows
        gaps.append(scale * a - b)
        truths.append(scale * math.exp(sa ** 2 / 2) - math.exp(sb ** 2 / 2))
    gaps = np.stack(gaps, axis=1)       # worlds x settings x runs
    truth = min(t2 - t1 for t1, t2 in zip(truths, truths[1:]))
    _, low, high = est.min_step_interval(gaps, alpha, est.small_sample_allowance(n, "difference"), shared=True)
    return miss_rates(low, high, truth)


def test_smallest_step_covers_at_the_claims_level():
    for i, shape in enumerate(LINGAPE_SHAPES):
        rates = step_rates(shape, 0.025, seed=300 + i)      # fig2-gap-grows and fig3-gap-grows: one part each
        assert covers(rates, 0.025, WORLDS), (shape, rates)


def test_planted_step_without_bonferroni_on_the_upper_bound_is_caught(monkeypatch):
    """The upper bound of a smallest step must hold for every step: each at alpha alone under-covers."""
    original = est.min_step_interval

    def every_step_at_alpha(gaps, alpha, allowance, shared=True):
        steps = np.asarray(gaps).shape[-2] - 1
        value, low, _ = original(gaps, alpha, allowance, shared)
        _, _, high = original(gaps, alpha * steps, allowance, shared)
        return value, low, high

    monkeypatch.setattr(est, "min_step_interval", every_step_at_alpha)
    monkeypatch.setattr(est, "SKEWNESS_ALLOWANCE", NO_ALLOWANCE)
    # equal steps: the smallest is any of them, and the upper bound's misses add up
    rates = step_rates((0.05, 0.05, 0.0), 0.025, seed=399, settings=5)
    assert not covers(rates, 0.025, WORLDS)


# ------------------------------------------------------------------ geometric means over settings

def geomean_rates(n, shape, alpha, seed, settings, shared, worlds):
    """Miss rates of geomean_ratio's interval (estimates.log_geomean_se on the log scale)."""
    rng = np.random.default_rng(seed)
    pairs = [lognormal_pairs(rng, worlds, n, *shape) for _ in range(settings)]
    if shared:      # the settings play the same seeds: one set of run shocks, scaled per setting
        a0, b0, t0 = pairs[0]
        pairs = [(a0 * (1 + k), b0, t0 * (1 + k)) for k in range(settings)]
    truth = float(np.mean([math.log(t) for _, _, t in pairs]))
    value, se, df = est.log_geomean_se([(a, b) for a, b, _ in pairs], paired=True, shared=shared)
    low, high = est.t_interval(value, se, df, alpha, est.small_sample_allowance(n))
    return miss_rates(low, high, truth)


# SW-UCB's regrets at one T spread little over 100 runs (its slopes' intervals are +-0.004, docs/swucb.md):
# log-spreads up to 0.2
SWUCB_SHAPES = [(0.05, 0.2, 0.5), (0.2, 0.05, 0.5), (0.1, 0.2, 0.0), (0.2, 0.2, 0.8)]


@pytest.mark.parametrize("n,shared,shapes,levels", [(10, True, LINGAPE_SHAPES, LINGAPE_LEVELS),
                                                    (100, False, SWUCB_SHAPES, (0.025,))])
def test_geomean_ratio_covers(n, shared, shapes, levels):
    """LinGapE's Fig. 3 (10 runs, every setting on one seed) and SW-UCB's C1 (100 runs a T, paired)."""
    worlds = {10: 50_000, 100: 10_000}[n]      # the 100-run worlds are judged at 2.5% only: fewer suffice
    for i, shape in enumerate(shapes):
        for alpha in levels:
            rates = geomean_rates(n, shape, alpha, seed=400 + i, settings=5, shared=shared, worlds=worlds)
            assert covers(rates, alpha, worlds), (n, shape, alpha, rates)


def test_the_geomean_interval_is_the_estimates_interval():
    rng = np.random.default_rng(5)
    pairs = [lognormal_pairs(rng, 1, 10, 0.15, 0.4, 0.3)[:2] for _ in range(3)]
    e = est.geomean_ratio_t([(a[0], b[0]) for a, b in pairs], 0.0125, paired=True, shared=True)
    value, se, df = est.log_geomean_se(pairs, paired=True, shared=True)
    low, high = est.t_interval(value, se, df, 0.0125, est.small_sample_allowance(10))
    assert (e.low, e.high) == pytest.approx((math.exp(low[0]), math.exp(high[0])), rel=1e-12)


def test_the_simulated_truths_are_the_means_estimated():
    """lognormal_pairs' true ratio is the ratio of the series' means (lognormal mean exp(s^2 / 2))."""
    a, b, truth = lognormal_pairs(np.random.default_rng(9), 400, 1000, 0.4, 0.2, 0.5)
    assert a.mean() / b.mean() == pytest.approx(truth, rel=0.01)
