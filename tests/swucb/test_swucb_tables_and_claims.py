"""Tables (slopes with bootstrap CIs, ratios, variation) and the claim checks, on planted numbers."""
import math

import numpy as np
import pandas as pd
import pytest

from linbandits.claims import FAILS_TO_HOLD, HOLDS, NOT_RUN
from linbandits.studies.swucb import claims
from linbandits.studies.swucb.results import (Series, ratios_table, regret_table, series_label, slope_with_ci,
                                             slopes_table)


def power_law_series(experiment, algorithm, slope, scale, n=200, noise=0.05, seed=0, options=None,
                     budget="constant"):
    rng = np.random.default_rng(seed)
    out = []
    for T in (30000, 60000, 120000, 240000):
        runs = scale * T ** slope * (1 + noise * rng.standard_normal(n))
        out.append(Series(experiment, algorithm, T, runs, options or {}, budget, 1.0))
    return out


def test_slope_recovers_a_planted_power_law_inside_its_interval():
    s = power_law_series("f", "SW-UCB", 0.71, 0.3)
    slope, low, high = slope_with_ci([x.T for x in s], [x.runs for x in s], 2000, seed=1)
    assert abs(slope - 0.71) < 0.01 and low < 0.71 < high and high - low < 0.05
    again = slope_with_ci([x.T for x in s], [x.runs for x in s], 2000, seed=1)
    assert again == (slope, low, high)          # fixed seed: the same interval every run


def test_slopes_table_puts_theory_beside_the_fit():
    series = power_law_series("f2", "SW-UCB", 1.0, 0.01, budget="cuberoot") + \
        power_law_series("f2", "BOB", 0.8, 0.05, budget="cuberoot", seed=2)
    table = slopes_table(series, n_boot=500).set_index("series")
    assert table.loc["SW-UCB", "theory_slope"] == pytest.approx(1.0)
    assert table.loc["BOB", "theory_slope"] == pytest.approx(5 / 6)
    assert table.loc["BOB", "slope"] == pytest.approx(0.8, abs=0.02)
    assert list(table.columns[:4]) == ["figure", "slope", "ci95_low", "ci95_high"]


def test_regret_table_and_ratios():
    a = power_law_series("f", "SW-UCB", 0.7, 1.0)
    b = power_law_series("f", "EXP3.S", 0.7, 5.0, seed=4)
    reg = regret_table(a + b)
    row = reg[(reg["series"] == "EXP3.S") & (reg["T"] == 60000)].iloc[0]
    runs = b[1].runs
    assert row["mean_regret"] == pytest.approx(runs.mean(), rel=1e-15)
    assert row["se"] == pytest.approx(runs.std(ddof=1) / math.sqrt(len(runs)), rel=1e-12)
    assert row["band_high"] - row["mean_regret"] == pytest.approx(1.96 * row["se"])
    ratios = ratios_table(a + b)
    sw = ratios[(ratios["numerator"] == "SW-UCB") & (ratios["denominator"] == "EXP3.S")]
    assert len(sw) == 4 and sw["ratio"].between(0.15, 0.25).all()


def test_series_label_names_only_changed_options():
    assert series_label("SW-UCB", {"window": "agnostic", "lam": 1.0, "S": 1.0}) == "SW-UCB"
    assert series_label("SW-UCB", {"window": "known", "lam": 1.0, "S": 1.0}) == "SW-UCB (window=known)"
    assert series_label("EXP3.S", {"variant": "rexp3", "variation": "instance"}) == "EXP3.S (variant=rexp3)"


def fake_tables(sw_over_exp3=0.2, bob_over_sw=0.4, slopes=None, tv_ratio=4.24):
    slopes = slopes or {("F1", "SW-UCB"): (0.7, 2 / 3), ("F1", "EXP3.S"): (0.66, 2 / 3),
                        ("F2", "SW-UCB"): (0.95, 1.0), ("F2", "BOB"): (0.8, 5 / 6)}
    s = pd.DataFrame([{"figure": f, "series": n, "slope": v, "ci95_low": v - 0.05, "ci95_high": v + 0.05,
                       "theory_slope": th} for (f, n), (v, th) in slopes.items()])
    r = pd.DataFrame([{"figure": "F1", "numerator": "SW-UCB", "denominator": "EXP3.S", "T": T,
                       "ratio": sw_over_exp3} for T in (1, 2)] +
                     [{"figure": "F2", "numerator": "BOB", "denominator": "SW-UCB", "T": T, "ratio": bob_over_sw}
                      for T in (1, 2)])
    v = pd.DataFrame([{"figure": "F1", "T": 1, "B_T": 1.0, "total_variation": tv_ratio, "tv_over_B_T": tv_ratio,
                       "paper_bound": math.sqrt(2)}])
    return {"slopes": s, "ratios": r, "variation": v}


CLAIMS = [{"id": "C1_x", "quote": "q", "experiment": "F1"}, {"id": "C2_x", "quote": "q", "experiment": "F1"},
          {"id": "C3_x", "quote": "q", "experiment": "F2"}, {"id": "C4_x", "quote": "q", "experiment": "F2"},
          {"id": "C5_x", "quote": "q", "experiment": ["F1"]}]


def verdicts(**kw):
    return [r["verdict"] for r in claims.judge(CLAIMS, fake_tables(**kw))]


def test_claims_follow_the_numbers():
    assert verdicts(tv_ratio=1.2) == [HOLDS] * 5
    assert verdicts(sw_over_exp3=0.093, tv_ratio=1.2)[0] == FAILS_TO_HOLD
    assert verdicts(bob_over_sw=0.55, tv_ratio=1.2)[3] == FAILS_TO_HOLD
    assert verdicts()[4] == FAILS_TO_HOLD
    bad_slopes = {("F1", "SW-UCB"): (0.8, 2 / 3), ("F1", "EXP3.S"): (0.66, 2 / 3),
                  ("F2", "SW-UCB"): (0.95, 1.0), ("F2", "BOB"): (1.0, 5 / 6)}
    v = verdicts(slopes=bad_slopes, tv_ratio=1.2)
    assert v[1] == FAILS_TO_HOLD and v[2] == FAILS_TO_HOLD


def test_a_claim_without_its_series_is_not_run():
    tables = fake_tables()
    tables["ratios"] = tables["ratios"].iloc[0:0]
    assert claims.judge(CLAIMS[:1], tables)[0]["verdict"] == NOT_RUN


def test_every_quoted_claim_has_a_check():
    from linbandits.claims import load_claims
    from pathlib import Path
    import linbandits.studies.swucb as pkg

    listed = load_claims(Path(pkg.__file__).parent / "claims.yaml")
    assert [c["id"].split("_")[0] for c in listed] == ["C1", "C2", "C3", "C4", "C5"]
