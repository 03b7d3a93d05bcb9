"""Figs. 1-4 and the switch figures: mean cumulative regret vs round with its 95% interval of the mean
shaded (Student's t over the runs), linear axes, and C log t, the asymptotic lower bound, as a
reference where it falls inside the curves' range (else its value at n is stated above the panel).

Every algorithm has its colour and marker; a switch run keeps them, drawn dashed (or dotted) with
open markers, so that every series reads in greyscale."""
from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from linbandits.plotting import (add_figure_legend, algorithm_style, band_phrase, house_style, mark_heading,
                                 mean_interval, new_figure, reference_curve, save_figure, series_with_band,
                                 set_panel_title)

PALETTE = {"OAM": ("#d62728", "o"), "LinUCB": ("#1f77b4", "s"), "OSSB": ("#2ca02c", "^"),
           "LinTS": ("#9467bd", "D"), "LinTS-heuristic": ("#ff7f0e", "v")}
REFERENCE_LABEL = "asymptotic lower bound C log t"
SWITCH_STYLES = ("--", ":", "-.")
OVERLAP = 0.01      # two mean curves within 1% of the larger's top everywhere are drawn on one another


def number(value: float) -> str:
    """29,657 rather than 2.966e+04; 4 significant digits below 1000."""
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}"


def draw_panel(ax, panel: dict) -> None:
    horizon, n_runs, top, drawn = panel["horizon"], set(), 0.0, {}
    slot = 0
    for k, (exp, runs) in enumerate(panel["series"]):
        style = "-" if k == 0 else SWITCH_STYLES[(k - 1) % len(SWITCH_STYLES)]
        for algo in exp.algorithms:
            t, curves = runs.curve("single", algo)
            colour, marker = algorithm_style(algo, PALETTE)
            label = algo if k == 0 else f"{algo} ({exp.choice} = {exp.switch})"
            mean, low, high = mean_interval(curves)
            # a curve drawn over another is named so, or its legend entry points at nothing visible
            same = [other for other, m in drawn.items() if m.shape == mean.shape]
            twin = next((other for other in same if np.array_equal(drawn[other], mean)), None)
            scale = OVERLAP * max(np.abs(mean).max(), 1e-9)
            near = next((other for other in same if np.abs(drawn[other] - mean).max() <= scale), None)
            if twin is not None:
                label += f", the same curve as {twin}"
            elif near is not None:
                label += f", on {near}'s curve"
            series_with_band(ax, t, mean, low, high, label, colour, marker, style, slot=slot, hollow=k > 0)
            drawn[label] = mean
            slot += 1
            top = max(top, float(high.max()))
            n_runs.add(curves.shape[0])
    ax.set_xlim(0, horizon)
    ax.set_ylim(0, 1.05 * max(top, 1e-9))
    t = np.arange(1, horizon + 1)
    reference = panel["C"] * np.log(t)
    # C = 0 (bounded regret): the bound is the x axis itself; drawing it there says nothing
    shown = panel["C"] > 0 and reference_curve(ax, t, reference, REFERENCE_LABEL)
    ax.set_xlabel("round t")
    ax.set_ylabel("cumulative regret")
    bound = f"C = {number(panel['C'])}, C log n = {number(panel['C'] * np.log(horizon))}"
    where = "" if shown else (": the lower bound is 0" if panel["C"] <= 0 else ": above the axes")
    note = f"{band_phrase(n_runs)}\n{bound}{where}"
    set_panel_title(ax, panel["title"], note)


def draw_figure(panels: list[dict], spec: dict, stem: str, note: str, preview: str) -> Figure:
    """Panels side by side, each a dict with its `title`, `series` (pairs of an experiment and its runs),
    the lower bound `C` and the `horizon`; the note, if any, heads the figure."""
    with house_style():
        fig = new_figure(1 if len(panels) == 1 else 2, 3.1)
        axes = fig.subplots(1, len(panels), squeeze=False)[0]
        for ax, panel in zip(axes, panels):
            draw_panel(ax, panel)
        add_figure_legend(fig, last_labels=(REFERENCE_LABEL,))
        mark_heading(fig, note, preview)
        save_figure(fig, stem)
    return fig
