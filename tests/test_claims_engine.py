"""The claims engine: each estimate's tests have their size under the null (checked by
simulation, fixed seeds, stated tolerances), intervals agree with the tests, relations and
groups give the verdicts the docs state, simultaneous (Bonferroni) intervals control a claim
with many parts, non-inferiority and equivalence (TOST) keep their size at their margins, a
design that cannot reach both outcomes is no evidence, and runs that share seeds are resampled
paired. Planted bugs (a check that ignores its interval, the multiplicity control switched off,
a one-sided test used two-sided, the reach check off, an unpaired bootstrap) are applied here
and must be caught by the same checks."""
import dataclasses
import math

import numpy as np
import pytest
from scipy import stats

from linbandits.claims import audit, engine, estimates as est, judge, render
from linbandits.claims.engine import FAILS_TO_HOLD, HOLDS, INCONCLUSIVE, NO_EVIDENCE, NOT_RUN, Missing
from linbandits.claims.quantities import QUANTITIES

ALPHA = (1 - engine.LEVEL) / 2       # 0.025 per direction


def size(rejections: int, n: int) -> tuple[float, float]:
    """Rejection rate and its binomial standard error under the stated alpha."""
    return rejections / n, math.sqrt(ALPHA * (1 - ALPHA) / n)


class Fake:
    """Evidence over in-memory runs: {experiment: {setting: {algorithm: {column: array}}}}."""
    def __init__(self, data, x=None, curves=None):
        self.data, self.xs, self.curves, self.extras = data, x or {}, curves or {}, {}

    def settings(self, exp):
        if exp not in self.data:
            raise Missing(f"experiment {exp} not in this run")
        return list(self.data[exp])

    def x(self, exp, s):
        return self.xs[exp][s]

    def setting_label(self, exp, s):
        return "" if s == "single" else s

    def column(self, exp, s, algo, col):
        try:
            return np.asarray(self.data[exp][s][algo][col])
        except KeyError:
            raise Missing(f"{algo} not run in {exp}") from None

    def curve(self, exp, s, algo, name="regret"):
        return self.curves[(exp, s, algo)]

    def experiment(self, exp):
        class E:
            sweep = "x"
        return E()

    def summary(self, exp, s):
        return {}


def judge_one(spec, data, **kw):
    claim = {"id": "c", "quote": "q", "parts": [spec]}
    return engine.judge(claim, Fake(data, **kw), QUANTITIES)


# ------------------------------------------------------------------ sizes by simulation

def t_size(trials=4000, n=20, seed=11):
    rng = np.random.default_rng(seed)
    holds = fails = 0
    for _ in range(trials):
        e = est.mean(rng.normal(0.0, 1.0, n), ALPHA)
        holds += e.p_above(0.0) < ALPHA
        fails += e.p_below(0.0) < ALPHA
    return holds, fails, trials


def test_t_test_has_its_size_on_each_side():
    holds, fails, n = t_size()
    for rejections in (holds, fails):
        rate, se = size(rejections, n)
        assert abs(rate - ALPHA) <= 4 * se, (rate, ALPHA)


def test_planted_two_sided_p_in_a_one_sided_test_is_caught(monkeypatch):
    original = est._t_tests

    def two_sided(m, se, df, *allowance):
        above, below = original(m, se, df, *allowance)
        return (lambda t: min(1.0, 2 * min(above(t), below(t))) if above(t) < 0.5 else 1.0,
                lambda t: min(1.0, 2 * min(above(t), below(t))) if below(t) < 0.5 else 1.0)

    monkeypatch.setattr(est, "_t_tests", two_sided)
    holds, _, n = t_size()
    rate, se = size(holds, n)
    assert abs(rate - ALPHA) > 4 * se       # half the size: the check above would fail


def test_one_sided_t_p_value_matches_scipy():
    x = np.random.default_rng(3).normal(0.3, 1.0, 25)
    e = est.mean(x, ALPHA)
    assert e.p_above(0.1) == pytest.approx(stats.ttest_1samp(x, 0.1, alternative="greater").pvalue, rel=1e-9)
    assert e.p_below(0.1) == pytest.approx(stats.ttest_1samp(x, 0.1, alternative="less").pvalue, rel=1e-9)


def clopper_pearson_is_exact(interval) -> bool:
    """Each bound is where a binomial tail equals the level: P(X >= k | low) = a and P(X <= k | high) = a."""
    for n in (1, 7, 40, 300):
        for a in (1e-9, 0.001, 0.025, 0.3):
            ks = np.arange(n + 1)
            low, high = interval(ks, n, a)
            inner = ks[(ks > 0) & (ks < n)]
            if not (low[0] == 0.0 and high[-1] == 1.0 and np.all(low < high)):
                return False
            if not (np.allclose(stats.binom.sf(inner - 1, n, low[inner]), a, rtol=1e-6)
                    and np.allclose(stats.binom.cdf(inner, n, high[inner]), a, rtol=1e-6)):
                return False
    return True


