"""GP-UCB family: incremental posterior = from-scratch posterior; engine = round-by-round oracle; planted window
bug; compiled noise = streams.observe; the published-size runs of the pre-compilation engine, arm for arm."""
import hashlib

import numpy as np
import pytest
from opkb_oracle import gpucb_oracle

from linbandits.studies.opkb import gpucb, streams
from linbandits.studies.opkb.instances import opkb_cosine, opkb_env1, opkb_env2, rbf_gram
from linbandits.studies.opkb.kernel import features


def scratch(Phi, lam, played, ys):
    W = np.eye(Phi.shape[1]) / lam
    b = np.zeros(Phi.shape[1])
    for x, y in zip(played, ys):
        W += np.outer(Phi[x], Phi[x])
        b += Phi[x] * y
    C = Phi @ np.linalg.inv(W) @ Phi.T
    return C, Phi @ np.linalg.solve(W, b)


@pytest.mark.parametrize("window", [0, 200])
def test_incremental_posterior_equals_scratch_after_1000_rounds(window):
    rng = np.random.default_rng(0)
    arms = rng.standard_normal((100, 10))
    arms /= np.linalg.norm(arms, axis=1)[:, None]
    Phi = np.linalg.cholesky(rbf_gram(arms, 0.2))
    lam = 20.0
    C = lam * Phi @ Phi.T
    mu, z = np.zeros(100), np.zeros(100)
    played, ys = [], []
    for t in range(1, 1001):
        x = int(rng.integers(0, 10)) if t % 3 else int(rng.integers(0, 100))   # repeated arms, as UCB plays
        played.append(x)
        ys.append(float(rng.uniform(-1, 1)))
        gpucb.add_round(C, mu, z, x, ys[-1])
        if window and t > window:
            gpucb.remove_round(C, mu, z, played[t - window - 1], ys[t - window - 1])
    first = len(played) - window if window else 0
    C_ref, mu_ref = scratch(Phi, lam, played[first:], ys[first:])
    assert np.max(np.abs(np.tril(C) - np.tril(C_ref))) <= 1e-10       # only the lower triangle is kept
    assert np.max(np.abs(mu - mu_ref)) <= 1e-10
    exact = np.empty(100)
    gpucb.posterior_mean(C, z, exact)
    assert np.max(np.abs(exact - mu_ref)) <= 1e-10


def test_compiled_noise_equals_streams_observe():
    rng = np.random.default_rng(3)
    means = rng.uniform(-0.99, 0.99, 20000)
    u = rng.random(20000)
    for kind in streams.NOISE_KINDS:
        for sd in (0.1, 0.0):
            expected = streams.observe(means, u, sd, kind)
            got = np.array([gpucb.observe(m, v, sd, kind == "gaussian") for m, v in zip(means, u)])
            assert np.array_equal(got, expected)      # bit for bit


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


# The arms of the engine before its round loops were compiled (commit 7c47709), at the published size:
# sha256 of the int64 arm sequence, and the total regret.
PUBLISHED = {
    "GP-UCB cosine N=256": (lambda: opkb_cosine(seed=0), 0, "2562112820de86a9", 299.9311606744336),
    "SW-GPUCB(3000) env1": (lambda: opkb_env1(seed=0), 3000, "8c642fa0b2bfc224", 319.1318377421216),
    "SW-GPUCB(2000) env2": (lambda: opkb_env2(seed=0), 2000, "a4c06a22cc58edb6", 1955.3614768732764),
    "WGPUCB env1": (lambda: opkb_env1(seed=0), None, "4527c5470fabd534", 3117.8740471074934),
}


@pytest.mark.parametrize("case", sorted(PUBLISHED))
def test_published_size_runs_match_the_previous_engine(case):
    make, window, digest, total = PUBLISHED[case]
    instance = make()
    Phi = features(instance.arms, 0.2)
    if window is None:
        options = {"rbf_length": 0.2, "noise": "truncated", "lam": 0.01, "scale": 0.5, "discount": 0.9996}
        regret, arms = gpucb.run_wgpucb(instance, Phi, options, 0, 0)
    else:
        regret, arms = gpucb.run_gpucb(instance, Phi, OPTIONS, 0, 0, window=window)
    assert hashlib.sha256(arms.astype("<i8").tobytes()).hexdigest()[:16] == digest
    assert regret.sum() == pytest.approx(total, rel=0, abs=1e-9)
