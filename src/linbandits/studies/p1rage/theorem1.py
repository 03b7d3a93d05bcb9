"""Theorem 1 of the paper: G-BAI's error against its bound on the stationary Soare series."""
from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd


def theorem1_bound(K: int, d: int, T: int, gap: float) -> float:
    """Theorem 1: P(error of G-BAI) <= K exp(-T Delta^2 / (12 d))."""
    return K * math.exp(-T * gap ** 2 / (12 * d))


def main_theorem1(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="linbandits p1rage-theorem1",
                                     description="G-BAI's empirical error against the Theorem 1 bound.")
    parser.add_argument("--table", required=True, help="table of a budget (T) sweep")
    parser.add_argument("--out-stem", required=True)
    parser.add_argument("summaries", nargs="+", help="instance summaries (K, d, T, min_gap) of the settings")
    args = parser.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from linbandits.plotting import save_figure

    table = pd.read_csv(args.table)
    g = table[table["algorithm"] == "G-BAI"].sort_values("x")
    inst = sorted((json.loads(Path(p).read_text()) for p in args.summaries), key=lambda s: s["T"])
    T = np.array([s["T"] for s in inst], dtype=float)
    bound = np.array([theorem1_bound(s["K"], s["d"], s["T"], s["min_gap"]) for s in inst])
    fig = Figure(figsize=(5, 3.4), layout="constrained")
    ax = fig.add_subplot()
    floor = 1.0 / g["n_trials"].to_numpy()
    err = np.maximum(g["error_prob"].to_numpy(), floor)
    ax.plot(g["x"], err, "o-", label="G-BAI, empirical (0 errors drawn at 1/n)")
    ax.fill_between(g["x"], np.maximum(g["ci95_low"], floor), np.maximum(g["ci95_high"], floor), alpha=0.2)
    ax.plot(T, bound, "k--", label=r"bound $K\,e^{-T\Delta^2/(12d)}$")
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.set_yscale("log")
    ax.set_xlabel("budget T")
    ax.set_ylabel("error probability")
    ax.set_title("Theorem 1 on the stationary Soare series")
    ax.legend(fontsize=8)
    save_figure(fig, args.out_stem)
    return 0