def test_clopper_pearson_inverts_the_binomial_tails():
    assert clopper_pearson_is_exact(est.clopper_pearson)
    # planted: the upper bound's beta parameters swapped with the lower bound's
    from scipy.special import betaincinv

    def planted(k, n, a):
        low, _ = est.clopper_pearson(k, n, a)
        k = np.asarray(k)
        return low, np.where(k == n, 1.0, betaincinv(np.maximum(k, 1), n - k + 1, 1 - a))

    assert not clopper_pearson_is_exact(planted)


def test_binomial_tests_do_not_exceed_their_size():
    rng = np.random.default_rng(5)
    n, p0, trials = 200, 0.3, 4000
    ks = rng.binomial(n, p0, trials)
    above = sum(est.proportion(k, n, ALPHA).p_above(p0) < ALPHA for k in ks)
    below = sum(est.proportion(k, n, ALPHA).p_below(p0) < ALPHA for k in ks)
    for rejections in (above, below):
        rate, se = size(rejections, trials)
        assert rate <= ALPHA + 3 * se


def test_fisher_difference_does_not_exceed_its_size():
    rng = np.random.default_rng(6)
    n, p, trials = 300, 0.2, 3000
    ka, kb = rng.binomial(n, p, trials), rng.binomial(n, p, trials)
    rej = sum(est.proportion_difference(a, n, b, n, ALPHA).p_below(0) < ALPHA for a, b in zip(ka, kb))
    rate, se = size(rej, trials)
    assert rate <= ALPHA + 3 * se


def test_rate_ratio_does_not_exceed_its_size_at_a_factor_two():
    rng = np.random.default_rng(7)
    n, pb, trials = 5000, 0.004, 3000
    ka, kb = rng.binomial(n, 2 * pb, trials), rng.binomial(n, pb, trials)
    above = sum(est.rate_ratio(a, n, b, n, ALPHA).p_above(2.0) < ALPHA for a, b in zip(ka, kb))
    below = sum(est.rate_ratio(a, n, b, n, ALPHA).p_below(2.0) < ALPHA for a, b in zip(ka, kb))
    for rejections in (above, below):
        rate, se = size(rejections, trials)
        assert rate <= ALPHA + 3 * se


BOOTSTRAP_TOLERANCE = 0.02   # the percentile bootstrap is approximate at 50 runs: size <= alpha + 0.02


@pytest.mark.parametrize("quantity,true_value,make", [
    ("ratio_of_means", 1.0, lambda rng: {"a": rng.exponential(1.0, 50), "b": rng.exponential(1.0, 50)}),
    ("relative_difference", 0.0, lambda rng: {"a": rng.gamma(4.0, 1.0, 50), "b": rng.gamma(4.0, 1.0, 50)}),
])
def test_bootstrap_tests_keep_their_size(monkeypatch, quantity, true_value, make):
    monkeypatch.setattr(est, "BOOTSTRAP_RESAMPLES", 999)
    rng = np.random.default_rng(8)
    trials, above, below = 400, 0, 0
    for i in range(trials):
        v = make(rng)
        data = {"e": {"single": {"A": {"regret": v["a"]}, "B": {"regret": v["b"]}}}}
        e, _ = QUANTITIES[quantity](Fake(data), {"quantity": quantity, "experiment": "e", "a": "A", "b": "B"},
                                    ALPHA, f"size{i}")
        above += e.p_above(true_value) < ALPHA
        below += e.p_below(true_value) < ALPHA
    for rejections in (above, below):
        assert rejections / trials <= ALPHA + BOOTSTRAP_TOLERANCE


def test_loglog_slope_bootstrap_keeps_its_size(monkeypatch):
    monkeypatch.setattr(est, "BOOTSTRAP_RESAMPLES", 999)
    rng = np.random.default_rng(9)
    xs = {"e": {f"T{t}": t for t in (1, 2, 4, 8, 16)}}
    trials, above, below = 300, 0, 0
    for i in range(trials):
        # mean ~ x^(2/3): the true slope is 2/3
        data = {"e": {s: {"A": {"regret": x ** (2 / 3) * rng.gamma(9.0, 1 / 9.0, 40)}} for s, x in xs["e"].items()}}
        e, _ = QUANTITIES["loglog_slope"](Fake(data, x=xs), {"quantity": "loglog_slope", "experiment": "e", "a": "A"},
                                          ALPHA, f"slope{i}")
        above += e.p_above(2 / 3) < ALPHA
        below += e.p_below(2 / 3) < ALPHA
    for rejections in (above, below):
        assert rejections / trials <= ALPHA + BOOTSTRAP_TOLERANCE


