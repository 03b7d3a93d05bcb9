"""P1-RAGE figures: error probability (curves or bars) and the instances' minimum gap.

Drawn from error tables (error_tables.experiment_table, made from the runs files by the study's
products): curves with the paper's 95% normal (Wald) band of the error probability (bars: its error
bars), the house's stated exception to its Student-t band of a mean (docs/studies.md), log y with
plain-number decade ticks, ticks at the swept values on a short linear x (no T = 10 drawn on a '0'
tick), one colour and marker per algorithm in every figure of the study. The house looks
(linbandits.plotting): a switch run's series dashed with open markers (its bars open with a dashed
edge), the authors' published cells as their algorithm's marker, open and black-edged, without a line;
the panels of a switch figure share their y axis. A panel whose every run is right is said so in
words, not drawn as curves stacked on the floor of an empty axis; a min-gap panel whose gap is one
number (up to rounding) is drawn about that number, not about its rounding noise.
"""
from __future__ import annotations

from collections.abc import Mapping

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator

from linbandits.errors import UserError
from linbandits.plotting import (LEGEND_HEIGHT, STYLE, add_figure_legend, integer_ticks, mark_heading, mark_preview,
                                 new_figure, per_panel, published_style, save_figure, series_gid,
                                 set_panel_title, switch_style, use_log_x, use_log_y)
from linbandits.plotting import algorithm_style as _style
from linbandits.studies.p1rage.error_tables import algorithm_sort_key, read_summary

# Fixed per algorithm so a colour means the same algorithm in every figure.
ALGORITHM_COLOURS = {"G-BAI": "#1f77b4", "P1-RAGE": "#d62728", "P1-Peace": "#ff7f0e",
                     "Peace": "#2ca02c", "Mixed-Peace": "#9467bd", "OD-LinBAI": "#8c564b"}
ALGORITHM_MARKERS = {"G-BAI": "o", "P1-RAGE": "s", "P1-Peace": "D",
                     "Peace": "^", "Mixed-Peace": "v", "OD-LinBAI": "X"}
PALETTE = {name: (ALGORITHM_COLOURS[name], ALGORITHM_MARKERS[name]) for name in ALGORITHM_COLOURS}

ZERO_FLOOR_LABEL = "0 errors: drawn at 1/n"
SWITCH_LABEL = "switch run: dashed, open"
GAP_LABEL = r"min gap $\Delta_{(1)}$"


def algorithm_style(name: str) -> tuple[str, str]:
    return _style(name, PALETTE)


def _algorithms(table: pd.DataFrame) -> list[str]:
    return sorted(table["algorithm"].unique(), key=algorithm_sort_key)


def _series(table: pd.DataFrame, algorithm: str) -> pd.DataFrame:
    rows = table[table["algorithm"] == algorithm].sort_values("x")
    if rows["x"].isna().any():
        raise UserError(f"{algorithm}: a curve needs an x value in every row "
                        f"(use bars for single-setting experiments)")
    return rows


# ------------------------------------------------------------------ axes level

PUBLISHED_LABEL = "published"      # its look (open black markers) in the legend, said in the caption
NO_ERRORS = "no errors: 0/{n} runs wrong\nat every {x} for every algorithm"


def plot_published_curves(published: pd.DataFrame, ax) -> None:
    """The authors' published error probabilities, each algorithm's marker in the house's published look
    (a zero drawn at 1/n_trials, like the reproduced curves)."""
    for algorithm in _algorithms(published):
        rows = published[published["algorithm"] == algorithm].sort_values("x")
        y = np.maximum(rows["error_prob"].to_numpy(float), 1.0 / rows["n_trials"].to_numpy(float))
        ax.plot(rows["x"].to_numpy(float), y, gid=f"published:{algorithm}", **published_style(algorithm_style(algorithm)[1]))
    ax.plot([], [], label=PUBLISHED_LABEL, **published_style("o"))


