"""Per-experiment stopping-time tables and Table 1 (pulls per arm at d = 5) beside the published one."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd

from linbandits.errors import UserError
from linbandits.tables import collect_trials, write_table

# Table 1 of the paper (d = 5, one run, "An example"), arms 1..6.
PUBLISHED_TABLE1 = {
    "XY-static": [1298590, 2546604, 2546666, 2546666, 2546666, 1273742],
    "LinGapE": [2133, 428889, 19, 34, 33, 11],
    "XY-oracle": [13646, 2728606, 68, 68, 68, 1],
}
BASE_COLUMNS = ("trial", "recommended", "correct", "stopping_time")


def read_runs(chunks, n_trials: int) -> tuple[pd.DataFrame, list[int]]:
    """Every run of one (setting, algorithm) and the runs censored at max_pulls (from the sidecars)."""
    header = pd.read_csv(chunks[0], nrows=0).columns
    pulls = [c for c in header if c.startswith("pulls_")]
    runs = collect_trials(chunks, expected_n=n_trials, columns=BASE_COLUMNS + tuple(pulls))
    censored = []
    for chunk in chunks:
        sidecar = Path(chunk).with_suffix(".json")
        if sidecar.exists():
            censored += json.loads(sidecar.read_text()).get("censored_trials", [])
    return runs, sorted(censored)


def summary_rows(rows) -> pd.DataFrame:
    """rows: (algorithm, x, chunks, n_trials) -> one line each: the distribution of the stopping time."""
    out = []
    for algorithm, x, chunks, n in rows:
        runs, censored = read_runs(chunks, n)
        tau = runs["stopping_time"].to_numpy(float)
        out.append({"algorithm": algorithm, "x": x, "runs": len(runs), "mean_tau": tau.mean(),
                    "sd_tau": tau.std(ddof=1) if len(tau) > 1 else 0.0, "min_tau": tau.min(),
                    "median_tau": float(np.median(tau)), "max_tau": tau.max(), "run0_tau": tau[0],
                    "correct": runs["correct"].mean(), "censored": len(censored)})
    return pd.DataFrame(out)


def table1(columns: dict) -> pd.DataFrame:
    """columns: label -> (runs DataFrame, published counts or None). Rows: arms 1..K and the total."""
    frames = []
    K = None
    for label, (runs, published) in columns.items():
        pulls = runs[[c for c in runs.columns if c.startswith("pulls_")]].to_numpy()
        K = pulls.shape[1]
        block = {}
        if published is not None:
            block[f"{label} published"] = list(published) + [sum(published)]
        totals = pulls.sum(axis=1)
        block[f"{label} run 0"] = list(pulls[0]) + [int(totals[0])]
        block[f"{label} median"] = list(np.median(pulls, axis=0)) + [float(np.median(totals))]
        block[f"{label} min"] = list(pulls.min(axis=0)) + [int(totals.min())]
        block[f"{label} max"] = list(pulls.max(axis=0)) + [int(totals.max())]
        frames.append(pd.DataFrame(block))
    table = pd.concat(frames, axis=1)
    table.insert(0, "arm", [str(a + 1) for a in range(K)] + ["total"])
    return table


def main_table(argv=None) -> int:
    """`linbandits lingape-table`: the stopping-time distribution of every (setting, algorithm)."""
    p = argparse.ArgumentParser(prog="linbandits lingape-table")
    p.add_argument("--row", nargs="+", action="append", required=True, metavar="ALGORITHM X N CHUNK",
                   help="algorithm, swept value, number of runs, its chunk CSVs")
    p.add_argument("--out", nargs=3, required=True, metavar=("CSV", "MD", "TEX"))
    args = p.parse_args(argv)
    rows = []
    for row in args.row:
        if len(row) < 4:
            raise UserError(f"--row needs ALGORITHM X N CHUNK..., got {' '.join(row)}")
        rows.append((row[0], float(row[1]), row[3:], int(row[2])))
    write_table(summary_rows(rows), *args.out)
    return 0


def main_table1(argv=None) -> int:
    """`linbandits lingape-table1`: Table 1 (d = 5) beside the published one."""
    p = argparse.ArgumentParser(prog="linbandits lingape-table1")
    p.add_argument("--column", nargs="+", action="append", required=True, metavar="LABEL N CHUNK",
                   help="column label (an algorithm name, or 'LinGapE (scratch)'), number of runs, chunk CSVs")
    p.add_argument("--out", nargs=3, required=True, metavar=("CSV", "MD", "TEX"))
    args = p.parse_args(argv)
    columns = {}
    for col in args.column:
        label, n, chunks = col[0], int(col[1]), col[2:]
        runs, _ = read_runs(chunks, n)
        columns[label] = (runs, PUBLISHED_TABLE1.get(label.split(" (")[0]))
    write_table(table1(columns), *args.out, exact_columns=tuple(
        c for c in table1(columns).columns if c != "arm"))
    return 0