# ------------------------------------------------------------------ intervals agree with the tests

def test_interval_bounds_are_where_the_tests_reject():
    e = est.proportion(13, 120, ALPHA)
    assert e.p_above(e.low) == pytest.approx(ALPHA, rel=1e-6)
    assert e.p_below(e.high) == pytest.approx(ALPHA, rel=1e-6)
    m = est.mean(np.random.default_rng(2).normal(1, 2, 15), ALPHA)
    assert m.p_above(m.low) == pytest.approx(ALPHA, rel=1e-6)
    assert m.p_below(m.high) == pytest.approx(ALPHA, rel=1e-6)
    r = est.rate_ratio(12, 5000, 4, 5000, ALPHA)
    assert r.p_above(r.low) == pytest.approx(ALPHA, rel=1e-6)
    assert r.p_below(r.high) == pytest.approx(ALPHA, rel=1e-6)


# ------------------------------------------------------------------ relations and groups

def exact_leaf(value, **relation):
    data = {"e": {"single": {}}}
    claim = {"id": "c", "quote": "q", "parts": [{"quantity": "v", "experiment": "e", **relation}]}
    return engine.judge(claim, Fake(data), {"v": lambda ev, spec, a, c: (est.exact(value), "v")})["verdict"]


def normal_estimate(mean, se, n=100):
    """N(mean, se): its interval at one-sided level a is mean +- z(a) se."""
    return est.Estimate(mean, mean - 1.96 * se, mean + 1.96 * se, n, "normal",
                        lambda t: float(stats.norm.sf((mean - t) / se)),
                        lambda t: float(stats.norm.cdf((mean - t) / se)),
                        interval_at=lambda a: (mean - stats.norm.isf(a) * se, mean + stats.norm.isf(a) * se))


def normal_leaf(mean, se, **relation):
    """A one-part claim whose estimate is N(mean, se): its interval is mean +- 1.96 se."""
    claim = {"id": "c", "quote": "q", "parts": [{"quantity": "v", "experiment": "e", **relation}]}
    return engine.judge(claim, Fake({"e": {"single": {}}}), {"v": lambda *_: (normal_estimate(mean, se), "v")})["verdict"]


@pytest.mark.parametrize("mean,expected", [(3.0, HOLDS), (-3.0, FAILS_TO_HOLD), (1.0, INCONCLUSIVE),
                                           (-1.0, INCONCLUSIVE)])
def test_greater_is_three_way_by_the_interval(mean, expected):
    assert normal_leaf(mean, 1.0, greater=0.0) == expected


def test_exact_values_decide_at_once():
    assert exact_leaf(0.0, between=[0.0, 0.0]) == HOLDS
    assert exact_leaf(0.0, comparable=0.0, band=[0.0, 0.0]) == HOLDS
    assert exact_leaf(1.41, not_greater=1.42, margin=0) == HOLDS
    assert exact_leaf(4.24, less=1.42) == FAILS_TO_HOLD
    assert exact_leaf(0.5, between=[0.1, 0.3]) == FAILS_TO_HOLD


@pytest.mark.parametrize("mean,se,expected", [
    (0.2, 0.02, HOLDS),         # the interval [0.16, 0.24] lies in [0.1, 0.3]
    (0.5, 0.05, FAILS_TO_HOLD),   # shown outside
    (0.28, 0.05, INCONCLUSIVE),   # straddles 0.3
])
def test_between(mean, se, expected):
    assert normal_leaf(mean, se, between=[0.1, 0.3]) == expected


@pytest.mark.parametrize("mean,se,expected", [
    (0.0, 1.0, INCONCLUSIVE),      # no difference seen, but nothing shown: equivalence is never by non-rejection
    (0.05, 0.01, HOLDS),           # shown inside the band
    (0.5, 0.1, FAILS_TO_HOLD),     # shown outside the band
    (0.12, 0.02, INCONCLUSIVE),    # straddles the band's edge
])
def test_comparable_is_tost_inside_its_band(mean, se, expected):
    assert normal_leaf(mean, se, comparable=0.0, band=[-0.1, 0.1]) == expected


@pytest.mark.parametrize("mean,se,expected", [
    (0.0, 1.0, INCONCLUSIVE),      # nothing detected is not "never worse"
    (0.0, 0.01, HOLDS),            # shown below the margin 0.05
    (0.03, 0.005, HOLDS),          # worse, but shown within the margin
    (0.2, 0.01, FAILS_TO_HOLD),    # shown beyond the margin
    (0.04, 0.01, INCONCLUSIVE),    # straddles the margin
])
def test_not_greater_is_non_inferiority_at_its_margin(mean, se, expected):
    assert normal_leaf(mean, se, not_greater=0.0, margin=0.05) == expected


