"""Every published cell of Xiong et al. beside its reproduction (spec G).

The published numbers (`p1rage_published.csv`, copied from
shared/published/) come from the authors' result arrays. Fig. 2a's arrays
are not independent trials, so each cell carries an effective size
(`effective_n` = trials / variance inflation); a cell is compared at that
size, or honest agreement would look like a discrepancy.

Per cell: difference = reproduced p - published p, and the pooled
two-proportion z of that difference with the published side at its
effective size. Verdict "consistent" when |z| <= the two-sided 99% normal
quantile (2.576), else "differs". Yahoo! rows (the authors ran real R6A)
are compared only when this run used R6A; on the synthetic stand-in they
are "not comparable". A published cell without a reproduced one is
"not run".
"""
from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np
import pandas as pd

from linbandits.atomic import write_text_atomic
from linbandits.errors import UserError
from linbandits.tables import table_to_csv, table_to_latex, table_to_markdown

PUBLISHED_CSV = Path(__file__).with_name("p1rage_published.csv")
LEVEL = 0.99
YAHOO = "yahoo_repeat"
CONSISTENT, DIFFERS, NOT_COMPARABLE, NOT_RUN = "consistent", "differs", "not comparable (synthetic stand-in)", "not run"
COLUMNS = ["experiment", "algorithm", "x", "published_p", "published_n", "effective_n", "reproduced_p",
           "reproduced_n", "difference", "z", "verdict"]


def read_published(path=PUBLISHED_CSV) -> pd.DataFrame:
    table = pd.read_csv(path, keep_default_na=False, na_values={"x": [""]})
    needed = {"experiment", "algorithm", "x", "n_trials", "n_errors", "effective_n"}
    if not needed <= set(table.columns):
        raise UserError(f"{path}: published table lacks {sorted(needed - set(table.columns))}")
    table["x"] = table["x"].astype(float)
    return table


def z_at_effective_size(p_pub: float, n_eff: float, p_rep: float, n_rep: int) -> float:
    """Pooled two-proportion z of p_rep - p_pub, the published side at n_eff."""
    pooled = (p_pub * n_eff + p_rep * n_rep) / (n_eff + n_rep)
    variance = pooled * (1 - pooled) * (1 / n_eff + 1 / n_rep)
    return 0.0 if variance <= 0 else (p_rep - p_pub) / math.sqrt(variance)


def _key(x) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{float(x):g}"


def compare(published: pd.DataFrame, reproduced: pd.DataFrame, yahoo_is_r6a: bool,
            level: float = LEVEL) -> pd.DataFrame:
    """One row per published cell (COLUMNS)."""
    from scipy.stats import norm   # here: the figure jobs import this module for the published cells alone

    critical = norm.ppf(0.5 + level / 2)
    rep = {(r.experiment, r.algorithm, _key(r.x)): r for r in reproduced.itertuples()}
    rows = []
    for r in published.itertuples():
        p_pub = r.n_errors / r.n_trials
        row = {"experiment": r.experiment, "algorithm": r.algorithm, "x": r.x, "published_p": p_pub,
               "published_n": int(r.n_trials), "effective_n": float(r.effective_n), "reproduced_p": np.nan,
               "reproduced_n": np.nan, "difference": np.nan, "z": np.nan}
        match = rep.get((r.experiment, r.algorithm, _key(r.x)))
        if match is None:
            row["verdict"] = NOT_RUN
        else:
            p_rep, n_rep = match.n_errors / match.n_trials, int(match.n_trials)
            row.update(reproduced_p=p_rep, reproduced_n=n_rep, difference=p_rep - p_pub)
            if r.experiment == YAHOO and not yahoo_is_r6a:
                row["verdict"] = NOT_COMPARABLE
            else:
                z = z_at_effective_size(p_pub, float(r.effective_n), p_rep, n_rep)
                row.update(z=z, verdict=CONSISTENT if abs(z) <= critical else DIFFERS)
        rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS)


def summary(comparison: pd.DataFrame) -> dict:
    synthetic = comparison[comparison["experiment"] != YAHOO]
    compared = synthetic[synthetic["verdict"].isin([CONSISTENT, DIFFERS])]
    yahoo = comparison[comparison["experiment"] == YAHOO]
    return {"synthetic_cells": int(len(synthetic)), "compared": int(len(compared)),
            "consistent": int((compared["verdict"] == CONSISTENT).sum()),
            "differs": compared[compared["verdict"] == DIFFERS][["experiment", "algorithm", "x", "published_p",
                                                                  "reproduced_p", "z"]].to_dict("records"),
            "yahoo": "compared" if (yahoo["verdict"].isin([CONSISTENT, DIFFERS])).any()
            else ("not comparable: this run used the synthetic stand-in for R6A"
                  if (yahoo["verdict"] == NOT_COMPARABLE).any() else "not run")}


def summary_line(s: dict) -> str:
    line = f"{s['consistent']} of {s['synthetic_cells']} synthetic cells consistent"
    if s["compared"] != s["synthetic_cells"]:
        line += f" ({s['synthetic_cells'] - s['compared']} not run)"
    return line + f" (99%, pooled z at the published effective size); Yahoo! R6A rows: {s['yahoo']}"


def write_comparison(comparison: pd.DataFrame, csv_path, md_path, tex_path) -> dict:
    s = summary(comparison)
    write_text_atomic(csv_path, table_to_csv(comparison))
    write_text_atomic(md_path, f"# Published beside reproduced\n\n{summary_line(s)}.\n\n"
                      + table_to_markdown(comparison))
    write_text_atomic(tex_path, f"% {summary_line(s)}\n" + table_to_latex(comparison))
    return s


def load_reproduced(paths) -> pd.DataFrame:
    from linbandits.studies.p1rage.error_tables import read_table

    return pd.concat([read_table(p) for p in paths], ignore_index=True)


def published_for(experiment: str, published: pd.DataFrame | None = None) -> pd.DataFrame:
    """The published cells of one experiment, as error_prob by algorithm and x (for figures)."""
    published = read_published() if published is None else published
    rows = published[published["experiment"] == experiment].copy()
    rows["error_prob"] = rows["n_errors"] / rows["n_trials"]
    return rows


def main_compare(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="linbandits p1rage-published",
                                     description="Every published cell beside its reproduction (spec G).")
    parser.add_argument("--table", action="append", default=[], metavar="CSV", help="reproduced table(s)")
    parser.add_argument("--published", default=str(PUBLISHED_CSV))
    parser.add_argument("--yahoo-source", choices=("r6a", "synthetic"), required=True)
    parser.add_argument("--out-csv", required=True)
    parser.add_argument("--out-md", required=True)
    parser.add_argument("--out-tex", required=True)
    args = parser.parse_args(argv)
    comparison = compare(read_published(args.published), load_reproduced(args.table), args.yahoo_source == "r6a")
    s = write_comparison(comparison, args.out_csv, args.out_md, args.out_tex)
    print(summary_line(s))
    return 0
