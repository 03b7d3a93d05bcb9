"""Figs. 1-4 and the switch figures: mean cumulative regret vs round with its 95% interval of the mean
shaded (Student's t over the runs), and C log t, the asymptotic lower bound, as a reference where it falls
inside the curves' range (else its value at n is stated above the panel).

Linear axes, but a log y where the final means differ by more than SQUASH (on a linear axis the smaller
ones would lie on the x axis), and a log x where a panel's config says `logx` (a 10^5 switch run beside the
10^4 protocol). Every algorithm has its colour and marker; a switch run keeps them in the house's switch
look (dashed, open markers; linbandits.plotting), so that every series reads in greyscale. A figure of
more than two panels is two panels wide."""
from __future__ import annotations

import math

import numpy as np
from matplotlib.figure import Figure

from linbandits.plotting import (add_figure_legend, algorithm_style, band_phrase, house_style, mark_heading,
                                 mean_interval, new_figure, reference_curve, save_figure, series_gid, series_with_band,
                                 set_panel_title, switch_style, use_log_x, use_log_y)

PALETTE = {"OAM": ("#d62728", "o"), "LinUCB": ("#1f77b4", "s"), "OSSB": ("#2ca02c", "^"),
           "LinTS": ("#9467bd", "D"), "LinTS-heuristic": ("#ff7f0e", "v")}
REFERENCE_LABEL = "asymptotic lower bound C log t"
OVERLAP = 0.01      # two mean curves within 1% of the larger's top everywhere are drawn on one another
SQUASH = 20.0       # final means further apart than this factor go on a log y


def number(value: float) -> str:
    """29,657 rather than 2.966e+04; 4 significant digits below 1000."""
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}"


def panel_curves(panel: dict) -> list[dict]:
    """Every series of a panel: its label, look, rounds, mean and interval, runs."""
    out, drawn, switches = [], {}, 0
    for exp, runs in panel["series"]:
        look = switch_style(switches) if exp.switch_of else {"linestyle": "-"}
        switches += bool(exp.switch_of)
        for algo in exp.algorithms:
            t, curves = runs.curve("single", algo)
            label = f"{algo} ({exp.choice} = {exp.switch})" if exp.switch_of else algo
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
            drawn[label] = mean
            out.append({"label": label, "algorithm": algo, "experiment": exp.name, "switch": bool(exp.switch_of),
                        "linestyle": look["linestyle"], "t": t, "mean": mean, "low": low, "high": high,
                        "runs": curves.shape[0]})
    return out


def squashed(curves: list[dict]) -> bool:
    """True where a linear y would flatten the smaller series onto the axis."""
    finals = [float(c["mean"][-1]) for c in curves if c["mean"][-1] > 0]
    return len(finals) > 1 and max(finals) > SQUASH * min(finals)


def draw_panel(ax, panel: dict) -> None:
    curves = panel_curves(panel)
    horizon = max([panel["horizon"]] + [int(c["t"][-1]) for c in curves])
    log_y = squashed(curves)
    if panel.get("logx"):
        ax.set_xscale("log")        # before the curves: their markers are spread along a log axis
    for slot, c in enumerate(curves):
        colour, marker = algorithm_style(c["algorithm"], PALETTE)
        t, mean, low, high = c["t"], c["mean"], c["low"], c["high"]
        if log_y:       # a log axis holds positive values only: from the first round with regret
            keep = mean > 0
            t, mean, low, high = t[keep], mean[keep], np.maximum(low[keep], mean[keep] / 10), high[keep]
        series_with_band(ax, t, mean, low, high, c["label"], colour, marker, c["linestyle"], slot=slot,
                         hollow=c["switch"], gid=series_gid(c["experiment"], c["algorithm"]))
    top = max([float(c["high"].max()) for c in curves] + [1e-9])
    if panel.get("logx"):
        use_log_x(ax, subs=(1.0,))
        ax.set_xlim(1, horizon)
    else:
        ax.set_xlim(0, horizon)
    if log_y:
        use_log_y(ax)
        ax.set_ylim(top=2 * top)
    else:
        ax.set_ylim(0, 1.05 * top)
    t = np.arange(1, horizon + 1)
    reference = panel["C"] * np.log(t)
    # C = 0 (bounded regret): the bound is the x axis itself; drawing it there says nothing
    shown = panel["C"] > 0 and reference_curve(ax, t, reference, REFERENCE_LABEL)
    ax.set_xlabel("round t")
    ax.set_ylabel("cumulative regret" + (" (log scale)" if log_y else ""))
    bound = f"C = {number(panel['C'])}, C log n = {number(panel['C'] * np.log(horizon))}"
    where = "" if shown else (": the lower bound is 0" if panel["C"] <= 0 else ": above the axes")
    note = f"{band_phrase({c['runs'] for c in curves})}\n{bound}{where}"
    set_panel_title(ax, panel["title"], note)


def draw_figure(panels: list[dict], spec: dict, stem: str, note: str, preview: str) -> Figure:
    """Panels side by side (two a row in a figure of more than two), each a dict with its `title`, `series`
    (pairs of an experiment and its runs), the lower bound `C`, the `horizon` and `logx`; the note, if any,
    heads the figure."""
    columns = min(len(panels), 2)
    rows = math.ceil(len(panels) / columns)
    with house_style():
        fig = new_figure(columns, 0.4 + 2.7 * rows)
        axes = fig.subplots(rows, columns, squeeze=False).ravel()
        for ax, panel in zip(axes, panels):
            draw_panel(ax, panel)
        for ax in axes[len(panels):]:
            ax.set_visible(False)
        add_figure_legend(fig, last_labels=(REFERENCE_LABEL,))
        mark_heading(fig, note, preview)
        save_figure(fig, stem)
    return fig


def make_figure(ctx, name: str, spec: dict) -> Figure:
    """The figure `name` of the study's config (`spec`) from the runs of the experiments its panels draw,
    with each panel's lower bound from the lower-bounds table (linbandits.products.Context.figure_products)."""
    from linbandits.studies.oam.products import read_bounds

    bounds = read_bounds(ctx)
    panels = []
    for p in spec["panels"]:
        series = [(ctx.experiments[n], ctx.runs(n)) for n in ctx.panel_experiments(spec, p)]
        main = p["experiment"]
        panels.append({"title": p.get("title") or ctx.experiments[main].title, "series": series,
                       "C": float(bounds.loc[main, "C"]), "horizon": int(bounds.loc[main, "horizon"]),
                       "logx": p.get("logx", False)})
    return draw_figure(panels, spec, ctx.figure_stem(name), "", ctx.banner())