def test_relations_without_a_margin_are_one_clear_error():
    from linbandits.errors import UserError

    with pytest.raises(UserError, match="margin"):
        normal_leaf(0.0, 1.0, not_greater=0.0)
    with pytest.raises(UserError, match="band"):
        normal_leaf(0.0, 1.0, comparable=0.0)


def margin_size(edge_truths, relation, trials=3000, seed=21):
    """How often a relation holds when the truth sits exactly on the edge of its claimed region."""
    rng = np.random.default_rng(seed)
    rates = []
    for truth in edge_truths:
        holds = 0
        for _ in range(trials):
            holds += normal_leaf(float(rng.normal(truth, 1.0)), 1.0, **relation) == HOLDS
        rates.append(holds / trials)
    return rates


def test_non_inferiority_keeps_its_size_at_the_margin():
    (rate,) = margin_size([5.0], {"not_greater": 3.0, "margin": 2.0})
    assert rate <= ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / 3000)


def test_tost_keeps_its_size_at_both_edges():
    for rate in margin_size([-4.0, 4.0], {"comparable": 0.0, "band": [-4.0, 4.0]}):
        assert rate <= ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / 3000)


def test_planted_non_inferiority_by_non_rejection_is_caught(monkeypatch):
    """The old reading ("holds unless shown worse") holds about half the time at the margin."""
    def by_non_rejection(leaf):
        e = leaf.estimate
        return FAILS_TO_HOLD if e.low > leaf.spec["not_greater"] + leaf.spec["margin"] else HOLDS

    monkeypatch.setattr(engine, "leaf_verdict", by_non_rejection)
    (rate,) = margin_size([5.0], {"not_greater": 3.0, "margin": 2.0}, trials=400)
    assert rate > ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / 400)


def test_combine_all_and_any():
    assert engine.combine([HOLDS, NO_EVIDENCE]) == NO_EVIDENCE
    assert engine.combine([FAILS_TO_HOLD, NO_EVIDENCE]) == FAILS_TO_HOLD
    assert engine.combine([HOLDS, NO_EVIDENCE], "any") == HOLDS
    assert engine.combine([HOLDS, HOLDS]) == HOLDS
    assert engine.combine([HOLDS, FAILS_TO_HOLD]) == FAILS_TO_HOLD
    assert engine.combine([HOLDS, INCONCLUSIVE]) == INCONCLUSIVE
    assert engine.combine([HOLDS, NOT_RUN]) == NOT_RUN
    assert engine.combine([FAILS_TO_HOLD, HOLDS], "any") == HOLDS
    assert engine.combine([FAILS_TO_HOLD, FAILS_TO_HOLD], "any") == FAILS_TO_HOLD
    assert engine.combine([FAILS_TO_HOLD, INCONCLUSIVE], "any") == INCONCLUSIVE


def test_each_setting_and_pairs_expand_and_missing_series_is_not_run():
    data = {"e": {"T1": {"A": {"correct": [1] * 90 + [0] * 10}, "B": {"correct": [1] * 50 + [0] * 50}},
                  "T2": {"A": {"correct": [1] * 95 + [0] * 5}, "B": {"correct": [1] * 40 + [0] * 60}}}}
    claim = {"id": "c", "quote": "q", "pairs": {"a": ["A"], "b": ["B", "C"]},
             "parts": [{"quantity": "error_difference", "experiment": "e", "each_setting": "all",
                        "a": "{a}", "b": "{b}", "less": 0}]}
    out = engine.judge(claim, Fake(data), QUANTITIES)
    leaves = engine.leaves_of(out["tree"])
    assert len(leaves) == 4
    assert [leaf.verdict for leaf in leaves[:2]] == [HOLDS, HOLDS]
    assert all(leaf.verdict == NOT_RUN for leaf in leaves[2:])
    assert out["verdict"] == NOT_RUN


# ------------------------------------------------------------------ simultaneous intervals over a claim's parts

def many_parts_false_verdicts(m=10, trials=1500, seed=12):
    """A claim of m 'greater than 0' parts whose truth is exactly 0: how often does the claim conclude
    that it holds? Simultaneous (Bonferroni) intervals keep that at alpha."""
    rng = np.random.default_rng(seed)
    wrong = 0
    for _ in range(trials):
        draws = rng.normal(0.0, 1.0, m)

        def q(ev, spec, a, c, draws=draws):
            return normal_estimate(float(draws[int(spec["setting"][1:])]), 1.0), "v"

        data = {"e": {f"s{i}": {} for i in range(m)}}
        claim = {"id": "c", "quote": "q", "combine": "any",
                 "parts": [{"quantity": "v", "experiment": "e", "each_setting": "any", "greater": 0.0}]}
        verdict = engine.judge(claim, Fake(data), {"v": q})["verdict"]
        wrong += verdict == HOLDS
    return wrong, trials


