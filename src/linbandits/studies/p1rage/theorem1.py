"""Theorem 1 of the paper: G-BAI's error against its bound on the stationary Soare series."""
from __future__ import annotations

import math

import numpy as np


def theorem1_bound(K: int, d: int, T: int, gap: float) -> float:
    """Theorem 1: P(error of G-BAI) <= K exp(-T Delta^2 / (12 d))."""
    return K * math.exp(-T * gap ** 2 / (12 * d))


BOUND_LABEL = r"bound $K\,\exp(-T\Delta^2/(12d))$"


def build_theorem1(table, summaries, subtitle: str = "", note: str = ""):
    """G-BAI's error (the paper's 95% normal band; 0 errors drawn at 1/n) and the bound, by budget T, on a
    probability axis that stops at 1: the bound is a reference (plotting.reference_curve), drawn where it
    says something (at most 1) and clipped there, said in words where it does not.
    The bound is written K exp(...), not K e^{...}: an exponent's own exponent is drawn below 5 pt."""
    import matplotlib

    from linbandits.plotting import (STYLE, add_figure_legend, mark_preview, new_figure, reference_curve,
                                     series_gid, set_panel_title)
    from linbandits.studies.p1rage.figures import algorithm_style, integer_x, log_y

    g = table[table["algorithm"] == "G-BAI"].sort_values("x")
    inst = sorted(summaries, key=lambda s: s["T"])
    T = np.array([s["T"] for s in inst], dtype=float)
    bound = np.array([theorem1_bound(s["K"], s["d"], s["T"], s["min_gap"]) for s in inst])
    colour, marker = algorithm_style("G-BAI")
    with matplotlib.rc_context(STYLE):
        fig = new_figure(1, 3.3)
        ax = fig.add_subplot()
        floor = 1.0 / g["n_trials"].to_numpy()
        err = np.maximum(g["error_prob"].to_numpy(), floor)
        ax.plot(g["x"], err, color=colour, marker=marker, label="G-BAI, empirical (0 errors drawn at 1/n)",
                gid=series_gid(str(g["experiment"].iloc[0]), "G-BAI"))
        ax.fill_between(g["x"], np.maximum(g["ci95_low"], floor), np.maximum(g["ci95_high"], floor),
                        color=colour, alpha=0.2, linewidth=0)
        ax.set_yscale("log")
        ax.set_ylim(ax.get_ylim()[0], 1.0)          # a probability: the axis stops at 1
        log_y(ax)
        shown = reference_curve(ax, T, bound, BOUND_LABEL)
        above = bound > 1.0
        if not shown:
            low, high = f"{bound.min():.3g}", f"{bound.max():.3g}"
            where = (f"the bound is {high} at every T drawn: above 1, it says nothing here" if low == high else
                     f"the bound is above 1 at every T drawn ({low} to {high}): it says nothing here")
        elif above.any():
            where = f"the bound is above 1 (says nothing) up to T = {T[above].max():g}"
        else:
            where = ""
        integer_x(ax, g["x"])
        ax.set_xlabel("budget T")
        ax.set_ylabel("error probability")
        set_panel_title(ax, "Theorem 1 on the stationary Soare series",
                        "\n".join(x for x in (subtitle, where) if x) or None)
        add_figure_legend(fig)
        mark_preview(fig, note or None)
    return fig


def write_theorem1(table, summaries, stem: str, subtitle: str = "", note: str = ""):
    import matplotlib

    from linbandits.plotting import STYLE, save_figure

    fig = build_theorem1(table, summaries, subtitle, note)
    with matplotlib.rc_context(STYLE):
        save_figure(fig, stem)
    return fig


def make_theorem1(ctx, name: str):
    """Theorem 1's figure on experiment `name` (the config's `theorem1: experiment`), from its runs and
    instance summaries."""
    from linbandits.studies.p1rage.error_tables import read_summary
    from linbandits.studies.p1rage.products import THEOREM1, error_table, panel_subtitle

    exp = ctx.experiments[name]
    summaries = [read_summary(ctx.summary_path(exp.name, s)) for s in exp.setting_ids()]
    table = error_table(ctx, exp.name)
    return write_theorem1(table, summaries, ctx.figure_stem(THEOREM1),
                          panel_subtitle(ctx, exp.name, table[table["algorithm"] == "G-BAI"]), note=ctx.banner())
