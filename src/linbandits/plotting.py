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

# ---------------------------------------------------------------- house style
# Two print sizes only: one journal column or two. Every figure is drawn at its print size, so a
# font size here is the size on paper; no text below MIN_TEXT_PT (a mathtext script is drawn at
# SCRIPT_SHRINK of its text, so at most one level of script: 7 pt text, 4.9 pt exponent).
ONE_COLUMN = 3.5
TWO_COLUMNS = 7.2
PRINT_WIDTHS = (ONE_COLUMN, TWO_COLUMNS)
MIN_TEXT_PT = 7.0
SCRIPT_SHRINK = 0.7
PDF_DPI = 300
PNG_DPI = 300
STYLE = {"font.size": 8, "axes.titlesize": 8, "axes.labelsize": 8, "legend.fontsize": 7,
         "xtick.labelsize": 7, "ytick.labelsize": 7, "figure.titlesize": 8, "lines.linewidth": 1.1,
         "lines.markersize": 4, "axes.grid": True, "grid.alpha": 0.3, "grid.linewidth": 0.5,
         "legend.handlelength": 2.8,            # long enough to show a dash pattern
         "axes.formatter.useoffset": False,     # no '1e7' offset: a count too wide for plain ticks goes on a log axis
         "axes.formatter.limits": (-4, 6), "mathtext.fontset": "dejavusans", "errorbar.capsize": 2,
         # fonts embedded as TrueType (Type 42), which every preflight accepts; matplotlib's default, Type 3,
         # is refused by many journals' and IEEE's PDF eXpress (figure_checks.font_problems)
         "pdf.fonttype": 42, "ps.fonttype": 42}
PANEL_WIDTH = ONE_COLUMN   # the width of a panel of a one-column figure, kept for callers sizing by panel
LEGEND_HEIGHT = 0.5
MARKERS_PER_CURVE = 8     # markers along a long curve: enough to tell series apart in greyscale

# What a band or bar is, said one way in every figure and caption.
BAND_LEVEL = 0.95


def band_phrase(n_runs, what: str = "band", unit: str = "run") -> str:
    """'band: 95% interval of the mean, 100 runs' (n_runs: a count or several, e.g. {10, 30})."""
    counts = sorted({int(n) for n in (n_runs if hasattr(n_runs, "__iter__") else [n_runs])})
    runs = "/".join(str(n) for n in counts)
    return f"{what}: {100 * BAND_LEVEL:g}% interval of the mean, {runs} {unit}{'s' if counts != [1] else ''}"


def mean_interval(values, axis: int = 0):
    """Mean and its 95% Student-t interval over runs (axis 0): (mean, low, high); one run: no width."""
    import numpy as np
    from scipy.stats import t as student

    x = np.asarray(values, float)
    n = x.shape[axis]
    mean = x.mean(axis=axis)
    if n < 2:
        return mean, mean.copy(), mean.copy()
    half = float(student.isf((1 - BAND_LEVEL) / 2, n - 1)) * x.std(axis=axis, ddof=1) / np.sqrt(n)
    return mean, mean - half, mean + half


def house_style():
    """The rc settings every figure is drawn under (a context manager)."""
    return matplotlib.rc_context(STYLE)


def new_figure(columns: int, height: float):
    """A figure one column (3.5 in) or two columns (7.2 in) wide, drawn under the house style."""
    from matplotlib.figure import Figure

    if columns not in (1, 2):
        raise UserError(f"a figure is one or two columns wide, got {columns}")
    return Figure(figsize=(PRINT_WIDTHS[columns - 1], height), layout="constrained")


# A user's own algorithms (linbandits.user.algorithms) beside the paper's: black, with a star for the
# first, then these markers in the order they are declared, in every study's figures, so that they
# never pass for one of the paper's series (docs/your-algorithm.md).
USER_COLOUR = "#000000"
USER_MARKERS = ("*", "h", "p", "8", "H", "d")
USER_STYLE = (USER_COLOUR, USER_MARKERS[0])