def test_simultaneous_intervals_keep_a_many_part_claim_at_its_level():
    wrong, n = many_parts_false_verdicts()
    rate, se = size(wrong, n)
    assert rate <= ALPHA + 3 * se


def test_planted_multiplicity_control_switched_off_is_caught(monkeypatch):
    unadjusted = engine.simultaneous

    def per_part(tree, alpha):
        unadjusted(tree, alpha * sum(leaf.estimate is not None for leaf in engine.leaves_of(tree)))

    monkeypatch.setattr(engine, "simultaneous", per_part)
    wrong, n = many_parts_false_verdicts()
    rate, se = size(wrong, n)
    assert rate > ALPHA + 3 * se


def test_planted_check_that_ignores_its_interval_is_caught(monkeypatch):
    def by_point(leaf):
        e = leaf.estimate
        return HOLDS if e.value > leaf.spec["greater"] else FAILS_TO_HOLD

    monkeypatch.setattr(engine, "leaf_verdict", by_point)
    holds = 0
    rng = np.random.default_rng(13)
    for _ in range(400):
        holds += normal_leaf(float(rng.normal(0, 1)), 1.0, greater=0.0) == HOLDS
    rate, se = size(holds, 400)
    assert rate > ALPHA + 3 * se        # the size check of the unpatched engine would fail


def test_unknown_quantity_and_relation_are_one_clear_error():
    from linbandits.errors import UserError

    with pytest.raises(UserError, match="unknown quantity"):
        judge_one({"quantity": "nope", "experiment": "e", "greater": 0}, {"e": {"single": {}}})
    with pytest.raises(UserError, match="exactly one relation"):
        judge_one({"quantity": "mean", "experiment": "e", "greater": 0, "less": 1}, {"e": {"single": {}}})


# ------------------------------------------------------------------ the printed interval is the one the verdict reads

def many_part_records(seed=30, m=12):
    """Records of a claim of m parts at assorted distances from their thresholds."""
    rng = np.random.default_rng(seed)
    means = rng.normal(0.0, 3.0, m)
    data = {"e": {f"s{i}": {} for i in range(m)}}
    claim = {"id": "c", "quote": "q", "parts": [{"quantity": "v", "experiment": "e", "each_setting": "all",
                                                 "greater": 0.0}]}

    def q(ev, spec, a, c):
        return normal_estimate(float(means[int(spec["setting"][1:])]), 1.0), "v"

    return judge.judge_claims([claim], Fake(data), {"v": q})


def test_every_verdict_agrees_with_its_printed_interval():
    records = many_part_records()
    verdicts = {p["verdict"] for p in records[0]["parts"]}
    assert {HOLDS, FAILS_TO_HOLD, INCONCLUSIVE} <= verdicts      # the check sees every outcome
    assert audit.disagreements(records) == []


def test_planted_unadjusted_intervals_beside_adjusted_tests_are_caught(monkeypatch):
    """The old engine's defect: verdicts from Holm-adjusted tests, intervals printed at 95% per part."""
    def verdict_by_tests(leaf):
        holds = [t for t in leaf.tests if t.name.startswith("holds")]
        fails = [t for t in leaf.tests if t.name.startswith("fails")]
        if all(t.p_adjusted < ALPHA for t in holds):
            return HOLDS
        return FAILS_TO_HOLD if any(t.p_adjusted < ALPHA for t in fails) else INCONCLUSIVE

    def printed_per_part(tree, alpha):
        leaves = [leaf for leaf in engine.leaves_of(tree) if leaf.estimate is not None]
        for leaf in leaves:
            leaf.estimate = leaf.estimate.at_level(alpha)           # unadjusted interval
            for t in leaf.tests:
                fn = leaf.estimate.p_above if t.side == "above" else leaf.estimate.p_below
                t.p = float(fn(t.threshold))
                t.p_adjusted = min(1.0, t.p * len(leaves))            # adjusted tests
        return len(leaves)

    monkeypatch.setattr(engine, "leaf_verdict", verdict_by_tests)
    monkeypatch.setattr(engine, "simultaneous", printed_per_part)
    assert audit.disagreements(many_part_records())


# ------------------------------------------------------------------ power before verdict

