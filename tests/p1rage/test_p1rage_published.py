"""Published beside reproduced (spec G): the comparison, its summary, the
per-series Stouffer test (with planted bugs) and the dashed published curves."""
import math

import numpy as np
import pandas as pd
import pytest
from p1rage_planted_bugs import PlantedBug
from scipy.stats import norm

from linbandits.studies.p1rage import published as pub
from linbandits.study_config import study_defaults

# the default config's roles of the published cells (`published:`): the authors' R6A runs, Fig. 2a's arrays
ROLES = study_defaults("p1rage")["published"]
from linbandits.studies.p1rage.figures import build_figure


def test_the_package_holds_every_published_cell():
    table = pub.read_published()
    assert len(table) == 324
    assert (table["experiment"] != ROLES["r6a"]).sum() == 288
    assert not table.duplicated(["experiment", "algorithm", "x"]).any()


def test_z_at_effective_size_matches_the_issue():
    # P1-Peace, Soare stationary, T = 2010: 0.0195 reproduced (21000 trials)
    # vs 0.0421 published at effective size 1456: z = 5.8 (issue 9).
    assert pub.z_at_effective_size(0.0421, 1456, 0.0195, 21000) == pytest.approx(-5.8, abs=0.05)
    # Hand computation of the pooled z.
    pooled = (0.1 * 100 + 0.2 * 400) / 500
    expected = 0.1 / math.sqrt(pooled * (1 - pooled) * (1 / 100 + 1 / 400))
    assert pub.z_at_effective_size(0.1, 100, 0.2, 400) == pytest.approx(expected)
    assert pub.z_at_effective_size(0.0, 1000, 0.0, 1000) == 0.0


def published_rows():
    return pd.DataFrame([
        {"experiment": "soare_sto", "algorithm": "G-BAI", "x": 10.0, "n_trials": 1000, "n_errors": 100,
         "effective_n": 500.0},
        {"experiment": "soare_sto", "algorithm": "Peace", "x": 10.0, "n_trials": 1000, "n_errors": 100,
         "effective_n": 1000.0},
        {"experiment": "malicious", "algorithm": "Peace", "x": np.nan, "n_trials": 1000, "n_errors": 990,
         "effective_n": 1000.0},
        {"experiment": "multi_sto", "algorithm": "Peace", "x": np.nan, "n_trials": 1000, "n_errors": 10,
         "effective_n": 1000.0},
        {"experiment": "yahoo_repeat", "algorithm": "Peace", "x": 100.0, "n_trials": 1000, "n_errors": 10,
         "effective_n": 1000.0},
    ])


def reproduced_rows():
    return pd.DataFrame([
        {"experiment": "soare_sto", "algorithm": "G-BAI", "x": 10.0, "n_trials": 2000, "n_errors": 230},
        {"experiment": "soare_sto", "algorithm": "Peace", "x": 10.0, "n_trials": 2000, "n_errors": 400},
        {"experiment": "malicious", "algorithm": "Peace", "x": np.nan, "n_trials": 1000, "n_errors": 985},
        {"experiment": "yahoo_repeat", "algorithm": "Peace", "x": 100.0, "n_trials": 1000, "n_errors": 500},
    ])


def test_compare_gives_one_row_per_published_cell_with_its_verdict():
    out = pub.compare(published_rows(), reproduced_rows(), yahoo_is_r6a=False, roles=ROLES)
    assert out["verdict"].tolist() == [pub.CONSISTENT, pub.DIFFERS, pub.CONSISTENT, pub.NOT_RUN,
                                       pub.NOT_COMPARABLE]
    assert out.loc[0, "difference"] == pytest.approx(0.015)
    s = pub.summary(out, ROLES)
    assert (s["synthetic_cells"], s["compared"], s["consistent"]) == (4, 3, 2)
    assert pub.summary_line(s).startswith("2 of 4 synthetic cells consistent (1 not run)")
    assert "synthetic stand-in" in pub.summary_line(s)
    on_r6a = pub.compare(published_rows(), reproduced_rows(), yahoo_is_r6a=True, roles=ROLES)
    assert on_r6a["verdict"].iloc[-1] == pub.DIFFERS


def test_effective_size_decides_the_verdict():
    # 0.115 vs 0.100: differs at 21000 published trials, consistent at 500 (on soare_osci: a Fig. 2a
    # cell of 21000 trials would be capped at the three-run size, below).
    rows = published_rows().iloc[:1].assign(experiment="soare_osci", n_trials=21000, n_errors=2100)
    rep = reproduced_rows().iloc[:1].assign(experiment="soare_osci", n_trials=21000, n_errors=2415)
    assert pub.compare(rows.assign(effective_n=21000.0), rep, False, ROLES)["verdict"][0] == pub.DIFFERS
    assert pub.compare(rows.assign(effective_n=500.0), rep, False, ROLES)["verdict"][0] == pub.CONSISTENT