def algorithm_style(name: str, palette: dict | None = None) -> tuple[str, str]:
    """(colour, marker) of a series: from the study's palette {name: (colour, marker)}, a user's algorithm
    black with its marker (USER_MARKERS, in declaration order), else by checksum."""
    if palette and name in palette:
        return palette[name]
    from linbandits.user import algorithms as user_algorithms   # [user algorithms, issue 37]

    if user_algorithms.is_user_algorithm(name):
        return USER_COLOUR, USER_MARKERS[user_algorithms.order(name) % len(USER_MARKERS)]
    slot = zlib.crc32(name.encode("utf-8"))
    return EXTRA_COLOURS[slot % len(EXTRA_COLOURS)], EXTRA_MARKERS[(slot // 7) % len(EXTRA_MARKERS)]


BAND_ALPHA = 0.2

# ---------------------------------------------------------------- the role a series plays: one look each
# - the paper's protocol: its algorithm's colour and marker, filled, on a solid line;
# - a switch run (one protocol choice changed; also an extra run beside the protocol's, e.g. a re-tuned
#   window): its algorithm's colour and marker, open, on a dashed line, SWITCH_DASHES in the order the
#   panel draws its switch runs;
# - the paper's own published numbers: its algorithm's marker, larger, unfilled with a black edge, no
#   line (PUBLISHED_STYLE);
# - a fit to a series: a thin solid line in its colour (FIT_STYLE), as the legend shows it;
# - a reference (a bound, a rate): black, dotted (reference_curve).
SWITCH_DASHES = ("--", ":", "-.")     # dash-dot second read as solid in a legend, its dot behind the marker
PUBLISHED_STYLE = {"linestyle": "none", "markersize": 6, "markerfacecolor": "none", "markeredgecolor": "black",
                   "markeredgewidth": 0.9, "zorder": 5}      # unfilled: the reproduction it sits on shows through
FIT_STYLE = {"linewidth": 0.7, "linestyle": "-", "alpha": 0.9}
SERIES_GID = "series:"      # gid of a drawn series: series:<experiment>/<algorithm> (figure_checks.drawn_series)


def switch_style(k: int = 0) -> dict:
    """The look of the k-th switch run a panel draws (k = 0, 1, ...): a dashed line and open markers."""
    return {"linestyle": SWITCH_DASHES[k % len(SWITCH_DASHES)], "markerfacecolor": "white"}


def published_style(marker: str) -> dict:
    """The look of a number the paper publishes, drawn beside its reproduction (its algorithm's marker)."""
    return {**PUBLISHED_STYLE, "marker": marker, "color": "black"}


def series_gid(experiment: str, algorithm: str) -> str:
    """The gid a series is drawn with, so that a check can tell which runs a figure shows."""
    return f"{SERIES_GID}{experiment}/{algorithm}"


def _log_axis(axis, subs=(1.0, 2.0, 3.0, 5.0)) -> None:
    axis.set_major_locator(LogLocator(subs=subs))
    axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    axis.set_minor_formatter(NullFormatter())


def use_log_x(ax, subs=(1.0, 2.0, 3.0, 5.0)) -> None:
    """Log x with plain-number ticks at 1, 2, 3, 5 x 10^k: the default 3x10^2 minor labels collide."""
    ax.set_xscale("log")
    _log_axis(ax.xaxis, subs)


NARROW_LOG_SPAN = 2.5   # a log panel spanning less than this factor: too few 1-2-3-5 ticks in view


def use_log_y(ax, subs=(1.0,)) -> None:
    """Log y with plain-number ticks at the decades (more where a panel spans less than a decade); a
    panel spanning less than NARROW_LOG_SPAN gets three round ticks (matplotlib's fallback there labels
    every step: 0.035, 0.04, ..., 0.065 under P1-RAGE's Fig. 3b on .test)."""
    ax.set_yscale("log")
    _log_axis(ax.yaxis, subs)
    bottom, top = ax.get_ylim()
    if 0 < bottom < top < NARROW_LOG_SPAN * bottom:
        ax.yaxis.set_major_locator(MaxNLocator(nbins=3))


def count_ticks(ax, axis: str = "y") -> None:
    """Counts as whole numbers with thousands separators ('2,000,000'), never a '1e6' multiplier."""
    from matplotlib.ticker import StrMethodFormatter

    (ax.xaxis if axis == "x" else ax.yaxis).set_major_formatter(StrMethodFormatter("{x:,.0f}"))


def integer_ticks(ax, axis: str = "x") -> None:
    """Ticks at whole numbers only (a count of arms or a dimension has no K = 2.2)."""
    (ax.xaxis if axis == "x" else ax.yaxis).set_major_locator(MaxNLocator(integer=True))


def spread_markers(n_points: int, slot: int = 0, per_curve: int = MARKERS_PER_CURVE, log_x: bool = False):
    """markevery for a long curve: about per_curve markers, each series' set shifted by its slot so that
    markers of curves lying on one another do not hide each other. On a log x axis they are spread by
    distance on the page (matplotlib's fractional markevery), not by index: rounds evenly spaced in t would
    crowd every marker into the last decade."""
    if n_points <= 2 * per_curve:
        return None
    if log_x:
        step = 1.0 / per_curve
        return (step * (0.5 + (slot * 0.37) % 1.0) / 2, step)
    step = max(1, n_points // per_curve)
    return (int(step * ((slot * 0.37) % 1.0)) + step // 2, step)


def series_with_band(ax, x, mean, low, high, label, colour, marker=None, linestyle="-", slot=0, hollow=False,
                     gid=None):
    """A mean curve with its interval shaded; a marker every few points on a long curve, so that every
    series reads in greyscale (gid: series_gid of the runs it draws)."""
    ax.plot(x, mean, color=colour, marker=marker, linestyle=linestyle, label=label, gid=gid,
            markevery=spread_markers(len(x), slot, log_x=ax.get_xscale() == "log"),
            markerfacecolor="white" if hollow else colour)
    ax.fill_between(x, low, high, color=colour, alpha=BAND_ALPHA, linewidth=0)


REFERENCE_GID = "reference"


def reference_curve(ax, x, y, label: str, what: str = "") -> bool:
    """A reference (a bound, a rate) drawn over the data without rescaling it: the axes keep the data's
    range; a reference that leaves it is clipped and says so, one mostly outside it is not drawn (the
    caller says where it is, e.g. in the subtitle). True if drawn."""
    import numpy as np

    x, y = np.asarray(x, float), np.asarray(y, float)
    ax.autoscale_view()
    bottom, top = ax.get_ylim()
    ax.set_ylim(bottom, top)            # the data's range, fixed before the reference is added
    inside = (y >= bottom) & (y <= top)
    if inside.mean() < 0.5:
        return False
    clipped = " (clipped at the axes)" if not inside.all() else ""
    ax.plot(x, y, color="black", linestyle=(0, (1, 1.5)), linewidth=1.0, label=f"{label}{clipped}",
            gid=REFERENCE_GID, zorder=1.5)
    return True


def wrap_to_panel(ax, text: str, points: float = MIN_TEXT_PT) -> str:
    """The text broken into lines no wider than the panel's share of the figure (italic 7 pt: about
    0.5 em a character), so that a subtitle never runs off a one-column figure."""
    import textwrap

    spec = ax.get_subplotspec()
    columns = spec.get_gridspec().ncols if spec is not None else 1
    per_line = int(0.9 * ax.figure.get_figwidth() / columns * 72 / (0.5 * points))
    return "\n".join(textwrap.fill(line, per_line, break_on_hyphens=False) for line in text.split("\n"))


def set_panel_title(ax, title: str, subtitle: str | None) -> None:
    """The title above the panel and, between them, a subtitle in small italics (what the bands are,
    how many runs): the title is raised by the subtitle's lines."""
    if subtitle:
        subtitle = wrap_to_panel(ax, subtitle)
        lines = subtitle.count("\n") + 1
        ax.set_title(title, pad=5 + 9 * lines)
        ax.annotate(subtitle, xy=(0.5, 1.0), xycoords="axes fraction", xytext=(0, 3),
                    textcoords="offset points", ha="center", va="bottom", linespacing=1.1,
                    fontsize=MIN_TEXT_PT, fontstyle="italic", color="0.3")
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
    # "X (on Y)" names a curve drawn exactly over Y's in one panel; where X is drawn apart in another
    # panel, that panel's entry shows X's look, and the twin entry would be a second name for it
    labels = [lab for lab in labels if not (lab.endswith(")") and " (on " in lab and lab.split(" (on ")[0] in handles)]
    if not labels:
        return
    labels.sort(key=lambda lab: any(lab.startswith(last) for last in last_labels))
    fig.legend([handles[lab] for lab in labels], labels, loc="outside lower center",
               ncol=legend_columns(labels, fig.get_figwidth()), frameon=False)


def legend_lines(label: str, width: float) -> str:
    """A legend entry broken into lines that fit `width` inches beside its handle (_label_inches)."""
    import textwrap

    per_line = max(10, int((width - 0.6) / 0.062))
    return textwrap.fill(label, per_line, break_on_hyphens=False) if _label_inches(label) > width else label


def legend_row(fig, n_panels: int, plot_height: float, lines: int):
    """A figure of panels side by side, each with its own legend under it (a series' name belongs to its
    panel where the panels draw different series under one look): (plot axes, legend axes), the legend row
    sized for the longest legend, `lines` lines of 7 pt (entries broken by legend_lines)."""
    legend_height = 0.16 * lines + 0.1           # a 7 pt entry with its spacing: 0.158 in (measured)
    fig.set_figheight(plot_height + legend_height)
    grid = fig.add_gridspec(2, n_panels, height_ratios=(plot_height - 0.9, legend_height))
    plots = [fig.add_subplot(grid[0, k]) for k in range(n_panels)]
    legends = [fig.add_subplot(grid[1, k]) for k in range(n_panels)]
    for ax in legends:
        ax.set_axis_off()
    return plots, legends


def panel_width(fig, n_panels: int) -> float:
    """The width in inches a panel of a figure of n_panels side by side has for its legend."""
    return fig.get_figwidth() / n_panels - 0.1


def panel_legend(ax, legend_ax, last_labels=()) -> None:
    """The panel's own legend in legend_ax (the blank cell under it that legend_row kept), one column, each
    entry broken into lines that fit the panel (legend_lines); labels in last_labels (notes such as a
    reference line) after the series."""
    handles, labels = ax.get_legend_handles_labels()
    if not labels:
        return
    order = sorted(range(len(labels)), key=lambda k: any(labels[k].startswith(last) for last in last_labels))
    width = panel_width(ax.figure, ax.get_subplotspec().get_gridspec().ncols)
    legend = ax.legend([handles[k] for k in order], [legend_lines(labels[k], width) for k in order], loc="upper center",
                       bbox_to_anchor=(0.5, 1.0), bbox_transform=legend_ax.transAxes, ncol=1, frameon=False,
                       borderaxespad=0)
    legend.set_in_layout(False)


def _label_inches(label: str) -> float:
    """About how wide a legend entry is at 7 pt: its handle and ~0.06 in a character (maths counted as
    what it draws, a command as one character)."""
    import re

    visible = re.sub(r"\\[A-Za-z]+", "x", label)
    visible = re.sub(r"[${}^_]", "", visible)
    return 0.5 + 0.062 * len(visible)


def legend_columns(labels, width: float) -> int:
    """The most columns whose widest entries, side by side, fit the figure's width (matplotlib fills a
    legend column by column and sizes each to its widest entry), so it never runs off the canvas."""
    import math

    for columns in range(len(labels), 1, -1):
        rows = math.ceil(len(labels) / columns)
        chunks = [labels[k:k + rows] for k in range(0, len(labels), rows)]
        if len(chunks) == columns and sum(max(map(_label_inches, c)) for c in chunks) <= 0.9 * width:
            return columns
    return 1


def mark_preview(fig, note: str | None) -> None:
    """A banner across the top of a figure made from reduced run counts."""
    if note:
        import textwrap

        per_line = int(fig.get_figwidth() * 72 / (0.62 * 8))      # bold 8 pt: ~0.62 em a character
        wrapped = "\n".join(textwrap.fill(line, per_line) for line in note.split("\n"))
        fig.suptitle(wrapped, color="#b00000", fontsize=8, fontweight="bold")


def mark_heading(fig, heading: str, preview: str) -> None:
    """A figure's heading (its title or note) above its panels; a preview's banner goes above the heading,
    never instead of it."""
    if preview:
        mark_preview(fig, "\n".join(x for x in (preview, heading) if x))
    elif heading:
        fig.suptitle(heading)


# ---------------------------------------------------------------- words and maths
# Config titles and labels are plain text ('Delta_min', 'B_T', '+-'); every figure is typeset from them
# as it is saved, so that a symbol is set in maths wherever it comes from.
_MATH_RULES = [
    (r"\+-", "\u00b1"), (r"<=", "\u2264"), (r">=", "\u2265"),
    (r"\bDelta_min\b", r"$\\Delta_{\\min}$"), (r"\bDelta_\((\d)\)", r"$\\Delta_{(\1)}$"),
    (r"\bDelta_(\w+)\b", r"$\\Delta_{\1}$"), (r"\bDelta\b", r"$\\Delta$"),
    (r"\beps_t\b", r"$\\varepsilon_t$"), (r"\b(?:epsilon|eps)\b", r"$\\varepsilon$"),
    (r"\btheta\*", r"$\\theta^*$"), (r"\btheta_(\w)\b", r"$\\theta_\1$"), (r"\btheta\b", r"$\\theta$"),
    (r"\(([A-Za-z]+)\)\^\(([^()]+)\)", r"$(\1)^{\2}$"), (r"\b([A-Za-z])\^\(([^()]+)\)", r"$\1^{\2}$"),
    (r"\b(\d+)\^(\d+)\b", r"$\1^{\2}$"), (r"\b(\d+(?:\.\d+)?)e\+?(-?)0*(\d+)\b", r"$\1 \\times 10^{\2\3}$"),
    (r"\b([A-Za-z])_(\w+)\b", r"$\1_{\2}$"), (r"\bC log ([nt])\b", r"$C\\,\\log \1$"),
    # a lone letter is a variable ('budget T', 'p = 0.3'), except the words 'a', 'A', 'I' and a
    # letter that is part of a name ('G-BAI', 'J.3', 'al.'s')
    (r"(?<![\w$.\\'\-])([b-zB-HJ-Z])(?![\w.$'\-])", r"$\1$"),
]
_MATH_RULES = [(__import__("re").compile(a), b) for a, b in _MATH_RULES]
_TITLE_NUMBER = __import__("re").compile(r"^(?:Fig\.\s*\d+[a-z]?\s*[:.]\s*|(?:[A-Z]\.\d+|\d+\.\d+)\s+)")
PANEL_LETTER = __import__("re").compile(r"^\([a-z]\)\s")


def _outside_maths(text: str, rule) -> str:
    parts = text.split("$")
    for i in range(0, len(parts), 2):       # even parts lie outside $...$
        parts[i] = rule(parts[i])
    return "$".join(parts)


def typeset(text: str) -> str:
    """Plain-text maths as mathtext: 'Delta_min' -> $\\Delta_{\\min}$, 'B_T' -> $B_T$, '+-' -> '\u00b1',
    '10^5' -> $10^{5}$, a lone variable letter in italics; text already in $...$ is left alone."""
    if text.count("$") % 2:
        return text
    letter = PANEL_LETTER.match(text)        # '(b) Env 2': a panel's letter, not a variable
    if letter:
        return letter.group(0) + typeset(text[letter.end():])
    for pattern, replacement in _MATH_RULES:
        text = _outside_maths(text, lambda part, p=pattern, r=replacement: p.sub(r, part))
    return text.replace("$$", "")      # two adjacent maths runs are one


def house_title(text: str) -> str:
    """A title names what its panel shows: no 'Fig. N:' and no section number (the caption says which of
    the paper's figures it reproduces)."""
    return "\n".join(_TITLE_NUMBER.sub("", line) for line in text.split("\n"))


def _tick_texts(fig) -> set:
    ids = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                ids.update((id(tick.label1), id(tick.label2)))
            ids.add(id(axis.get_offset_text()))
    return ids


def finish_figure(fig) -> None:
    """The house conventions applied to a drawn figure's words: maths typeset, titles without figure or
    section numbers, and '(a)', '(b)', ... before the panel titles of a figure with several."""
    from matplotlib.text import Text

    ticks = _tick_texts(fig)
    for text in fig.findobj(Text):
        if id(text) not in ticks and text.get_text():
            text.set_text(typeset(text.get_text()))
    titled = [ax for ax in fig.axes if ax.get_title()]
    for k, ax in enumerate(titled):
        title = house_title(ax.get_title())
        if len(titled) > 1 and not PANEL_LETTER.match(title):
            title = f"({chr(ord('a') + k)}) {title}"
        ax.title.set_text(title)
    if fig._suptitle is not None:
        fig._suptitle.set_text(house_title(fig._suptitle.get_text()))


def save_figure(fig, stem) -> None:
    """stem.pdf and stem.png in the house conventions, each written to a temporary file and renamed."""
    finish_figure(fig)
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
