"""Figs. 1-3: mean stopping time (10 runs, no error bars, as published) against d, Delta or K."""
from __future__ import annotations

import argparse

import pandas as pd
from matplotlib.figure import Figure

from linbandits import plotting
from linbandits.errors import UserError

PALETTE = {"LinGapE": ("#d62728", "o"), "LinGapE (scratch form)": ("#ff9896", "v"),
           "LinGapE (ratio rule)": ("#8c564b", "x"), "XY-static": ("#1f77b4", "s"),
           "XY-adaptive": ("#2ca02c", "^"), "XY-oracle": ("#9467bd", "D")}


def draw(series, stem, xlabel, title, logx=False, logy=False, subtitle=None, preview=None):
    """series: label -> summary table rows of one algorithm (x, mean_tau, censored)."""
    with plotting.matplotlib.rc_context(plotting.STYLE):
        fig = Figure(figsize=(plotting.MIN_FIGURE_WIDTH, 3.6 + plotting.LEGEND_HEIGHT), layout="constrained")
        ax = fig.add_subplot()
        for label, rows in series.items():
            rows = rows.sort_values("x")
            colour, marker = plotting.algorithm_style(label, PALETTE)
            dashed = "--" if "(" in label else "-"
            ax.plot(rows["x"], rows["mean_tau"], dashed, color=colour, marker=marker, label=label)
            cens = rows[rows["censored"] > 0]
            if len(cens):   # censored runs: the mean is a lower bound
                ax.plot(cens["x"], cens["mean_tau"], "^", color=colour, markersize=9, markerfacecolor="none",
                        label="mean over runs stopped at the pull cap (lower bound)")
        if logx:
            plotting.use_log_x(ax)
        if logy:
            ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("mean stopping time (pulls)")
        plotting.set_panel_title(ax, title, subtitle)
        plotting.add_figure_legend(fig, last_labels=("mean over runs stopped at the pull cap (lower bound)",))
        plotting.mark_preview(fig, preview)
        plotting.save_figure(fig, stem)


def main_figure(argv=None) -> int:
    """`linbandits lingape-figure`: one figure from summary tables."""
    p = argparse.ArgumentParser(prog="linbandits lingape-figure")
    p.add_argument("--series", action="append", required=True, metavar="LABEL=TABLE:ALGORITHM")
    p.add_argument("--xlabel", required=True)
    p.add_argument("--title", required=True)
    p.add_argument("--subtitle", default=None)
    p.add_argument("--preview", default=None)
    p.add_argument("--logx", action="store_true")
    p.add_argument("--logy", action="store_true")
    p.add_argument("--out-stem", required=True)
    args = p.parse_args(argv)
    series = {}
    for spec in args.series:
        label, _, rest = spec.partition("=")
        path, _, algorithm = rest.rpartition(":")
        if not (label and path and algorithm):
            raise UserError(f"--series {spec!r} is not LABEL=TABLE:ALGORITHM")
        table = pd.read_csv(path)
        rows = table[table["algorithm"] == algorithm]
        if rows.empty:
            raise UserError(f"table {path} has no rows of {algorithm}; it has {sorted(set(table['algorithm']))}")
        series[label] = pd.concat([series[label], rows]) if label in series else rows
    draw(series, args.out_stem, args.xlabel, args.title, args.logx, args.logy, args.subtitle or None,
         args.preview or None)
    return 0
