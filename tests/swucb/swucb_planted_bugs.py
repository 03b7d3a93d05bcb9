"""Bugs the suite plants itself (monkeypatch) to prove its comparisons can fail."""
import math

from linbandits.studies.swucb import trajectories, tuning

_window = tuning.sliding_window
_radius = tuning.confidence_radius


def window_off_by_one(monkeypatch):
    """SW-UCB remembers w + 1 rounds instead of w."""
    monkeypatch.setattr(tuning, "sliding_window", lambda *a, **k: _window(*a, **k) + 1)


def beta_without_sqrt_lam_s(monkeypatch):
    """beta of eq. (5) without its sqrt(lam) S term."""
    def radius(w, d, R, L, lam, S, delta):
        return _radius(w, d, R, L, lam, S, delta) - math.sqrt(lam) * S
    monkeypatch.setattr(tuning, "confidence_radius", radius)


def bob_keeps_sw_ucb_across_blocks(monkeypatch):
    """BOB carries the previous block's SW-UCB (its window data) into the next block."""
    fresh = trajectories.fresh_sw_ucb_state
    monkeypatch.setattr(trajectories, "fresh_sw_ucb_state",
                        lambda d, lam, capacity, previous=None: previous or fresh(d, lam, capacity))


PLANTED = {
    "window_off_by_one": (window_off_by_one, "SW-UCB"),
    "beta_without_sqrt_lam_s": (beta_without_sqrt_lam_s, "SW-UCB"),
    "bob_keeps_sw_ucb_across_blocks": (bob_keeps_sw_ucb_across_blocks, "BOB"),
    "bob_beta_without_sqrt_lam_s": (beta_without_sqrt_lam_s, "BOB"),
}
