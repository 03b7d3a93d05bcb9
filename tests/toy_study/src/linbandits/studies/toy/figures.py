"""The toy study's one figure: the share of correct recommendations with its interval."""
from __future__ import annotations

from matplotlib.figure import Figure

from linbandits.plotting import house_style, mark_heading, new_figure, save_figure, set_panel_title


def draw_figure(panels: list[dict], spec: dict, stem: str, note: str, preview: str) -> Figure:
    """One panel per dict: its `title` and `rows` (algorithm, accuracy, low, high)."""
    with house_style():
        fig = new_figure(1, 2.2)
        axes = fig.subplots(1, len(panels), squeeze=False)[0]
        for ax, panel in zip(axes, panels):
            names = [r[0] for r in panel["rows"]]
            ax.bar(names, [r[1] for r in panel["rows"]], color="0.6",
                   yerr=[[r[1] - r[2] for r in panel["rows"]], [r[3] - r[1] for r in panel["rows"]]])
            ax.set_ylim(0, 1)
            ax.set_ylabel("share correct")
            set_panel_title(ax, panel["title"], spec.get("title", ""))
        mark_heading(fig, note, preview)
        save_figure(fig, stem)
    return fig
