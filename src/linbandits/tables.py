"""Aggregate raw trial chunks into error-probability tables and render them.

A table has one row per (algorithm, x): x is the swept value (T, s or L) or
missing for single-setting experiments. Raw chunks are CSVs with columns
`trial,recommended,correct`; instance summaries are JSON files with at least
`best_arm` and `min_gap`.

CLI (called by the pipeline):
    python -m linbandits.tables --experiment NAME --spec SPEC.json \
        --out-csv T.csv --out-md T.md --out-tex T.tex
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys

import numpy as np
import pandas as pd

from linbandits.atomic import write_text_atomic
from linbandits.errors import UserError
from linbandits.stats import normal_ci, wilson_ci

# The order of the legends and tables in the paper.
ALGORITHM_ORDER = ("G-BAI", "P1-RAGE", "P1-Peace", "Peace", "Mixed-Peace", "OD-LinBAI")

TABLE_COLUMNS = ("experiment", "algorithm", "x", "n_trials", "n_errors", "error_prob",
                 "ci95_low", "ci95_high", "min_gap", "wilson_low", "wilson_high")

CHUNK_COLUMNS = ("trial", "recommended", "correct")

# '%.10g' is exact enough for probabilities out of <= 1e9 trials and gives the
# same bytes on every run and platform.
CSV_FLOAT_FORMAT = "%.10g"
DISPLAY_FLOAT_FORMAT = "%.4g"

# How many offending trials an error message lists before it says "...".
SHOWN_TRIALS = 10


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
    if name in ALGORITHM_ORDER:
        return ALGORITHM_ORDER.index(name), ""
    return len(ALGORITHM_ORDER), name


# ---------------------------------------------------------------- reading inputs

def _short_list(values) -> str:
    values = list(values)
    shown = ", ".join(str(v) for v in values[:SHOWN_TRIALS])
    return shown + (", ..." if len(values) > SHOWN_TRIALS else "")


def read_chunk(path) -> pd.DataFrame:
    """One raw chunk, checked: the three columns, integer trials, correct in {0, 1}."""
    try:
        chunk = pd.read_csv(path)
    except FileNotFoundError:
        raise UserError(f"chunk file {path} does not exist") from None
    except pd.errors.EmptyDataError:
        raise UserError(f"chunk file {path} is empty (not even a header)") from None
    missing = [c for c in CHUNK_COLUMNS if c not in chunk.columns]
    if missing:
        raise UserError(f"chunk file {path} lacks column(s) {missing}; "
                        f"expected header {','.join(CHUNK_COLUMNS)}")
    for column in CHUNK_COLUMNS:
        if len(chunk) and not pd.api.types.is_integer_dtype(chunk[column]):
            raise UserError(f"chunk file {path}: column {column!r} must hold integers only")
    if not chunk["correct"].isin((0, 1)).all():
        raise UserError(f"chunk file {path}: column 'correct' must be 0 or 1")
    return chunk[list(CHUNK_COLUMNS)]


def read_summary(path) -> dict:
    try:
        with open(path, encoding="utf-8") as handle:
            summary = json.load(handle)
    except FileNotFoundError:
        raise UserError(f"instance summary {path} does not exist") from None
    except json.JSONDecodeError as exc:
        raise UserError(f"instance summary {path} is not valid JSON: {exc}") from None
    for key in ("best_arm", "min_gap"):
        if key not in summary:
            raise UserError(f"instance summary {path} lacks the key {key!r}")
    return summary


def collect_trials(chunk_paths, expected_n=None) -> pd.DataFrame:
    """Concatenate chunks and require trials 0..n-1, each exactly once.

    Without expected_n, n is the number of rows read, so a chunk missing at the
    very end of the range cannot be noticed; pass expected_n to catch it.
    """
    if not chunk_paths:
        raise UserError("a table row lists no chunk files")
    parts = [read_chunk(path).assign(file=str(path)) for path in chunk_paths]
    trials = pd.concat(parts, ignore_index=True)
    files = ", ".join(str(p) for p in chunk_paths)
    if trials.empty:
        raise UserError(f"chunk files hold no trials: {files}")

    repeated = trials[trials.duplicated("trial", keep=False)]
    if not repeated.empty:
        where = repeated.groupby("trial")["file"].apply(lambda f: " + ".join(sorted(set(f))))
        details = "; ".join(f"trial {t} in {w}" for t, w in list(where.items())[:SHOWN_TRIALS])
        raise UserError(f"{len(where)} trial(s) appear more than once: {details}")

    n = len(trials) if expected_n is None else int(expected_n)
    present = trials["trial"].to_numpy()
    absent = np.setdiff1d(np.arange(n), present)
    outside = np.sort(present[(present < 0) | (present >= n)])
    if absent.size or outside.size:
        raise UserError(f"chunk files must hold trials 0..{n - 1} exactly once; "
                        f"missing {absent.size} trial(s) [{_short_list(absent)}], "
                        f"out of range [{_short_list(outside)}]; files: {files}")
    return trials.sort_values("trial", ignore_index=True)


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


# -------------------------------------------------------------------- rendering

def table_to_csv(table: pd.DataFrame) -> str:
    return table.to_csv(index=False, float_format=CSV_FLOAT_FORMAT, na_rep="",
                        lineterminator="\n")


def _display_cells(table: pd.DataFrame) -> list[list[str]]:
    """Cells as short strings: integers as such, floats to 4 significant digits, NaN empty.

    x keeps all its digits: T = 10010 must not turn into 1.001e+04.
    """
    formats = [CSV_FLOAT_FORMAT if c == "x" else DISPLAY_FLOAT_FORMAT for c in table.columns]

    def cell(value, fmt) -> str:
        if isinstance(value, (float, np.floating)):
            return "" if math.isnan(value) else fmt % value
        return str(value)
    return [[cell(v, f) for v, f in zip(record, formats)]
            for record in table.itertuples(index=False)]


def table_to_markdown(table: pd.DataFrame) -> str:
    numeric = [pd.api.types.is_numeric_dtype(table[c]) for c in table.columns]
    lines = ["| " + " | ".join(table.columns) + " |",
             "|" + "|".join("---:" if num else ":---" for num in numeric) + "|"]
    for cells in _display_cells(table):
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


LATEX_SPECIALS = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    return "".join(LATEX_SPECIALS.get(ch, ch) for ch in text)


def table_to_latex(table: pd.DataFrame) -> str:
    """A booktabs tabular (needs \\usepackage{booktabs}); text cells left, numbers right."""
    spec = "".join("r" if pd.api.types.is_numeric_dtype(table[c]) else "l" for c in table.columns)
    lines = [rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
             " & ".join(latex_escape(c) for c in table.columns) + r" \\", r"\midrule"]
    for cells in _display_cells(table):
        lines.append(" & ".join(latex_escape(c) for c in cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


def write_table(table: pd.DataFrame, csv_path, md_path=None, tex_path=None) -> None:
    """Write the CSV (byte-stable) and, if asked, Markdown and LaTeX renderings, atomically."""
    write_text_atomic(csv_path, table_to_csv(table))
    if md_path is not None:
        write_text_atomic(md_path, table_to_markdown(table))
    if tex_path is not None:
        write_text_atomic(tex_path, table_to_latex(table))


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
    parser = argparse.ArgumentParser(prog="python -m linbandits.tables",
                                     description="Aggregate trial chunks into a table.")
    parser.add_argument("--experiment", required=True)
    parser.add_argument("--spec", required=True, help="JSON file listing the rows")
    parser.add_argument("--out-csv", required=True)
    parser.add_argument("--out-md", required=True)
    parser.add_argument("--out-tex", required=True)
    args = parser.parse_args(argv)
    # A UserError propagates to linbandits.cli.main, which prints it alone.
    try:
        with open(args.spec, encoding="utf-8") as handle:
            spec = json.load(handle)
    except (FileNotFoundError, json.JSONDecodeError) as exc:
        raise UserError(f"cannot read table spec {args.spec}: {exc}") from None
    table = aggregate(rows_from_spec(spec, args.experiment))
    write_table(table, args.out_csv, args.out_md, args.out_tex)
    return 0


if __name__ == "__main__":
    from linbandits.cli import main

    sys.exit(main(["aggregate", *sys.argv[1:]]))
