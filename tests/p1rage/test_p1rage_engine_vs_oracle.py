"""The fast engine against the round-by-round oracle (tests/oracle).

Deterministic pieces (designs, eliminations, rounding, epochs) must agree
exactly. Whole trials are compared exactly by test_p1rage_replay.py (one
injected stream, every pull drawn individually). This file is the second
line: the engine's own generator and its shortcuts (a stationary epoch's
pull counts as one multinomial draw, noise summed per arm) against the
oracle's own generator, statistically, with fixed seeds and tolerances of
4 standard errors (a false alarm would need a 4-sigma event; the seeds are
fixed, so the outcome never changes between runs).
"""
import numpy as np
import pytest
from p1rage_oracle import algorithms as oracle
from p1rage_oracle import frank_wolfe as oracle_fw
from scipy import stats

from linbandits.studies.p1rage.algorithms import ALGORITHMS, make_algorithm
from linbandits.studies.p1rage.algorithms.elimination import peace_levels, rage_levels
from linbandits.studies.p1rage.designs import DesignCache, efficient_rounding, frank_wolfe_designs, keys_to_masks
from linbandits.studies.p1rage.kernels import run_trials
from linbandits.problems.linear import LinearInstance as Instance

N_TRIALS = 300
Z_TOL = 4.0


