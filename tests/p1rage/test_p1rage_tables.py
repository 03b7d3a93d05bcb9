"""Aggregation of trial chunks into tables, and their CSV/Markdown/LaTeX renderings."""
import json
import math

import numpy as np
import pandas as pd
import pytest

from linbandits import cli

from linbandits.errors import UserError
from linbandits.studies.p1rage.stats import normal_ci, wilson_ci
from linbandits.studies.p1rage.error_tables import TABLE_COLUMNS, TableRow, aggregate, read_table
from linbandits.tables import write_table

BEST_ARM = 3


def write_chunk(path, trials, errors=()):
    """A chunk where the listed trials recommend a wrong arm and the rest the best one."""
    recommended = [0 if t in errors else BEST_ARM for t in trials]
    correct = [0 if t in errors else 1 for t in trials]
    pd.DataFrame({"trial": trials, "recommended": recommended, "correct": correct}).to_csv(
        path, index=False)
    return str(path)


def write_summary(path, min_gap, best_arm=BEST_ARM):
    path.write_text(json.dumps({"best_arm": best_arm, "min_gap": min_gap}))
    return str(path)


@pytest.fixture
def summary(tmp_path):
    return write_summary(tmp_path / "summary.json", 0.03)


def test_counts_columns_and_intervals(tmp_path, summary):
    chunks = [write_chunk(tmp_path / "a0.csv", range(0, 50), errors={3, 7}),
              write_chunk(tmp_path / "a1.csv", range(50, 100), errors={60})]
    table = aggregate([TableRow("exp", "P1-RAGE", 1010, tuple(chunks), summary)])
    assert list(table.columns) == list(TABLE_COLUMNS)
    assert list(table.columns[:9]) == ["experiment", "algorithm", "x", "n_trials", "n_errors",
                                      "error_prob", "ci95_low", "ci95_high", "min_gap"]
    row = table.iloc[0]
    assert (row.n_trials, row.n_errors, row.error_prob, row.min_gap) == (100, 3, 0.03, 0.03)
    assert (row.ci95_low, row.ci95_high) == pytest.approx(normal_ci(3, 100))
    assert (row.wilson_low, row.wilson_high) == pytest.approx(wilson_ci(3, 100))


def test_rows_sorted_by_paper_order_then_x(tmp_path, summary):
    rows = []
    for algorithm in ["OD-LinBAI", "Peace", "G-BAI", "Mixed-Peace", "P1-Peace", "P1-RAGE"]:
        for x in [3000, 300, 1200]:
            chunk = write_chunk(tmp_path / f"{algorithm}-{x}.csv", range(10))
            rows.append({"experiment": "e", "algorithm": algorithm, "x": x,
                         "chunks": [chunk], "summary": summary})
    table = aggregate(rows)
    assert list(table["algorithm"].unique()) == ["G-BAI", "P1-RAGE", "P1-Peace", "Peace",
                                                 "Mixed-Peace", "OD-LinBAI"]
    assert list(table["x"][:3]) == [300, 1200, 3000]


def test_missing_trial_is_an_error_naming_the_files(tmp_path, summary):
    chunks = [write_chunk(tmp_path / "c0.csv", range(0, 5)),
              write_chunk(tmp_path / "c1.csv", range(6, 10))]
    with pytest.raises(UserError, match="missing 1 trial") as info:
        aggregate([TableRow("e", "G-BAI", None, tuple(chunks), summary)])
    assert "c0.csv" in str(info.value) and "c1.csv" in str(info.value)


def test_missing_tail_caught_with_expected_count(tmp_path, summary):
    chunks = (write_chunk(tmp_path / "c0.csv", range(0, 5)),)
    with pytest.raises(UserError, match="missing 5 trial"):
        aggregate([TableRow("e", "G-BAI", None, chunks, summary, n_trials=10)])


def test_duplicated_trial_is_an_error_naming_the_files(tmp_path, summary):
    chunks = [write_chunk(tmp_path / "c0.csv", range(0, 6)),
              write_chunk(tmp_path / "c1.csv", range(5, 10))]
    with pytest.raises(UserError, match="more than once") as info:
        aggregate([TableRow("e", "G-BAI", None, tuple(chunks), summary)])
    assert "trial 5 in" in str(info.value)
    assert "c0.csv" in str(info.value) and "c1.csv" in str(info.value)


def test_correct_column_checked_against_best_arm(tmp_path):
    chunk = write_chunk(tmp_path / "c0.csv", range(10))
    other = write_summary(tmp_path / "other.json", 0.1, best_arm=BEST_ARM + 1)
    with pytest.raises(UserError, match="best_arm"):
        aggregate([TableRow("e", "G-BAI", None, (chunk,), other)])