def test_a_design_that_cannot_fail_is_no_evidence():
    """10 runs cannot show the published run in a 2.5% tail: the exact interval of 10/10 reaches only
    [0.63, 1] at the claim's level."""
    data = {"e": {"single": {"A": {"below": [1] * 5 + [0] * 5}}}}
    claim = {"id": "c", "quote": "q", "parts": [{"quantity": "v", "experiment": "e", "between": [0.025, 0.975]}]}
    j = engine.judge(claim, Fake(data), {"v": lambda *_: (est.proportion(5, 10, ALPHA), "v")})
    assert j["verdict"] == NO_EVIDENCE
    leaf = engine.leaves_of(j["tree"])[0]
    assert "never show that it does not hold" in leaf.reason
    # with 1000 runs both outcomes are reachable, and the same share holds
    j = engine.judge(claim, Fake(data), {"v": lambda *_: (est.proportion(500, 1000, ALPHA), "v")})
    assert j["verdict"] == HOLDS


def test_a_censored_ratio_bounded_below_its_threshold_is_no_evidence():
    e = dataclasses.replace(normal_estimate(3.0, 0.1), lower_bound=True, value_range=(0.0, 4.0))
    claim = {"id": "c", "quote": "q", "parts": [{"quantity": "v", "experiment": "e", "greater": 5.0}]}
    j = engine.judge(claim, Fake({"e": {"single": {}}}), {"v": lambda *_: (e, "v")})
    assert j["verdict"] == NO_EVIDENCE


def test_planted_reach_check_off_is_caught(monkeypatch):
    monkeypatch.setattr(engine, "reach", lambda leaf: (True, True, ""))
    data = {"e": {"single": {}}}
    claim = {"id": "c", "quote": "q", "parts": [{"quantity": "v", "experiment": "e", "between": [0.025, 0.975]}]}
    j = engine.judge(claim, Fake(data), {"v": lambda *_: (est.proportion(5, 10, ALPHA), "v")})
    assert j["verdict"] != NO_EVIDENCE          # the no-evidence test above would fail


def test_runs_to_decide_scale_with_the_observed_effect():
    """An inconclusive part at 1.5 interval half-widths... decided at about (1.96 / 1.5)^2 times its runs."""
    claim = {"id": "c", "quote": "q", "parts": [{"quantity": "v", "experiment": "e", "greater": 0.0}]}
    j = engine.judge(claim, Fake({"e": {"single": {}}}), {"v": lambda *_: (normal_estimate(1.5, 1.0, n=100), "v")})
    assert j["verdict"] == INCONCLUSIVE
    assert j["needed_runs"] == math.ceil(100 * (stats.norm.isf(ALPHA) / 1.5) ** 2)


def test_flip_points_are_the_interval_bounds():
    claim = {"id": "c", "quote": "q", "parts": [{"quantity": "v", "experiment": "e", "between": [0.1, 0.3]}]}
    j = engine.judge(claim, Fake({"e": {"single": {}}}), {"v": lambda *_: (normal_estimate(0.2, 0.02), "v")})
    assert j["verdict"] == HOLDS
    # the interval [0.1608, 0.2392] is 0.061 from either edge: 20% of the upper edge 0.3, 61% of the
    # lower edge 0.1, so the upper edge is the nearer one relative to its size and decides
    assert j["flip"]["flip_at"] == pytest.approx(0.2 + 1.96 * 0.02, abs=1e-3)
    assert "upper edge is at least" in j["flip"]["text"]
    assert not j["flip"]["sensitive"]
    j = engine.judge(claim, Fake({"e": {"single": {}}}), {"v": lambda *_: (normal_estimate(0.27, 0.01), "v")})
    assert j["flip"]["sensitive"]            # its upper bound 0.2896 is within 10% of 0.3


# ------------------------------------------------------------------ paired runs analysed paired

def test_paired_error_difference_keeps_its_size_on_correlated_pairs():
    """Errors of a and b share a common cause (correlation ~0.5); p_a = p_b = 0.2: the paired interval
    shows neither side more often than alpha."""
    rng = np.random.default_rng(40)
    above = below = 0
    trials = 1500
    for _ in range(trials):
        common = rng.random(300) < 0.1
        ea = common | (rng.random(300) < 1 / 9)
        eb = common | (rng.random(300) < 1 / 9)
        e = est.paired_proportion_difference(int(np.sum(ea & ~eb)), int(np.sum(eb & ~ea)), 300, ALPHA)
        above += e.low > 0
        below += e.high < 0
    for k in (above, below):
        rate, se = size(k, trials)
        assert rate <= ALPHA + 3 * se


def test_paired_error_difference_is_narrower_than_the_unpaired_one_on_correlated_pairs():
    e_paired = est.paired_proportion_difference(20, 10, 1000, ALPHA)     # 100 common errors
    e_unpaired = est.proportion_difference(120, 1000, 110, 1000, ALPHA)
    assert e_paired.high - e_paired.low < e_unpaired.high - e_unpaired.low


