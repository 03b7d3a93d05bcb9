"""The print checks of linbandits.figure_checks catch what they are for: each planted defect (two
same-grey solid lines, two legend entries drawn alike, a 5 pt label, a 4.9 pt subscript in a legend, a
1e-14 axis range, an off-scale reference line, '+-' and a config key in a legend, a declared series not
drawn, a Type 3 font in the PDF) is found, and the same figure drawn in the house style passes."""
import numpy as np
import pytest

from linbandits import figure_checks as checks
from linbandits import plotting


def clean_figure(columns=1):
    """A figure in the house style: two series told apart by marker, a reference inside the data."""
    with plotting.house_style():
        fig = plotting.new_figure(columns, 2.6)
        ax = fig.add_subplot()
        t = np.arange(1, 101)
        plotting.series_with_band(ax, t, np.sqrt(t), np.sqrt(t) - 1, np.sqrt(t) + 1, "OAM", "#d62728", "o")
        plotting.series_with_band(ax, t, 1.2 * np.sqrt(t), np.sqrt(t), 1.4 * np.sqrt(t), "LinUCB", "#1f77b4", "s",
                                  slot=1)
        plotting.reference_curve(ax, t, 2 * np.log(t), "C log t")
        ax.set_xlabel("round t")
        ax.set_ylabel("cumulative regret")
        ax.set_title("fixed action set, u = 0.1")
        plotting.add_figure_legend(fig)
        plotting.finish_figure(fig)
    return fig


def only(problems, kind):
    return [p for p in problems if p.startswith(kind)]


@pytest.mark.parametrize("columns", [1, 2])
def test_a_house_style_figure_passes(columns):
    assert checks.figure_problems(clean_figure(columns)) == []


def test_two_same_grey_solid_lines_are_caught():
    fig = clean_figure()
    for line in fig.axes[0].get_lines()[:2]:
        line.set_marker("None")         # OAM and LinUCB as they were: solid, no markers, grey 91 and 100
    found = only(checks.figure_problems(fig), "greyscale")
    assert len(found) == 1 and "'OAM' and 'LinUCB'" in found[0] and "91" in found[0] and "100" in found[0]


def test_a_dash_pattern_or_a_grey_step_is_enough():
    fig = clean_figure()
    oam, linucb = fig.axes[0].get_lines()[:2]
    for line in (oam, linucb):
        line.set_marker("None")
    linucb.set_linestyle("--")
    assert only(checks.figure_problems(fig), "greyscale") == []
    linucb.set_linestyle("-")
    linucb.set_color("#aaaaaa")         # grey 170 against 91
    assert only(checks.figure_problems(fig), "greyscale") == []


def test_a_5pt_label_and_a_wrong_width_are_caught():
    fig = clean_figure()
    fig.axes[0].xaxis.label.set_fontsize(5)
    found = only(checks.figure_problems(fig), "size")
    assert len(found) == 1 and "5.0 pt" in found[0]
    fig.set_figwidth(4.8)
    assert any("4.80 in wide" in p for p in checks.figure_problems(fig))


def test_a_script_of_a_script_is_caught():
    assert checks.script_depth(r"bound $K\,e^{-T\Delta^2/(12d)}$") == 2
    assert checks.script_depth(r"$\Delta_{\min}$ and $10^{5}$") == 1
    assert checks.script_depth("plain 10^5") == 0
    fig = clean_figure()
    fig.axes[0].set_xlabel(r"bound $K\,e^{-T\Delta^2/(12d)}$")
    assert any("script of a script" in p for p in checks.figure_problems(fig))


def test_a_1e14_range_and_repeated_tick_labels_are_caught():
    with plotting.house_style():
        fig = plotting.new_figure(1, 2.4)
        ax = fig.add_subplot()
        ax.plot([1, 2], [0.2, 0.19999999999996], marker="o", label="min gap")
        ax.set_yscale("log")
    found = only(checks.figure_problems(fig), "axes")
    assert any("narrower than" in p for p in found)
    assert any("repeated" in p for p in found)


def test_overlapping_tick_labels_are_caught():
    fig = clean_figure()
    fig.axes[0].set_xticks([10, 12])            # '10' and '12' drawn on one another
    fig.axes[0].set_xlim(0, 5000)
    assert any("tick labels overlap" in p for p in checks.figure_problems(fig))


