"""Figures: files written, byte-stable PDFs, honest zero-error points, fixed styles, everything inside the
canvas, and the figure products (Figs. 2-6, the switch figures, Theorem 1) on a synthetic world."""
import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_hex

from linbandits.plotting import SWITCH_DASHES, outside_canvas, series_gid
from linbandits.products import study_products

from linbandits.errors import UserError
from linbandits.studies.p1rage.stats import normal_ci, wilson_ci
from linbandits.studies.p1rage.error_tables import ALGORITHM_ORDER
from linbandits.studies.p1rage.figures import (ALGORITHM_COLOURS, ZERO_FLOOR_LABEL, algorithm_style,
                                               build_figure, draw_figure, figure_layout)
from linbandits.studies.p1rage.theorem1 import build_theorem1

from p1rage_world import holding, study_config, write_world

N_TRIALS = 1000


def make_table(errors_by_algorithm, xs, experiment="multi_osci", gap=lambda x: 0.03 / (1 + x)):
    rows = []
    for algorithm, errors in errors_by_algorithm.items():
        for x, e in zip(xs, errors):
            low, high = normal_ci(e, N_TRIALS)
            w_low, w_high = wilson_ci(e, N_TRIALS)
            rows.append({"experiment": experiment, "algorithm": algorithm, "x": x,
                         "n_trials": N_TRIALS, "n_errors": e, "error_prob": e / N_TRIALS,
                         "ci95_low": low, "ci95_high": high,
                         "min_gap": np.nan if np.isnan(x) else gap(x),
                         "wilson_low": w_low, "wilson_high": w_high})
    return pd.DataFrame(rows)


XS = [0.0, 1.0, 2.0, 3.0]
ERRORS = {"G-BAI": [20, 25, 30, 40], "P1-RAGE": [0, 0, 3, 5], "Peace": [200, 300, 250, 400]}


@pytest.fixture
def curves_table():
    return make_table(ERRORS, XS)


@pytest.fixture
def bars_table():
    return make_table({a: [e] for a, e in zip(ALGORITHM_ORDER, [21, 0, 2, 276, 58, 410])},
                      [np.nan], experiment="malicious")


def lines_by_gid(fig):
    return {line.get_gid(): line for ax in fig.axes for line in ax.get_lines() if line.get_gid()}


def legend_texts(fig):
    return [t.get_text() for legend in fig.legends for t in legend.get_texts()]


# ---------------------------------------------------------------- output files

@pytest.mark.parametrize("layout", ["curves", "curves_gap", "bars"])
def test_files_written_and_pdf_byte_identical(tmp_path, curves_table, bars_table, layout):
    table = bars_table if layout == "bars" else curves_table
    panel = {"table": table, "title": "title", "xlabel": "s", "subtitle": "", "logx": False, "published": None}
    spec = {"min_gap": layout == "curves_gap"}
    assert figure_layout([panel], spec) == layout      # bars for one setting, curves for a sweep
    draw_figure([panel], spec, str(tmp_path / "one"), "", "")
    draw_figure([panel], spec, str(tmp_path / "two"), "", "")
    for ext in ("pdf", "png"):
        assert (tmp_path / f"one.{ext}").stat().st_size > 1000
    assert (tmp_path / "one.pdf").read_bytes() == (tmp_path / "two.pdf").read_bytes()
    assert not list(tmp_path.glob(".*.tmp")), "temporary files left behind"


# ------------------------------------------------------------ zero-error points

def test_zero_errors_drawn_at_one_over_n(curves_table):
    fig = build_figure("curves", curves_table, "t", "s")
    lines = lines_by_gid(fig)
    floor = lines["zero-floor:P1-RAGE"]
    np.testing.assert_array_equal(floor.get_xdata(), [0.0, 1.0])
    np.testing.assert_allclose(floor.get_ydata(), [1 / N_TRIALS] * 2)
    assert floor.get_markerfacecolor() in ("white", "w", (1.0, 1.0, 1.0, 1.0))
    # The curve keeps every point: zeros sit on the floor, nothing is dropped.
    curve = lines[series_gid("multi_osci", "P1-RAGE")]
    np.testing.assert_allclose(curve.get_ydata(), [1e-3, 1e-3, 3e-3, 5e-3])
    assert "zero-floor:G-BAI" not in lines
    assert fig.axes[0].get_yscale() == "log"


