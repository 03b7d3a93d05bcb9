"""Error tables from runs: the rows (counts, intervals, order, checks against the instance summary), their
CSV (Markdown and LaTeX renderings: tests/test_tables.py), and the table product on a synthetic world."""
import math

import numpy as np
import pytest

from linbandits.errors import UserError
from linbandits.products import study_products
from linbandits.studies.p1rage.error_tables import TABLE_COLUMNS, read_table, sort_table, table_row
from linbandits.studies.p1rage.stats import normal_ci, wilson_ci
from linbandits.tables import write_table

from p1rage_world import holding, study_config, write_world

BEST_ARM = 3
SUMMARY = {"best_arm": BEST_ARM, "min_gap": 0.03}


def row(experiment, algorithm, x, n, errors=(), summary=SUMMARY):
    """A table row of n runs where the listed runs recommend a wrong arm and the rest the best one."""
    recommended = np.array([0 if t in errors else BEST_ARM for t in range(n)])
    correct = (recommended == BEST_ARM).astype(int)
    return table_row(experiment, algorithm, x, recommended, correct, summary)


def aggregate(rows):
    return sort_table(rows)


def test_counts_columns_and_intervals():
    table = aggregate([row("exp", "P1-RAGE", 1010, 100, errors={3, 7, 60})])
    assert list(table.columns) == list(TABLE_COLUMNS)
    assert list(table.columns[:9]) == ["experiment", "algorithm", "x", "n_trials", "n_errors",
                                      "error_prob", "ci95_low", "ci95_high", "min_gap"]
    r = table.iloc[0]
    assert (r.n_trials, r.n_errors, r.error_prob, r.min_gap) == (100, 3, 0.03, 0.03)
    assert (r.ci95_low, r.ci95_high) == pytest.approx(normal_ci(3, 100))
    assert (r.wilson_low, r.wilson_high) == pytest.approx(wilson_ci(3, 100))


def test_rows_sorted_by_paper_order_then_x():
    rows = [row("e", algorithm, x, 10) for algorithm in ["OD-LinBAI", "Peace", "G-BAI", "Mixed-Peace", "P1-Peace",
                                                         "P1-RAGE"] for x in [3000, 300, 1200]]
    table = aggregate(rows)
    assert list(table["algorithm"].unique()) == ["G-BAI", "P1-RAGE", "P1-Peace", "Peace",
                                                 "Mixed-Peace", "OD-LinBAI"]
    assert list(table["x"][:3]) == [300, 1200, 3000]


def test_a_row_given_twice_is_an_error():
    with pytest.raises(UserError, match="more than once"):
        aggregate([row("e", "G-BAI", 1, 10), row("e", "G-BAI", 1, 10)])


def test_correct_column_checked_against_best_arm():
    with pytest.raises(UserError, match="best_arm"):
        row("e", "G-BAI", None, 10, summary={"best_arm": BEST_ARM + 1, "min_gap": 0.1})
    with pytest.raises(UserError, match="0 or 1"):
        table_row("e", "G-BAI", None, np.array([BEST_ARM]), np.array([2]), SUMMARY)


def test_csv_is_byte_stable_and_empty_x_round_trips(tmp_path):
    errors = set(range(0, 1000, 7))
    write_table(aggregate([row("malicious", "Peace", None, 1000, errors)]),
                tmp_path / "t1.csv", tmp_path / "t1.md", tmp_path / "t1.tex")
    write_table(aggregate([row("malicious", "Peace", None, 1000, errors)]),
                tmp_path / "t2.csv", tmp_path / "t2.md", tmp_path / "t2.tex")
    for ext in ("csv", "md", "tex"):
        assert (tmp_path / f"t1.{ext}").read_bytes() == (tmp_path / f"t2.{ext}").read_bytes()
    lines = (tmp_path / "t1.csv").read_text().splitlines()
    assert lines[0] == ",".join(TABLE_COLUMNS)
    assert lines[1].startswith("malicious,Peace,,1000,143,0.143,")
    back = read_table(tmp_path / "t1.csv")
    assert math.isnan(back.loc[0, "x"])
    assert back.loc[0, "error_prob"] == 0.143
    assert not list(tmp_path.glob(".*.tmp")), "temporary files left behind"


def test_table_product_on_a_synthetic_world(tmp_path, monkeypatch):
    """Every experiment's table from its runs file: one row per (algorithm, setting) with the world's
    error counts, the x of each setting, the summary's min gap."""
    monkeypatch.chdir(tmp_path)
    config = study_config()
    ctx = write_world(tmp_path, config, holding, n=200, min_gap=lambda exp, s: 0.02)
    products = {p.name: p for p in study_products(config, "p1rage") if p.kind == "table"}
    assert set(ctx.experiments) <= set(products) and "published_vs_reproduced" in products
    for name, exp in ctx.experiments.items():
        products[name].make(ctx)
        table = read_table(tmp_path / f"results/p1rage/tables/{name}.csv")
        assert len(table) == len(exp.algorithms) * len(exp.setting_ids())
        assert set(table["n_trials"]) == {200} and set(table["min_gap"]) == {0.02}
        for r in table.itertuples():
            setting = "single" if math.isnan(r.x) else exp.setting_ids()[list(exp.values).index(r.x)]
            first = setting == exp.setting_ids()[0]
            assert r.n_errors == round(holding(name, setting, r.algorithm, first) * 200)


def test_the_published_comparison_reads_the_published_experiments_only(tmp_path, monkeypatch):
    """published_vs_reproduced depends on the published experiments' runs, never on a switch run's
    (Context.published() leaves switch runs out, as it says)."""
    monkeypatch.chdir(tmp_path)
    config = study_config(robustness=True)
    product = {p.name: p for p in study_products(config, "p1rage")}["published_vs_reproduced"]
    assert not [f for f in product.inputs if "__" in f]
    assert any("runs/soare_sto.npz" in f for f in product.inputs)