def test_write_comparison_files(tmp_path):
    out = pub.compare(published_rows(), reproduced_rows(), yahoo_is_r6a=False, roles=ROLES)
    pub.write_comparison(out, ROLES, tmp_path / "c.csv", tmp_path / "c.md", tmp_path / "c.tex")
    assert "2 of 4 synthetic cells consistent" in (tmp_path / "c.md").read_text()
    assert "compared_n" in pub.COLUMNS
    back = pd.read_csv(tmp_path / "c.csv")
    assert list(back.columns) == pub.COLUMNS and len(back) == 5


def test_figures_draw_the_published_cells_in_the_published_look():
    table = pd.DataFrame([{"experiment": "soare_sto", "algorithm": a, "x": x, "n_trials": 100, "n_errors": e,
                           "error_prob": e / 100, "ci95_low": 0.0, "ci95_high": 0.5, "min_gap": 0.01}
                          for a in ("G-BAI", "Peace") for x, e in ((10, 40), (1010, 5))])
    published = pub.published_for("soare_sto")
    fig = build_figure("curves", [table], ["t"], ["T"], published=[published])
    lines = [ln for ln in fig.axes[0].get_lines() if (ln.get_gid() or "").startswith("published:")]
    assert {ln.get_gid() for ln in lines} >= {"published:G-BAI", "published:Peace"}
    # the house's published look: the algorithm's marker, open and black-edged, no line (dashes are the
    # switch runs')
    assert all(ln.get_linestyle() == "None" and ln.get_markeredgecolor() == "black" for ln in lines)


def test_claims_section_lists_the_cells_that_differ(tmp_path):
    from linbandits.studies.p1rage.products import published_section

    out = pub.compare(published_rows(), reproduced_rows(), yahoo_is_r6a=False, roles=ROLES)
    pub.write_comparison(out, ROLES, tmp_path / "c.csv", tmp_path / "c.md", tmp_path / "c.tex")
    lines, s = published_section(tmp_path / "c.csv", ROLES)
    assert "2 of 4 synthetic cells consistent (1 not run)" in lines[2]
    assert any(line.startswith("- soare_sto Peace x=10: published 0.1") for line in lines)


# ------------------------------------------------ per-series test (Stouffer, Bonferroni)

N_SERIES = 42


def cells_with_z(z_by_series: dict) -> pd.DataFrame:
    """A comparison table (the columns series_tests reads) whose cell z-scores are given:
    {(experiment, algorithm): [z, ...]}, every cell compared ("consistent" or "differs")."""
    return pd.DataFrame([{"experiment": e, "algorithm": a, "x": float(i), "published_p": 0.5,
                          "reproduced_p": 0.5, "z": z,
                          "verdict": pub.CONSISTENT if abs(z) <= 2.576 else pub.DIFFERS}
                         for (e, a), zs in z_by_series.items() for i, z in enumerate(zs)])


def known_series() -> dict:
    """42 series whose right verdicts at alpha = 0.01 (bound 3.67) are known:
    - lean: six cells at z = +1.6, none alone past 2.576, together Z = 3.92: beyond;
    - sink: six cells at z = -1.6: Z = -3.92, beyond (the test is two-sided);
    - mild: six cells at z = 1.3, Z = 3.18: within 3.67, but beyond 2.576 (one test alone);
    - single: one cell at z = 3.0: within 3.67, beyond 2.576;
    - 38 more series of six cells at z = 0.5, -0.5, 0.3, -0.3, 0, 0.1: within."""
    series = {("e", "lean"): [1.6] * 6, ("e", "sink"): [-1.6] * 6, ("e", "mild"): [1.3] * 6,
              ("e", "single"): [3.0]}
    for i in range(N_SERIES - len(series)):
        series[(f"f{i // 6}", f"A{i % 6}")] = [0.5, -0.5, 0.3, -0.3, 0.0, 0.1]
    return series


