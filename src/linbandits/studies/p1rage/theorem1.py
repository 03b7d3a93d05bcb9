"""Theorem 1 of the paper: G-BAI's error against its bound on the stationary Soare series."""
from __future__ import annotations

import math

import numpy as np


def theorem1_bound(K: int, d: int, T: int, gap: float) -> float:
    """Theorem 1: P(error of G-BAI) <= K exp(-T Delta^2 / (12 d))."""
    return K * math.exp(-T * gap ** 2 / (12 * d))


def build_theorem1(table, summaries, subtitle: str = "", note: str = ""):
    """G-BAI's error (the paper's 95% normal band; 0 errors drawn at 1/n) and the bound, by budget T.
    The bound is written K exp(...), not K e^{...}: an exponent's own exponent is drawn below 5 pt."""
    import matplotlib

    from linbandits.plotting import STYLE, add_figure_legend, mark_preview, new_figure, set_panel_title
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
        ax.plot(g["x"], err, color=colour, marker=marker, label="G-BAI, empirical (0 errors drawn at 1/n)")
        ax.fill_between(g["x"], np.maximum(g["ci95_low"], floor), np.maximum(g["ci95_high"], floor),
                        color=colour, alpha=0.2, linewidth=0)
        ax.plot(T, bound, "k--", label=r"bound $K\,\exp(-T\Delta^2/(12d))$")
        ax.axhline(1.0, color="grey", lw=0.8)
        log_y(ax)
        integer_x(ax, g["x"])
        ax.set_xlabel("budget T")
        ax.set_ylabel("error probability")
        set_panel_title(ax, "Theorem 1 on the stationary Soare series", subtitle or None)
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