def test_a_panel_of_series_all_at_one_constant_is_caught():
    with plotting.house_style():
        fig = plotting.new_figure(1, 2.4)
        ax = fig.add_subplot()
        for k, (name, marker) in enumerate([("G-BAI", "o"), ("P1-RAGE", "s"), ("Peace", "^")]):
            ax.plot([100, 200, 500], [1 / 300] * 3, marker=marker, label=name)    # 0/300 errors, drawn at 1/n
        ax.set_yscale("log")
    assert any(p.startswith("information") for p in checks.figure_problems(fig))
    ax.lines[0].set_ydata([0.01, 0.02, 0.03])
    assert not any(p.startswith("information") for p in checks.figure_problems(fig))


def test_an_offset_text_is_caught():
    with plotting.matplotlib.rc_context({**plotting.STYLE, "axes.formatter.useoffset": True}):
        fig = plotting.new_figure(1, 2.4)
        ax = fig.add_subplot()
        ax.plot([1, 2, 3], [1e7 + 10, 1e7 + 20, 1e7 + 40], marker="o", label="LinGapE")
    assert any("offset text" in p for p in checks.figure_problems(fig))


def test_a_reference_line_off_the_axes_is_caught():
    fig = clean_figure()
    ax = fig.axes[0]
    t = np.arange(1, 101)
    ax.plot(t, 3220 * np.log(t), color="black", linestyle=":", label="C log t", gid=plotting.REFERENCE_GID)
    assert any("mostly outside" in p for p in checks.figure_problems(fig))
    ax.lines[-1].set_ydata(np.linspace(1, 20, t.size))      # leaves the top, says nothing
    assert any("does not say it is clipped" in p for p in checks.figure_problems(fig))


def test_reference_curve_keeps_the_data_range_and_says_what_it_cut():
    fig = clean_figure()
    ax = fig.axes[0]
    t = np.arange(1, 101)
    assert not plotting.reference_curve(ax, t, 3220 * np.log(t), "C log t")     # not drawn: far above
    assert plotting.reference_curve(ax, t, np.linspace(0, 16, t.size), "rate")
    assert "clipped" in ax.lines[-1].get_label() and ax.get_ylim()[1] < 16
    assert only(checks.figure_problems(fig), "reference") == []


def test_plain_maths_config_keys_and_numbered_titles_are_caught():
    fig = clean_figure()
    ax = fig.axes[0]
    ax.set_title("Fig. 1: mean +- s.e.")
    ax.plot([1, 2], [1, 2], marker="D", label="EXP3.S (variant=rexp3)")
    ax.set_ylabel("Delta_min")
    ax.legend()
    found = only(checks.figure_problems(fig), "words")
    assert any("'Fig. 1: mean +- s.e.'" in p and "typeset" in p for p in found)
    assert any("carries a figure or section number" in p for p in found)
    assert any("config key" in p and "variant=rexp3" in p for p in found)
    assert any("'Delta_min'" in p for p in found)
    plotting.finish_figure(fig)          # the house pass mends all but the config key
    found = only(checks.figure_problems(fig), "words")
    assert len(found) == 1 and "config key" in found[0]


@pytest.mark.parametrize("plain, typeset", [
    ("LinGapE (eps = Delta_min/2)", r"LinGapE ($\varepsilon$ = $\Delta_{\min}$/2)"),
    ("B_T = T^(1/3)", r"$B_{T}$ = $T^{1/3}$"),
    ("mean +- 1 s.e.", "mean \u00b1 1 s.e."),
    ("capped at 2e6 pulls", r"capped at $2 \times 10^{6}$ pulls"),
    ("budget T", "budget $T$"),
    ("(b) Env 2, d = 5", "(b) Env 2, $d$ = 5"),
    ("G-BAI on J.3, Soare et al.'s instance", "G-BAI on J.3, Soare et al.'s instance"),
    (r"min gap $\Delta_{(1)}$", r"min gap $\Delta_{(1)}$"),
])
def test_typeset(plain, typeset):
    assert plotting.typeset(plain) == typeset


def test_house_title_drops_figure_and_section_numbers():
    assert plotting.house_title("Fig. 2: canonical arms") == "canonical arms"
    assert plotting.house_title("5.1 fixed action set, u = 0.1") == "fixed action set, u = 0.1"
    assert plotting.house_title("D.2 100 arms") == "100 arms"
    assert plotting.house_title("Env 1: one switch") == "Env 1: one switch"


def test_band_phrase():
    assert plotting.band_phrase(100) == "band: 95% interval of the mean, 100 runs"
    assert plotting.band_phrase({10, 30}, "bars") == "bars: 95% interval of the mean, 10/30 runs"


