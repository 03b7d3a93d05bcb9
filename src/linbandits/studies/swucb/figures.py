"""Figs. 1-2 and the switches figure: mean cumulative dynamic regret vs T, log-log, with the 95% interval
of the mean shaded (Student's t over the runs), and each series' OLS slope fit drawn with its 95%
bootstrap CI (the slopes table's numbers).

One colour and marker per algorithm throughout the study; a switch run's series keep their
algorithm's colour and marker in the house's switch look (dashed, open markers), and every fit line is
thin and solid in its series' colour, as the legend shows it (linbandits.plotting). A user's own
algorithm (extra_algorithms) is drawn like the paper's, in the house's user look.
"""
from __future__ import annotations

import re

import numpy as np
from matplotlib.figure import Figure

from linbandits.plotting import (BAND_ALPHA, FIT_STYLE, algorithm_style, band_phrase, house_style, mark_heading,
                                 mean_interval, new_figure, save_figure, series_gid, set_panel_title, switch_style,
                                 use_log_x, use_log_y)

PALETTE = {"SW-UCB": ("#1f77b4", "o"), "EXP3.S": ("#d62728", "s"), "BOB": ("#2ca02c", "^")}
FIT_LABEL = "OLS fit; fan: the slope's 95% bootstrap CI"
# A switch run's options in words (the series' key in the slopes table is 'EXP3.S (variant=rexp3)'); no
# subscript in a legend (B_T would be drawn at 4.9 pt)
OPTION_WORDS = {"variant=rexp3": "Rexp3, restarts", "variation=budget": "V = the variation budget",
                "window=known": "told the variation budget"}


def in_words(label: str) -> str:
    """'EXP3.S (variant=rexp3)' -> 'EXP3.S (Rexp3, restarts)'; an option without
    words of its own is written 'key = value'."""
    return re.sub(r"(\w+)=([^,)]+)", lambda m: OPTION_WORDS.get(m.group(0), f"{m.group(1)} = {m.group(2)}"), label)


def series_style(algorithm: str, switch: int | None) -> dict:
    """switch: None for a series of the paper's protocol, else the index of the switch run in its panel
    (0, 1, ...), drawn in the house's switch look."""
    colour, marker = algorithm_style(algorithm, PALETTE)
    return {"color": colour, "marker": marker, **({"linestyle": "-"} if switch is None else switch_style(switch))}


def fit_of(slopes, experiment: str, label: str):
    row = slopes[(slopes["figure"] == experiment) & (slopes["series"] == label)]
    if row.empty or not np.isfinite(row["slope"].iloc[0]):
        return None
    r = row.iloc[0]
    return float(r["slope"]), float(r["ci95_low"]), float(r["ci95_high"]), float(r["theory_slope"])


def legend_label(label: str, n_runs: int, fit) -> str:
    text = f"{in_words(label)} ({n_runs} runs)"
    if fit is None:
        return text
    slope, low, high, theory = fit
    text += f":\nslope {slope:.3f} [{low:.3f}, {high:.3f}]"      # two lines: one column holds them
    return text + (f", theory {theory:.3f}" if np.isfinite(theory) else "")


def draw_series(ax, T, runs, label, style, fit, gid=None) -> tuple[float, float]:
    """Means with their 95% interval shaded, and the fit line (the house's fit look) with its CI fan; the y
    range drawn."""
    stats = np.array([[float(v) for v in mean_interval(np.asarray(r, float))] for r in runs])
    mean, low, high = stats.T
    low = np.maximum(low, mean * 1e-3)          # a log axis has no room for <= 0
    colour = style["color"]
    ax.fill_between(T, low, high, color=colour, alpha=BAND_ALPHA, linewidth=0)
    ax.plot(T, mean, label=label, linewidth=1.0, gid=gid, **style)
    if fit is not None:
        slope, s_low, s_high, _ = fit
        x, y = np.log(T), np.log(mean)
        xc, yc = x.mean(), y.mean()
        grid = np.linspace(x[0], x[-1], 50)
        lines = np.stack([yc + s * (grid - xc) for s in (slope, s_low, s_high)])
        ax.plot(np.exp(grid), np.exp(lines[0]), color=colour, **FIT_STYLE)
        ax.fill_between(np.exp(grid), np.exp(lines[1:].min(axis=0)), np.exp(lines[1:].max(axis=0)), color=colour,
                        alpha=0.35, linewidth=0)
    return float(low.min()), float(high.max())


