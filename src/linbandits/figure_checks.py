"""Checks a drawn figure must pass to go to print: one line per problem found, none for a good figure.

- size: one column (3.5 in) or two (7.2 in) wide, no text below 7 pt at that size, and no script of a
  script (mathtext draws a script at 0.7 of its text: a nested one is below 5 pt);
- greyscale: any two series of a panel differ in marker, dash pattern, or grey level by GREY_MARGIN;
- legends: no two entries of a legend drawn alike (two names for one look, e.g. one algorithm with
  another window in each panel under a figure-wide legend);
- information: a panel of several series not all one and the same constant;
- honest axes: no two identical or overlapping tick labels on an axis, no offset or multiplier text ('1e7'), no view
  range narrower than NARROW_RANGE of its magnitude (an autoscaled rounding difference);
- reference lines (gid 'reference', plotting.reference_curve): mostly inside the axes, and a clipped
  one says so in its label;
- words: maths typeset ('+-', 'Delta', 'B_T', '10^5' refused), no config key ('variant=rexp3') in a
  legend, no figure or section number in a title, no subscript in a legend (7 pt text: a 4.9 pt
  subscript; an exponent is allowed);
- series (series_problems): every series the study declares for the figure (the paper's) is drawn;
- fonts (font_problems, on the saved PDF): every font embedded, none of Type 3, which preflights refuse.
"""
from __future__ import annotations

import re
from itertools import combinations
from pathlib import Path

import numpy as np
from matplotlib.colors import to_hex, to_rgba
from matplotlib.container import ErrorbarContainer
from matplotlib.lines import Line2D
from matplotlib.text import Text

from linbandits import plotting

GREY_MARGIN = 40          # of 255: two solid unmarked lines closer than this print as one grey
NARROW_RANGE = 1e-3       # (top - bottom) / |top|: an axis narrower than this shows rounding noise
WIDTH_TOLERANCE = 0.01    # inches

_PLAIN_MATHS = re.compile(r"\+-|\b(?:Delta|epsilon|eps|theta)(?:\b|_)|\b[A-Za-z]_[A-Za-z0-9({]|\^")
_CONFIG_KEY = re.compile(r"\b\w+=\w")
_NUMBERED_TITLE = re.compile(r"^(?:Fig\.|Figure\s+\d|§|(?:[A-Z]\.\d+|\d+\.\d+)\s)")