def test_band_lower_limit_clipped_to_floor(curves_table):
    fig = build_figure("curves", curves_table, "t", "s")
    for band in fig.axes[0].collections:
        vertices = np.concatenate([p.vertices for p in band.get_paths()])
        assert vertices[:, 1].min() >= 1 / N_TRIALS - 1e-15


def test_legend_mentions_floor_only_when_zeros_exist(curves_table):
    with_zero = legend_texts(build_figure("curves", curves_table, "t", "s"))
    assert ZERO_FLOOR_LABEL in with_zero
    assert with_zero[:3] == ["G-BAI", "P1-RAGE", "Peace"]
    no_zero = make_table({"G-BAI": [1, 2, 3, 4]}, XS)
    assert ZERO_FLOOR_LABEL not in legend_texts(build_figure("curves", no_zero, "t", "s"))


def test_a_curve_drawn_over_another_says_so_in_the_legend():
    """Two algorithms with the same error at every x draw one curve: the later one's legend entry names the
    earlier, else it points at nothing visible (a user's equal twin of G-BAI, issue 37)."""
    table = make_table({"G-BAI": [20, 25, 30, 40], "Peace": [20, 25, 30, 40], "P1-RAGE": [20, 25, 30, 41]}, XS)
    assert legend_texts(build_figure("curves", table, "t", "s"))[:3] == ["G-BAI", "P1-RAGE", "Peace (on G-BAI)"]


def test_a_twin_in_one_panel_drawn_apart_in_another_has_one_legend_entry(monkeypatch):
    """Peace on G-BAI in the first panel but apart in the second (Fig. 3's two sweeps): the shared legend
    names Peace once, by the look it has where it is seen, not also as 'Peace (on G-BAI)', a second name
    for one look (figure_checks' legend check). Planted: the legend keeping every label."""
    import linbandits.studies.p1rage.figures as p1_figures
    from linbandits.figure_checks import legend_problems

    same = make_table({"G-BAI": [20, 25, 30, 40], "Peace": [20, 25, 30, 40]}, XS)
    apart = make_table({"G-BAI": [20, 25, 30, 40], "Peace": [10, 15, 30, 41]}, XS, experiment="multi_period")
    fig = build_figure("curves", [same, apart], ["a", "b"], ["s", "L"])
    assert legend_texts(fig)[:2] == ["G-BAI", "Peace"] and legend_problems(fig) == []

    def keep_every_label(fig, last_labels=()):
        handles = {}
        for ax in fig.axes:
            for handle, label in zip(*ax.get_legend_handles_labels()):
                handles.setdefault(label, handle)
        fig.legend(list(handles.values()), list(handles), loc="outside lower center", frameon=False)

    monkeypatch.setattr(p1_figures, "add_figure_legend", keep_every_label)
    planted = build_figure("curves", [same, apart], ["a", "b"], ["s", "L"])
    assert legend_problems(planted), "the planted legend with both names passed the check"


# ------------------------------------------------------------------ other panels

def test_gap_panel_under_curves(curves_table):
    fig = build_figure("curves_gap", [curves_table, curves_table], ["a", "b"], ["s", "L"])
    assert len(fig.axes) == 4
    gap_lines = [line for ax in fig.axes for line in ax.get_lines() if line.get_gid() == "min-gap"]
    assert len(gap_lines) == 2
    np.testing.assert_allclose(gap_lines[0].get_ydata(), [0.03 / (1 + x) for x in XS])
    assert fig.axes[1].get_xlabel() == "s"


def test_gap_panel_rejects_inconsistent_gaps(curves_table):
    table = curves_table.copy()
    table.loc[0, "min_gap"] = 0.5
    with pytest.raises(UserError, match="min_gap differs"):
        build_figure("curves_gap", table, "t", "s")


def test_bars_label_zero_bar(bars_table):
    fig = build_figure("bars", bars_table, "t")
    ax = fig.axes[0]
    assert ax.get_yscale() == "linear"
    assert [t.get_text() for t in ax.get_xticklabels()] == list(ALGORITHM_ORDER)
    assert f"0/{N_TRIALS}" in [t.get_text() for t in ax.texts]
    heights = [patch.get_height() for patch in ax.patches]
    np.testing.assert_allclose(heights, bars_table["error_prob"])


def test_curves_need_x(bars_table):
    with pytest.raises(UserError, match="needs an x"):
        build_figure("curves", bars_table, "t", "s")


