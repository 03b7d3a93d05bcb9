"""Figs. 1-3: mean stopping time against d, Delta or K, with the 95% Student-t interval of the mean
over the runs as error bars (the paper draws the mean of 10 runs and no bars).

One colour and marker per algorithm throughout the study; a switch run of an algorithm (another
protocol choice, e.g. LinGapE's scratch form) keeps its colour and marker, drawn open and with its
own line style. A mean over runs some of which stopped at the pull cap is a lower bound: an open
triangle with the lower half of its bar only.
"""
from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, LogFormatterSciNotation

from linbandits import plotting
from linbandits.claims import estimates as est
from linbandits.runs import RunSet
from linbandits.studies.lingape.stopping import censored_count

PALETTE = {"LinGapE": ("#d62728", "o"), "XY-static": ("#1f77b4", "s"), "XY-adaptive": ("#2ca02c", "^"),
           "XY-oracle": ("#9467bd", "D")}
SWITCH_STYLES = ("--", ":", "-.")
CENSORED_LABEL = "lower bound: runs at the pull cap"
WIDTH = 7.4


def figure_series(ctx, spec) -> list[dict]:
    """Per panel entry (one algorithm of one experiment): its label, style and points
    (x, mean, interval, censored runs) over the experiment's settings."""
    alpha = (1.0 - ctx.level) / 2.0
    out, switch_styles = [], {}
    for panel in spec["panels"]:
        name, algorithm = panel["experiment"], panel["algorithm"]
        if name not in ctx.experiments:
            continue
        exp = ctx.experiments[name]
        runs = RunSet(ctx.runs_stem(name))
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
        if switch:
            switch_styles.setdefault(name, SWITCH_STYLES[len(switch_styles) % len(SWITCH_STYLES)])
        label = panel.get("label") or (f"{algorithm} ({exp.choice} = {exp.switch})" if switch else algorithm)
        out.append({"label": label, "algorithm": algorithm, "points": points, "switch": switch,
                    "linestyle": switch_styles.get(name, "-")})
    return out


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
    ax.errorbar(x, mean, yerr=[mean - low, high - mean], color=colour, marker=marker, linestyle=series["linestyle"],
                capsize=2.5, label=series["label"], markerfacecolor="white" if series["switch"] else colour)
    if cens.any():
        ax.plot(x[cens], mean[cens], "^", color=colour, markersize=9, markerfacecolor="none", label=CENSORED_LABEL)


def published_label(label: str, total: int) -> str:
    return f"Table 1, {label}: {total:,}"


def draw_published(ax, x, totals: dict) -> None:
    """Table 1's totals at d = 5, each a cross in its algorithm's colour, named in the legend."""
    for label, total in totals.items():
        plotting.mark_published(ax, [x], [total], label=published_label(label, total))
        colour, _ = plotting.algorithm_style(label.split(" (")[0], PALETTE)
        ax.lines[-1].set_markerfacecolor(colour)


def draw_figure(series: list[dict], stem: str, spec: dict, level: float, note: str, published=None,
                preview: str = ""):
    with plotting.matplotlib.rc_context(plotting.STYLE):
        fig = Figure(figsize=(WIDTH, 4.0 + 1.5 * plotting.LEGEND_HEIGHT), layout="constrained")
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
        if spec.get("logy"):
            plotting.use_log_y(ax)
            ax.yaxis.set_major_formatter(LogFormatterSciNotation())   # 10^k: pull counts span 1e2 .. 1e8
        ax.set_xlabel(panel.get("xlabel", ""))
        ax.set_ylabel("stopping time (pulls)")
        n_runs = sorted({p["runs"] for s in series for p in s["points"]})
        runs = "/".join(str(n) for n in n_runs)
        subtitle = f"mean of {runs} runs per point; bars: {100 * level:g}% Student-t interval of the mean"
        lines = [x for x in (subtitle, note) if x]
        plotting.set_panel_title(ax, spec.get("title", ""), "\n".join(lines))
        if len(lines) > 1:      # room for the second subtitle line
            ax.set_title(spec.get("title", ""), pad=14 + 10 * (len(lines) - 1))
        plotting.add_figure_legend(fig, last_labels=(CENSORED_LABEL,) + tuple(
            published_label(label, total) for label, total in (published[1].items() if published else ())))
        plotting.mark_preview(fig, preview or None)
        plotting.save_figure(fig, stem)
        return fig