def plot_error_curves(table: pd.DataFrame, ax, xlabel: str, logx: bool = False,
                      published: pd.DataFrame | None = None, switch: bool = False) -> None:
    """Error probability vs x, log y, one line per algorithm with a shaded 95% band (a switch run's in
    the switch look).

    A zero error probability has no place on a log axis; it is drawn at 1/n_trials
    (the smallest non-zero estimate possible) with a hollow marker, and the band's
    lower limit is clipped to the same floor.
    """
    if (table["n_errors"] == 0).all() and (published is None or published.empty):
        no_errors_panel(table, ax, xlabel, logx)
        return
    any_zero = False
    drawn = {}
    for algorithm in _algorithms(table):
        rows = _series(table, algorithm)
        colour, marker = algorithm_style(algorithm)
        x = rows["x"].to_numpy(float)
        floor = 1.0 / rows["n_trials"].to_numpy(float)
        zero = rows["n_errors"].to_numpy() == 0
        y = np.where(zero, floor, rows["error_prob"].to_numpy(float))
        low = np.maximum(rows["ci95_low"].to_numpy(float), floor)
        high = np.maximum(rows["ci95_high"].to_numpy(float), floor)
        ax.fill_between(x, low, high, color=colour, alpha=0.15, linewidth=0)
        # a curve drawn exactly over an earlier one is named so, or its legend entry points at nothing visible
        twin = next((other for other, (ox, oy) in drawn.items() if np.array_equal(ox, x) and np.array_equal(oy, y)),
                    None)
        drawn[algorithm] = (x, y)
        look = switch_style() if switch else {}
        ax.plot(x, y, color=colour, marker=marker, label=algorithm if twin is None else f"{algorithm} (on {twin})",
                markevery=list(np.flatnonzero(~zero)), gid=series_gid(str(rows["experiment"].iloc[0]), algorithm),
                **look)
        if zero.any():
            any_zero = True
            ax.plot(x[zero], y[zero], linestyle="none", marker=marker, markerfacecolor="white",
                    markeredgecolor=colour, markeredgewidth=1.2, zorder=3,
                    gid=f"zero-floor:{algorithm}")
    if published is not None and not published.empty:
        plot_published_curves(published, ax)
    if any_zero:
        # One legend entry explains every hollow marker on the axes.
        ax.plot([], [], linestyle="none", marker="o", markerfacecolor="white",
                markeredgecolor="0.3", label=ZERO_FLOOR_LABEL)
    ax.set_yscale("log")
    bottom, top = ax.get_ylim()
    # probabilities stop at 1: an axis reaching past one half ends just above 1, its top labelled "1"
    # (Fig. 2b's errors reach 0.87, above the last labelled tick, 0.5)
    ax.set_ylim(bottom, PROBABILITY_TOP if top > 0.5 else top)
    log_y(ax)
    if logx:
        use_log_x(ax)
    else:
        integer_x(ax, table["x"])
    ax.set_xlabel(xlabel)
    ax.set_ylabel("error probability")


def no_errors_panel(table: pd.DataFrame, ax, xlabel: str, logx: bool) -> None:
    """Every run of every algorithm right: said in words over the swept range (six curves on the floor
    of an empty log axis say nothing more and hide one another)."""
    x = table["x"].to_numpy(float)
    ax.set_xlim(x.min(), x.max())
    if logx:
        use_log_x(ax)
    else:
        integer_x(ax, x)
    trials = "/".join(str(n) for n in sorted(table["n_trials"].unique()))
    ax.text(0.5, 0.5, NO_ERRORS.format(n=trials, x=xlabel.split()[-1] if xlabel else "x"), ha="center",
            va="center", transform=ax.transAxes, gid="no-errors")
    ax.set_yticks([])
    ax.grid(False)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("error probability")


def log_y(ax, wide=(1.0,), narrow=(1.0, 2.0, 3.0, 5.0)) -> None:
    """Log y with plain-number ticks: at `wide` x 10^k, or at 1, 2, 3, 5 x 10^k where the panel spans
    less than a decade and a half (a Yahoo! panel at 0.2-0.7 would have no labelled tick)."""
    ax.set_yscale("log")
    bottom, top = ax.get_ylim()
    use_log_y(ax, subs=narrow if top / bottom < 30 else wide)


