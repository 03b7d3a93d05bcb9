"""Figures: files written, byte-stable PDFs, honest zero-error points, fixed styles."""
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from linbandits import cli
from matplotlib.colors import to_hex

from linbandits.errors import UserError
from linbandits.studies.p1rage.stats import normal_ci, wilson_ci
from linbandits.studies.p1rage.error_tables import ALGORITHM_ORDER
from linbandits.studies.p1rage.figures import (ALGORITHM_COLOURS, ZERO_FLOOR_LABEL, algorithm_style,
                                               build_figure, figure_bars, figure_curves,
                                               figure_error_with_gap)
from linbandits.tables import write_table

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

@pytest.mark.parametrize("kind", ["curves", "curves_gap", "bars"])
def test_files_written_and_pdf_byte_identical(tmp_path, curves_table, bars_table, kind):
    table = bars_table if kind == "bars" else curves_table
    draw = {"curves": lambda t, s: figure_curves(t, "title", "s", s),
            "curves_gap": lambda t, s: figure_error_with_gap(t, "title", "s", s),
            "bars": lambda t, s: figure_bars(t, "title", s)}[kind]
    draw(table, tmp_path / "one")
    draw(table, tmp_path / "two")
    for ext in ("pdf", "png"):
        assert (tmp_path / f"one.{ext}").stat().st_size > 1000
    assert (tmp_path / "one.pdf").read_bytes() == (tmp_path / "two.pdf").read_bytes()
    assert not list(tmp_path.glob(".*.tmp")), "temporary files left behind"


def test_cli_pdf_identical_across_processes(tmp_path, curves_table):
    osci = tmp_path / "osci.csv"
    write_table(curves_table, osci)
    write_table(curves_table.assign(experiment="multi_period"), tmp_path / "period.csv")
    for stem in ("a", "b"):
        subprocess.run([sys.executable, "-m", "linbandits.cli", "p1rage-figure", "--kind", "curves_gap",
                        "--table", str(osci), "--table", str(tmp_path / "period.csv"),
                        "--title", "scale", "--title", "period",
                        "--subtitle", "synthetic stand-in for R6A",
                        "--xlabel", "s", "--xlabel", "L", "--out-stem", str(tmp_path / stem)],
                       check=True)
    assert (tmp_path / "a.pdf").read_bytes() == (tmp_path / "b.pdf").read_bytes()


def test_cli_rejects_title_count_mismatch(tmp_path, curves_table, capsys):
    path = tmp_path / "t.csv"
    write_table(curves_table, path)
    code = cli.main(["p1rage-figure", "--kind", "curves", "--table", str(path), "--table", str(path),
                        "--table", str(path), "--title", "a", "--title", "b",
                        "--out-stem", str(tmp_path / "f")])
    assert code == 2
    assert "2 titles for 3 panels" in capsys.readouterr().err
    assert not (tmp_path / "f.pdf").exists()


def test_cli_overlays_the_published_curve_of_the_named_experiment(tmp_path, curves_table, monkeypatch, capsys):
    """The figure rules are shell commands: `--overlay E` draws E's published cells dashed on that
    panel, `--overlay -` draws none, and a count that does not match the tables is one error line."""
    from linbandits.studies.p1rage import figures

    path = tmp_path / "t.csv"
    write_table(curves_table, path)
    drawn = []
    monkeypatch.setattr(figures, "write_figure", lambda *a, **k: drawn.append(a[-1]))
    assert cli.main(["p1rage-figure", "--kind", "curves", "--table", str(path), "--table", str(path),
                     "--title", "t", "--overlay", "multi_osci", "--overlay", "-",
                     "--out-stem", str(tmp_path / "f")]) == 0
    first, second = drawn[0]
    assert second is None
    assert set(first["experiment"]) == {"multi_osci"} and len(first) > 0
    assert cli.main(["p1rage-figure", "--kind", "curves", "--table", str(path), "--title", "t",
                     "--overlay", "multi_osci", "--overlay", "-", "--out-stem", str(tmp_path / "g")]) == 2
    assert "2 --overlay for 1 --table" in capsys.readouterr().err


# ------------------------------------------------------------ zero-error points

def test_zero_errors_drawn_at_one_over_n(curves_table):
    fig = build_figure("curves", curves_table, "t", "s")
    lines = lines_by_gid(fig)
    floor = lines["zero-floor:P1-RAGE"]
    np.testing.assert_array_equal(floor.get_xdata(), [0.0, 1.0])
    np.testing.assert_allclose(floor.get_ydata(), [1 / N_TRIALS] * 2)
    assert floor.get_markerfacecolor() in ("white", "w", (1.0, 1.0, 1.0, 1.0))
    # The curve keeps every point: zeros sit on the floor, nothing is dropped.
    curve = lines["curve:P1-RAGE"]
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
        assert to_hex(lines[f"curve:{algorithm}"].get_color()) == ALGORITHM_COLOURS[algorithm]
    # A name outside the paper still gets the same style every time.
    assert algorithm_style("P1-RAGE-unbatched") == algorithm_style("P1-RAGE-unbatched")
