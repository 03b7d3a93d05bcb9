"""GP-UCB family: incremental posterior = from-scratch posterior; engine = round-by-round oracle; planted window bug."""
import numpy as np
import pytest
from opkb_oracle import gpucb_oracle

from linbandits.studies.opkb import gpucb
from linbandits.studies.opkb.instances import opkb_env1, rbf_gram
from linbandits.studies.opkb.kernel import features


def scratch(Phi, lam, played):
    W = np.eye(Phi.shape[1]) / lam
    for x in played:
        W += np.outer(Phi[x], Phi[x])
    return Phi @ np.linalg.inv(W) @ Phi.T


@pytest.mark.parametrize("window", [0, 200])
def test_incremental_posterior_equals_scratch_after_1000_rounds(window):
    rng = np.random.default_rng(0)
    arms = rng.standard_normal((100, 10))
    arms /= np.linalg.norm(arms, axis=1)[:, None]
    Phi = np.linalg.cholesky(rbf_gram(arms, 0.2))
    lam = 20.0
    C = lam * Phi @ Phi.T
    played = []
    for t in range(1, 1001):
        x = int(rng.integers(0, 10)) if t % 3 else int(rng.integers(0, 100))   # repeated arms, as UCB plays
        played.append(x)
        gpucb.add_round(C, x)
        if window and t > window:
            gpucb.remove_round(C, played[t - window - 1])
    data = played[-window:] if window else played
    assert np.max(np.abs(C - scratch(Phi, lam, data))) <= 1e-10


SMALL = opkb_env1(seed=2, N=12, d=3, T=260, switch=120)
OPTIONS = {"rbf_length": 0.2, "noise": "truncated", "lam": 20.0, "v": 0.01}


@pytest.mark.parametrize("window", [0, 40])
def test_gpucb_engine_equals_oracle(window):
    Phi = features(SMALL.arms, 0.2)
    regret, arms = gpucb.run_gpucb(SMALL, Phi, OPTIONS, 5, 1, window=window)
    o_arms, o_regret = gpucb_oracle(SMALL, OPTIONS, 5, 1, window=window)
    assert np.array_equal(arms, o_arms)
    assert np.max(np.abs(regret - o_regret)) <= 1e-12
    assert len(set(arms)) > 3


def test_wgpucb_engine_equals_oracle():
    options = {"rbf_length": 0.2, "noise": "truncated", "lam": 0.01, "scale": 0.5, "discount": 0.99}
    Phi = features(SMALL.arms, 0.2)
    regret, arms = gpucb.run_wgpucb(SMALL, Phi, options, 5, 1)
    o_arms, o_regret = gpucb_oracle(SMALL, options, 5, 1, discount=0.99)
    assert np.array_equal(arms, o_arms)
    assert np.max(np.abs(regret - o_regret)) <= 1e-12


def window_one_too_long(t, window):
    return max(1, t - window - 1)      # planted bug: w + 1 rounds in the window


def test_planted_window_off_by_one_is_caught(monkeypatch):
    monkeypatch.setattr(gpucb, "window_start", window_one_too_long)
    Phi = features(SMALL.arms, 0.2)
    _, arms = gpucb.run_gpucb(SMALL, Phi, OPTIONS, 5, 1, window=40)
    o_arms, _ = gpucb_oracle(SMALL, OPTIONS, 5, 1, window=40)
    assert not np.array_equal(arms, o_arms)