def test_rate_ratio_stays_conservative_on_correlated_pairs():
    """p_a = 2 p_b with positively correlated errors (a common cause): the ratio's test of "above 2"
    rejects at most alpha."""
    rng = np.random.default_rng(41)
    trials, n, rejections = 2000, 1000, 0
    for _ in range(trials):
        common = rng.random(n) < 0.01
        eb = common | (rng.random(n) < 0.01)
        ea = common | (rng.random(n) < 0.03 - 0.0001)
        e = est.rate_ratio(int(ea.sum()), n, int(eb.sum()), n, ALPHA)
        pa, pb = 1 - 0.99 * (1 - 0.0299), 1 - 0.99 * 0.99
        rejections += e.p_above(pa / pb) < ALPHA
    rate, se = size(rejections, trials)
    assert rate <= ALPHA + 3 * se


class SharedSeeds(Fake):
    def shares_seeds(self, exp):
        return True


def shared_settings_interval(evidence_class):
    """gap_growth-like statistic on settings whose runs are one run's streams shifted: paired across
    settings, the smallest step is known almost exactly; resampled unpaired it is not."""
    rng = np.random.default_rng(42)
    base = rng.normal(10.0, 3.0, 50)
    xs = {"e": {"s0": 1.0, "s1": 2.0, "s2": 3.0}}
    data = {"e": {s: {"A": {"regret": base * (1 + i)}, "B": {"regret": base}} for i, s in enumerate(xs["e"])}}
    e, _ = QUANTITIES["geomean_ratio"](evidence_class(data, x=xs),
                                        {"quantity": "geomean_ratio", "experiment": "e", "a": "A", "b": "B"}, ALPHA, "g")
    return e


def test_settings_that_share_seeds_are_resampled_paired():
    e = shared_settings_interval(SharedSeeds)
    assert e.high - e.low < 1e-9 * e.value       # A / B is the same in every resample


def test_planted_unpaired_resampling_of_shared_settings_is_caught():
    e = shared_settings_interval(Fake)           # the evidence does not say the settings share seeds
    assert e.high - e.low > 1e-3 * e.value       # the check above would fail


# ------------------------------------------------------------------ a switch run that carries no information

class WithTrials(Fake):
    def trials(self, exp):
        return 100

    def has_series(self, exp, s, algo):
        return algo in self.data.get(exp, {}).get(s, {})


def switch_verdicts(switch_errors):
    """'A never worse than B' judged on base runs and under a switch run whose errors are given."""
    def runs(errors):
        return {"A": {"correct": [0] * errors["A"] + [1] * (100 - errors["A"])},
                "B": {"correct": [0] * errors["B"] + [1] * (100 - errors["B"])}}

    data = {"base": {"s": runs({"A": 10, "B": 30})}, "base__sw": {"s": runs(switch_errors)}}
    claim = {"id": "c", "quote": "q", "choices": ["pca"], "parts": [
        {"quantity": "error_difference", "experiment": "base", "a": "A", "b": "B", "less": 0}]}
    switches = [{"choice": "pca", "value": "shared", "base": "base", "switch": "base__sw", "merge": False}]
    return judge.judge_claims([claim], WithTrials(data), QUANTITIES, switches)[0]["robustness"]


def test_a_switch_run_without_any_error_carries_no_information():
    rob = switch_verdicts({"A": 0, "B": 0})
    assert rob["status"] != "depends" and rob["status"] != "robust"
    assert rob["no_information"] == ["pca = shared"]
    assert "no information from pca = shared" in rob["text"]


def test_an_informative_switch_run_still_decides_robustness():
    rob = switch_verdicts({"A": 40, "B": 5})          # the switch reverses the ranking
    assert rob["status"] == "depends" and rob["no_information"] == []


def test_each_switch_run_prints_the_intervals_its_verdict_reads():
    """A switch run's verdict and the default's on the same runs are printed beside their intervals, and
    neither contradicts its interval."""
    rob = switch_verdicts({"A": 40, "B": 5})
    (run,) = rob["runs"]
    for verdict, (interval,) in ((run["verdict"], run["intervals"]), (run["default_on_same_settings"],
                                                                     run["default_intervals"])):
        low, high = (float(x) for x in interval.split("[")[1].rstrip("]").split(","))
        assert {HOLDS: high < 0, FAILS_TO_HOLD: low > 0, INCONCLUSIVE: low <= 0 <= high}[verdict], (verdict, interval)
    assert run["verdict"] == FAILS_TO_HOLD and run["default_on_same_settings"] == HOLDS
    line = [x for x in render.render_markdown([{**_record_for_markdown(), "robustness": {**rob, "text": "t"}}],
                                                "t", (), ()).splitlines() if x.startswith("- pca = shared")][0]
    assert f"{FAILS_TO_HOLD} ({run['intervals'][0]})" in line and f"{HOLDS} ({run['default_intervals'][0]})" in line


