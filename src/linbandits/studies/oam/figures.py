"""Figs. 1-4 and the switch figures: mean cumulative regret vs round, +-1 s.e. shaded (s.d. with
ddof 1 over sqrt(runs)), linear axes, and C log t as the asymptotic reference."""
from __future__ import annotations

import matplotlib
import numpy as np
from matplotlib.figure import Figure

from linbandits.plotting import (PANEL_WIDTH, STYLE, add_figure_legend, algorithm_style, mark_preview, save_figure,
                                 set_panel_title)
from linbandits.runs import curve_mean_se

PALETTE = {"OAM": ("#d62728", "o"), "LinUCB": ("#1f77b4", "s"), "OSSB": ("#2ca02c", "^"),
           "LinTS": ("#9467bd", "D"), "LinTS-heuristic": ("#ff7f0e", "v")}
REFERENCE_LABEL = "C log t (lower bound)"
SWITCH_STYLES = ("--", ":", "-.")


def draw_series(ax, t, runs, label, colour, style="-"):
    mean, se = curve_mean_se(runs)
    ax.plot(t, mean, color=colour, linestyle=style, label=label)
    ax.fill_between(t, mean - se, mean + se, color=colour, alpha=0.2, linewidth=0)
    return float(mean.max())


def draw_panel(ax, panel: dict) -> None:
    top, horizon, n_runs = 0.0, panel["horizon"], 0
    for k, (exp, runs) in enumerate(panel["series"]):
        style = "-" if k == 0 else SWITCH_STYLES[(k - 1) % len(SWITCH_STYLES)]
        for algo in exp.algorithms:
            t, curves = runs.curve("single", algo)
            colour, _ = algorithm_style(algo, PALETTE)
            label = algo if k == 0 else f"{algo} ({exp.choice} = {exp.switch})"
            top = max(top, draw_series(ax, t, curves, label, colour, style))
            n_runs = max(n_runs, curves.shape[0])
    t = np.arange(1, horizon + 1)
    ref = panel["C"] * np.log(t)
    ax.plot(t, ref, color="black", linestyle=":", linewidth=1.1, label=REFERENCE_LABEL)
    # The reference may dwarf the curves (C = 3220 on the circle): keep the curves readable.
    clipped = ref[-1] > 3 * top
    ax.set_ylim(0, 1.08 * max(top, 1e-9) if clipped else None)
    ax.set_xlim(0, horizon)
    ax.set_xlabel("round t")
    ax.set_ylabel("cumulative regret")
    note = (f"C = {panel['C']:.4g}, C log n = {panel['C'] * np.log(horizon):.4g}"
            f"{' (off scale)' if clipped else ''}; mean +- 1 s.e. of {n_runs} runs")
    set_panel_title(ax, panel["title"], note)


def draw_figure(panels: list[dict], stem: str, note: str) -> None:
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(PANEL_WIDTH * len(panels) + 0.4, 3.6), layout="constrained")
        axes = fig.subplots(1, len(panels), squeeze=False)[0]
        for ax, panel in zip(axes, panels):
            draw_panel(ax, panel)
        add_figure_legend(fig, last_labels=(REFERENCE_LABEL,))
        mark_preview(fig, note or None)
        save_figure(fig, stem)