FEW_VALUES = 7
PROBABILITY_TOP = 1.05     # a little above 1: a point at 1 keeps its whole marker


def integer_x(ax, x) -> None:
    """Ticks at the swept values where there are at most FEW_VALUES of them, standing apart and spanning
    all that is drawn (a published curve may reach further); whole-number ticks on a
    short integer axis (s = 0..9); a long one (L in the hundreds) keeps matplotlib's round steps."""
    x = np.asarray(x, float)
    x = np.unique(x[np.isfinite(x)])
    low, high = sorted((ax.dataLim.x0, ax.dataLim.x1)) if np.isfinite(ax.dataLim.x0) else (x.min(), x.max())
    span = max(high - low, x.max() - x.min())
    apart = x.size > 1 and np.diff(x).min() >= 0.08 * span
    covers = x.size > 1 and x.min() - low <= 0.01 * span and high - x.max() <= 0.01 * span   # nothing drawn beyond
    if 1 < x.size <= FEW_VALUES and apart and covers:
        ax.xaxis.set_major_locator(FixedLocator(x))      # a tick at each budget: T = 10 is not drawn at '0'
    elif x.size and np.all(x == np.round(x)) and x.max() - x.min() <= 20:
        integer_ticks(ax)


def min_gap_by_x(table_or_summaries) -> pd.Series:
    """min_gap indexed by x, from a table or from a mapping x -> summary path or value."""
    if isinstance(table_or_summaries, pd.DataFrame):
        table = table_or_summaries
        spread = table.groupby("x")["min_gap"].agg(lambda g: g.max() - g.min())
        if (spread > 1e-12 * table["min_gap"].abs().max()).any():
            raise UserError("min_gap differs between algorithms at the same x: "
                            "the rows were not built from the same instance summaries")
        gaps = table.groupby("x")["min_gap"].first()
    elif isinstance(table_or_summaries, Mapping):
        gaps = pd.Series({float(x): float(v) if isinstance(v, (int, float))
                          else float(read_summary(v)["min_gap"])
                          for x, v in table_or_summaries.items()}).sort_index()
    else:
        raise UserError("plot_min_gap needs a table or a mapping x -> summary")
    if gaps.index.isna().any() or (gaps <= 0).any():
        raise UserError("min-gap panel needs an x for every setting and positive gaps, "
                        f"got {gaps.to_dict()}")
    return gaps


ROUNDING = 1e-9


def plot_min_gap(table_or_summaries, ax, xlabel: str, logx: bool = False, x_ticks: bool = True) -> None:
    """The minimum gap of each instance vs x (log y), as under Figs. 3 and 6; x_ticks False under an
    error panel whose x axis it shares (its ticks were set for all that panel draws)."""
    gaps = min_gap_by_x(table_or_summaries)
    ax.plot(gaps.index.to_numpy(), gaps.to_numpy(), color="black", marker=".",
            gid="min-gap")
    low, high = float(gaps.min()), float(gaps.max())
    if high - low <= ROUNDING * high:
        # one gap up to rounding (0.2 and 0.19999999999996): a decade about it, and its value in words
        ax.set_ylim(low / 3.0, high * 3.0)
        ax.text(0.98, 0.9, f"the same at every x: {high:.4g}", ha="right", va="top", transform=ax.transAxes,
                fontsize=STYLE["legend.fontsize"])
    log_y(ax, wide=(1.0, 2.0, 5.0))
    if logx and x_ticks:
        use_log_x(ax)
    elif x_ticks:
        integer_x(ax, gaps.index)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(GAP_LABEL)


