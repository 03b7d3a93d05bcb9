"""A preview run's figures say so: the banner stands above the figure's own title."""
import linbandits.plotting as plotting
from linbandits.studies.opkb import report


def _drawn_suptitle(monkeypatch, preview):
    seen = {}
    monkeypatch.setattr(plotting, "save_figure", lambda fig, stem: seen.update(fig=fig))
    summaries = {"env1": {"algorithms": {"SW-GPUCB": {"t": [1, 2], "mean": [0.5, 1.0], "se": [0.1, 0.1],
                                                      "final": [1.0, 1.0]}}}}
    report.draw_figure(summaries, [{"experiment": "env1"}], {}, "unused", "Fig. 1", None, preview)
    title = seen["fig"]._suptitle
    return title.get_text() if title is not None else ""


def test_preview_banner_is_on_the_figure(monkeypatch):
    text = _drawn_suptitle(monkeypatch, "PREVIEW: reduced run counts")
    assert text.startswith("PREVIEW") and "Fig. 1" in text


def test_full_run_has_no_banner(monkeypatch):
    assert _drawn_suptitle(monkeypatch, "") == "Fig. 1"