def draw_panel(ax, panel: dict, legend_ax=None) -> None:
    """One panel with its own legend below it (in legend_ax, a blank row kept for it, so that the layout
    sizes the figure for it): a series' slope (from the panel's `slopes` table) belongs to its panel."""
    n_runs = set()
    for switch, experiment, series in panel["series"]:
        groups: dict = {}
        for s in series:
            groups.setdefault((s.algorithm, s.label), []).append(s)
        for (algorithm, label), group in groups.items():
            group = sorted(group, key=lambda s: s.T)
            T = np.array([s.T for s in group], float)
            runs = [s.runs for s in group]
            n = min(len(r) for r in runs)
            n_runs.add(n)
            fit = fit_of(panel["slopes"], experiment, label)
            draw_series(ax, T, runs, legend_label(label, n, fit), series_style(algorithm, switch), fit,
                        gid=series_gid(experiment, algorithm))
    use_log_x(ax)
    use_log_y(ax, subs=(1.0, 2.0, 5.0))
    ax.set_xlabel("horizon T")
    ax.set_ylabel("mean cumulative dynamic regret")
    set_panel_title(ax, panel["title"], band_phrase(n_runs) + " per point")
    ax.plot([], [], color="0.4", label=FIT_LABEL, **FIT_STYLE)
    if legend_ax is None:
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=1, frameon=False)
    else:
        legend = ax.legend(loc="upper center", bbox_to_anchor=(0.5, 1.0), bbox_transform=legend_ax.transAxes,
                           ncol=1, frameon=False, borderaxespad=0)
        legend.set_in_layout(False)


def legend_entries(panel: dict) -> int:
    return 1 + sum(len({(s.algorithm, s.label) for s in series}) for _, _, series in panel["series"])


def draw_figure(panels: list[dict], spec: dict, stem: str, note: str, preview: str) -> Figure:
    """Panels side by side, each a dict with its `title`, `series` ((switch, experiment, [Series]) triples:
    switch None for the protocol's runs, else the switch run's index in the panel) and the `slopes` table its
    fits are read from; the note, if any, heads the figure."""
    with house_style():
        most = max(legend_entries(p) for p in panels)
        legend_height = 0.29 * most                     # an entry is two lines of 7 pt
        fig = new_figure(1 if len(panels) == 1 else 2, 2.8 + legend_height)
        # the rows share what the titles and tick labels leave (about 0.9 in of the plot row's 2.8)
        grid = fig.add_gridspec(2, len(panels), height_ratios=(1.9, legend_height + 0.05))
        for k, panel in enumerate(panels):
            legend_ax = fig.add_subplot(grid[1, k])
            legend_ax.set_axis_off()
            draw_panel(fig.add_subplot(grid[0, k]), panel, legend_ax)
        mark_heading(fig, note, preview)
        save_figure(fig, stem)
        return fig


def make_figure(ctx, name: str, spec: dict) -> Figure:
    """The figure `name` of the study's config (`spec`) from the runs of the experiments its panels draw and
    the slopes table (linbandits.products.Context.figure_products)."""
    import pandas as pd

    from linbandits.studies.swucb import results

    slopes = pd.read_csv(ctx.table_paths("slopes")[0])
    panels = []
    for p in spec["panels"]:
        names = ctx.panel_experiments(spec, p)
        switches = [n for n in names if ctx.experiments[n].switch_of]
        series = [(switches.index(n) if n in switches else None, n,
                   results.experiment_series(ctx.experiments[n], ctx.runs(n))) for n in names]
        panels.append({"title": p.get("title") or ctx.experiments[p["experiment"]].title, "series": series})
    return draw_figure([{**p, "slopes": slopes} for p in panels], spec, ctx.figure_stem(name), "", ctx.banner())