def plot_error_bars(table: pd.DataFrame, ax, published: pd.DataFrame | None = None, switch: bool = False) -> None:
    """Error probability per algorithm with 95% error bars, linear y, for one setting (a switch run's bars
    open with a dashed edge); the published value as its algorithm's marker in the published look."""
    if table["x"].nunique(dropna=False) > 1:
        raise UserError("a bar chart shows one setting; the table has several x values")
    algorithms = _algorithms(table)
    rows = table.set_index("algorithm").loc[algorithms]
    p = rows["error_prob"].to_numpy(float)
    below = p - rows["ci95_low"].to_numpy(float)
    above = rows["ci95_high"].to_numpy(float) - p
    positions = np.arange(len(algorithms))
    colours = [algorithm_style(a)[0] for a in algorithms]
    look = {"facecolor": "white", "edgecolor": colours, "linestyle": "--", "linewidth": 1.2} if switch \
        else {"color": colours}
    bars = ax.bar(positions, p, yerr=[below, above], capsize=3, error_kw={"elinewidth": 1.0, "ecolor": "0.2"},
                  gid="error-bars", **look)
    for bar, algorithm in zip(bars, algorithms):
        bar.set_gid(series_gid(str(rows.loc[algorithm, "experiment"]), algorithm))
    # Label every bar with its estimate, so a zero bar is seen as zero, not missing.
    top = max(float(rows["ci95_high"].max()), 1e-3)
    for pos, (prob, high, n_err, n) in enumerate(zip(p, rows["ci95_high"], rows["n_errors"],
                                                     rows["n_trials"])):
        text = f"0/{n}" if n_err == 0 else f"{prob:.3g}"
        ax.text(pos, high + 0.02 * top, text, ha="center", va="bottom", fontsize=7)
    if published is not None and not published.empty:
        values = published.set_index("algorithm")["error_prob"]
        for pos, algorithm in enumerate(algorithms):
            if algorithm in values.index:
                ax.plot([pos], [values[algorithm]], gid=f"published:{algorithm}",
                        **published_style(algorithm_style(algorithm)[1]))
                top = max(top, float(values[algorithm]))
        ax.plot([], [], label=PUBLISHED_LABEL, **published_style("o"))
    ax.set_xticks(positions, algorithms, rotation=30, ha="right")
    ax.set_ylim(0, 1.15 * top)
    ax.set_ylabel("error probability")
    ax.grid(axis="x", visible=False)


# ---------------------------------------------------------------- figure level

LAYOUTS = ("curves", "curves_gap", "bars")


def build_figure(layout: str, tables, titles, xlabels=None, subtitles=None,
                 logx: bool = False, published=None, note: str | None = None, switches=None) -> Figure:
    """Side-by-side panels, one per table; curves_gap adds a min-gap panel under
    each. published: per panel, the published cells to draw beside it (or None); switches: per panel,
    whether it draws a switch run (in the switch look). A figure with a switch run compares it with the
    protocol's panel: its panels share their y axis."""
    if layout not in LAYOUTS:
        raise UserError(f"a P1-RAGE figure's layout is one of {LAYOUTS}, got {layout!r}")
    tables = [tables] if isinstance(tables, pd.DataFrame) else list(tables)
    n = len(tables)
    titles = per_panel(titles, n, "title")
    xlabels = per_panel(xlabels, n, "xlabel")
    subtitles = per_panel(subtitles, n, "subtitle")
    published = list(published) if published is not None else [None] * n
    if len(published) != n:
        raise UserError(f"{len(published)} published tables for {n} panels")
    switches = [bool(x) for x in per_panel(switches, n, "switch")] if switches is not None else [False] * n
    height = {"curves": 2.9, "curves_gap": 4.0, "bars": 3.0}[layout] + LEGEND_HEIGHT
    with matplotlib.rc_context(STYLE):
        fig = new_figure(1 if n == 1 else 2, height)
        if layout == "curves_gap":
            grid = fig.add_gridspec(2, n, height_ratios=(3, 1.2))
        else:
            grid = fig.add_gridspec(1, n)
        panels = []
        for i, table in enumerate(tables):
            ax = fig.add_subplot(grid[0, i])
            panels.append(ax)
            subtitle = subtitles[i].replace("band:", "bars:", 1) if layout == "bars" and subtitles[i] else subtitles[i]
            set_panel_title(ax, titles[i] or "", subtitle)
            if layout == "bars":
                plot_error_bars(table, ax, published[i], switch=switches[i])
                continue
            if layout == "curves":
                plot_error_curves(table, ax, xlabels[i] or "x", logx=logx, published=published[i], switch=switches[i])
                continue
            plot_error_curves(table, ax, "", logx=logx, published=published[i], switch=switches[i])
            gap_ax = fig.add_subplot(grid[1, i], sharex=ax)
            plot_min_gap(table, gap_ax, xlabels[i] or "x", logx=logx, x_ticks=False)
            ax.tick_params(labelbottom=False)
        if any(switches):
            share_y(panels)
            panels[switches.index(True)].plot([], [], color="0.3", marker="o", label=SWITCH_LABEL, **switch_style())
        add_figure_legend(fig, last_labels=(PUBLISHED_LABEL, SWITCH_LABEL, ZERO_FLOOR_LABEL))
        mark_preview(fig, note or None)
    return fig