def series_problems() -> list:
    """Every way the per-series test departs from its definition on known inputs (empty: none)."""
    problems = []
    if pub.stouffer_z([1.0, 2.0, 3.0]) != pytest.approx(6 / math.sqrt(3)):
        problems.append("Stouffer z of (1, 2, 3) is not 6/sqrt(3)")
    expected_bound = norm.isf(0.01 / (2 * N_SERIES))   # 3.6706
    if pub.bonferroni_bound(0.01, N_SERIES) != pytest.approx(expected_bound):
        problems.append(f"bound over {N_SERIES} series is {pub.bonferroni_bound(0.01, N_SERIES)}, "
                        f"not {expected_bound}")
    series = known_series()
    # Two series that must not count: one not run, one not comparable (Yahoo! on the stand-in).
    cells = pd.concat([cells_with_z(series), pd.DataFrame([
        {"experiment": "g", "algorithm": "A0", "x": 1.0, "z": np.nan, "verdict": pub.NOT_RUN},
        {"experiment": ROLES["r6a"], "algorithm": "A0", "x": 1.0, "z": np.nan, "verdict": pub.NOT_COMPARABLE}])],
        ignore_index=True)
    out = pub.series_tests(cells, 0.01)
    if len(out) != N_SERIES:
        problems.append(f"{len(out)} series tested, not the {N_SERIES} with compared cells")
    if not np.allclose(out["bound"], expected_bound):
        problems.append(f"bound used {sorted(set(out['bound']))}, not {expected_bound:.4f}")
    got = {(r.experiment, r.algorithm): r for r in out.itertuples()}
    for key, zs in series.items():
        r = got.get(key)
        if r is None:
            problems.append(f"series {key} missing")
            continue
        if r.cells != len(zs) or r.stouffer_z != pytest.approx(sum(zs) / math.sqrt(len(zs))):
            problems.append(f"series {key}: {r.cells} cells, Z = {r.stouffer_z}")
        want = pub.BEYOND if key[1] in ("lean", "sink") else pub.WITHIN
        if r.verdict != want:
            problems.append(f"series {key}: {r.verdict}, expected {want}")
    s = pub.summary(cells, ROLES, 0.01)
    if (s["series"], [d["algorithm"] for d in s["series_beyond"]]) != (N_SERIES, ["lean", "sink"]):
        problems.append(f"summary: {s['series']} series, beyond {s['series_beyond']}")
    if f"2 of {N_SERIES} (experiment, algorithm) series beyond" not in pub.summary_line(s):
        problems.append(f"summary line: {pub.summary_line(s)}")
    return problems


def test_series_test_follows_its_definition():
    assert series_problems() == []


_PUB = "linbandits.studies.p1rage.published"
SERIES_BUGS = [
    PlantedBug("bonferroni_switched_off", _PUB, "bonferroni_bound",
               "alpha / (2 * n_series)", "alpha / 2", ()),
    PlantedBug("one_sided_series_test", _PUB, "series_tests",
               "abs(combined) > bound", "combined > bound", ()),
    PlantedBug("stouffer_averages_instead_of_scaling", _PUB, "stouffer_z",
               "z.sum() / math.sqrt(z.size)", "z.sum() / z.size", ()),
    PlantedBug("uncompared_series_counted", _PUB, "series_tests",
               'compared = comparison[comparison["verdict"].isin([CONSISTENT, DIFFERS])]',
               'compared = comparison', ()),
]


@pytest.mark.parametrize("bug", SERIES_BUGS, ids=[b.name for b in SERIES_BUGS])
def test_planted_bug_in_the_series_test_is_caught(bug, monkeypatch):
    bug.plant(monkeypatch)
    assert series_problems(), f"{bug.name} went unnoticed"


def test_compare_carries_each_series_test_on_its_cells(tmp_path):
    # Through compare(): two series of real counts; every compared cell of a
    # series carries that series' Z, computed from the cells' own z.
    out = pub.compare(published_rows(), reproduced_rows(), yahoo_is_r6a=False, roles=ROLES)
    assert list(out.columns) == pub.COLUMNS
    compared = out[out["verdict"].isin([pub.CONSISTENT, pub.DIFFERS])]
    for (e, a), group in compared.groupby(["experiment", "algorithm"]):
        assert np.allclose(group["series_z"], pub.stouffer_z(group["z"]))
    # 3 compared series (soare_sto G-BAI, soare_sto Peace, malicious Peace): bound over 3.
    assert np.allclose(compared["series_bound"], norm.isf(0.01 / 6))
    assert (out.loc[~out.index.isin(compared.index), "series_verdict"] == "").all()
    # Peace on soare_sto: one cell at z = 6.9 > 2.94, so beyond; G-BAI's z = 0.95 is within.
    peace = out[(out["experiment"] == "soare_sto") & (out["algorithm"] == "Peace")].iloc[0]
    assert peace["series_z"] > 2.94 and peace["series_verdict"] == pub.BEYOND
    s = pub.write_comparison(out, ROLES, tmp_path / "c.csv", tmp_path / "c.md", tmp_path / "c.tex")
    md = (tmp_path / "c.md").read_text()
    assert "1 of 3 (experiment, algorithm) series beyond" in md and "## Per series" in md
    assert "Per series" in (tmp_path / "c.tex").read_text()
    back = pd.read_csv(tmp_path / "c.csv")
    again = pub.summary(back, ROLES)["series_beyond"]   # the CSV keeps 10 significant digits
    assert [(d["experiment"], d["algorithm"], d["cells"]) for d in again] == [("soare_sto", "Peace", 1)]
    assert again[0]["stouffer_z"] == pytest.approx(s["series_beyond"][0]["stouffer_z"], rel=1e-9)