def test_bad_chunk_columns_rejected(tmp_path, summary):
    path = tmp_path / "bad.csv"
    path.write_text("trial,arm\n0,1\n")
    with pytest.raises(UserError, match="lacks column"):
        aggregate([TableRow("e", "G-BAI", None, (str(path),), summary)])


def test_csv_is_byte_stable_and_empty_x_round_trips(tmp_path, summary):
    chunk = write_chunk(tmp_path / "c.csv", range(1000), errors=set(range(0, 1000, 7)))
    table = aggregate([TableRow("malicious", "Peace", None, (chunk,), summary)])
    write_table(table, tmp_path / "t1.csv", tmp_path / "t1.md", tmp_path / "t1.tex")
    write_table(aggregate([TableRow("malicious", "Peace", None, (chunk,), summary)]),
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


def test_markdown_and_latex(tmp_path, summary):
    chunk = write_chunk(tmp_path / "c.csv", range(20), errors={1})
    table = aggregate([TableRow("multi_osci", "P1-Peace", 2, (chunk,), summary)])
    write_table(table, tmp_path / "t.csv", tmp_path / "t.md", tmp_path / "t.tex")
    md = (tmp_path / "t.md").read_text().splitlines()
    assert md[0].startswith("| experiment | algorithm | x | n_trials |")
    assert md[1].count("|") == len(TABLE_COLUMNS) + 1
    assert md[2].startswith("| multi_osci | P1-Peace | 2 | 20 | 1 | 0.05 |")
    tex = (tmp_path / "t.tex").read_text()
    assert tex.startswith(r"\begin{tabular}{llrrrrrrrrr}")
    for rule in (r"\toprule", r"\midrule", r"\bottomrule", r"\end{tabular}"):
        assert rule in tex
    assert r"multi\_osci" in tex and r"ci95\_low" in tex
    assert "multi_osci" not in tex


def test_latex_escapes_percent(tmp_path, summary):
    chunk = write_chunk(tmp_path / "c.csv", range(5))
    table = aggregate([TableRow("10%_run", "G-BAI", None, (chunk,), summary)])
    write_table(table, tmp_path / "t.csv", tex_path=tmp_path / "t.tex")
    assert r"10\%\_run" in (tmp_path / "t.tex").read_text()


def test_cli_end_to_end(tmp_path, summary):
    rows = []
    for algorithm, errors in [("Peace", {0}), ("G-BAI", set())]:
        for x in (0, 1):
            chunks = [write_chunk(tmp_path / f"{algorithm}{x}_{i}.csv",
                                  range(5 * i, 5 * i + 5), errors) for i in range(2)]
            rows.append({"algorithm": algorithm, "x": x, "chunks": chunks, "summary": summary})
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"n_trials": 10, "rows": rows}))
    out = tmp_path / "out"
    code = cli.main(["p1rage-table", "--experiment", "soare_scale", "--spec", str(spec),
                           "--out-csv", str(out / "t.csv"), "--out-md", str(out / "t.md"),
                           "--out-tex", str(out / "t.tex")])
    assert code == 0
    table = read_table(out / "t.csv")
    assert list(table["algorithm"]) == ["G-BAI", "G-BAI", "Peace", "Peace"]
    assert list(table["experiment"].unique()) == ["soare_scale"]
    np.testing.assert_array_equal(table["n_errors"], [0, 0, 1, 1])
    # the pipeline passes the same rows inline: the same files, byte for byte
    inline = tmp_path / "inline"
    assert cli.main(["p1rage-table", "--experiment", "soare_scale", "--rows", spec.read_text(),
                     "--out-csv", str(inline / "t.csv"), "--out-md", str(inline / "t.md"),
                     "--out-tex", str(inline / "t.tex")]) == 0
    for ext in ("csv", "md", "tex"):
        assert (inline / f"t.{ext}").read_bytes() == (out / f"t.{ext}").read_bytes()


def test_cli_reports_user_errors(tmp_path, summary, capsys):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps([{"algorithm": "G-BAI", "chunks": [str(tmp_path / "nope.csv")],
                                 "summary": summary}]))
    code = cli.main(["p1rage-table", "--experiment", "e", "--spec", str(spec), "--out-csv",
                           str(tmp_path / "t.csv"), "--out-md", str(tmp_path / "t.md"),
                           "--out-tex", str(tmp_path / "t.tex")])
    assert code == 2
    assert "nope.csv does not exist" in capsys.readouterr().err
    assert not (tmp_path / "t.csv").exists()