def share_y(axes) -> None:
    """One y range over the panels of a figure that compares them (a switch run beside the protocol's): the
    union of their ranges, each with its ticks set again (a log panel's tick spacing follows its range). A
    panel that says it has no errors keeps its empty axis."""
    drawn = [ax for ax in axes if ax.get_yticks().size and not any(t.get_gid() == "no-errors" for t in ax.texts)]
    if len(drawn) < 2:
        return
    bottom = min(ax.get_ylim()[0] for ax in drawn)
    top = max(ax.get_ylim()[1] for ax in drawn)
    for ax in drawn:
        ax.set_ylim(bottom, top)
        if ax.get_yscale() == "log":
            log_y(ax)


def figure_layout(panels: list[dict], spec: dict) -> str:
    """How a figure is drawn, from what it shows: bars where every panel's experiment has one setting (an
    error table without x), curves where each sweeps one, with the instances' minimum gap under the
    curves where the figure's config says `min_gap: true`."""
    single = [bool(p["table"]["x"].isna().all()) for p in panels]
    if any(single) and not all(single):
        raise UserError("a P1-RAGE figure draws bars (experiments of one setting) or curves (swept experiments) "
                        "in every panel, not both; split it into two figures")
    if all(single):
        return "bars"
    return "curves_gap" if spec.get("min_gap") else "curves"


def draw_figure(panels: list[dict], spec: dict, stem: str, note: str, preview: str) -> Figure:
    """The figure of `spec` (figure_layout), one panel per dict: its error `table`, `title`, `xlabel`,
    `subtitle`, `logx` (any panel's puts every panel on a log x) and the `published` cells to draw beside
    it (or None); the note, if any, heads the figure."""
    fig = build_figure(figure_layout(panels, spec), [p["table"] for p in panels], [p["title"] for p in panels],
                       [p["xlabel"] for p in panels], [p["subtitle"] for p in panels],
                       any(p["logx"] for p in panels), [p["published"] for p in panels],
                       switches=[p.get("switch", False) for p in panels])
    with matplotlib.rc_context(STYLE):
        mark_heading(fig, note, preview)
        save_figure(fig, stem)
    return fig


def make_figure(ctx, name: str, spec: dict) -> Figure:
    """The figure `name` of the study's config (`spec`) from the error tables of the experiments its panels
    draw, the authors' published cells beside them (linbandits.products.Context.figure_products)."""
    from linbandits.studies.p1rage.products import error_table, panel_subtitle, synthetic_yahoo
    from linbandits.studies.p1rage.published import published_for, read_published

    published = read_published()
    panels = []
    for p in spec["panels"]:
        exp = ctx.experiments[p["experiment"]]
        table = error_table(ctx, exp.name)
        # The authors' cells beside the experiment they reproduce (a switch run: its base's); none for
        # Yahoo! on the synthetic stand-in (the authors ran real R6A).
        base = exp.switch_of or exp.name
        panels.append({"table": table, "switch": exp.switch_of is not None, "subtitle": panel_subtitle(ctx, exp.name, table),
                       "title": p.get("title") or (f"{exp.choice} = {exp.switch}" if exp.switch_of else exp.title),
                       "xlabel": p.get("xlabel", ""), "logx": p.get("logx", False),
                       "published": None if synthetic_yahoo(ctx, exp.name) else published_for(base, published)})
    return draw_figure(panels, spec, ctx.figure_stem(name), "", ctx.banner())
