"""Figs. 1-2 and the switches figure: mean cumulative dynamic regret vs T, log-log, with +-1.96 s.e.
bands, and each series' OLS slope fit drawn with its 95% bootstrap CI (the slopes table's numbers).

One colour and marker per algorithm throughout the study; a switch run's series keep their
algorithm's colour and marker, with a dashed or dotted line and open markers.
"""
from __future__ import annotations

import matplotlib
import numpy as np
from matplotlib.figure import Figure

from linbandits.plotting import (BAND_ALPHA, PANEL_WIDTH, STYLE, algorithm_style, mark_preview, save_figure,
                                 set_panel_title, use_log_x, use_log_y)
from linbandits.runs import mean_se

PALETTE = {"SW-UCB": ("#1f77b4", "o"), "EXP3.S": ("#d62728", "s"), "BOB": ("#2ca02c", "^")}
SWITCH_STYLES = ("--", ":", "-.")
Z_BAND = 1.96
FIT_LABEL = "OLS fit; fan: the slope's 95% bootstrap CI"
SUBTITLE = "mean \u00b1 1.96 s.e. (shaded)"


def series_style(algorithm: str, k: int) -> dict:
    """k = 0 for the panel's published experiment, 1, 2, ... for the switch runs drawn beside it."""
    colour, marker = algorithm_style(algorithm, PALETTE)
    style = {"color": colour, "marker": marker, "linestyle": "-" if k == 0 else SWITCH_STYLES[(k - 1) % 3]}
    if k:
        style["markerfacecolor"] = "white"
    return style


def fit_of(slopes, experiment: str, label: str):
    row = slopes[(slopes["figure"] == experiment) & (slopes["series"] == label)]
    if row.empty or not np.isfinite(row["slope"].iloc[0]):
        return None
    r = row.iloc[0]
    return float(r["slope"]), float(r["ci95_low"]), float(r["ci95_high"]), float(r["theory_slope"])


def legend_label(label: str, n_runs: int, fit) -> str:
    text = f"{label} ({n_runs} runs)"
    if fit is None:
        return text
    slope, low, high, theory = fit
    text += f": slope {slope:.3f} [{low:.3f}, {high:.3f}]"
    return text + (f", theory {theory:.3f}" if np.isfinite(theory) else "")


def draw_series(ax, T, runs, label, style, fit) -> tuple[float, float]:
    """Means with their +-1.96 s.e. band, and the fit line with its CI fan; the y range drawn."""
    stats = [mean_se(r) for r in runs]
    mean = np.array([m for m, _ in stats])
    se = np.nan_to_num(np.array([s for _, s in stats]))
    low = np.maximum(mean - Z_BAND * se, mean * 1e-3)          # a log axis has no room for <= 0
    high = mean + Z_BAND * se
    colour = style["color"]
    ax.fill_between(T, low, high, color=colour, alpha=BAND_ALPHA, linewidth=0)
    ax.plot(T, mean, label=label, linewidth=1.0, **style)
    if fit is not None:
        slope, s_low, s_high, _ = fit
        x, y = np.log(T), np.log(mean)
        xc, yc = x.mean(), y.mean()
        grid = np.linspace(x[0], x[-1], 50)
        lines = np.stack([yc + s * (grid - xc) for s in (slope, s_low, s_high)])
        ax.plot(np.exp(grid), np.exp(lines[0]), color=colour, linewidth=0.8, alpha=0.8,
                linestyle=style["linestyle"])
        ax.fill_between(np.exp(grid), np.exp(lines[1:].min(axis=0)), np.exp(lines[1:].max(axis=0)), color=colour,
                        alpha=0.35, linewidth=0)
    return float(low.min()), float(high.max())


def draw_panel(ax, panel: dict, slopes) -> None:
    """One panel with its own legend below it: a series' slope belongs to its panel."""
    n_runs = set()
    for k, experiment, series in panel["series"]:
        groups: dict = {}
        for s in series:
            groups.setdefault((s.algorithm, s.label), []).append(s)
        for (algorithm, label), group in groups.items():
            group = sorted(group, key=lambda s: s.T)
            T = np.array([s.T for s in group], float)
            runs = [s.runs for s in group]
            n = min(len(r) for r in runs)
            n_runs.add(n)
            fit = fit_of(slopes, experiment, label)
            draw_series(ax, T, runs, legend_label(label, n, fit), series_style(algorithm, k), fit)
    use_log_x(ax)
    use_log_y(ax, subs=(1.0, 2.0, 5.0))
    ax.set_xlabel("horizon T")
    ax.set_ylabel("mean cumulative dynamic regret")
    runs_text = ", ".join(str(n) for n in sorted(n_runs))
    set_panel_title(ax, panel["title"], f"{SUBTITLE}; {runs_text} runs per point")
    ax.plot([], [], color="0.4", linewidth=0.8, label=FIT_LABEL)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=1, frameon=False)


def legend_entries(panel: dict) -> int:
    return 1 + sum(len({(s.algorithm, s.label) for s in series}) for _, _, series in panel["series"])


def draw_figure(panels: list[dict], slopes, stem: str, note: str = "") -> None:
    with matplotlib.rc_context(STYLE):
        most = max(legend_entries(p) for p in panels)
        fig = Figure(figsize=(max(5.2, (PANEL_WIDTH + 1.6) * len(panels)), 3.4 + 0.17 * most), layout="constrained")
        axes = fig.subplots(1, len(panels), squeeze=False)[0]
        for ax, panel in zip(axes, panels):
            draw_panel(ax, panel, slopes)
        mark_preview(fig, note or None)
        save_figure(fig, stem)
        return fig
