"""What every study's figures share: style, colours, legend, PDF + PNG output.

Figures are built on `matplotlib.figure.Figure` directly (no pyplot state) and
saved with the Agg/PDF backends, so output depends only on the inputs.
"""
from __future__ import annotations

import zlib

import matplotlib

matplotlib.use("Agg")  # no display in the pipeline; harmless if already Agg

from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter  # noqa: E402

from linbandits.atomic import atomic_output  # noqa: E402
from linbandits.errors import UserError  # noqa: E402

# Names without a colour of their own get one from their name's checksum:
# stable across figures and runs (Python's hash() is salted per process).
EXTRA_COLOURS = ("#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#1f77b4", "#d62728", "#2ca02c", "#9467bd")
EXTRA_MARKERS = ("P", "h", "*", "<", "o", "s", "D", "^")

PDF_DPI = 150
PNG_DPI = 150
STYLE = {"font.size": 9, "axes.titlesize": 10, "axes.labelsize": 9, "legend.fontsize": 8,
         "xtick.labelsize": 8, "ytick.labelsize": 8, "lines.linewidth": 1.4,
         "lines.markersize": 4.5, "axes.grid": True, "grid.alpha": 0.3,
         "grid.linewidth": 0.5}
PANEL_WIDTH = 3.6   # inches per side-by-side panel
MIN_FIGURE_WIDTH = 4.8  # a lone panel still needs room for a 3-column legend
LEGEND_ENTRY_WIDTH = 1.5  # inches per legend column
LEGEND_HEIGHT = 0.5


