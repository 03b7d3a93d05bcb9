"""The claim checks on hand-made tables whose verdicts are known."""
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from linbandits.studies.p1rage.stats import holm
from linbandits.studies.p1rage.claims import (FAILS_TO_HOLD, HOLDS, INCONCLUSIVE, NO_EVIDENCE, check_claim,
                                              evaluate_ablations, factor_test, fisher_greater)
from linbandits.studies.p1rage.theorem1 import theorem1_bound


def table(rows, n=1000):
    """rows: {(algorithm, x): errors}."""
    out = pd.DataFrame([{"experiment": "e", "algorithm": a, "x": x, "n_trials": n, "n_errors": e,
                         "error_prob": e / n} for (a, x), e in rows.items()])
    out["x_key"] = out["x"]
    return out


def claim(check, a, b=None):
    return {"id": "c", "quote": "q", "check": check, "experiments": ["e"], "a": a, "b": b or []}


def test_better_holds_fails_and_is_inconclusive():
    clear = table({("A", 1): 100, ("A", 2): 50, ("B", 1): 300, ("B", 2): 250})
    assert check_claim(claim("better", ["A"], ["B"]), clear, 0.01)["verdict"] == HOLDS
    worse = table({("A", 1): 100, ("A", 2): 400, ("B", 1): 300, ("B", 2): 250})
    assert check_claim(claim("better", ["A"], ["B"]), worse, 0.01)["verdict"] == FAILS_TO_HOLD
    tie = table({("A", 1): 100, ("A", 2): 101, ("B", 1): 102, ("B", 2): 99})
    assert check_claim(claim("better", ["A"], ["B"]), tie, 0.01)["verdict"] == INCONCLUSIVE
    assert check_claim(claim("never_worse", ["A"], ["B"]), tie, 0.01)["verdict"] == HOLDS
    assert check_claim(claim("comparable", ["A"], ["B"]), tie, 0.01)["verdict"] == HOLDS
    assert check_claim(claim("comparable", ["A"], ["B"]), clear, 0.01)["verdict"] == FAILS_TO_HOLD
    # Significantly different, but well within a factor of 2: comparable.
    close = table({("A", 1): 100, ("B", 1): 150}, n=20000)
    assert check_claim(claim("better", ["A"], ["B"]), close, 0.01)["verdict"] == HOLDS
    assert check_claim(claim("comparable", ["A"], ["B"]), close, 0.01)["verdict"] == HOLDS


def test_holm_correction_is_applied_across_settings():
    # One setting at raw p ~ 0.004 (z ~ 2.65): significant alone at 1%, not
    # after Holm over 5 settings.
    rows = {("A", x): 100 for x in range(5)}
    rows.update({("B", x): 100 for x in range(5)})
    rows[("A", 0)] = 137
    t = table(rows)
    assert check_claim(claim("never_worse", ["A"], ["B"]), t, 0.01)["verdict"] == HOLDS
    one = table({("A", 0): 137, ("B", 0): 100})
    assert check_claim(claim("never_worse", ["A"], ["B"]), one, 0.01)["verdict"] == FAILS_TO_HOLD


def test_range_and_level_checks():
    t = table({("P", 1): 20, ("P", 2): 950, ("G", 1): 300, ("G", 2): 350})
    assert check_claim(claim("unstable", ["P"]), t, 0.01)["verdict"] == HOLDS
    assert check_claim(claim("unstable", ["G"]), t, 0.01)["verdict"] == FAILS_TO_HOLD
    assert check_claim(claim("more_stable", ["G"], ["P"]), t, 0.01)["verdict"] == HOLDS
    single = table({("P", math.nan): 990, ("G", math.nan): 300, ("M", math.nan): 505}, n=1000)
    single["x_key"] = "single"
    assert check_claim(claim("fails", ["P"]), single, 0.01)["verdict"] == HOLDS
    assert check_claim(claim("robust", ["G"]), single, 0.01)["verdict"] == HOLDS
    assert check_claim(claim("robust", ["P"]), single, 0.01)["verdict"] == FAILS_TO_HOLD
    assert check_claim(claim("fails", ["M"]), single, 0.01)["verdict"] == INCONCLUSIVE


def test_ablation_reports_changed_verdicts(tmp_path):
    base = table({("A", 1): 100, ("B", 1): 300})
    abl = table({("A", 1): 300, ("B", 1): 100})
    for name, t in (("base", base), ("abl", abl)):
        t.drop(columns="x_key").assign(experiment=name).to_csv(tmp_path / f"{name}.csv", index=False)
    claims = [{"id": "c", "quote": "q", "check": "better", "experiments": ["base"], "a": ["A"], "b": ["B"]}]
    tables = {"base": tmp_path / "base.csv", "abl": tmp_path / "abl.csv"}
    out = evaluate_ablations(claims, tables, {"abl": {"ablation_of": "base", "changes": "x"}}, 0.01)
    assert out[0]["claims"] == [{"id": "c", "published": HOLDS, "ablation": FAILS_TO_HOLD}]


