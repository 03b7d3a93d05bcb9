"""Error-probability tables of the P1-RAGE study.

A table has one row per (algorithm, x): x is the swept value (T, s or L) or
missing for single-setting experiments. It is made from the experiment's runs
file (columns `recommended`, `correct` per run) and its instance summaries (at
least `best_arm` and `min_gap`): the table product, the figures, Theorem 1's
figure and the published comparison all build it here.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from linbandits import tables
from linbandits.errors import UserError
from linbandits.studies.p1rage.stats import normal_ci, wilson_ci
from linbandits.tables import order_key

# The order of the legends and tables in the paper.
ALGORITHM_ORDER = ("G-BAI", "P1-RAGE", "P1-Peace", "Peace", "Mixed-Peace", "OD-LinBAI")

TABLE_COLUMNS = ("experiment", "algorithm", "x", "n_trials", "n_errors", "error_prob",
                 "ci95_low", "ci95_high", "min_gap", "wilson_low", "wilson_high")


def algorithm_sort_key(name: str) -> tuple[int, str]:
    """Paper order first; names the paper does not use follow, alphabetically."""
    return order_key(name, ALGORITHM_ORDER)


def read_summary(path) -> dict:
    return tables.read_summary(path, required=("best_arm", "min_gap"))


def check_against_best_arm(recommended, correct, summary: dict, where: str) -> None:
    """correct must equal (recommended == best_arm): catches a summary from another setting."""
    best = summary["best_arm"]
    if best is None:
        return
    best_set = list(best) if isinstance(best, list) else [best]
    expected = np.isin(np.asarray(recommended), best_set).astype(int)
    disagree = int(np.count_nonzero(expected != np.asarray(correct)))
    if disagree:
        raise UserError(f"{where}: {disagree} run(s) have 'correct' inconsistent with best_arm={best} of its "
                        f"instance summary")


def table_row(experiment: str, algorithm: str, x, recommended, correct, summary: dict, where: str = "") -> dict:
    """One row: errors out of runs, the paper's normal interval and Wilson's, the instance's min gap."""
    correct = np.asarray(correct)
    if correct.size == 0 or not np.isin(correct, (0, 1)).all():
        raise UserError(f"{where or experiment}: column 'correct' must hold 0 or 1 for at least one run")
    check_against_best_arm(recommended, correct, summary, where or f"{experiment} {algorithm} x={x}")
    n = int(correct.size)
    n_errors = int(n - correct.sum())
    ci_low, ci_high = normal_ci(n_errors, n)
    wilson_low, wilson_high = wilson_ci(n_errors, n)
    return {"experiment": experiment, "algorithm": algorithm,
            "x": np.nan if x is None else float(x), "n_trials": n, "n_errors": n_errors,
            "error_prob": n_errors / n, "ci95_low": ci_low, "ci95_high": ci_high,
            "min_gap": float(summary["min_gap"]),
            "wilson_low": wilson_low, "wilson_high": wilson_high}


def sort_table(rows) -> pd.DataFrame:
    """One table row per (experiment, algorithm, x), in the paper's algorithm order, then x."""
    if not rows:
        raise UserError("an error table needs at least one row")
    keys = [(r["experiment"], r["algorithm"], r["x"]) for r in rows]
    repeated = sorted({k for k in keys if keys.count(k) > 1}, key=str)
    if repeated:
        raise UserError(f"error table: rows given more than once: {repeated}")
    table = pd.DataFrame(rows, columns=list(TABLE_COLUMNS))
    table["x"] = table["x"].astype(float)
    order = sorted(range(len(table)), key=lambda i: (
        table.at[i, "experiment"], algorithm_sort_key(table.at[i, "algorithm"]),
        # NaN x (single-setting rows) sort first; NaN never compares equal.
        (0, 0.0) if math.isnan(table.at[i, "x"]) else (1, table.at[i, "x"])))
    return table.iloc[order].reset_index(drop=True)


def experiment_table(exp, runs, summary_path) -> pd.DataFrame:
    """The error table of one experiment from its runs file (linbandits.runs.RunSet) and its instance
    summaries (summary_path(setting) -> path)."""
    rows = []
    for setting in exp.setting_ids():
        summary = read_summary(summary_path(setting))
        for algo in exp.algorithms:
            where = f"{exp.name} {setting} {algo}"
            rows.append(table_row(exp.name, algo, exp.value_of(setting), runs.column(setting, algo, "recommended"),
                                  runs.column(setting, algo, "correct"), summary, where))
    return sort_table(rows)


def read_table(path) -> pd.DataFrame:
    """A table CSV written by `write_table`, checked for the expected columns."""
    try:
        table = pd.read_csv(path, keep_default_na=False, na_values={"x": [""]})
    except FileNotFoundError:
        raise UserError(f"table {path} does not exist") from None
    missing = [c for c in TABLE_COLUMNS if c not in table.columns]
    if missing:
        raise UserError(f"table {path} lacks column(s) {missing}")
    table["x"] = table["x"].astype(float)
    return table