def algorithm_style(name: str, palette: dict | None = None) -> tuple[str, str]:
    """(colour, marker) of a series: from the study's palette {name: (colour, marker)}, else by checksum."""
    if palette and name in palette:
        return palette[name]
    slot = zlib.crc32(name.encode("utf-8"))
    return EXTRA_COLOURS[slot % len(EXTRA_COLOURS)], EXTRA_MARKERS[(slot // 7) % len(EXTRA_MARKERS)]


# Published numbers drawn beside a reproduction: one marker for every study.
PUBLISHED_STYLE = {"marker": "X", "markersize": 7, "markeredgecolor": "black", "linestyle": "none", "zorder": 5}
BAND_ALPHA = 0.2


def _log_axis(axis, subs=(1.0, 2.0, 3.0, 5.0)) -> None:
    axis.set_major_locator(LogLocator(subs=subs))
    axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    axis.set_minor_formatter(NullFormatter())


def use_log_x(ax, subs=(1.0, 2.0, 3.0, 5.0)) -> None:
    """Log x with plain-number ticks at 1, 2, 3, 5 x 10^k: the default 3x10^2 minor labels collide."""
    ax.set_xscale("log")
    _log_axis(ax.xaxis, subs)


def use_log_y(ax, subs=(1.0,)) -> None:
    """Log y with plain-number ticks at the decades (more where a panel spans less than a decade)."""
    ax.set_yscale("log")
    _log_axis(ax.yaxis, subs)


def integer_ticks(ax, axis: str = "x") -> None:
    """Ticks at whole numbers only (a count of arms or a dimension has no K = 2.2)."""
    (ax.xaxis if axis == "x" else ax.yaxis).set_major_locator(MaxNLocator(integer=True))


def series_with_band(ax, x, mean, low, high, label, colour, marker=None, linestyle="-"):
    """A mean curve with its interval shaded."""
    ax.plot(x, mean, color=colour, marker=marker, linestyle=linestyle, label=label)
    ax.fill_between(x, low, high, color=colour, alpha=BAND_ALPHA, linewidth=0)


def series_with_bars(ax, x, mean, low, high, label, colour, marker="o", linestyle="-"):
    """Means with their intervals as error bars (few points, or a log axis where bands mislead)."""
    import numpy as np

    mean, low, high = (np.asarray(v, float) for v in (mean, low, high))
    ax.errorbar(x, mean, yerr=[mean - low, high - mean], color=colour, marker=marker, linestyle=linestyle,
                capsize=2.5, label=label)


def mark_published(ax, x, y, label="published") -> None:
    """Numbers the paper prints, drawn on the reproduction they are compared with."""
    ax.plot(x, y, label=label, color="black", **{k: v for k, v in PUBLISHED_STYLE.items()
                                                  if k not in ("markeredgecolor",)})


def set_panel_title(ax, title: str, subtitle: str | None) -> None:
    if subtitle:
        # The subtitle sits just above the axes, the title above it.
        ax.set_title(title, pad=14)
        ax.annotate(subtitle, xy=(0.5, 1.0), xycoords="axes fraction", xytext=(0, 3),
                    textcoords="offset points", ha="center", va="bottom",
                    fontsize=8, fontstyle="italic", color="0.3")
    else:
        ax.set_title(title)


def add_figure_legend(fig, last_labels=()) -> None:
    """One legend under all panels: it cannot cover data, and each label appears once.

    Labels in last_labels (notes such as a floor marker) go after the series.
    """
    handles, labels = {}, []
    for ax in fig.axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            if label not in handles:
                handles[label] = handle
                labels.append(label)
    if not labels:
        return
    labels.sort(key=lambda lab: lab in last_labels)
    # As many columns as the widest labels allow, so that the legend never runs off the canvas.
    widest = max(len(lab) for lab in labels)
    entry = max(LEGEND_ENTRY_WIDTH, 0.45 + 0.065 * widest)
    columns = max(1, int(fig.get_figwidth() // entry))
    fig.legend([handles[lab] for lab in labels], labels, loc="outside lower center",
               ncol=min(len(labels), columns), frameon=False)


def mark_preview(fig, note: str | None) -> None:
    """A banner across the top of a figure made from reduced run counts."""
    if note:
        fig.suptitle(note, color="#b00000", fontsize=9, fontweight="bold")


def save_figure(fig, stem) -> None:
    """stem.pdf and stem.png, each written to a temporary file and renamed."""
    with atomic_output(f"{stem}.pdf") as tmp:
        fig.savefig(tmp, format="pdf", dpi=PDF_DPI, metadata={"CreationDate": None})
    with atomic_output(f"{stem}.png") as tmp:
        fig.savefig(tmp, format="png", dpi=PNG_DPI)


def per_panel(values, n_panels: int, what: str) -> list:
    """One value for every panel, or one per panel."""
    if values is None or isinstance(values, str):
        return [values] * n_panels
    values = list(values)
    if len(values) == 1:
        return values * n_panels
    if len(values) != n_panels:
        raise UserError(f"got {len(values)} {what}s for {n_panels} panels; give one or one per panel")
    return values


def outside_canvas(fig) -> list[str]:
    """The legends, titles and axis labels of a drawn figure that do not lie inside its canvas."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    painter = fig.canvas if hasattr(fig.canvas, "get_renderer") else FigureCanvasAgg(fig)
    painter.draw()
    renderer = painter.get_renderer()
    canvas = fig.bbox
    out = []
    items = [("legend", lg) for lg in fig.legends]
    for ax in fig.axes:
        items += [("legend", ax.get_legend())] if ax.get_legend() else []
        items += [("title", t) for t in (ax.title, ax._left_title, ax._right_title) if t.get_text()]
        items += [("x label", ax.xaxis.label), ("y label", ax.yaxis.label)]
        items += [("annotation", t) for t in ax.texts if t.get_text()]
    if fig._suptitle is not None and fig._suptitle.get_text():
        items.append(("suptitle", fig._suptitle))
    for kind, item in items:
        if not item.get_visible() or (hasattr(item, "get_text") and not item.get_text()):
            continue
        box = item.get_window_extent(renderer)
        if box.x0 < canvas.x0 - 0.5 or box.y0 < canvas.y0 - 0.5 or box.x1 > canvas.x1 + 0.5 or box.y1 > canvas.y1 + 0.5:
            label = item.get_text() if hasattr(item, "get_text") else ""
            out.append(f"{kind} {label!r}"[:80])
    return out
