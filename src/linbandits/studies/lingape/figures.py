"""Figs. 1-3: mean stopping time against d, Delta or K, with the 95% interval of the mean over the runs
(Student's t) as error bars (the paper draws the mean of 10 runs and no bars). The y axis is
logarithmic wherever the means span more than a factor LOG_SPAN (Fig. 2's gaps differ a
thousandfold: on a linear axis two of three sit on zero). A series run at fewer settings than the
figure's says so in its legend entry, with its pull cap if it has one.

One colour and marker per algorithm throughout the study; a switch run of an algorithm (another
protocol choice, e.g. LinGapE's scratch form) keeps its colour and marker in the house's switch look
(dashed, open markers; linbandits.plotting), Table 1's published totals are drawn in the house's
published look. A mean over runs some of which stopped at the pull cap is a lower bound: an open
triangle with the lower half of its bar only. A user's own algorithm (extra_algorithms) is drawn from the
first experiment of the figure it ran in.
"""
from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, LogFormatterSciNotation

from linbandits import plotting
from linbandits.user import algorithms as user_algorithms
from linbandits.claims import estimates as est
from linbandits.studies.lingape.stopping import censored_count

PALETTE = {"LinGapE": ("#d62728", "o"), "XY-static": ("#1f77b4", "s"), "XY-adaptive": ("#2ca02c", "^"),
           "XY-oracle": ("#9467bd", "D")}
CENSORED_LABEL = "lower bound: runs at the pull cap"
LOG_SPAN = 30.0


def figure_series(ctx, spec) -> list[dict]:
    """Per panel entry (one algorithm of one experiment, where the figure's target builds it), then per user
    algorithm (from the first experiment of the figure it ran in): its name, its label (the name and the
    settings it lacks, with_missing_settings_named), style and points (x, mean, interval, censored runs) over
    the experiment's settings."""
    alpha = (1.0 - ctx.level) / 2.0
    drawn = ctx.figure_experiments(spec)
    entries = [(p["experiment"], p["algorithm"], p.get("label")) for p in spec["panels"] if p["experiment"] in drawn]
    for user in user_algorithms.user_algorithms_of(dict.fromkeys(a for n in drawn for a in ctx.experiments[n].algorithms)):
        entries.append((next(n for n in drawn if user in ctx.experiments[n].algorithms), user, None))
    out, switches = [], {}
    for name, algorithm, label in entries:
        exp = ctx.experiments[name]
        runs = ctx.runs(name)
        points = []
        for s in exp.setting_ids():
            if not runs.has(s, algorithm):
                continue
            tau = runs.column(s, algorithm, "stopping_time").astype(float)
            e = est.mean(tau, alpha)
            low, high = (e.low, e.high) if tau.size > 1 else (e.value, e.value)
            points.append({"x": float(exp.value_of(s)), "mean": e.value, "low": low, "high": high,
                           "runs": int(tau.size), "censored": censored_count(runs, s, algorithm)})
        switch = exp.switch_of is not None
        look = plotting.switch_style(switches.setdefault(name, len(switches))) if switch else {"linestyle": "-"}
        label = label or (f"{algorithm} ({exp.choice} = {exp.switch})" if switch else algorithm)
        out.append({"label": label, "name": label, "algorithm": algorithm, "experiment": name, "points": points,
                    "switch": switch,
                    "linestyle": look["linestyle"], "sweep": exp.sweep or "x",
                    "cap": (exp.options.get(algorithm) or {}).get("max_pulls")})
    return with_missing_settings_named(out)


def with_missing_settings_named(series: list[dict]) -> list[dict]:
    """A series drawn at fewer settings than the figure's says which it has (and its pull cap):
    'XY-adaptive (d = 2, 3 only; capped at 2e7 pulls)', so that no reader takes a gap for a result."""
    every = {p["x"] for s in series for p in s["points"]}
    for s in series:
        xs = sorted(p["x"] for p in s["points"])
        if xs and set(xs) < every:
            values = ", ".join(f"{x:g}" for x in xs)
            cap = f"; capped at {float(s['cap']):.0e} pulls".replace("e+0", "e") if s["cap"] else ""
            s["label"] = f"{s['label']} ({s['sweep']} = {values} only{cap})"
    return series


def draw_series(ax, series: dict) -> None:
    colour, marker = plotting.algorithm_style(series["algorithm"], PALETTE)
    pts = sorted(series["points"], key=lambda p: p["x"])
    if not pts:
        return
    x = np.array([p["x"] for p in pts])
    mean, low, high = (np.array([p[k] for p in pts]) for k in ("mean", "low", "high"))
    cens = np.array([p["censored"] > 0 for p in pts])
    # a lower bound has no upper end: only the lower half of its bar
    high = np.where(cens, mean, high)
    bars = ax.errorbar(x, mean, yerr=[mean - low, high - mean], color=colour, marker=marker,
                       linestyle=series["linestyle"], capsize=2.5, label=series["label"],
                       markerfacecolor="white" if series["switch"] else colour)
    bars.lines[0].set_gid(plotting.series_gid(series["experiment"], series["algorithm"]))
    if cens.any():
        ax.plot(x[cens], mean[cens], "^", color=colour, markersize=9, markerfacecolor="none", label=CENSORED_LABEL)


