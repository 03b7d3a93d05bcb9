"""The replay schedule and the block constants against the spec (B and G4)."""
import math

import numpy as np
import pytest

from linbandits.studies.opkb import schedule
from linbandits.studies.opkb.designs import InformationGain
from linbandits.studies.opkb.opkb import KernelConstants

OPTIONS = dict(sigma=100.0, beta_scale=50.0, mu_scale=0.2, e_scale=0.01, g_scale=0.05, eps_scale=0.005,
               mixture_probability=0.2, delta=1e-4, j_star=4)


def test_slots_and_probabilities_of_block_6():
    sched = schedule.draw_schedule(6, 4, np.random.default_rng(0))
    assert sorted(sched) == [4, 5]
    assert len(sched[4]) == 4 and len(sched[5]) == 2
    assert schedule.replay_probability(4, 6) == pytest.approx(0.5)
    assert schedule.replay_probability(5, 6) == pytest.approx(0.7071, abs=1e-4)


def test_replay_frequencies_match_the_probabilities():
    """20000 draws of block 6's schedule (j_star 0): each slot's frequency within 4 s.e. of 2^((m-j)/2)."""
    rng = np.random.default_rng(7)
    draws = [schedule.draw_schedule(6, 0, rng) for _ in range(20000)]
    for m in range(6):
        freq = np.mean([d[m].mean() for d in draws])
        p = 2 ** ((m - 6) / 2)
        assert abs(freq - p) < 4 * math.sqrt(p * (1 - p) / (20000 * 2 ** (6 - m)))
        expected_replays = np.mean([d[m].sum() for d in draws])
        assert expected_replays == pytest.approx(2 ** ((6 - m) / 2), rel=0.05)


def test_smallest_scheduled_index_is_played_and_intervals_end_on_slot_boundaries():
    sched = {1: np.array([False, True, False, False]), 2: np.array([True, True])}
    E = 3
    idx = schedule.round_indices(3, E, sched)
    assert len(idx) == E * 2 ** 3
    assert list(idx) == [2] * 6 + [1] * 6 + [2] * 12
    assert schedule.replay_ends(3, E, sched) == [(11, 1, 1), (11, 2, 0), (23, 2, 1)]


def test_block_lengths_and_constants():
    """K = I (N = 100), T = 1e4, the code's knobs: gamma_T 34.657, E = 39, block j ends at E(2^(j+1) - 1),
    mu_j = 0.1 2^(-j/2)."""
    c = KernelConstants(np.eye(100), 10000, OPTIONS)
    assert c.gamma_T == pytest.approx(34.657, abs=1e-3)
    log_term = math.log(8 * 100 * 10000 * math.log2(10000) / 1e-4)
    assert c.E == math.ceil(4 * c.gamma_T * log_term * 0.01) == 39
    ends = np.cumsum([c.E * 2 ** j for j in range(8)])
    assert list(ends) == [c.E * (2 ** (j + 1) - 1) for j in range(8)]
    for j in range(6):
        assert c.mu(j) == pytest.approx(0.1 * 2 ** (-j / 2))
        assert c.beta(j) == pytest.approx(c.gamma_T * 50 * 2 ** (j / 2) / (10 + 4 * math.sqrt(c.alpha)))
        assert c.good_threshold(j) == pytest.approx(2 * c.alpha * 0.05 * (10 + 4 * math.sqrt(c.alpha)) * 2 ** (-j / 2))


@pytest.mark.parametrize("t, g, beta", [(1500, 27.4501, 0.079189), (9000, 85.0718, 0.112710)])
def test_gpucb_information_gain_and_beta(t, g, beta):
    """Spec G3: K = I, N = 100, lam = 20, v = 0.01, T = 1e4."""
    from linbandits.studies.opkb.gpucb import gp_beta

    gain = InformationGain(np.eye(100), 10000, 20.0)
    for knot in (1, 2, 1024, 8192):
        assert gain.exact(knot) == pytest.approx(50 * math.log(1 + knot / 2000), abs=1e-8)
    assert gain.get(t) == pytest.approx(g, abs=1e-4)
    assert gp_beta(gain, t, 0.01, 0) == pytest.approx(beta, abs=1e-6)
    assert gp_beta(gain, 2, 0.01, 0) == pytest.approx(0.055245, abs=1e-6)
