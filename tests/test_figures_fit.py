"""Every figure of the tiny configuration fits its canvas and passes the print checks
(linbandits.figure_checks: size, greyscale, honest axes, reference lines, words), measured with
matplotlib's own extents as each figure is saved. Planted defects must be caught: a legend pushed off
the canvas, OAM's series drawn as they were (solid lines, no markers, grey 91 and 100)."""
import shutil

import numpy as np
import pytest
from matplotlib.figure import Figure

from linbandits import catalogue, cli, figure_checks, plotting


def drawn_figures(workdir, monkeypatch, study, check=plotting.outside_canvas):
    """Every figure product of `study`, drawn again in-process from the run's files: (stem, problems)."""
    monkeypatch.chdir(workdir)
    found = []
    original = Figure.savefig

    def recording(self, fname, *args, **kwargs):
        if str(kwargs.get("format", "")) == "pdf":
            found.append((str(fname), check(self)))
        return original(self, fname, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", recording)
    assert cli.main(["products", "--study", study, "--kind", "figure",
                     "--config", f"results/{study}/config.yaml"]) == 0
    return found


PRODUCT_STUDIES = [s for s, study in catalogue.studies().items() if study.products]


@pytest.fixture(scope="module")
def redrawn(finished_run, tmp_path_factory):
    """A copy of the session's .test run to draw in: the figures drawn here (planted ones too) must not
    land in the run other tests read and copy (a redrawn figure newer than the contact sheet made
    test_rerun_restores' copy rebuild it)."""
    copy = tmp_path_factory.mktemp("redrawn") / "run"
    shutil.copytree(finished_run[0], copy, symlinks=True)
    return copy


@pytest.mark.parametrize("study", PRODUCT_STUDIES)
def test_every_figure_fits_its_canvas(redrawn, monkeypatch, study):
    found = drawn_figures(redrawn, monkeypatch, study)
    assert found, f"{study} drew no figure"
    assert [(stem, problems) for stem, problems in found if problems] == []


@pytest.mark.parametrize("study", PRODUCT_STUDIES)
def test_every_figure_passes_the_print_checks(redrawn, monkeypatch, study):
    found = drawn_figures(redrawn, monkeypatch, study, figure_checks.figure_problems)
    assert found, f"{study} drew no figure"
    assert [(stem, problems) for stem, problems in found if problems] == []


def test_planted_same_grey_solid_lines_are_caught(redrawn, monkeypatch):
    from linbandits.studies.oam import figures as oam_figures

    unmarked = {name: (colour, None) for name, (colour, _) in oam_figures.PALETTE.items()}
    monkeypatch.setattr(oam_figures, "PALETTE", unmarked)
    found = drawn_figures(redrawn, monkeypatch, "oam", figure_checks.figure_problems)
    assert any(p.startswith("greyscale") and "'OAM' and 'LinUCB'" in p for _, problems in found for p in problems)


def test_planted_legend_off_the_canvas_is_caught(redrawn, monkeypatch):
    original = plotting.add_figure_legend

    def off_canvas(fig, *args, **kwargs):
        original(fig, *args, **kwargs)
        for legend in fig.legends:
            legend.set_bbox_to_anchor((1.6, 0.5), transform=fig.transFigure)

    monkeypatch.setattr(plotting, "add_figure_legend", off_canvas)
    for module in list(__import__("sys").modules.values()):
        if getattr(module, "add_figure_legend", None) is original:
            monkeypatch.setattr(module, "add_figure_legend", off_canvas)
    found = drawn_figures(redrawn, monkeypatch, "oam")
    assert found and all(any(p.startswith("legend") for p in problems) for _, problems in found)


def test_the_default_target_puts_every_figure_of_the_run_on_one_page(full_run):
    from matplotlib.image import imread

    from linbandits import contact_sheet

    figures = contact_sheet.figure_pngs(full_run / "figures")
    for name in ("contact_sheet", "contact_sheet_grey"):
        sheet = imread(full_run / "figures" / f"{name}.png")
        assert sheet.shape[0] > 1000 and (full_run / "figures" / f"{name}.pdf").stat().st_size > 1000
        # every figure has its cell: four to a row, 2.55 in a row at the sheet's dpi
        rows = -(-len(figures) // contact_sheet.COLUMNS)
        assert sheet.shape[0] == rows * round(contact_sheet.CELL_HEIGHT * contact_sheet.DPI)
    grey = imread(full_run / "figures" / "contact_sheet_grey.png")
    assert grey.ndim == 2 or (np.allclose(grey[..., 0], grey[..., 1]) and np.allclose(grey[..., 1], grey[..., 2]))


def test_every_pdf_of_the_run_embeds_fonts_a_preflight_accepts(full_run):
    pdfs = sorted((full_run / "figures").rglob("*.pdf"))
    assert len(pdfs) > 20
    assert [p for pdf in pdfs for p in figure_checks.font_problems(pdf)] == []


def test_planted_missing_series_fails_its_figure_and_leaves_no_file(full_run, monkeypatch, tmp_path, capsys):
    """OPKB Fig. 1 drawn without its dashed series (the paper's window 3000 among them, here .test's 300)
    fails with one line naming the series the figure declares, and removes what it wrote; drawn whole, the
    same command passes."""
    import shutil

    from linbandits import products

    work = tmp_path / "run"
    shutil.copytree(full_run / "results" / "opkb", work / "results" / "opkb")
    monkeypatch.chdir(work)
    command = ["products", "--study", "opkb", "--kind", "figure", "--only", "opkb_fig1",
               "--config", "results/opkb/config.yaml"]
    assert cli.main(command) == 0 and (work / "figures" / "opkb" / "opkb_fig1.pdf").exists()
    real = products.Context.panel_experiments
    monkeypatch.setattr(products.Context, "panel_experiments",
                        lambda self, spec, panel: [n for n in real(self, spec, panel) if n not in panel.get("dashed", [])])
    capsys.readouterr()
    assert cli.main(command) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "figure opkb_fig1: series: opkb_env2__w300/SW-GPUCB is not drawn" in error
    assert not list((work / "figures").rglob("opkb_fig1.*"))