def test_claims_section_lists_the_series_beyond_the_bound(tmp_path):
    from linbandits.studies.p1rage.products import published_section

    out = pub.compare(published_rows(), reproduced_rows(), yahoo_is_r6a=False, roles=ROLES)
    pub.write_comparison(out, ROLES, tmp_path / "c.csv", tmp_path / "c.md", tmp_path / "c.tex")
    lines, _ = published_section(tmp_path / "c.csv", ROLES)
    assert any(line.startswith("- soare_sto Peace: Stouffer z = ") for line in lines)
    assert not any(line.startswith("- soare_sto G-BAI: Stouffer") for line in lines)


# ------------------------------------------------ Fig. 2a's arrays of three appended runs

OD_LINBAI_REPRODUCED = {10: 0.9094, 1010: 0.4706, 2010: 0.4567, 3010: 0.4480, 4010: 0.4404, 5010: 0.4328}


def od_linbai_series(compared_n=None):
    """The OD-LinBAI stationary-Soare series of the default run (docs/p1rage.md) against the package's
    published cells: its Stouffer Z."""
    published = pub.read_published()
    published = published[(published["experiment"] == "soare_sto") & (published["algorithm"] == "OD-LinBAI")]
    reproduced = pd.DataFrame([{"experiment": "soare_sto", "algorithm": "OD-LinBAI", "x": float(x), "n_trials": 21000,
                                "n_errors": round(p * 21000)} for x, p in OD_LINBAI_REPRODUCED.items()])
    out = pub.compare(published, reproduced, yahoo_is_r6a=False, roles=ROLES)
    return out


def test_the_three_run_size_follows_its_derivation():
    # 1000 trials at 6 copies, 10000 at 28, 10000 independent: N^2 / sum(n_r c_r) = 21000^2 / 296000.
    assert pub.three_run_n() == pytest.approx(21000 ** 2 / 296000)
    assert pub.THREE_RUN_N == 1490
    assert 21000 / pub.three_run_n() == pytest.approx(14.1, abs=0.01)
    assert pub.three_run_n(((21000, 1.0),)) == pytest.approx(21000)


def test_the_cap_applies_to_the_three_run_cells_only():
    assert pub.compared_n("soare_sto", 21000, 4420.0, ROLES["three_runs"]) == 1490.0
    assert pub.compared_n("soare_sto", 21000, 1254.0, ROLES["three_runs"]) == 1254.0      # its own block estimate is lower: kept
    assert pub.compared_n("soare_sto", 31000, 27201.0, ROLES["three_runs"]) == 27201.0    # P1-RAGE's longer arrays
    assert pub.compared_n("soare_sto", 20000, 20000.0, ROLES["three_runs"]) == 20000.0    # Peace's T = 5010 array
    assert pub.compared_n("soare_osci", 21000, 21000.0, ROLES["three_runs"]) == 21000.0
    out = od_linbai_series()
    assert (out["compared_n"] <= 1490).all() and (out["compared_n"] <= out["effective_n"]).all()


def test_od_linbai_on_stationary_soare_within_the_bound_at_the_three_run_size(monkeypatch):
    """At the table's effective sizes the series is beyond the Bonferroni bound over 42 series (3.67)
    (Z = 3.95); at the three-run size it is within (Z = 2.79), as the evidence says it should be."""
    bound = pub.bonferroni_bound(pub.SERIES_ALPHA, 42)
    after = pub.stouffer_z(od_linbai_series()["z"])
    assert after == pytest.approx(2.79, abs=0.02) and after < bound
    monkeypatch.setattr(pub, "compared_n", lambda experiment, n_trials, effective_n, three_runs: float(effective_n))
    before = pub.stouffer_z(od_linbai_series()["z"])
    assert before == pytest.approx(3.95, abs=0.02) and before > bound


CAP_BUGS = [
    PlantedBug("cap_on_every_experiment", _PUB, "compared_n",
               "if experiment == three_runs and int(n_trials) == THREE_RUN_LENGTH:", "if True:", ()),
    PlantedBug("constant_replaces_a_smaller_block_estimate", _PUB, "compared_n",
               "return min(float(effective_n), float(THREE_RUN_N))", "return float(THREE_RUN_N)", ()),
    PlantedBug("cap_on_every_array_length", _PUB, "compared_n",
               " and int(n_trials) == THREE_RUN_LENGTH", "", ()),
]


@pytest.mark.parametrize("bug", CAP_BUGS, ids=[b.name for b in CAP_BUGS])
def test_planted_bug_in_the_three_run_cap_is_caught(bug, monkeypatch):
    bug.plant(monkeypatch)
    with pytest.raises(AssertionError):
        test_the_cap_applies_to_the_three_run_cells_only()