def test_colours_fixed_per_algorithm(curves_table):
    fig = build_figure("curves", curves_table, "t", "s")
    lines = lines_by_gid(fig)
    for algorithm in ERRORS:
        assert to_hex(lines[series_gid("multi_osci", algorithm)].get_color()) == ALGORITHM_COLOURS[algorithm]
    # A name outside the paper still gets the same style every time.
    assert algorithm_style("P1-RAGE-unbatched") == algorithm_style("P1-RAGE-unbatched")


# ------------------------------------------------------------------ the canvas and the products

@pytest.mark.parametrize("kind", ["curves", "curves_gap", "bars"])
def test_every_label_inside_the_canvas(curves_table, bars_table, kind):
    table = bars_table if kind == "bars" else curves_table
    long = "21000 runs per estimate; synthetic stand-in for R6A"
    fig = build_figure(kind, [table, table], ["published protocol (999 Frank-Wolfe steps)", "b"],
                       ["oscillation period L"] * 2, [long, long],
                       note="PREVIEW: reduced runs and settings, not the published protocol")
    assert outside_canvas(fig) == []


def test_theorem1_inside_the_canvas_with_integer_budget_ticks(curves_table):
    table = make_table({"G-BAI": [636, 162, 79, 42]}, [10.0, 1010.0, 2010.0, 3010.0])
    summaries = [{"K": 11, "d": 10, "T": int(x), "min_gap": 0.01} for x in (10, 1010, 2010, 3010)]
    fig = build_theorem1(table, summaries, "21000 runs per estimate", "PREVIEW: reduced runs and settings, not the published protocol")
    assert outside_canvas(fig) == []
    ticks = fig.axes[0].get_xticks()
    assert np.all(ticks == np.round(ticks))


def visible_y_labels(fig, ax):
    outside_canvas(fig)    # draws it
    low, high = ax.get_ylim()
    return [t.get_text() for t in ax.get_yticklabels() if t.get_text() and low <= t.get_position()[1] <= high]


def test_log_axes_have_plain_number_ticks(curves_table):
    fig = build_figure("curves_gap", curves_table, "t", "s")
    for ax in fig.axes:
        labels = visible_y_labels(fig, ax)
        assert len(labels) >= 2 and not any("times" in lab or "^" in lab for lab in labels), labels
    # A panel within less than a decade (Yahoo! on the stand-in: 0.2-0.7) still has labelled ticks.
    narrow = make_table({"G-BAI": [350, 330, 340, 320], "Peace": [250, 300, 500, 700]}, XS)
    fig = build_figure("curves", narrow, "t", "s")
    assert len(visible_y_labels(fig, fig.axes[0])) >= 2


def test_figure_products_on_a_synthetic_world(tmp_path, monkeypatch):
    """Every figure product of the .test config (Figs. 2-6, the switch figure, Theorem 1) from runs
    files: written, the run count in each panel's subtitle, everything inside the canvas."""
    import matplotlib.figure

    monkeypatch.chdir(tmp_path)
    config = study_config(robustness=True)
    ctx = write_world(tmp_path, config, holding, n=50)
    drawn = []
    real = matplotlib.figure.Figure.savefig

    def keep(fig, *args, **kw):
        drawn.append(fig)
        return real(fig, *args, **kw)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", keep)
    figures = [p for p in study_products(config, "p1rage") if p.kind == "figure"]
    assert {"fig2a_soare_sto", "fig4_malicious", "fig_switch_zero_round", "thm1_gbai_bound"} <= {p.name for p in figures}
    for product in figures:
        product.make(ctx)
        for path in product.outputs:
            assert (tmp_path / path).stat().st_size > 1000, path
    assert drawn and all(outside_canvas(fig) == [] for fig in drawn)
    from linbandits.figure_checks import figure_problems

    assert [problems for problems in map(figure_problems, drawn) if problems] == []
    subtitles = [t.get_text().replace("\n", " ") for fig in drawn for ax in fig.axes for t in ax.texts]
    assert any("95% interval of the mean, 50 runs per estimate" in t for t in subtitles)
    titles = [ax.get_title() for fig in drawn for ax in fig.axes]
    assert "(b) switch at $T$/3" in titles
    assert any("synthetic stand-in for R6A" in t for t in subtitles)


