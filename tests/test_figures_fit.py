"""Every figure of the tiny configuration fits its canvas: legends, titles, subtitles and axis labels
lie inside the saved figure, measured with matplotlib's own extents as each figure is saved. A planted
legend pushed off the canvas must be caught."""
import pytest
from matplotlib.figure import Figure

from linbandits import catalogue, cli, plotting


def drawn_figures(workdir, monkeypatch, study):
    """Every figure product of `study`, drawn again in-process from the run's files: (stem, problems)."""
    monkeypatch.chdir(workdir)
    found = []
    original = Figure.savefig

    def recording(self, fname, *args, **kwargs):
        if str(kwargs.get("format", "")) == "pdf":
            found.append((str(fname), plotting.outside_canvas(self)))
        return original(self, fname, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", recording)
    assert cli.main(["products", "--study", study, "--kind", "figure",
                     "--config", f"results/{study}/config.yaml"]) == 0
    return found


PRODUCT_STUDIES = [s for s, study in catalogue.studies().items() if study.products]


@pytest.mark.parametrize("study", PRODUCT_STUDIES)
def test_every_figure_fits_its_canvas(full_run, monkeypatch, study):
    found = drawn_figures(full_run, monkeypatch, study)
    assert found, f"{study} drew no figure"
    assert [(stem, problems) for stem, problems in found if problems] == []


def test_planted_legend_off_the_canvas_is_caught(full_run, monkeypatch):
    original = plotting.add_figure_legend

    def off_canvas(fig, *args, **kwargs):
        original(fig, *args, **kwargs)
        for legend in fig.legends:
            legend.set_bbox_to_anchor((1.6, 0.5), transform=fig.transFigure)

    monkeypatch.setattr(plotting, "add_figure_legend", off_canvas)
    for module in list(__import__("sys").modules.values()):
        if getattr(module, "add_figure_legend", None) is original:
            monkeypatch.setattr(module, "add_figure_legend", off_canvas)
    found = drawn_figures(full_run, monkeypatch, "oam")
    assert found and all(any(p.startswith("legend") for p in problems) for _, problems in found)
