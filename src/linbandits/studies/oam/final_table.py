"""The final-regret table: one row per (experiment, algorithm), mean R(n) +- SE over the runs,
beside the instance's lower-bound constant C and the reference C log n.

`linbandits oam-table --aggregates STEM ... --out-stem results/oam/tables/final_regret`.
"""
from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from linbandits.studies.oam.aggregate import read_aggregate
from linbandits.tables import write_table

COLUMNS = ["experiment", "title", "switch", "algorithm", "horizon", "n_runs", "mean_regret", "se", "C", "C_log_n"]


def final_regret_table(aggregates) -> pd.DataFrame:
    rows = []
    for agg in aggregates:
        for algo in agg.meta["algorithms"]:
            final = agg.final(algo)
            rows.append({
                "experiment": agg.experiment, "title": agg.meta["title"], "switch": agg.meta.get("switch") or "",
                "algorithm": algo, "horizon": agg.horizon, "n_runs": final.size,
                "mean_regret": float(final.mean()),
                "se": float(final.std(ddof=1) / np.sqrt(final.size)) if final.size > 1 else float("nan"),
                "C": agg.C, "C_log_n": agg.C * float(np.log(agg.horizon)),
            })
    return pd.DataFrame(rows, columns=COLUMNS)


def main_table(argv=None) -> int:
    p = argparse.ArgumentParser(prog="linbandits oam-table")
    p.add_argument("--aggregates", nargs="+", required=True, help="aggregate stems (results/oam/curves/<exp>)")
    p.add_argument("--out-stem", required=True, help="writes STEM.csv, .md, .tex")
    args = p.parse_args(argv)
    table = final_regret_table([read_aggregate(s) for s in args.aggregates])
    write_table(table, f"{args.out_stem}.csv", f"{args.out_stem}.md", f"{args.out_stem}.tex",
                exact_columns=("horizon", "n_runs"))
    return 0
