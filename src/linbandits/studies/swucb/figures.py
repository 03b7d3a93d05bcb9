"""Figs. 1-2: mean cumulative dynamic regret vs T, log-log, with +-1.96 SE bands.

CLI (called by the pipeline):
    linbandits swucb-figure --regret regret.csv --slopes slopes.csv \
        --panel EXPERIMENT[,EXPERIMENT...] [--panel ...] --title TITLE [--title ...] \
        [--subtitle TEXT] --out-stem figures/swucb/fig1
A panel draws every series of its experiments (a switch experiment beside the published one).
"""
from __future__ import annotations

import argparse

import matplotlib
import numpy as np
from matplotlib.figure import Figure

from linbandits.errors import UserError
from linbandits.plotting import (LEGEND_HEIGHT, MIN_FIGURE_WIDTH, PANEL_WIDTH, STYLE, algorithm_style,
                                 mark_preview, save_figure, use_log_x)
from linbandits.studies.swucb.results import read_table

PALETTE = {"SW-UCB": ("#1f77b4", "o"), "EXP3.S": ("#d62728", "s"), "BOB": ("#2ca02c", "^"),
           "EXP3.S (variant=rexp3)": ("#ff7f0e", "D"), "SW-UCB (window=known)": ("#9467bd", "v"),
           "SW-UCB (window=eq12)": ("#8c564b", "P"), "SW-UCB (window=corrected)": ("#17becf", "X")}


def plot_panel(ax, regret, slopes, experiments, title) -> None:
    rows = regret[regret["figure"].isin(experiments)]
    if rows.empty:
        raise UserError(f"the regret table has no rows for {', '.join(experiments)}")
    for (experiment, label), series in rows.groupby(["figure", "series"], sort=False):
        series = series.sort_values("T")
        fit = slopes[(slopes["figure"] == experiment) & (slopes["series"] == label)]
        legend = label
        if not fit.empty and np.isfinite(fit["slope"].iloc[0]):
            theory = fit["theory_slope"].iloc[0]
            legend += f": slope {fit['slope'].iloc[0]:.2f}"
            legend += f" (theory {theory:.2f})" if np.isfinite(theory) else ""
        colour, marker = algorithm_style(label, PALETTE)
        T = series["T"].to_numpy(float)
        mean = series["mean_regret"].to_numpy(float)
        low = np.maximum(series["band_low"].to_numpy(float), mean * 1e-3)
        ax.fill_between(T, low, series["band_high"].to_numpy(float), color=colour, alpha=0.2, linewidth=0)
        ax.plot(T, mean, color=colour, marker=marker, label=legend, gid=f"series:{experiment}:{label}")
    use_log_x(ax)
    ax.set_yscale("log")
    ax.set_xlabel("horizon T")
    ax.set_ylabel("mean cumulative dynamic regret")
    ax.set_title(title)
    # Below the axes, one entry per line: the labels carry the fitted slopes and are long.
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=1, frameon=False)


def write_figure(regret, slopes, panels, titles, stem, subtitle=None) -> None:
    if len(titles) != len(panels):
        raise UserError(f"got {len(titles)} titles for {len(panels)} panels")
    with matplotlib.rc_context(STYLE):
        width = max(MIN_FIGURE_WIDTH, (PANEL_WIDTH + 0.6) * len(panels))
        most = max(len(regret[regret["figure"].isin(e)].groupby(["figure", "series"])) for e in panels)
        fig = Figure(figsize=(width, 3.2 + 0.2 * most + LEGEND_HEIGHT), layout="constrained")
        axes = fig.subplots(1, len(panels), squeeze=False)[0]
        for ax, experiments, title in zip(axes, panels, titles):
            plot_panel(ax, regret, slopes, experiments, title)
        mark_preview(fig, subtitle)
        save_figure(fig, stem)


def main_figure(argv=None) -> int:
    p = argparse.ArgumentParser(prog="linbandits swucb-figure")
    p.add_argument("--regret", required=True)
    p.add_argument("--slopes", required=True)
    p.add_argument("--panel", action="append", required=True, help="experiments of one panel, comma-separated")
    p.add_argument("--title", action="append", required=True)
    p.add_argument("--subtitle", default=None)
    p.add_argument("--out-stem", required=True)
    args = p.parse_args(argv)
    write_figure(read_table(args.regret), read_table(args.slopes), [p.split(",") for p in args.panel],
                 args.title, args.out_stem, args.subtitle or None)
    return 0