def _record_for_markdown():

    claim = {"id": "c", "quote": "q", "parts": [{"quantity": "v", "experiment": "e", "less": 0}]}
    return judge.judge_claims([claim], Fake({"e": {"single": {}}}), {"v": lambda *_: (normal_estimate(-1.0, 0.1), "v")})[0]


def test_flip_of_a_margin_names_the_margin_that_would_flip_it():
    def flip(mean, relation):
        claim = {"id": "c", "quote": "q", "parts": [{"quantity": "v", "experiment": "e", **relation}]}
        return engine.judge(claim, Fake({"e": {"single": {}}}), {"v": lambda *_: (normal_estimate(mean, 0.01), "v")})
    j = flip(0.0, {"not_greater": 0.0, "margin": 0.05})           # interval [-0.0196, 0.0196]
    assert j["verdict"] == HOLDS and j["flip"]["text"] == "holds for any margin of at least 0.0196"
    j = flip(1.0, {"not_less": 1.0, "margin": 0.05})
    assert j["verdict"] == HOLDS and j["flip"]["text"] == "holds for any margin of at least 0.0196"
    j = flip(0.2, {"not_greater": 0.0, "margin": 0.05})           # beyond: [0.18, 0.22]
    assert j["verdict"] == FAILS_TO_HOLD and j["flip"]["text"] == "does not hold for any margin below 0.1804"


# ---------------------------------------------------------------- best of two groups (OPKB's C8)

def _equal_grids(worlds, n_a, n_b, seeds=25, shift=0.0):
    """Tuning-grid worlds: every point of A and of B has the same true mean (A's shifted by `shift`), each
    seed's instance moves every point alike, and each point adds its own noise on each seed."""
    rng = np.random.default_rng(7)
    for _ in range(worlds):
        common = rng.normal(0, 300, seeds)
        yield (1000 + shift + common + rng.normal(0, 10, (n_a, seeds)),
               1000 + common + rng.normal(0, 10, (n_b, seeds)))


def _chosen_on_the_judged_seeds(a_rows, b_rows, n_select, alpha):
    """The planted bug (C8's first estimator): each group's best point chosen on every seed, then a
    paired t on those same seeds."""
    a, b = np.asarray(a_rows, float), np.asarray(b_rows, float)
    i, j = int(a.mean(axis=1).argmin()), int(b.mean(axis=1).argmin())
    return est.mean_difference(a[i], b[j], alpha, paired=True), i, j


@pytest.mark.parametrize("n_a, n_b", [(1, 300), (300, 1), (130, 910)])
def test_best_of_groups_keeps_its_level_when_every_point_is_equal(n_a, n_b):
    worlds, alpha = 300, 0.025
    ends = [est.best_of_groups_difference(a, b, 12, alpha)[0] for a, b in _equal_grids(worlds, n_a, n_b)]
    # each side's false verdict at most its level (5% allows the binomial spread of 300 worlds at 2.5%)
    assert sum(e.low > 0 for e in ends) <= 0.05 * worlds
    assert sum(e.high < 0 for e in ends) <= 0.05 * worlds
    assert all(e.low <= e.value <= e.high for e in ends)


def test_planted_choice_on_the_judged_seeds_is_caught():
    """Choosing each group's best point on the seeds that judge it: one point against 300 equal ones then
    reads "the 300 are better" far above the level, which the size check above must see."""
    worlds = 300
    false = sum(_chosen_on_the_judged_seeds(a, b, 12, 0.025)[0].low > 0 for a, b in _equal_grids(worlds, 1, 300))
    assert false > 0.05 * worlds


def test_best_of_groups_finds_a_better_group_and_names_its_points():
    # A's points 40 lower than B's (paired noise sd 10 per point and seed): shown on 13 judged seeds
    shown = 0
    for a, b in _equal_grids(50, 5, 200, shift=-40.0):
        e, i, j = est.best_of_groups_difference(a, b, 12, 0.025)
        shown += e.high < 0
        assert i == int(a[:, :12].mean(axis=1).argmin()) and j == int(b[:, :12].mean(axis=1).argmin())
    assert shown >= 45
    e, _, _ = est.best_of_groups_difference(np.ones((2, 3)), np.ones((3, 3)), 2, 0.025)
    assert (e.low, e.high) == (-math.inf, math.inf)     # one judged seed: no interval
