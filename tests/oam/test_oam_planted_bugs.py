"""Every planted bug of oam_planted_bugs.py makes one of the suite's comparisons fail."""
import pytest

from oam_planted_bugs import BUGS
from test_oam_allocation import circle_closed_vs_sdp


def test_every_bug_is_tested():
    tested = {"no_rescaling"}
    assert set(BUGS) == tested


def test_no_rescaling_breaks_closed_form_vs_sdp(monkeypatch):
    closed, sdp = circle_closed_vs_sdp()
    assert sdp == pytest.approx(closed, rel=1e-6)
    BUGS["no_rescaling"](monkeypatch)
    closed, sdp = circle_closed_vs_sdp()
    assert sdp != pytest.approx(closed, rel=1e-2)
    assert sdp == pytest.approx(53.2, abs=0.1)      # the spec's number for the unscaled program
