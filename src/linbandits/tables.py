"""Raw chunks -> checked runs, and tables rendered as CSV, Markdown and LaTeX.

A simulate job writes one CSV row per run (`trial` first); a table row is
built from the chunks of one (experiment, setting, algorithm), which must
hold runs 0..n-1 exactly once. Rendering is byte-stable: the same table gives
the same bytes on every run and platform.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

from linbandits.atomic import write_text_atomic
from linbandits.errors import UserError

# '%.10g' is exact enough for probabilities out of <= 1e9 trials and gives the
# same bytes on every run and platform.
CSV_FLOAT_FORMAT = "%.10g"
DISPLAY_FLOAT_FORMAT = "%.4g"

# How many offending trials an error message lists before it says "...".
SHOWN_TRIALS = 10


def order_key(name: str, order) -> tuple[int, str]:
    """Names in `order` first, in that order; others follow alphabetically."""
    order = tuple(order)
    if name in order:
        return order.index(name), ""
    return len(order), name


# ---------------------------------------------------------------- reading inputs

def _short_list(values) -> str:
    values = list(values)
    shown = ", ".join(str(v) for v in values[:SHOWN_TRIALS])
    return shown + (", ..." if len(values) > SHOWN_TRIALS else "")


def read_chunk(path, columns, integer_columns=None) -> pd.DataFrame:
    """One raw chunk, checked: the expected columns (trial first), integer where required."""
    try:
        chunk = pd.read_csv(path)
    except FileNotFoundError:
        raise UserError(f"chunk file {path} does not exist") from None
    except pd.errors.EmptyDataError:
        raise UserError(f"chunk file {path} is empty (not even a header)") from None
    missing = [c for c in columns if c not in chunk.columns]
    if missing:
        raise UserError(f"chunk file {path} lacks column(s) {missing}; "
                        f"expected header {','.join(columns)}")
    for column in (columns if integer_columns is None else integer_columns):
        if len(chunk) and not pd.api.types.is_integer_dtype(chunk[column]):
            raise UserError(f"chunk file {path}: column {column!r} must hold integers only")
    return chunk[list(columns)]


def read_summary(path, required=()) -> dict:
    """An instance summary (JSON) with the keys a table needs."""
    try:
        with open(path, encoding="utf-8") as handle:
            summary = json.load(handle)
    except FileNotFoundError:
        raise UserError(f"instance summary {path} does not exist") from None
    except json.JSONDecodeError as exc:
        raise UserError(f"instance summary {path} is not valid JSON: {exc}") from None
    for key in required:
        if key not in summary:
            raise UserError(f"instance summary {path} lacks the key {key!r}")
    return summary


def collect_trials(chunk_paths, expected_n=None, columns=("trial",), integer_columns=None,
                   check=None) -> pd.DataFrame:
    """Concatenate chunks and require trials 0..n-1, each exactly once, sorted by trial.

    Without expected_n, n is the number of rows read, so a chunk missing at the
    very end of the range cannot be noticed; pass expected_n to catch it.
    check(chunk, path) may raise a UserError about one chunk's content.
    """
    if not chunk_paths:
        raise UserError("a table row lists no chunk files")
    parts = []
    for path in chunk_paths:
        chunk = read_chunk(path, columns, integer_columns)
        if check is not None:
            check(chunk, path)
        parts.append(chunk.assign(file=str(path)))
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


# -------------------------------------------------------------------- rendering

def table_to_csv(table: pd.DataFrame) -> str:
    return table.to_csv(index=False, float_format=CSV_FLOAT_FORMAT, na_rep="",
                        lineterminator="\n")


def _display_cells(table: pd.DataFrame, exact_columns=("x",)) -> list[list[str]]:
    """Cells as short strings: integers as such, floats to 4 significant digits, NaN empty.

    Columns in exact_columns keep all their digits: T = 10010 must not turn into 1.001e+04.
    """
    formats = [CSV_FLOAT_FORMAT if c in exact_columns else DISPLAY_FLOAT_FORMAT for c in table.columns]

    def cell(value, fmt) -> str:
        if isinstance(value, (float, np.floating)):
            return "" if math.isnan(value) else fmt % value
        return str(value)
    return [[cell(v, f) for v, f in zip(record, formats)]
            for record in table.itertuples(index=False)]


def table_to_markdown(table: pd.DataFrame, exact_columns=("x",)) -> str:
    numeric = [pd.api.types.is_numeric_dtype(table[c]) for c in table.columns]
    lines = ["| " + " | ".join(map(str, table.columns)) + " |",
             "|" + "|".join("---:" if num else ":---" for num in numeric) + "|"]
    for cells in _display_cells(table, exact_columns):
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


LATEX_SPECIALS = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    return "".join(LATEX_SPECIALS.get(ch, ch) for ch in text)


def table_to_latex(table: pd.DataFrame, exact_columns=("x",)) -> str:
    """A booktabs tabular (needs \\usepackage{booktabs}); text cells left, numbers right."""
    spec = "".join("r" if pd.api.types.is_numeric_dtype(table[c]) else "l" for c in table.columns)
    lines = [rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
             " & ".join(latex_escape(str(c)) for c in table.columns) + r" \\", r"\midrule"]
    for cells in _display_cells(table, exact_columns):
        lines.append(" & ".join(latex_escape(c) for c in cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


def write_table(table: pd.DataFrame, csv_path, md_path=None, tex_path=None, exact_columns=("x",)) -> None:
    """Write the CSV (byte-stable) and, if asked, Markdown and LaTeX renderings, atomically."""
    write_text_atomic(csv_path, table_to_csv(table))
    if md_path is not None:
        write_text_atomic(md_path, table_to_markdown(table, exact_columns))
    if tex_path is not None:
        write_text_atomic(tex_path, table_to_latex(table, exact_columns))
