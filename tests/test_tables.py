"""linbandits.tables: a raw chunk read with its columns checked, the chunks of a table row holding runs 0..n-1
once each, and a table rendered as Markdown (numbers right-aligned, 4 significant digits but every digit of an
exact column, NaN empty) and booktabs LaTeX (every special character escaped once). Planted bugs (the
functions with one snippet changed): names in order sorted with the others, a float trial column let through,
a summary's missing key let through, every offending run listed, the check not called, exact columns rounded,
LaTeX escaped by successive replacements."""
import numpy as np
import pandas as pd
import pytest
from plain_source import plain

from linbandits import tables
from linbandits.errors import UserError


def test_names_in_the_order_first_then_the_others_alphabetically():
    names = ["zeta", "P1-RAGE", "alpha", "G-BAI", "Mine"]
    order = ("G-BAI", "P1-RAGE")
    assert sorted(names, key=lambda n: tables.order_key(n, order)) == ["G-BAI", "P1-RAGE", "Mine", "alpha", "zeta"]
    planted = plain(tables.order_key, "return len(order), name", "return -1, name")
    assert sorted(names, key=lambda n: planted(n, order))[0] != "G-BAI"


def refusal(read, *args):
    try:
        read(*args)
    except UserError as exc:
        return str(exc)
    return "read"


def test_a_bad_chunk_or_summary_is_one_line_naming_it(tmp_path):
    (tmp_path / "float.csv").write_text("trial,regret\n0.5,1.0\n")
    (tmp_path / "short.csv").write_text("trial\n0\n")
    (tmp_path / "empty.csv").write_text("")
    (tmp_path / "summary.json").write_text('{"horizon": 10}')
    columns = ("trial", "regret")
    said = {name: refusal(tables.read_chunk, tmp_path / f"{name}.csv", columns, ["trial"])
            for name in ("float", "short", "empty", "none")}
    assert said == {"float": f"chunk file {tmp_path / 'float.csv'}: column 'trial' must hold integers only",
                    "short": f"chunk file {tmp_path / 'short.csv'} lacks column(s) ['regret']; expected header "
                             "trial,regret",
                    "empty": f"chunk file {tmp_path / 'empty.csv'} is empty (not even a header)",
                    "none": f"chunk file {tmp_path / 'none.csv'} does not exist"}
    assert refusal(tables.read_summary, tmp_path / "summary.json", ("horizon", "min_gap")) == \
        f"instance summary {tmp_path / 'summary.json'} lacks the key 'min_gap'"
    unchecked = plain(tables.read_chunk, "if len(chunk) and not pd.api", "if False and not pd.api")
    assert refusal(unchecked, tmp_path / "float.csv", columns, ["trial"]) == "read"
    lenient = plain(tables.read_summary, "if key not in summary:", "if False:")
    assert refusal(lenient, tmp_path / "summary.json", ("horizon", "min_gap")) == "read"


def test_runs_outside_the_range_are_listed_up_to_a_few(tmp_path):
    """collect_trials (how runs.collect keeps runs 0..n-1 once each: tests/test_runs.py) lists at most SHOWN_TRIALS
    offending runs, and hands every chunk to the check it is given."""
    paths = [tmp_path / "a.csv", tmp_path / "b.csv"]
    paths[0].write_text("trial\n" + "".join(f"{t}\n" for t in range(20, 32)))
    paths[1].write_text("trial\n0\n")
    line = refusal(tables.collect_trials, paths, 3)
    assert "missing 2 trial(s) [1, 2], out of range [20, 21, 22, 23, 24, 25, 26, 27, 28, 29, ...]" in line
    every = plain(tables._short_list, "values[:SHOWN_TRIALS]", "values")
    assert "30, 31" in refusal(plain(tables.collect_trials, namespace={"_short_list": every}), paths, 3)
    seen = []
    refusal(lambda: tables.collect_trials(paths, 3, check=lambda chunk, path: seen.append((path, len(chunk)))))
    assert seen == [(paths[0], 12), (paths[1], 1)]
    unchecked = plain(tables.collect_trials, "            check(chunk, path)", "            pass")
    seen.clear()
    refusal(lambda: unchecked(paths, 3, check=lambda chunk, path: seen.append((path, len(chunk)))))
    assert seen == []


def sample():
    return pd.DataFrame({"experiment": ["multi_osci", "10%_run"], "algorithm": ["P1-Peace", "G|BAI"],
                         "x": [10010.0, np.nan], "n_trials": [20, 5], "error_prob": [0.05, 1 / 3]})


def test_markdown_and_latex(tmp_path):
    tables.write_table(sample(), tmp_path / "t.csv", tmp_path / "t.md", tmp_path / "t.tex")
    md = (tmp_path / "t.md").read_text().splitlines()
    assert md[0] == "| experiment | algorithm | x | n_trials | error_prob |"
    assert md[1] == "|:---|:---|---:|---:|---:|"
    assert md[2:] == ["| multi_osci | P1-Peace | 10010 | 20 | 0.05 |", r"| 10%_run | G\|BAI |  | 5 | 0.3333 |"]
    tex = (tmp_path / "t.tex").read_text()
    assert tex.startswith(r"\begin{tabular}{llrrr}")
    for rule in (r"\toprule", r"\midrule", r"\bottomrule", r"\end{tabular}"):
        assert rule in tex
    assert r"multi\_osci" in tex and r"n\_trials" in tex and r"10\%\_run" in tex and "multi_osci" not in tex
    rounded = plain(tables._display_cells, "CSV_FLOAT_FORMAT if c in exact_columns", "DISPLAY_FLOAT_FORMAT if c in "
                    "exact_columns")
    assert "1.001e+04" in plain(tables.table_to_markdown, namespace={"_display_cells": rounded})(sample())


def test_latex_escapes_every_special_character_once(tmp_path):
    text = "10%_run {a} & $b$ #1 ~x^2 \\path"
    escaped = r"10\%\_run \{a\} \& \$b\$ \#1 \textasciitilde{}x\textasciicircum{}2 \textbackslash{}path"
    assert tables.latex_escape(text) == escaped

    def successive(text):
        for special, replacement in tables.LATEX_SPECIALS.items():
            text = text.replace(special, replacement)
        return text

    assert successive(text) != escaped
