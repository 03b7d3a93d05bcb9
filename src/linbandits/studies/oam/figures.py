"""Figs. 1-4 and the switch figures: mean cumulative regret vs round, +-1 SE shaded
(std with ddof 1 over sqrt(runs)), linear axes, and C log t as the asymptotic reference.

`linbandits oam-figures --manifest JSON` draws every figure of the manifest:
{figure: {"stem": path without extension, "panels": [{"aggregate": stem, "title": str,
"overlay": [stem, ...]}], "note": preview note or ""}}.
"""
from __future__ import annotations

import argparse

import numpy as np
from matplotlib.figure import Figure

from linbandits.errors import UserError, json_argument
from linbandits.plotting import (PANEL_WIDTH, STYLE, add_figure_legend, algorithm_style, mark_preview,
                                 save_figure, set_panel_title)
from linbandits.studies.oam.aggregate import read_aggregate

PALETTE = {"OAM": ("#d62728", "o"), "LinUCB": ("#1f77b4", "s"), "OSSB": ("#2ca02c", "^"),
           "LinTS": ("#9467bd", "D"), "LinTS-heuristic": ("#ff7f0e", "v")}
REFERENCE_LABEL = "C log t (lower bound)"


def mean_and_se(runs: np.ndarray):
    return runs.mean(axis=0), runs.std(axis=0, ddof=1) / np.sqrt(runs.shape[0]) if runs.shape[0] > 1 \
        else np.zeros(runs.shape[1])


def draw_series(ax, t, runs, label, colour, dashed=False):
    mean, se = mean_and_se(runs)
    ax.plot(t, mean, color=colour, linestyle="--" if dashed else "-", label=label)
    ax.fill_between(t, mean - se, mean + se, color=colour, alpha=0.2, linewidth=0)


def draw_panel(ax, panel: dict) -> None:
    agg = read_aggregate(panel["aggregate"])
    top = 0.0
    for algo in agg.meta["algorithms"]:
        colour, _ = algorithm_style(algo, PALETTE)
        draw_series(ax, agg.t, agg.regret[algo], algo, colour)
        top = max(top, float(agg.regret[algo].mean(axis=0).max()))
    for stem in panel.get("overlay", []):
        other = read_aggregate(stem)
        if other.horizon != agg.horizon:
            raise UserError(f"overlay {other.experiment} has horizon {other.horizon}, the panel {agg.horizon}")
        for algo in other.meta["algorithms"]:
            colour, _ = algorithm_style(algo, PALETTE)
            draw_series(ax, other.t, other.regret[algo], f"{algo} ({other.meta['switch']})", colour, dashed=True)
            top = max(top, float(other.regret[algo].mean(axis=0).max()))
    ref = agg.C * np.log(agg.t)
    ax.plot(agg.t, ref, color="black", linestyle=":", linewidth=1.1, label=REFERENCE_LABEL)
    # The reference may dwarf the curves (C = 3220 on the circle): keep the curves readable.
    ax.set_ylim(0, 1.08 * max(top, 1e-9) if ref[-1] > 3 * top else None)
    ax.set_xlim(0, agg.horizon)
    ax.set_xlabel("round t")
    ax.set_ylabel("cumulative regret")
    note = f"C = {agg.C:.4g}, C log n = {agg.C * np.log(agg.horizon):.4g}; {agg.meta['n_runs']} runs"
    set_panel_title(ax, panel.get("title") or agg.meta["title"], note)


def write_figure(spec: dict) -> None:
    panels = spec["panels"]
    with __import__("matplotlib").rc_context(STYLE):
        fig = Figure(figsize=(PANEL_WIDTH * len(panels) + 0.4, 3.6), layout="constrained")
        axes = fig.subplots(1, len(panels), squeeze=False)[0]
        for ax, panel in zip(axes, panels):
            draw_panel(ax, panel)
        add_figure_legend(fig, last_labels=(REFERENCE_LABEL,))
        mark_preview(fig, spec.get("note") or None)
        save_figure(fig, spec["stem"])


def main_figures(argv=None) -> int:
    p = argparse.ArgumentParser(prog="linbandits oam-figures")
    p.add_argument("--manifest", required=True, help="JSON: {figure: {stem, panels: [{aggregate, title, overlay}]}}")
    args = p.parse_args(argv)
    manifest = json_argument(args.manifest, "--manifest")
    for spec in manifest.values():
        write_figure(spec)
    return 0