def figure_problems(fig) -> list[str]:
    """Every problem of the figure as drawn (it is drawn here)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    painter = fig.canvas if hasattr(fig.canvas, "get_renderer") else FigureCanvasAgg(fig)
    painter.draw()
    return size_problems(fig) + greyscale_problems(fig) + legend_problems(fig) + information_problems(fig) \
        + axis_problems(fig) + reference_problems(fig) + word_problems(fig)


# ---------------------------------------------------------------- size

def _texts(fig) -> list[Text]:
    """The visible, non-empty texts of the figure (tick labels of ticks out of view excluded)."""
    hidden = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            shown = {id(t) for tick in axis._update_ticks() for t in (tick.label1, tick.label2)}
            hidden |= {id(t) for tick in axis.get_major_ticks() + axis.get_minor_ticks()
                       for t in (tick.label1, tick.label2) if id(t) not in shown}
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip() and id(t) not in hidden
            and (t.axes is None or t.axes.get_visible())]


def script_depth(text: str) -> int:
    """How deep mathtext scripts nest in the text: 'x' 0, '$x^2$' 1, '$e^{x^2}$' 2."""
    deepest = 0
    for k, part in enumerate(text.split("$")):
        if k % 2 == 0:
            continue
        stack, pending = [], 0      # stack: the depth of each open brace group
        depth = 0
        for ch in part:
            if ch in "^_":
                pending = depth + 1
                continue
            if ch == "{":
                stack.append(depth)
                depth = pending or depth
                pending = 0
            elif ch == "}":
                depth = stack.pop() if stack else 0
            elif pending:
                deepest = max(deepest, pending)
                pending = 0
                continue
            deepest = max(deepest, depth)
    return deepest


def size_problems(fig) -> list[str]:
    width = fig.get_figwidth()
    out = []
    if min(abs(width - w) for w in plotting.PRINT_WIDTHS) > WIDTH_TOLERANCE:
        out.append(f"size: {width:.2f} in wide; a figure is {plotting.ONE_COLUMN} or {plotting.TWO_COLUMNS} in")
    for text in _texts(fig):
        size, label = text.get_fontsize(), text.get_text()
        if size < plotting.MIN_TEXT_PT - 1e-9:
            out.append(f"size: {label[:40]!r} is {size:.1f} pt (< {plotting.MIN_TEXT_PT:g} pt)")
        elif script_depth(label) > 1:
            smallest = size * plotting.SCRIPT_SHRINK ** script_depth(label)
            out.append(f"size: {label[:40]!r} has a script of a script, {smallest:.1f} pt")
    return out


# ---------------------------------------------------------------- greyscale

def grey_level(colour) -> float:
    """0-255 luminance as a greyscale print (PIL's 'L') renders the colour."""
    r, g, b, _ = to_rgba(colour)
    return 255 * (0.299 * r + 0.587 * g + 0.114 * b)


def _look(line) -> tuple:
    marker = line.get_marker()
    if marker in (None, "None", "none", "", " ") or line.get_markersize() <= 0:
        marker_key = None
    else:
        face = line.get_markerfacecolor()
        hollow = isinstance(face, str) and face in ("none", "white") or to_rgba(face)[3] == 0 \
            or grey_level(face) > 250
        marker_key = (str(marker), hollow)
    style = line.get_linestyle()
    dash = None if style in ("None", "none", "", " ") else (style, tuple(np.round(
        getattr(line, "_unscaled_dash_pattern", (0, None))[1] or (), 2)))
    return marker_key, dash, grey_level(line.get_color())


def panel_series(ax) -> list[tuple[str, object]]:
    """(name, line) of every series drawn in the panel: lines with a legend label or a 'published' gid,
    and the data lines of error-bar plots; legend proxies without data are not series."""
    out, seen = [], set()
    for container in ax.containers:
        if isinstance(container, ErrorbarContainer) and container.lines[0] is not None:
            out.append((container.get_label(), container.lines[0]))
            seen.add(id(container.lines[0]))
    for line in ax.get_lines():
        if id(line) in seen or not line.get_visible() or len(line.get_xdata()) == 0:
            continue
        gid = line.get_gid() or ""
        curve = gid.startswith("published") and len(line.get_xdata()) > 2     # not a bar's published tick
        if not line.get_label().startswith("_") or curve:
            out.append((line.get_label() if not line.get_label().startswith("_") else gid, line))
    return out


def distinguishable(a, b) -> bool:
    (marker_a, dash_a, grey_a), (marker_b, dash_b, grey_b) = _look(a), _look(b)
    return marker_a != marker_b or dash_a != dash_b or abs(grey_a - grey_b) >= GREY_MARGIN


def information_problems(fig) -> list[str]:
    """A panel whose every series is one and the same constant shows nothing a sentence could not say
    (six curves stacked at 0 errors on an empty log axis)."""
    out = []
    for k, ax in enumerate(fig.axes):
        levels = set()
        series = [line for _, line in panel_series(ax) if len(line.get_ydata()) > 1]
        for line in series:
            y = np.asarray(line.get_ydata(), float)
            levels.add(float(y[0]) if np.ptp(y) == 0 else None)
        if len(series) > 1 and len(levels) == 1 and None not in levels:
            out.append(f"information: panel {k}: its {len(series)} series all lie at {levels.pop():g}")
    return out


def greyscale_problems(fig) -> list[str]:
    out = []
    for k, ax in enumerate(fig.axes):
        for (name_a, a), (name_b, b) in combinations(panel_series(ax), 2):
            if name_a != name_b and not distinguishable(a, b):
                out.append(f"greyscale: panel {k}: {name_a!r} and {name_b!r} have one marker and dash pattern "
                           f"and grey levels {grey_level(a.get_color()):.0f} and {grey_level(b.get_color()):.0f}")
    return out


def legend_problems(fig) -> list[str]:
    """Two entries of one legend whose handles are drawn alike (colour, marker, fill and dash): a reader
    cannot tell which curve each names."""
    out = []
    for legend in fig.legends + [ax.get_legend() for ax in fig.axes if ax.get_legend()]:
        seen = {}
        for handle, text in zip(legend.legend_handles, legend.get_texts()):
            if not isinstance(handle, Line2D):
                continue
            look = (*_look(handle), to_hex(handle.get_color(), keep_alpha=True))
            if look in seen:
                out.append(f"legend: {seen[look]!r} and {text.get_text()!r} are drawn alike")
            seen.setdefault(look, text.get_text())
    return out


# ---------------------------------------------------------------- axes

def _shown_tick_texts(axis) -> list[Text]:
    return [tick.label1 for tick in axis._update_ticks() if tick.label1.get_visible() and tick.label1.get_text()]


def _shown_tick_labels(axis) -> list[str]:
    return [t.get_text() for t in _shown_tick_texts(axis)]


def axis_problems(fig) -> list[str]:
    out = []
    for k, ax in enumerate(fig.axes):
        if not ax.get_visible() or not ax.axison:
            continue
        for name, axis, (low, high) in (("x", ax.xaxis, ax.get_xlim()), ("y", ax.yaxis, ax.get_ylim())):
            labels = _shown_tick_labels(axis)
            # a rotated label's upright box overlaps its neighbour's though the words do not
            boxes = [t.get_window_extent() for t in _shown_tick_texts(axis) if t.get_rotation() == 0]
            if any(a.overlaps(b) for a, b in combinations(boxes, 2)):
                out.append(f"axes: panel {k} {name}: tick labels overlap: {labels}")
            repeated = sorted({lab for lab in labels if labels.count(lab) > 1})
            if repeated:
                out.append(f"axes: panel {k} {name}: tick labels repeated: {repeated}")
            if axis.get_offset_text().get_visible() and axis.get_offset_text().get_text():
                out.append(f"axes: panel {k} {name}: offset text {axis.get_offset_text().get_text()!r}")
            magnitude = max(abs(low), abs(high))
            if magnitude > 0 and abs(high - low) / magnitude < NARROW_RANGE:
                out.append(f"axes: panel {k} {name}: range {low:.6g} .. {high:.6g} is narrower than "
                           f"{NARROW_RANGE:g} of its magnitude")
    return out


# ---------------------------------------------------------------- reference lines

def reference_problems(fig) -> list[str]:
    out = []
    for k, ax in enumerate(fig.axes):
        bottom, top = sorted(ax.get_ylim())
        for line in ax.get_lines():
            if line.get_gid() != plotting.REFERENCE_GID:
                continue
            y = np.asarray(line.get_ydata(), float)
            inside = (y >= bottom) & (y <= top)
            label = line.get_label()
            if label.startswith("_"):
                out.append(f"reference: panel {k}: a reference line without a label")
            if inside.mean() < 0.5:
                out.append(f"reference: panel {k}: {label!r} lies mostly outside the axes")
            elif not inside.all() and "clipped" not in label:
                out.append(f"reference: panel {k}: {label!r} leaves the axes and does not say it is clipped")
    return out


# ---------------------------------------------------------------- words

def _outside_maths(text: str) -> str:
    return " ".join(text.split("$")[0::2])


def has_subscript(text: str) -> bool:
    """A mathtext subscript in the text ('$B_{T}$', '$\\Delta_{\\min}$')."""
    return any("_" in part for part in text.split("$")[1::2])


def word_problems(fig) -> list[str]:
    out = []
    texts = _texts(fig)
    ticks = {id(tick.label1) for ax in fig.axes for axis in (ax.xaxis, ax.yaxis)
             for tick in axis.get_major_ticks() + axis.get_minor_ticks()}
    legend_texts = {id(t) for legend in fig.legends + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
                    for t in legend.get_texts()}
    titles = {id(ax.title) for ax in fig.axes}
    for text in texts:
        if id(text) in ticks:
            continue
        label = text.get_text()
        plain = _outside_maths(label)
        if _PLAIN_MATHS.search(plain):
            out.append(f"words: maths not typeset in {label[:50]!r}")
        if id(text) in legend_texts and _CONFIG_KEY.search(plain):
            out.append(f"words: a config key in the legend entry {label[:50]!r}")
        if id(text) in legend_texts and has_subscript(label):
            small = text.get_fontsize() * plotting.SCRIPT_SHRINK
            out.append(f"words: the legend entry {label[:50]!r} has a {small:.1f} pt subscript; say it in words")
        if id(text) in titles and _NUMBERED_TITLE.match(re.sub(r"^\([a-z]\)\s", "", label)):
            out.append(f"words: the title {label[:50]!r} carries a figure or section number")
    return out


# ---------------------------------------------------------------- series

def drawn_series(fig) -> set[str]:
    """'<experiment>/<algorithm>' of every series drawn with plotting.series_gid."""
    return {a.get_gid()[len(plotting.SERIES_GID):] for a in fig.findobj()
            if isinstance(a.get_gid(), str) and a.get_gid().startswith(plotting.SERIES_GID)}


def series_problems(fig, expected) -> list[str]:
    """expected: '<experiment>/<algorithm>' the figure must draw (the paper's series the study declares)."""
    drawn = drawn_series(fig)
    return [f"series: {name} is not drawn (the paper's figure or text names it)" for name in expected
            if name not in drawn]


# ---------------------------------------------------------------- fonts

def font_problems(pdf_path) -> list[str]:
    """What a preflight refuses in a saved PDF: a Type 3 font, or a font not embedded. matplotlib writes
    its font dictionaries uncompressed, so they are read from the file's bytes."""
    data = Path(pdf_path).read_bytes()
    out = []
    type3 = len(re.findall(rb"/Subtype\s*/Type3\b", data))
    if type3:     # (a Type 3 font's glyphs are drawing procedures: its descriptor has no font file)
        return [f"fonts: {Path(pdf_path).name} has {type3} Type 3 font(s); embed TrueType (pdf.fonttype 42)"]
    for descriptor in re.findall(rb"/Type\s*/FontDescriptor\b.*?>>", data, re.S):
        if not re.search(rb"/FontFile[23]?\b", descriptor):
            name = re.search(rb"/FontName\s*/(\S+)", descriptor)
            out.append(f"fonts: {Path(pdf_path).name}: {name.group(1).decode() if name else 'a font'} is not embedded")
    return out