def test_theorem1_bound():
    assert theorem1_bound(11, 10, 0, 0.5) == 11
    assert theorem1_bound(2, 1, 12, 1.0) == pytest.approx(2 * math.exp(-1))


def test_factor_test_against_hand_computation():
    # The example: 10 vs 0 errors of 21000 each. Given 10 errors in
    # all, each is A's with probability 2/3 under p_A = 2 p_B.
    assert factor_test(10, 21000, 0, 21000) == pytest.approx((2 / 3) ** 10)
    # P(X >= 3) for X ~ Binomial(4, 2/3) = 4 (2/3)^3 (1/3) + (2/3)^4
    assert factor_test(3, 500, 1, 500) == pytest.approx(4 * (2 / 3) ** 3 / 3 + (2 / 3) ** 4)
    assert factor_test(0, 10, 0, 10) == 1.0


def test_fisher_against_hand_computation():
    # 2 of 3 errors vs 0 of 3: P(all 2 errors in sample 1) = C(3,2)/C(6,2) = 0.2
    assert fisher_greater(2, 3, 0, 3) == pytest.approx(0.2)


# Size under the null, by simulation: N_SIM draws at each setting, rejection
# rate at ALPHA must be <= ALPHA + 3 Monte Carlo standard errors.
N_SIM, ALPHA = 4000, 0.01
SIZE_TOL = 3 * math.sqrt(ALPHA * (1 - ALPHA) / N_SIM)


@pytest.mark.parametrize("p, n", [(0.0002, 21000), (0.002, 21000), (0.02, 1000), (0.2, 1000)])
def test_factor_test_size_under_the_null(p, n):
    rng = np.random.default_rng(1)
    e1, e2 = rng.binomial(n, 2 * p, N_SIM), rng.binomial(n, p, N_SIM)
    pvals = stats.binom.sf(e1 - 1, e1 + e2, 2 / 3)
    pvals[e1 + e2 == 0] = 1.0
    assert np.mean(pvals < ALPHA) <= ALPHA + SIZE_TOL


def fisher_p_values(e1, e2, n):
    """fisher_greater for arrays of counts (each distinct pair computed once)."""
    pairs, inverse = np.unique(np.stack([e1.ravel(), e2.ravel()]), axis=1, return_inverse=True)
    p = np.array([fisher_greater(int(a), n, int(b), n) for a, b in pairs.T])
    return p[inverse.reshape(-1)].reshape(e1.shape)


@pytest.mark.parametrize("p, n", [(0.0005, 21000), (0.05, 1000), (0.4, 150)])
def test_fisher_size_and_holm_family_size_under_the_null(p, n):
    rng = np.random.default_rng(2)
    settings = 6
    e1, e2 = rng.binomial(n, p, (N_SIM, settings)), rng.binomial(n, p, (N_SIM, settings))
    pvals = fisher_p_values(e1, e2, n)
    assert np.mean(pvals[:, 0] < ALPHA) <= ALPHA + SIZE_TOL
    # A claim's family: both directions over every setting, one Holm.
    both = np.concatenate([pvals, fisher_p_values(e2, e1, n)], axis=1)
    family_rejects = [np.any(holm(row) < ALPHA) for row in both]
    assert np.mean(family_rejects) <= ALPHA + SIZE_TOL


def test_holm_runs_over_the_whole_family_of_a_claim():
    # Two pairs, each with one borderline setting: significant within its
    # own pair (Holm over 2 tests) but not over the claim's 4.
    rows = {("A", 1): 141, ("A", 2): 100, ("B", 1): 100, ("B", 2): 100,
            ("C", 1): 100, ("C", 2): 141}
    t = table(rows)
    alone = check_claim(claim("never_worse", ["A"], ["B"]), t, 0.01)["verdict"]
    both = check_claim(claim("never_worse", ["A", "C"], ["B"]), t, 0.01)["verdict"]
    p = fisher_greater(141, 1000, 100, 1000)
    assert 2 * p < 0.01 < 4 * p
    assert alone == FAILS_TO_HOLD and both == HOLDS


def test_no_shared_settings_is_no_evidence():
    t = table({("A", 1): 10, ("B", 2): 300})
    for check in ("better", "never_worse", "comparable", "consistently_better"):
        assert check_claim(claim(check, ["A"], ["B"]), t, 0.01)["verdict"] == NO_EVIDENCE


def test_consistently_better_needs_a_test_of_better():
    equal = table({("A", x): 100 for x in range(4)} | {("B", x): 100 for x in range(4)})
    assert check_claim(claim("never_worse", ["A"], ["B"]), equal, 0.01)["verdict"] == HOLDS
    assert check_claim(claim("consistently_better", ["A"], ["B"]), equal, 0.01)["verdict"] == INCONCLUSIVE
    # Better by a little everywhere: significant only summed over settings.
    slightly = table({("A", x): 100 for x in range(4)} | {("B", x): 125 for x in range(4)})
    assert check_claim(claim("better", ["A"], ["B"]), slightly, 0.01)["verdict"] == INCONCLUSIVE
    assert check_claim(claim("consistently_better", ["A"], ["B"]), slightly, 0.01)["verdict"] == HOLDS