def published_label(label: str, total: int) -> str:
    return f"Table 1, {label}: {total:,}"


def draw_published(ax, x, totals: dict) -> None:
    """Table 1's totals at d = 5 in the house's published look (its algorithm's marker, open, black-edged,
    no line; its series' markers are filled): told apart in greyscale by shape, named in the legend."""
    for label, total in totals.items():
        _, marker = plotting.algorithm_style(label.split(" (")[0], PALETTE)
        ax.plot([x], [total], label=published_label(label, total), **plotting.published_style(marker))


def draw_figure(panels: list[dict], spec: dict, stem: str, note: str, preview: str) -> Figure:
    """One panel (the figures of this study have one), a dict with its `series` (figure_series), the
    `level` of their intervals and the `published` totals to mark (x, {label: total}) or None; the note,
    if any, is a line under the panel's title."""
    (panel_data,) = panels
    series, level, published = panel_data["series"], panel_data["level"], panel_data["published"]
    with plotting.house_style():
        entries = len(series) + (len(published[1]) if published else 0) + 1
        fig = plotting.new_figure(1, 2.9 + 0.17 * entries)
        ax = fig.add_subplot()
        for s in series:
            draw_series(ax, s)
        if published is not None:
            draw_published(ax, *published)
        panel = spec["panels"][0]
        xs = sorted({p["x"] for s in series for p in s["points"]})
        if panel.get("logx"):
            plotting.use_log_x(ax, subs=(1.0,))
            ax.xaxis.set_major_locator(FixedLocator(xs))    # a tick at each swept value, none between
        elif xs and all(float(v).is_integer() for v in xs):
            plotting.integer_ticks(ax, "x")
        means = [p["mean"] for s in series for p in s["points"] if p["mean"] > 0]
        if spec.get("logy") or (means and max(means) > LOG_SPAN * min(means)):
            plotting.use_log_y(ax)
            ax.yaxis.set_major_formatter(LogFormatterSciNotation())   # 10^k: pull counts span 1e2 .. 1e8
        else:
            plotting.count_ticks(ax, "y")
        ax.set_xlabel(panel.get("xlabel", ""))
        ax.set_ylabel("stopping time (pulls)")
        n_runs = {p["runs"] for s in series for p in s["points"]}
        subtitle = plotting.band_phrase(n_runs, "bars").replace("95%", f"{100 * level:g}%") + " per point"
        lines = [x for x in (subtitle, note) if x]
        plotting.set_panel_title(ax, spec.get("title", ""), "\n".join(lines))
        plotting.add_figure_legend(fig, last_labels=(CENSORED_LABEL,) + tuple(
            published_label(label, total) for label, total in (published[1].items() if published else ())))
        plotting.mark_preview(fig, preview or None)
        plotting.save_figure(fig, stem)
        return fig


def make_figure(ctx, name: str, spec: dict) -> Figure:
    """The figure `name` of the study's config (`spec`) from the runs of its entries' experiments, with
    Table 1's published totals where the figure says `published_table1` (linbandits.products.Context.
    figure_products)."""
    from linbandits.studies.lingape.published import PUBLISHED_TABLE1

    series = figure_series(ctx, spec)
    synthetic = any(_synthetic(ctx, n) for n in ctx.figure_experiments(spec))
    published = None
    if spec.get("published_table1") and ctx.section.get("table1"):
        x = ctx.experiments[spec["panels"][0]["experiment"]].value_of(ctx.section["table1"]["setting"])
        # a published total is named as the figure names the series it is compared with
        named = {(s["experiment"], s["algorithm"]): s["name"] for s in series}
        published = (x, {named.get((col[0], col[1]), label): sum(PUBLISHED_TABLE1[col[2]])
                         for label, col in ctx.section["table1"]["columns"].items() if len(col) > 2})
    return draw_figure([{"series": series, "level": ctx.level, "published": published}], spec,
                       ctx.figure_stem(name),
                       "synthetic stand-in for R6A, not the real data" if synthetic else "", ctx.banner())


def _synthetic(ctx, experiment: str) -> bool:
    import json
    from pathlib import Path

    summary = json.loads(Path(ctx.summaries(experiment)[0]).read_text(encoding="utf-8"))
    return bool(summary.get("synthetic"))
