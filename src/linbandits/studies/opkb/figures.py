"""Figs. 1-2: mean cumulative regret against the round over the instance seeds, its 95% interval of
the mean shaded (Student's t over the seeds, plotting.mean_interval; the paper's bars are +-1 standard
error). Series of a panel's `dashed` experiments are runs beside the protocol's (SW-GPUCB with the
paper's window 3000 beside the authors' 2000, with window 1000 on J.3, with the authors' window removal)
in the house's switch look (dashed, open markers; linbandits.plotting). Each panel has its own legend:
one algorithm runs with another window in each panel. The paper prints no regret numbers, so there is
nothing to mark as published."""
from __future__ import annotations

from matplotlib.figure import Figure

from linbandits.plotting import (algorithm_style, band_phrase, house_style, integer_ticks, legend_lines, legend_row,
                                 mark_heading, mean_interval, new_figure, panel_legend, panel_width, save_figure,
                                 series_gid, series_with_band, set_panel_title, switch_style)

# One colour and marker per algorithm throughout the study.
PALETTE = {"SW-GPUCB": ("#1f77b4", "o"), "WGPUCB": ("#2ca02c", "s"), "ADA-OPKB": ("#d62728", "D"),
           "GP-UCB": ("#9467bd", "^"), "OPKB": ("#ff7f0e", "v"), "ADA-OPNN": ("#8c564b", "P"),
           "OPNN": ("#e377c2", "h"), "OPNN0": ("#7f7f7f", "*")}


def series_label(series: dict, seeds: int) -> str:
    """A series' name, with its run count where it differs from the panel's (its subtitle gives that one)."""
    n = series["curves"].shape[0]
    return series["label"] if n == seeds else f"{series['label']} (n\u00a0=\u00a0{n})"   # kept on one line


def draw_panel(ax, panel: dict) -> None:
    extra = {}
    horizon = 1
    for slot, s in enumerate(panel["series"]):
        colour, marker = algorithm_style(s["algorithm"], PALETTE)
        style = "-"
        if s["dashed"]:
            style = switch_style(extra.setdefault(s["experiment"], len(extra)))["linestyle"]
        mean, low, high = mean_interval(s["curves"])
        series_with_band(ax, s["t"], mean, low, high, series_label(s, panel["seeds"]), colour, marker, style,
                         slot=slot, hollow=bool(s["dashed"]), gid=series_gid(s["experiment"], s["algorithm"]))
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
    """Panels side by side, each with its legend under it, each a dict with its `title`, `series` (per
    algorithm: `experiment`, `algorithm`, `label`, rounds `t`, per-run cumulative regret `curves`, `dashed`)
    and `seeds`; the heading is the spec's `title` and the note."""
    with house_style():
        fig = new_figure(1 if len(panels) == 1 else 2, 3.4)
        width = panel_width(fig, len(panels))
        lines = max(sum(legend_lines(series_label(s, p["seeds"]), width).count("\n") + 1 for s in p["series"])
                    for p in panels)
        axes, legends = legend_row(fig, len(panels), 3.4, lines or 1)
        for ax, legend_ax, panel in zip(axes, legends, panels):
            if panel["series"]:
                draw_panel(ax, panel)
                panel_legend(ax, legend_ax)
            else:
                ax.text(0.5, 0.5, "not run", ha="center", transform=ax.transAxes)
                ax.set_title(panel["title"])
        mark_heading(fig, "\n".join(x for x in (spec.get("title", ""), note) if x), preview)
        save_figure(fig, stem)
    return fig


def make_figure(ctx, name: str, spec: dict) -> Figure:
    """The figure `name` of the study's config (`spec`) from the runs (linbandits.products.Context.
    figure_products): a panel draws its experiment, the neural variants' (`neural`) and its dashed ones
    (`dashed`: e.g. SW-GPUCB with window 1000, or under removal = published)."""
    from linbandits.studies.opkb.products import NEURAL_NOT_RUN, label_of, neural, neural_note, seed_runs

    panels = []
    for p in spec["panels"]:
        series = []
        for n in ctx.panel_experiments(spec, p):
            exp, runs = ctx.experiments[n], ctx.runs(n)
            dashed = n in p.get("dashed", [])
            for algorithm in exp.algorithms:
                _, t, curves = seed_runs(runs, exp, algorithm)
                series.append({"experiment": n, "algorithm": algorithm, "label": label_of(ctx, n, algorithm), "t": t,
                               "curves": curves, "dashed": dashed})
        panels.append({"title": p.get("title") or ctx.experiments[p["experiment"]].title, "series": series,
                       "seeds": len(ctx.experiments[p["experiment"]].setting_ids())})
    note = neural_note(ctx, maths=True) if neural(ctx) else NEURAL_NOT_RUN.split(":")[0]
    return draw_figure(panels, spec, ctx.figure_stem(name), note, ctx.banner())
