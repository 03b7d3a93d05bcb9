"""The claim checks on hand-made tables whose verdicts are known."""
import math

import pandas as pd
import pytest

from linbandits.studies.p1rage.claims import (FAILS_TO_HOLD, HOLDS, INCONCLUSIVE, check_claim, evaluate_ablations,
                                              factor_test)
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
    # p1 = 0.3, p2 = 0.1, n = 1000: z = (0.3 - 0.2) / sqrt(.21/1000 + 4 * .09/1000) = 0.1 / 0.023875
    z = 0.1 / math.sqrt(0.21 / 1000 + 4 * 0.09 / 1000)
    assert factor_test(300, 1000, 100, 1000) == pytest.approx(0.5 * math.erfc(z / math.sqrt(2)))
    assert factor_test(0, 10, 0, 10) == 1.0