def test_planted_bug_decade_ticks_only_is_caught(monkeypatch):
    """Planted bug: decade ticks only (the first port's Fig. 2b had no labelled y tick)."""
    from linbandits.studies.p1rage import figures

    real = figures.log_y
    monkeypatch.setattr(figures, "log_y", lambda ax, wide=(1.0,), narrow=None: real(ax, wide, narrow=wide))
    narrow = make_table({"G-BAI": [350, 330, 340, 320], "Peace": [250, 300, 500, 700]}, XS)
    fig = build_figure("curves", narrow, "t", "s")
    assert len(visible_y_labels(fig, fig.axes[0])) < 2


# ------------------------------------------------------------------ a switch figure, Theorem 1

def test_a_switch_figure_shares_its_y_axis_and_draws_the_switch_run_dashed_and_open(curves_table, bars_table):
    """Panels of a switch run and its protocol share one y range (issue 51: 0.003 against 0.0006), and the
    switch run's series are in the house's switch look; bars too (open, dashed edges)."""
    low = make_table({"G-BAI": [2, 3, 4, 5], "P1-RAGE": [1, 1, 2, 3], "Peace": [1, 2, 2, 4]}, XS,
                     experiment="multi_osci__uniform_theta")
    fig = build_figure("curves", [curves_table, low], ["a", "b"], ["s", "s"], switches=[False, True])
    protocol, switch = fig.axes
    assert protocol.get_ylim() == switch.get_ylim()
    for line in switch.get_lines():
        if (line.get_gid() or "").startswith("series:"):
            assert line.get_linestyle() == SWITCH_DASHES[0] and line.get_markerfacecolor() in ("white", "w")
    assert all(line.get_linestyle() == "-" for line in protocol.get_lines()
               if (line.get_gid() or "").startswith("series:"))
    bars = build_figure("bars", [bars_table, bars_table], ["a", "b"], switches=[False, True])
    assert bars.axes[0].get_ylim() == bars.axes[1].get_ylim()
    assert {p.get_linestyle() for p in bars.axes[1].patches} == {"--"}
    assert {to_hex(p.get_facecolor()) for p in bars.axes[1].patches} == {"#ffffff"}


def test_planted_unshared_switch_panels_are_caught(curves_table, monkeypatch):
    from linbandits.studies.p1rage import figures

    monkeypatch.setattr(figures, "share_y", lambda axes: None)
    low = make_table({"G-BAI": [2, 3, 4, 5], "P1-RAGE": [1, 1, 2, 3], "Peace": [1, 2, 2, 4]}, XS)
    fig = build_figure("curves", [curves_table, low], ["a", "b"], ["s", "s"], switches=[False, True])
    assert fig.axes[0].get_ylim() != fig.axes[1].get_ylim()


def test_theorem1_bound_does_not_stretch_the_probability_axis():
    """The bound (above 1 at small budgets) is a labelled reference clipped at the axes, which stop at a
    probability of 1; the old figure's axis reached ~15 to hold it."""
    from linbandits.figure_checks import reference_problems

    g = make_table({"G-BAI": [400, 200, 50, 5]}, XS).assign(x=[10, 1010, 2010, 3010])
    summaries = [{"T": T, "K": 11, "d": 2, "min_gap": 0.3} for T in (10, 1010, 2010, 3010)]
    fig = build_theorem1(g, summaries, "band: 95% interval of the mean, 1000 runs per estimate")
    ax = fig.axes[0]
    assert ax.get_ylim()[1] == 1.0
    bound = [line for line in ax.get_lines() if line.get_gid() == "reference"]
    assert len(bound) == 1 and "clipped" in bound[0].get_label() and reference_problems(fig) == []
    assert "the bound is above 1 (says nothing) up to T = 10" in " ".join(t.get_text() for t in ax.texts)


def test_planted_bound_drawn_as_data_stretches_the_axis(monkeypatch):
    """The figure as it was (the bound a plain line): the axis top leaves the probability scale."""
    from linbandits import plotting

    def as_data(ax, x, y, label, what=""):
        ax.plot(x, y, "k--", label=label)
        ax.set_ylim(auto=True)
        ax.autoscale_view()
        return True

    monkeypatch.setattr(plotting, "reference_curve", as_data)
    g = make_table({"G-BAI": [400, 200, 50, 5]}, XS).assign(x=[10, 1010, 2010, 3010])
    summaries = [{"T": T, "K": 11, "d": 2, "min_gap": 0.3} for T in (10, 1010, 2010, 3010)]
    assert build_theorem1(g, summaries).axes[0].get_ylim()[1] > 1.0
