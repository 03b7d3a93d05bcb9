"""Planted bugs: each, applied to the engine with monkeypatch, must make an exact comparison
with the plain oracle fail. The engine runs its kernels' pure-Python forms here (numba freezes
module constants at compile time), on instances small enough for that."""
import numpy as np
import pytest

import lingape_oracle as oracle
from lingape_cases import canonical, random_bai
from linbandits.studies.lingape import kernels as kn
from linbandits.studies.lingape import streams
from linbandits.studies.lingape.algorithms import LinGapE, XYStatic

SEED = 23


def first_index_ties(scores, key, n):
    """Planted bug: ties broken toward the first index instead of at random."""
    m = scores.min()
    return int(np.flatnonzero(scores - m <= kn.TIE_RTOL * abs(m))[0])


PLANTED = {
    "stop_every_second_pull": [("STOP_CHECK_EVERY", 2)],
    "K_instead_of_K2_in_width": [("WIDTH_K_POWER", 1)],
    "ties_toward_first_index": [("pick_min_tied", first_index_ties)],
}


def python_kernels(monkeypatch):
    for name in ("lingape_kernel", "static_kernel"):
        monkeypatch.setattr(kn, name, getattr(kn, name).py_func)


def lingape_mismatches(inst, trials):
    algo = LinGapE(inst)
    rec = algo.simulate(SEED, np.asarray(trials))
    bad = 0
    for k, t in enumerate(trials):
        arm, T, _ = oracle.lingape(inst.X, inst.means, oracle.draw_stream(SEED, t, True),
                                   streams.run_tie_key(SEED, t), R=algo.R, S=algo.S, delta=inst.delta)
        got = [int(rec.columns[f"pulls_{a}"][k]) for a in range(inst.K)]
        bad += got != T.tolist() or int(rec.columns["recommended"][k]) != arm
    return bad


def static_mismatches(inst, trials):
    algo = XYStatic(inst)
    rec = algo.simulate(SEED, np.asarray(trials))
    bad = 0
    for k, t in enumerate(trials):
        arm, T, _ = oracle.xy_static(inst.X, inst.means, oracle.draw_stream(SEED, t, True),
                                     streams.shared_tie_key(SEED), noise_sd=inst.noise_scale, sigma=algo.sigma,
                                     lam=algo.lam, delta=inst.delta)
        bad += [int(rec.columns[f"pulls_{a}"][k]) for a in range(inst.K)] != T.tolist()
    return bad


def test_unpatched_python_kernels_agree(monkeypatch):
    """The pure-Python forms themselves are faithful: without a bug, no mismatch."""
    python_kernels(monkeypatch)
    assert lingape_mismatches(canonical(Delta=1.0, d=3), [0, 1]) == 0


@pytest.mark.parametrize("bug", sorted(PLANTED))
def test_planted_bug_is_caught(monkeypatch, bug):
    python_kernels(monkeypatch)
    for name, value in PLANTED[bug]:
        monkeypatch.setattr(kn, name, value)
    if bug == "ties_toward_first_index":
        # canonical arms: the greedy scores of the arms outside the pair tie exactly
        assert lingape_mismatches(canonical(Delta=1.0, d=3), [0, 1, 2]) > 0
    else:
        assert lingape_mismatches(canonical(Delta=1.0, d=3), [0, 1, 2, 3]) > 0


def test_stop_every_second_pull_is_caught_in_xy_static(monkeypatch):
    python_kernels(monkeypatch)
    assert static_mismatches(random_bai(seed=4, K=3, d=2), [0, 1, 2, 3]) == 0     # the control: no bug, no mismatch
    monkeypatch.setattr(kn, "STOP_CHECK_EVERY", 2)
    assert static_mismatches(random_bai(seed=4, K=3, d=2), [0, 1, 2, 3]) > 0


def test_xy_adaptive_resumed_cut_phase_bug_is_caught(monkeypatch):
    """Planted bug: a run resuming at a phase kept where it reached max_pulls gets a wrong count."""
    real = kn.phase_kernel

    def resumed_wrong(G, D, W, T, ist, fst, *args):
        if ist[0] >= args[-2]:        # resumed at the limit: the kernel returns at once
            T[0] += 1
        return real(G, D, W, T, ist, fst, *args)

    import test_lingape_engine_vs_oracle as exact
    exact.test_xy_adaptive_cut_at_max_pulls()
    monkeypatch.setattr(kn, "phase_kernel", resumed_wrong)
    with pytest.raises(AssertionError):
        exact.test_xy_adaptive_cut_at_max_pulls()