def test_legend_columns_fit_the_width():
    short = ["OAM", "OSSB", "LinTS", "LinUCB"]
    assert plotting.legend_columns(short, plotting.TWO_COLUMNS) == 4
    long = short + ["OAM ($\\varepsilon$ = 1/loglog $t$), on OAM ($\\varepsilon$ = 0.01)'s curve"] * 2
    columns = plotting.legend_columns(long, plotting.TWO_COLUMNS)
    assert 1 < columns < 6            # the long entries share the width, none runs off the canvas
    assert plotting.legend_columns(["x" * 200, "y"], plotting.ONE_COLUMN) == 1


def test_mean_interval_is_the_claims_engines_student_t_interval():
    from linbandits.claims import estimates

    runs = np.random.default_rng(3).normal(5.0, 2.0, size=(40, 3))
    mean, low, high = plotting.mean_interval(runs)
    for k in range(3):
        e = estimates.mean(runs[:, k], (1 - plotting.BAND_LEVEL) / 2)
        assert (mean[k], low[k], high[k]) == pytest.approx((e.value, e.low, e.high), rel=1e-12)
    one = plotting.mean_interval(runs[:1])
    assert np.array_equal(one[1], one[0]) and np.array_equal(one[2], one[0])     # one run: no width


def test_two_legend_entries_drawn_alike_are_caught():
    """OPKB Fig. 1 as it was: SW-GPUCB with window 3000 in (a) and 2000 in (b), one blue circle each, under
    one legend; a look per entry (the switch run dashed and open) passes."""
    with plotting.house_style():
        fig = plotting.new_figure(2, 2.6)
        a, b = fig.subplots(1, 2)
        t = np.arange(1, 60)
        plotting.series_with_band(a, t, t, t - 1, t + 1, "SW-GPUCB (window 3000)", "#1f77b4", "o")
        plotting.series_with_band(b, t, t, t - 1, t + 1, "SW-GPUCB (window 2000)", "#1f77b4", "o")
        plotting.add_figure_legend(fig)
    assert checks.legend_problems(fig) == ["legend: 'SW-GPUCB (window 3000)' and 'SW-GPUCB (window 2000)' are drawn alike"]
    b.get_lines()[0].set(**plotting.switch_style())
    fig.legends.clear()
    with plotting.house_style():
        plotting.add_figure_legend(fig)
    assert checks.legend_problems(fig) == []


def test_a_subscript_in_a_legend_is_caught_an_exponent_and_a_title_subscript_are_not():
    fig = clean_figure()
    ax = fig.axes[0]
    ax.lines[0].set_label("EXP3.S (V = B_T)")
    ax.lines[1].set_label("OAM, n = 10^5")
    ax.set_title("B_T = 1")
    fig.legends.clear()
    with plotting.house_style():
        plotting.add_figure_legend(fig)
    plotting.finish_figure(fig)
    found = only(checks.figure_problems(fig), "words")
    assert found == ["words: the legend entry 'EXP3.S ($V$ = $B_{T}$)' has a 4.9 pt subscript; say it in words"]


def test_a_declared_series_not_drawn_is_caught():
    with plotting.house_style():
        fig = plotting.new_figure(1, 2.6)
        ax = fig.add_subplot()
        t = np.arange(1, 60)
        plotting.series_with_band(ax, t, t, t - 1, t + 1, "OAM", "#d62728", "o",
                                  gid=plotting.series_gid("oam_fixed_u01", "OAM"))
    assert checks.series_problems(fig, ["oam_fixed_u01/OAM"]) == []
    assert checks.series_problems(fig, ["oam_fixed_u01/OAM", "oam_fixed_u01__long/OAM"]) == [
        "series: oam_fixed_u01__long/OAM is not drawn (the paper's figure or text names it)"]


def test_a_type3_font_is_caught_and_the_house_style_embeds_truetype(tmp_path):
    """The same figure saved under matplotlib's default font type (Type 3, refused by preflights) fails the
    font check; saved in the house style (Type 42, TrueType) it passes."""
    import matplotlib

    fig = clean_figure()
    with plotting.house_style():
        plotting.save_figure(fig, tmp_path / "house")
        with matplotlib.rc_context({"pdf.fonttype": 3}):
            plotting.save_figure(fig, tmp_path / "planted")
    assert checks.font_problems(tmp_path / "house.pdf") == []
    assert [p.split(";")[0] for p in checks.font_problems(tmp_path / "planted.pdf")] == [
        "fonts: planted.pdf has 2 Type 3 font(s)"]
