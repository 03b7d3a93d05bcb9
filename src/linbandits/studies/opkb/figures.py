"""Figs. 1-2: mean cumulative regret against the round over the instance seeds, its 95% interval of
the mean shaded (Student's t, plotting.mean_interval). Dashed (and dotted)
series are extra runs drawn beside the protocol's: SW-GPUCB with window 1000 on J.3, SW-GPUCB with
the authors' window removal (removal = published) on Env 2. The paper prints no regret numbers,
so there is nothing to mark as published."""
from __future__ import annotations

from matplotlib.figure import Figure

from linbandits.plotting import (add_figure_legend, algorithm_style, band_phrase, house_style, integer_ticks,
                                 mark_heading, mean_interval, new_figure, save_figure, series_with_band,
                                 set_panel_title)

# One colour and marker per algorithm throughout the study.
PALETTE = {"SW-GPUCB": ("#1f77b4", "o"), "WGPUCB": ("#2ca02c", "s"), "ADA-OPKB": ("#d62728", "D"),
           "GP-UCB": ("#9467bd", "^"), "OPKB": ("#ff7f0e", "v"), "ADA-OPNN": ("#8c564b", "P"),
           "OPNN": ("#e377c2", "h"), "OPNN0": ("#7f7f7f", "*")}
EXTRA_STYLES = ("--", ":", "-.")


def draw_panel(ax, panel: dict) -> None:
    extra = {}
    horizon = 1
    for slot, s in enumerate(panel["series"]):
        colour, marker = algorithm_style(s["algorithm"], PALETTE)
        style = "-"
        if s["dashed"]:
            style = extra.setdefault(s["label"], EXTRA_STYLES[len(extra) % len(EXTRA_STYLES)])
        mean, low, high = mean_interval(s["curves"])
        n = s["curves"].shape[0]
        series_with_band(ax, s["t"], mean, low, high, f"{s['label']} (n = {n})", colour, marker, style,
                         slot=slot, hollow=bool(s["dashed"]))
        horizon = max(horizon, int(s["t"][-1]))
    ax.set_xlim(0, horizon)
    ax.set_ylim(bottom=0)
    integer_ticks(ax, "x")
    ax.xaxis.get_major_locator().set_params(nbins=5)     # 0, 2000, ..., 10000: labels that do not touch
    ax.set_xlabel("round t")
    ax.set_ylabel("cumulative regret")
    seeds = panel["seeds"]
    set_panel_title(ax, panel["title"], band_phrase(seeds, unit="instance seed"))


def draw_figure(panels: list[dict], spec: dict, stem: str, note: str, preview: str) -> Figure:
    """Panels side by side, each a dict with its `title`, `series` (per algorithm: `label`, rounds `t`, per-run
    cumulative regret `curves`, `dashed`) and `seeds`; the heading is the spec's `title` and the note."""
    with house_style():
        fig = new_figure(1 if len(panels) == 1 else 2, 3.4)
        axes = fig.subplots(1, len(panels), squeeze=False)[0]
        for ax, panel in zip(axes, panels):
            if panel["series"]:
                draw_panel(ax, panel)
            else:
                ax.text(0.5, 0.5, "not run", ha="center", transform=ax.transAxes)
                ax.set_title(panel["title"])
        add_figure_legend(fig)
        mark_heading(fig, "\n".join(x for x in (spec.get("title", ""), note) if x), preview)
        save_figure(fig, stem)
    return fig