def small_instance(stationary: bool, T: int = 120) -> Instance:
    """6 arms in R^3 with a best arm that is hard enough to miss sometimes."""
    X = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0],
                  [0.8, 0.5, 0.0], [0.0, 0.7, 0.6], [0.5, -0.4, 0.7]])
    base = np.array([0.55, 0.45, 0.2])
    t = np.arange(T)[:, None]
    thetas = base + np.zeros((T, 3))
    if not stationary:
        # A mean-zero step (arm 1 looks best for the first third) plus an
        # oscillation: the order in which rounds meet theta_t matters, so an
        # engine that mixed up rounds would be caught.
        step = np.where(t < T // 3, 1.0, -0.5) * np.array([-0.6, 0.6, 0.0])
        thetas += step + 0.4 * np.sin(2 * np.pi * t / 50) * np.array([1.0, -1.0, 0.5])
    return Instance("small", X, thetas, noise_sd=1.0)


def oracle_runs(name, inst, n, seed):
    recs, thetas = [], []
    for i in range(n):
        out = oracle.run_trial(name, inst.X, inst.thetas, inst.noise_sd, np.random.default_rng([seed, i]))
        recs.append(out["recommended"])
        thetas.append(out["theta_hat"])
    return np.array(recs), (None if thetas[0] is None else np.array(thetas))


def two_proportion_z(e1, n1, e2, n2):
    p = (e1 + e2) / (n1 + n2)
    se = np.sqrt(p * (1 - p) * (1 / n1 + 1 / n2))
    return 0.0 if se == 0 else (e1 / n1 - e2 / n2) / se


# ---------------------------------------------------------------- exact parts

def random_arms(seed, K=8, d=4):
    return np.random.default_rng(seed).standard_normal((K, d))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_frank_wolfe_equals_plain_spec_implementation(seed):
    X = random_arms(seed)
    sets = np.random.default_rng(seed + 10).random((6, len(X))) < 0.6
    sets[:, :2] = True
    lam, val = frank_wolfe_designs(X, sets, "xy")
    for b, s in enumerate(sets):
        lam_o, val_o = oracle_fw.xy_design(X, np.flatnonzero(s))
        np.testing.assert_allclose(lam[b], lam_o, rtol=0, atol=1e-10)
        assert val[b] == pytest.approx(val_o, rel=1e-10)
    lam_g, val_g = frank_wolfe_designs(X, np.ones((1, len(X)), bool), "g")
    lam_go, val_go = oracle_fw.g_design(X)
    np.testing.assert_allclose(lam_g[0], lam_go, atol=1e-10)
    assert val_g[0] == pytest.approx(val_go, rel=1e-10)


@pytest.mark.parametrize("first_threshold", [0.5, 1.0])
def test_rage_elimination_matches_oracle(first_threshold):
    inst = small_instance(True)
    algo = make_algorithm("P1-RAGE", inst, {"first_threshold": first_threshold})
    G = algo.g_design()
    rng = np.random.default_rng(3)
    theta_hat = inst.theta_bar + rng.normal(scale=0.4, size=(40, inst.d))
    est = theta_hat @ inst.X.T
    lam, _ = algo.mixtures(rage_levels(est, 15, first_threshold))
    for i in range(len(theta_hat)):
        expected = oracle.rage_elimination(inst.X, theta_hat[i], G, m=15, first_threshold=first_threshold)
        np.testing.assert_allclose(lam[i], expected, atol=1e-10)


def test_peace_elimination_matches_oracle():
    inst = small_instance(True)
    algo = make_algorithm("P1-Peace", inst)
    G = algo.g_design()
    theta_hat = inst.theta_bar + np.random.default_rng(4).normal(scale=0.5, size=(40, inst.d))
    lam, _ = algo.mixtures(peace_levels(algo.designs, theta_hat @ inst.X.T))
    for i in range(len(theta_hat)):
        np.testing.assert_allclose(lam[i], oracle.peace_elimination(inst.X, theta_hat[i], G), atol=1e-10)


def test_rounding_and_epochs_match_oracle():
    rng = np.random.default_rng(5)
    for _ in range(200):
        w = rng.dirichlet(np.ones(7))
        N = int(rng.integers(7, 400))
        np.testing.assert_array_equal(efficient_rounding(w, N), oracle.efficient_rounding(w, N))
    inst = small_instance(True)
    algo = make_algorithm("Peace", inst)
    assert algo.epochs() == (oracle.n_epochs(inst.X), oracle.epoch_length(inst.X, inst.T))


# ---------------------------------------------------------------- whole trials

# The stationary instance takes every shortcut; the non-stationary one
# draws each pull's arm (the path the exact replay covers) but still sums
# noise per arm, so one algorithm of each sampling kind checks it.
WHOLE_TRIAL_CASES = [(name, True) for name in ALGORITHMS] + [("G-BAI", False), ("Peace", False)]


@pytest.mark.parametrize("name, stationary", WHOLE_TRIAL_CASES,
                         ids=[f"{n}-{'stationary' if s else 'nonstationary'}" for n, s in WHOLE_TRIAL_CASES])
def test_engine_agrees_with_oracle(name, stationary):
    inst = small_instance(stationary)
    fast = run_trials(make_algorithm(name, inst), inst, seed=101, trials=N_TRIALS)
    rec_o, theta_o = oracle_runs(name, inst, N_TRIALS, seed=202)
    best = inst.best_arm
    e_fast, e_oracle = int((fast.recommended != best).sum()), int((rec_o != best).sum())
    # The comparison is only informative if errors happen at all.
    assert 0.02 < e_oracle / N_TRIALS < 0.98 or name in ("Peace", "OD-LinBAI")
    assert abs(two_proportion_z(e_fast, N_TRIALS, e_oracle, N_TRIALS)) < Z_TOL, (e_fast, e_oracle)

    # The whole distribution of recommendations, not just the error rate.
    arms = np.arange(inst.K)
    table = np.array([[np.sum(fast.recommended == a) for a in arms], [np.sum(rec_o == a) for a in arms]])
    table = table[:, table.sum(axis=0) > 0]
    if table.shape[1] > 1:
        assert stats.chi2_contingency(table)[1] > 1e-4, table

    if theta_o is not None:
        assert fast.theta_hat is not None
        diff = fast.theta_hat.mean(axis=0) - theta_o.mean(axis=0)
        se = np.sqrt(fast.theta_hat.var(axis=0) / N_TRIALS + theta_o.var(axis=0) / N_TRIALS)
        assert np.all(np.abs(diff) < Z_TOL * se), (diff, se)
        # Variances: the log variance ratio of two samples of n has sd about
        # sqrt(2 / (n - 1) * 2) (normal-ish estimates); 4 of those.
        c_fast, c_oracle = np.cov(fast.theta_hat.T), np.cov(theta_o.T)
        log_ratio = np.log(np.diag(c_fast) / np.diag(c_oracle))
        assert np.all(np.abs(log_ratio) < Z_TOL * np.sqrt(4 / (N_TRIALS - 1))), log_ratio


def test_ips_estimate_is_unbiased_under_nonstationarity():
    inst = small_instance(False)
    res = run_trials(make_algorithm("G-BAI", inst), inst, seed=9, trials=2000)
    se = res.theta_hat.std(axis=0) / np.sqrt(2000)
    assert np.all(np.abs(res.theta_hat.mean(axis=0) - inst.theta_bar) < Z_TOL * se)


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_outcomes_do_not_depend_on_chunking(name):
    inst = small_instance(False)
    whole = run_trials(make_algorithm(name, inst), inst, seed=5, trials=90, block=90)
    # Chunks in reverse order with a different block size: a fresh design
    # cache fills up in a different order, which must not matter either.
    parts = [run_trials(make_algorithm(name, inst), inst, seed=5, trials=range(lo, lo + 30), block=7)
             for lo in (60, 30, 0)][::-1]
    np.testing.assert_array_equal(np.concatenate([p.recommended for p in parts]), whole.recommended)
    if whole.theta_hat is not None:
        np.testing.assert_array_equal(np.concatenate([p.theta_hat for p in parts]), whole.theta_hat)


@pytest.mark.parametrize("name", ["P1-Peace", "Peace", "OD-LinBAI"])
def test_any_trial_indices_give_each_trial_its_own_outcome(name):
    """run_many takes any trial indices (study.Algorithm's contract): trials 7, 2, 11 in that order
    are rows 7, 2, 11 of trials 0..11."""
    inst = small_instance(False)
    whole = make_algorithm(name, inst).simulate(5, 12)
    some = make_algorithm(name, inst).simulate(5, [7, 2, 11])
    for column in ("recommended", "correct"):
        np.testing.assert_array_equal(some.columns[column], whole.columns[column][[7, 2, 11]])


def test_design_cache_solves_each_set_once():
    cache = DesignCache(random_arms(7))
    keys = np.array([0b111, 0b101, 0b111, 0b11000011, 0b101], dtype=np.int64)
    lam, val = cache.xy(keys)
    assert cache.solves == 3
    cache.xy(keys)
    assert cache.solves == 3
    np.testing.assert_array_equal(lam[0], lam[2])
    assert keys_to_masks(np.array([0b101]), 4).tolist() == [[True, False, True, False]]
