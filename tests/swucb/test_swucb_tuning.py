"""H, Delta, J, gamma, windows, beta and the variations for every T of the grid (spec section 8's table)."""
import math

import numpy as np
import pytest

from linbandits.catalogue import build_instance, make_algorithm
from linbandits.studies.swucb import tuning
from linbandits.studies.swucb.instances import bgz_variation, total_variation

# Spec section 8: T, H, Delta, J, ceil(T/H), gamma_BOB, 2H + 4R.., w agnostic, w eq12 (B = 1), beta(w).
TABLE = [
    (30000, 274, 6, [1, 2, 6, 16, 42, 107, 274], 110, 0.268452, 566.136, 1532, 965, 1.594036),
    (60000, 388, 6, [1, 2, 7, 19, 53, 143, 388], 155, 0.226150, 798.315, 2432, 1532, 1.613172),
    (90000, 476, 7, [1, 2, 5, 14, 33, 81, 197, 476], 190, 0.225733, 977.180, 3187, 2008, 1.624095),
    (120000, 549, 7, [1, 2, 6, 14, 36, 90, 222, 549], 219, 0.210256, 1125.391, 3861, 2432, 1.631731),
    (150000, 614, 7, [1, 2, 6, 15, 39, 98, 245, 614], 245, 0.198787, 1257.249, 4481, 2823, 1.637593),
    (180000, 673, 7, [1, 2, 6, 16, 41, 104, 265, 673], 268, 0.190066, 1376.861, 5060, 3187, 1.642340),
    (210000, 727, 7, [1, 2, 6, 16, 43, 110, 283, 727], 289, 0.183030, 1486.284, 5608, 3533, 1.646328),
    (240000, 777, 7, [1, 2, 6, 17, 44, 116, 300, 777], 309, 0.177008, 1587.562, 6130, 3861, 1.649762),
]
GRID = [row[0] for row in TABLE]
LAST_BLOCK = [134, 248, 36, 318, 184, 309, 624, 684]
EXP3S_GAMMA_V3 = [0.14392, 0.11658, 0.10301, 0.09432, 0.08808, 0.08329, 0.07943, 0.07624]
REXP3_BATCH_V3 = [518, 822, 1077, 1305, 1514, 1709, 1894, 2071]
KNOWN_WINDOW_FIG2 = [155, 211, 252, 287, 317, 343, 368, 390]
CORRECTED_WINDOW_FIG1 = [173, 244, 300, 346, 387, 424, 458, 489]
TV_FIG2 = [131.898, 166.000, 190.159, 209.189, 225.337, 239.634, 252.256, 263.566]


@pytest.mark.parametrize("row", TABLE, ids=lambda r: f"T{r[0]}")
def test_bob_and_window_constants(row):
    T, H, Delta, J, blocks, gamma, scale, w, w12, beta = row
    inst = build_instance("swucb_sinusoid", {"T": T})
    plan = make_algorithm("BOB", inst).plan
    assert (plan.H, plan.Delta, list(plan.windows), plan.n_blocks) == (H, Delta, J, blocks)
    assert len(set(plan.windows)) == len(plan.windows)
    assert plan.gamma == pytest.approx(gamma, abs=5e-7)
    assert plan.scale == pytest.approx(scale, abs=5e-4)
    assert T - (blocks - 1) * H == LAST_BLOCK[GRID.index(T)]
    sw = make_algorithm("SW-UCB", inst)
    assert sw.w == w and sw.beta == pytest.approx(beta, abs=5e-7)
    assert make_algorithm("SW-UCB", inst, {"window": "eq12"}).w == w12
    assert make_algorithm("SW-UCB", inst, {"window": "known"}).w == w      # B_T = 1: Thm 3's window is agnostic's
    assert make_algorithm("SW-UCB", inst, {"window": "corrected"}).w == CORRECTED_WINDOW_FIG1[GRID.index(T)]
    assert plan.betas[-1] == pytest.approx(tuning.confidence_radius(H, 2, 0.1, 1.0, 1.0, 1.0, 1 / T))


@pytest.mark.parametrize("i,T", list(enumerate(GRID)))
def test_exp3s_and_figure2_constants(i, T):
    fig1 = build_instance("swucb_sinusoid", {"T": T})
    fig2 = build_instance("swucb_sinusoid", {"T": T, "budget": "cuberoot"})
    assert tuning.exp3s_gamma(T, 2, 3.0) == pytest.approx(EXP3S_GAMMA_V3[i], abs=5e-6)
    assert tuning.rexp3_batch(T, 2, 3.0) == REXP3_BATCH_V3[i]
    assert make_algorithm("SW-UCB", fig2, {"window": "known"}).w == KNOWN_WINDOW_FIG2[i]
    assert total_variation(fig2.thetas) == pytest.approx(TV_FIG2[i], abs=5e-4)
    assert total_variation(fig1.thetas) == pytest.approx(3 * math.sqrt(2), abs=5e-4)
    assert 2.999 < bgz_variation(fig1.means()) < 3.0   # BGZ's V: just under 3 (the extremes are not sampled)
    assert make_algorithm("EXP3.S", fig1).gamma == pytest.approx(tuning.exp3s_gamma(T, 2, bgz_variation(fig1.means())))


def test_bgz_variation_of_figure_2_spans_the_spec_range():
    first = build_instance("swucb_sinusoid", {"T": 30000, "budget": "cuberoot"})
    last = build_instance("swucb_sinusoid", {"T": 240000, "budget": "cuberoot"})
    assert bgz_variation(first.means()) == pytest.approx(93.27, abs=5e-3)
    assert bgz_variation(last.means()) == pytest.approx(186.37, abs=5e-3)


def test_instance_is_the_stated_sinusoid():
    inst = build_instance("swucb_sinusoid", {"T": 1000, "budget": "cuberoot"})
    t = 417
    phase = 5 * 1000 ** (1 / 3) * math.pi * t / 1000
    assert inst.thetas[t - 1] == pytest.approx([0.5 + 0.3 * math.sin(phase), 0.5 + 0.3 * math.sin(math.pi + phase)],
                                               abs=1e-15)
    assert np.array_equal(inst.X, np.eye(2)) and inst.noise_sd == 0.1
    assert inst.meta["B_T"] == pytest.approx(10.0)
