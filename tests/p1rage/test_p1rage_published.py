"""Published beside reproduced (spec G): the comparison, its summary and the
dashed published curves."""
import math

import numpy as np
import pandas as pd
import pytest

from linbandits.studies.p1rage import published as pub
from linbandits.studies.p1rage.figures import build_figure


def test_the_package_holds_every_published_cell():
    table = pub.read_published()
    assert len(table) == 324
    assert (table["experiment"] != pub.YAHOO).sum() == 288
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
    out = pub.compare(published_rows(), reproduced_rows(), yahoo_is_r6a=False)
    assert out["verdict"].tolist() == [pub.CONSISTENT, pub.DIFFERS, pub.CONSISTENT, pub.NOT_RUN,
                                       pub.NOT_COMPARABLE]
    assert out.loc[0, "difference"] == pytest.approx(0.015)
    s = pub.summary(out)
    assert (s["synthetic_cells"], s["compared"], s["consistent"]) == (4, 3, 2)
    assert pub.summary_line(s).startswith("2 of 4 synthetic cells consistent (1 not run)")
    assert "synthetic stand-in" in pub.summary_line(s)
    on_r6a = pub.compare(published_rows(), reproduced_rows(), yahoo_is_r6a=True)
    assert on_r6a["verdict"].iloc[-1] == pub.DIFFERS


def test_effective_size_decides_the_verdict():
    # 0.115 vs 0.100: differs at 21000 published trials, consistent at 500.
    rows = published_rows().iloc[:1].assign(n_trials=21000, n_errors=2100)
    rep = reproduced_rows().iloc[:1].assign(n_trials=21000, n_errors=2415)
    assert pub.compare(rows.assign(effective_n=21000.0), rep, False)["verdict"][0] == pub.DIFFERS
    assert pub.compare(rows.assign(effective_n=500.0), rep, False)["verdict"][0] == pub.CONSISTENT


def test_write_comparison_files(tmp_path):
    out = pub.compare(published_rows(), reproduced_rows(), yahoo_is_r6a=False)
    pub.write_comparison(out, tmp_path / "c.csv", tmp_path / "c.md", tmp_path / "c.tex")
    assert "2 of 4 synthetic cells consistent" in (tmp_path / "c.md").read_text()
    back = pd.read_csv(tmp_path / "c.csv")
    assert list(back.columns) == pub.COLUMNS and len(back) == 5


def test_figures_draw_the_published_curve_dashed():
    table = pd.DataFrame([{"experiment": "soare_sto", "algorithm": a, "x": x, "n_trials": 100, "n_errors": e,
                           "error_prob": e / 100, "ci95_low": 0.0, "ci95_high": 0.5, "min_gap": 0.01}
                          for a in ("G-BAI", "Peace") for x, e in ((10, 40), (1010, 5))])
    published = pub.published_for("soare_sto")
    fig = build_figure("curves", [table], ["t"], ["T"], published=[published])
    lines = [ln for ln in fig.axes[0].get_lines() if (ln.get_gid() or "").startswith("published:")]
    assert {ln.get_gid() for ln in lines} >= {"published:G-BAI", "published:Peace"}
    assert all(ln.get_linestyle() == "--" for ln in lines)


def test_claims_section_lists_the_cells_that_differ(tmp_path):
    from linbandits.studies.p1rage.claims import published_section

    out = pub.compare(published_rows(), reproduced_rows(), yahoo_is_r6a=False)
    pub.write_comparison(out, tmp_path / "c.csv", tmp_path / "c.md", tmp_path / "c.tex")
    lines, s = published_section(tmp_path / "c.csv")
    assert "2 of 4 synthetic cells consistent (1 not run)" in lines[2]
    assert any(line.startswith("- soare_sto Peace x=10: published 0.1") for line in lines)
