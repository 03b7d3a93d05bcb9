"""Error-probability tables of the P1-RAGE study.

A table has one row per (algorithm, x): x is the swept value (T, s or L) or
missing for single-setting experiments. Raw chunks are CSVs with columns
`trial,recommended,correct`; instance summaries are JSON files with at least
`best_arm` and `min_gap`.

CLI (called by the pipeline):
    linbandits p1rage-table --experiment NAME --spec SPEC.json \
        --out-csv T.csv --out-md T.md --out-tex T.tex
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import math

import numpy as np
import pandas as pd

from linbandits import tables
from linbandits.errors import UserError, json_argument
from linbandits.stats import normal_ci, wilson_ci
from linbandits.tables import order_key, write_table

# The order of the legends and tables in the paper.
ALGORITHM_ORDER = ("G-BAI", "P1-RAGE", "P1-Peace", "Peace", "Mixed-Peace", "OD-LinBAI")

TABLE_COLUMNS = ("experiment", "algorithm", "x", "n_trials", "n_errors", "error_prob",
                 "ci95_low", "ci95_high", "min_gap", "wilson_low", "wilson_high")

CHUNK_COLUMNS = ("trial", "recommended", "correct")


@dataclasses.dataclass(frozen=True)
class TableRow:
    """Where one table row comes from. n_trials, if given, is the expected count."""

    experiment: str
    algorithm: str
    x: float | None
    chunks: tuple[str, ...]
    summary: str
    n_trials: int | None = None


def algorithm_sort_key(name: str) -> tuple[int, str]:
    """Paper order first; names the paper does not use follow, alphabetically."""
    return order_key(name, ALGORITHM_ORDER)


def _check_correct_column(chunk, path) -> None:
    if not chunk["correct"].isin((0, 1)).all():
        raise UserError(f"chunk file {path}: column 'correct' must be 0 or 1")


def collect_trials(chunk_paths, expected_n=None) -> pd.DataFrame:
    """The trials of one table row: columns trial, recommended, correct; 0..n-1 exactly once."""
    return tables.collect_trials(chunk_paths, expected_n, CHUNK_COLUMNS, check=_check_correct_column)


def read_summary(path) -> dict:
    return tables.read_summary(path, required=("best_arm", "min_gap"))


def _check_against_best_arm(trials: pd.DataFrame, summary: dict, row: TableRow) -> None:
    """correct must equal (recommended == best_arm): catches a summary from another setting."""
    best = summary["best_arm"]
    if best is None:
        return
    best_set = set(best) if isinstance(best, list) else {best}
    expected = trials["recommended"].isin(best_set).astype(int)
    disagree = int((expected != trials["correct"]).sum())
    if disagree:
        raise UserError(f"{row.algorithm} x={row.x}: {disagree} trial(s) have 'correct' "
                        f"inconsistent with best_arm={best} of {row.summary}; "
                        f"chunks: {', '.join(row.chunks)}")


# ------------------------------------------------------------------ aggregation

def _as_row(row) -> TableRow:
    if isinstance(row, TableRow):
        return row
    try:
        x = row.get("x")
        return TableRow(experiment=str(row["experiment"]), algorithm=str(row["algorithm"]),
                        x=None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x),
                        chunks=tuple(str(c) for c in row["chunks"]),
                        summary=str(row["summary"]), n_trials=row.get("n_trials"))
    except KeyError as exc:
        raise UserError(f"table row {row!r} lacks the key {exc.args[0]!r}") from None


def aggregate_row(row: TableRow) -> dict:
    trials = collect_trials(row.chunks, row.n_trials)
    summary = read_summary(row.summary)
    _check_against_best_arm(trials, summary, row)
    n = len(trials)
    n_errors = int(n - trials["correct"].sum())
    ci_low, ci_high = normal_ci(n_errors, n)
    wilson_low, wilson_high = wilson_ci(n_errors, n)
    return {"experiment": row.experiment, "algorithm": row.algorithm,
            "x": np.nan if row.x is None else row.x, "n_trials": n, "n_errors": n_errors,
            "error_prob": n_errors / n, "ci95_low": ci_low, "ci95_high": ci_high,
            "min_gap": float(summary["min_gap"]),
            "wilson_low": wilson_low, "wilson_high": wilson_high}


def aggregate(rows) -> pd.DataFrame:
    """One table row per (experiment, algorithm, x), in the paper's algorithm order, then x."""
    rows = [_as_row(r) for r in rows]
    if not rows:
        raise UserError("aggregate: no rows given")
    keys = [(r.experiment, r.algorithm, r.x) for r in rows]
    repeated = sorted({k for k in keys if keys.count(k) > 1}, key=str)
    if repeated:
        raise UserError(f"aggregate: rows given more than once: {repeated}")
    table = pd.DataFrame([aggregate_row(r) for r in rows], columns=list(TABLE_COLUMNS))
    table["x"] = table["x"].astype(float)
    order = sorted(range(len(table)), key=lambda i: (
        table.at[i, "experiment"], algorithm_sort_key(table.at[i, "algorithm"]),
        # NaN x (single-setting rows) sort first; NaN never compares equal.
        (0, 0.0) if math.isnan(table.at[i, "x"]) else (1, table.at[i, "x"])))
    return table.iloc[order].reset_index(drop=True)


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


# -------------------------------------------------------------------------- CLI

def rows_from_spec(spec, experiment: str) -> list[TableRow]:
    """SPEC.json: a list of rows, or {"n_trials": N, "rows": [...]}.

    Each row: {"algorithm": str, "x": number or null (optional), "chunks": [paths],
    "summary": path, "n_trials": N (optional, overrides the top-level one)}.
    """
    default_n = None
    if isinstance(spec, dict):
        default_n = spec.get("n_trials")
        spec = spec.get("rows")
    if not isinstance(spec, list):
        raise UserError("table spec must be a list of rows or an object with a 'rows' list")
    rows = []
    for entry in spec:
        if not isinstance(entry, dict):
            raise UserError(f"table spec row must be an object, got {entry!r}")
        rows.append(_as_row({"n_trials": default_n, **entry, "experiment": experiment}))
    return rows


def main_aggregate(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="linbandits p1rage-table",
                                     description="Aggregate trial chunks into a table.")
    parser.add_argument("--experiment", required=True)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--spec", help="JSON file listing the rows")
    source.add_argument("--rows", help="the same JSON, given inline (the pipeline's table rule)")
    parser.add_argument("--out-csv", required=True)
    parser.add_argument("--out-md", required=True)
    parser.add_argument("--out-tex", required=True)
    args = parser.parse_args(argv)
    # A UserError propagates to linbandits.cli.main, which prints it alone.
    if args.rows is not None:
        spec = json_argument(args.rows, "--rows")
    else:
        try:
            with open(args.spec, encoding="utf-8") as handle:
                spec = json.load(handle)
        except (FileNotFoundError, json.JSONDecodeError) as exc:
            raise UserError(f"cannot read table spec {args.spec}: {exc}") from None
    table = aggregate(rows_from_spec(spec, args.experiment))
    write_table(table, args.out_csv, args.out_md, args.out_tex)
    return 0

