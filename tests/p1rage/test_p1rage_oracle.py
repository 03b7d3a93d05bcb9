"""Checks of the slow reference oracle itself (tests/oracle).

The engine is later compared with the oracle, so the oracle has to earn
trust on its own: known design values, hand-worked roundings, unbiased IPS
estimates, success on an easy instance and the expected failure of Peace on
a malicious one.  Every random draw uses a fixed seed.
"""

import numpy as np
import pytest

from p1rage_oracle import algorithms, frank_wolfe
from p1rage_oracle.algorithms import ALGORITHMS, efficient_rounding, run_trial


def soare_arms(d, omega):
    """e_1..e_d plus cos(omega) e_1 + sin(omega) e_2."""
    extra = np.zeros(d)
    extra[0], extra[1] = np.cos(omega), np.sin(omega)
    return np.vstack([np.eye(d), extra])


def stationary(theta, T):
    return np.tile(np.asarray(theta, dtype=float), (T, 1))


def malicious_thetas(d, T):
    """(0, 1, ..., 1) for the first third, one zero round, then 2 e_1."""
    switch = T // 3
    thetas = np.zeros((T, d))
    thetas[:switch, 1:] = 1.0
    thetas[switch + 1:, 0] = 2.0
    return thetas


# A small instance every algorithm should solve: values (0.2, 0.72, 1, 0), so
# the best arm is 2 (not the first index) and the gap is 0.28.
EASY_ARMS = np.array([[0.0, 1.0, 0.0], [0.6, 0.6, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
EASY_THETA = np.array([1.0, 0.2, 0.0])
EASY_BEST = 2


# ---------------------------------------------------------------- designs


@pytest.mark.parametrize("K, d, seed", [(5, 3, 0), (8, 4, 1), (12, 5, 2)])
def test_g_design_value_matches_kiefer_wolfowitz(K, d, seed):
    X = np.random.default_rng(seed).standard_normal((K, d))
    lam, value = frank_wolfe.g_design(X)
    assert lam.min() >= 0 and lam.sum() == pytest.approx(1.0)
    # the optimum is exactly d; FW from above with 999 steps gets within 2%
    assert d - 1e-9 <= value <= 1.02 * d


def test_single_arm_set_gives_uniform_design_and_zero():
    X = soare_arms(4, 0.3)
    lam, value = frank_wolfe.xy_design(X, [2])
    assert value == 0.0
    np.testing.assert_allclose(lam, np.full(len(X), 1 / len(X)))


def test_xy_design_depends_only_on_the_set():
    X = soare_arms(5, 0.5)
    lam_a, value_a = frank_wolfe.xy_design(X, [5, 0, 2])
    lam_b, value_b = frank_wolfe.xy_design(X, [2, 5, 0])
    np.testing.assert_array_equal(lam_a, lam_b)
    assert value_a == value_b


def test_soare_xy_value_and_epoch_count():
    X = soare_arms(10, 0.1)
    _, rho_all = frank_wolfe.xy_design(X, range(len(X)))
    assert 20.0 <= rho_all <= 20.1
    assert algorithms.n_epochs(X) == 5
    assert algorithms.epoch_sizes(X, 1010) == [202] * 5
    assert algorithms.epoch_sizes(X, 1013) == [202, 202, 202, 202, 205]


# -------------------------------------------------------- efficient rounding


@pytest.mark.parametrize(
    "w, N, expected",
    [
        ((0.5, 0.3, 0.2), 10, (5, 3, 2)),  # ceil((10 - 1.5) w) already sums to 10
        ((1 / 3, 1 / 3, 1 / 3), 4, (2, 1, 1)),  # one increment, tie -> first arm
        ((0.7, 0.1, 0.1, 0.1), 20, (14, 2, 2, 2)),  # increment at min n/w
        ((0.45, 0.35, 0.2), 10, (4, 4, 2)),  # min n/w is not the heaviest arm
        ((0.05, 0.05, 0.9), 4, (1, 1, 2)),  # decrement at max (n - 1)/w
        ((0.0, 0.6, 0.4), 3, (0, 2, 1)),  # zero weight stays off the support
    ],
)
def test_efficient_rounding_hand_worked(w, N, expected):
    assert tuple(efficient_rounding(np.array(w), N)) == expected


def test_efficient_rounding_bounds_on_random_designs():
    rng = np.random.default_rng(3)
    for _ in range(500):
        K = int(rng.integers(2, 12))
        w = rng.dirichlet(np.ones(K))
        w[rng.random(K) < 0.2] = 0.0
        if w.sum() == 0:
            continue
        w /= w.sum()
        p = int((w > 0).sum())
        N = int(rng.integers(p, 400))
        n = efficient_rounding(w, N)
        on = w > 0
        assert n.sum() == N
        assert np.all(n[~on] == 0)
        # Pukelsheim's efficiency guarantee: n_k >= (N - p) w_k
        assert np.all(n[on] >= (N - p) * w[on] - 1e-9)
        # start within [-p w_k / 2, 1 - p w_k / 2) of N w_k, then <= p/2 unit fixes
        assert np.all(np.abs(n[on] - N * w[on]) <= 1 + p / 2 + p * w[on] / 2)


# ------------------------------------------------------ virtual eliminations


@pytest.mark.parametrize(
    "options, n_pair_designs",
    [
        ({}, 6),  # thresholds 1/2, ..., 1/64 keep x'; 1/128 < gap 0.00999 drops it
        ({"first_threshold": 1.0}, 7),  # paper text: 1, 1/2, ..., 1/128
        ({"m": 3}, 2),  # the phase cap stops the loop first
    ],
)
def test_rage_elimination_counts_phases(options, n_pair_designs):
    X = soare_arms(10, 0.1)
    theta = 2 * np.eye(10)[0]
    G, _ = frank_wolfe.g_design(X)
    all_arms, _ = frank_wolfe.xy_design(X, range(11))
    best_pair, _ = frank_wolfe.xy_design(X, [0, 10])
    n_designs = 1 + n_pair_designs
    expected = ((all_arms + n_pair_designs * best_pair) / n_designs + G) / 2
    got = algorithms.rage_elimination(X, theta, G, **options)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_peace_elimination_matches_linear_scan_of_prefixes():
    X = soare_arms(5, 0.5)
    theta = np.array([0.3, 1.0, 0.6, 0.2, 0.0])
    G, _ = frank_wolfe.g_design(X)

    # Re-derive the result with a plain scan for the largest qualifying prefix.
    active = sorted(range(len(X)), key=lambda k: -X[k] @ theta)
    designs = []
    while len(active) > 1:
        lam_S, rho_S = frank_wolfe.xy_design(X, active)
        designs.append(lam_S)
        lengths = [k for k in range(1, len(active) + 1)
                   if frank_wolfe.xy_design(X, active[:k])[1] <= rho_S / 2]
        active = active[:max(lengths)]
    expected = (np.mean(designs, axis=0) + G) / 2

    got = algorithms.peace_elimination(X, theta, G)
    assert len(designs) >= 2  # the instance really exercises several halvings
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    assert got.sum() == pytest.approx(1.0)


def test_halving_prefix_matches_linear_scan_on_random_orders():
    rng = np.random.default_rng(13)
    X = rng.standard_normal((5, 3))
    kept_lengths = set()
    for _ in range(12):
        order = [int(k) for k in rng.permutation(5)]
        _, rho_S = frank_wolfe.xy_design(X, order)
        qualifying = [k for k in range(1, 6) if frank_wolfe.xy_design(X, order[:k])[1] <= rho_S / 2]
        expected = order[:max(qualifying)]
        assert algorithms.halving_prefix(X, order, rho_S) == expected
        kept_lengths.add(len(expected))
    assert len(kept_lengths) >= 2  # not a single degenerate answer


def test_halving_prefix_can_keep_all_but_the_last_arm():
    # Four close arms and one far one: only the far arm inflates rho.
    X = np.array([[1.0, 0.0], [0.9, 0.1], [0.8, 0.2], [0.7, 0.3], [0.0, -1.0]])
    order = [0, 1, 2, 3, 4]
    _, rho_S = frank_wolfe.xy_design(X, order)
    assert algorithms.halving_prefix(X, order, rho_S) == [0, 1, 2, 3]


class CountingRng(algorithms.RandomStream):
    """A random stream that counts arm draws and noise draws."""

    def __init__(self, seed):
        super().__init__(np.random.default_rng(seed))
        self.arm_draws = 0
        self.noise_draws = 0
        self.designs = []

    def arm(self, t, lam):
        self.arm_draws += 1
        self.designs.append(np.array(lam))
        return super().arm(t, lam)

    def noise(self, t):
        self.noise_draws += 1
        return super().noise(t)


@pytest.mark.parametrize("update, rounds_played", [
    ("batched", [1, 101, 201]),
    ("every_round", list(range(1, 301))),
])
def test_p1_updates_after_rounds_zero_e_2e(update, rounds_played):
    # EASY_ARMS has 3 epochs, so E = 100 for T = 300: updates after t = 0, 100, 200
    assert algorithms.n_epochs(EASY_ARMS) == 3
    G, _ = frank_wolfe.g_design(EASY_ARMS)
    rng = CountingRng(4)
    seen = []

    def eliminate(theta_hat):
        seen.append(rng.arm_draws)
        return G

    log = algorithms.DesignLog(300, len(EASY_ARMS))
    algorithms.run_p1(EASY_ARMS, stationary(EASY_THETA, 300), rng, 1.0, log, eliminate, update)
    assert seen == rounds_played


def test_peace_leaves_budget_unused_once_one_arm_is_left():
    # Huge gaps, tiny noise: arm 0 stands alone before the last of 3 epochs.
    rng = CountingRng(14)
    T = 300
    result = run_trial("Peace", EASY_ARMS, stationary([10.0, 0.0, -10.0], T), 0.01, rng)
    assert result["recommended"] == EASY_BEST
    E = algorithms.epoch_length(EASY_ARMS, T)
    assert rng.noise_draws < T and rng.noise_draws % E == 0


def test_mixed_peace_samples_from_the_shrinking_active_set():
    # Huge gaps, tiny noise: by the last epoch only arm 2 is active, so the
    # sampling design must have moved from (design(all) + G)/2 to (uniform + G)/2.
    rng = CountingRng(15)
    T, K = 300, len(EASY_ARMS)
    run_trial("Mixed-Peace", EASY_ARMS, stationary([10.0, 0.0, -10.0], T), 0.01, rng)
    G, _ = frank_wolfe.g_design(EASY_ARMS)
    all_arms, _ = frank_wolfe.xy_design(EASY_ARMS, range(K))
    assert rng.arm_draws == T
    np.testing.assert_allclose(rng.designs[0], (all_arms + G) / 2)
    np.testing.assert_allclose(rng.designs[-1], (np.full(K, 1 / K) + G) / 2)


# ---------------------------------------------------------- IPS estimates


def assert_mean_within_4_se(samples, target):
    samples = np.array(samples)
    se = samples.std(axis=0, ddof=1) / np.sqrt(len(samples))
    assert np.all(np.abs(samples.mean(axis=0) - target) <= 4 * se), (samples.mean(axis=0), target, se)


@pytest.mark.parametrize("noise", ["gaussian", "bounded"])
def test_g_bai_ips_estimate_is_unbiased(noise):
    X = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])
    theta = np.array([0.5, -0.3])
    rng = np.random.default_rng(5)
    estimates = [run_trial("G-BAI", X, stationary(theta, 10), 1.0, rng, noise=noise)["theta_hat"]
                 for _ in range(2000)]
    assert_mean_within_4_se(estimates, theta)


def test_p1_rage_ips_estimate_is_unbiased_for_the_mean_theta():
    # Adaptive designs still give an unbiased IPS estimate of theta_bar.
    X = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])
    T = 10
    thetas = np.array([[np.cos(t), 1.0 - 0.2 * t] for t in range(T)])
    rng = np.random.default_rng(6)
    estimates = [run_trial("P1-RAGE", X, thetas, 1.0, rng, update="every_round")["theta_hat"]
                 for _ in range(800)]
    assert_mean_within_4_se(estimates, thetas.mean(axis=0))


# ------------------------------------------------------------ whole trials


@pytest.mark.parametrize("name", ALGORITHMS)
def test_every_algorithm_solves_an_easy_instance(name):
    rng = np.random.default_rng(7)
    thetas = stationary(EASY_THETA, 300)
    results = [run_trial(name, EASY_ARMS, thetas, 1.0, rng) for _ in range(100)]
    correct = sum(r["recommended"] == EASY_BEST for r in results)
    assert correct >= 0.95 * 100
    if name == "OD-LinBAI":
        assert all(r["theta_hat"] is None for r in results)
    else:
        assert all(r["theta_hat"].shape == (3,) for r in results)


def test_od_linbai_on_rank_deficient_arms():
    # All arms live in the first two coordinates, so epoch 1 must project.
    # Values (-0.14, 1, 0.72, 0.2): best arm 1, gap 0.28.
    X = np.array([[0.3, -0.2, 0.0], [0.0, 1.0, 0.0], [0.6, 0.6, 0.0], [1.0, 0.0, 0.0]])
    rng = np.random.default_rng(8)
    thetas = stationary([0.2, 1.0, 5.0], 300)  # the third coordinate is invisible
    correct = sum(run_trial("OD-LinBAI", X, thetas, 1.0, rng)["recommended"] == 1
                  for _ in range(200))
    assert correct >= 0.95 * 200


def test_od_linbai_without_budget_recommends_a_random_arm():
    # K = 4, d = 3: the reserve min(4, 6) + ceil(3/2) = 6 exceeds T = 5, so m < 0
    rng = np.random.default_rng(9)
    picks = [run_trial("OD-LinBAI", EASY_ARMS, stationary(EASY_THETA, 5), 1.0, rng)["recommended"]
             for _ in range(200)]
    counts = np.bincount(picks, minlength=4)
    assert counts.sum() == 200 and np.all(counts >= 30)


def test_peace_fails_the_malicious_instance_far_more_often_than_g_bai():
    d, T, trials = 5, 1500, 40
    X = soare_arms(d, 0.5)
    thetas = malicious_thetas(d, T)
    assert int(np.argmax(X @ thetas.mean(axis=0))) == 0

    def error_rate(name, seed):
        rng = np.random.default_rng(seed)
        return np.mean([run_trial(name, X, thetas, 1.0, rng)["recommended"] != 0
                        for _ in range(trials)])

    peace, g_bai = error_rate("Peace", 10), error_rate("G-BAI", 11)
    # Peace drops e_1 while theta favours e_2..e_5; G-BAI's IPS sees theta_bar.
    assert peace >= 0.9
    assert peace - g_bai >= 0.25


def test_unknown_names_and_options_are_rejected():
    thetas = stationary(EASY_THETA, 10)
    rng = np.random.default_rng(12)
    with pytest.raises(ValueError):
        run_trial("RAGE", EASY_ARMS, thetas, 1.0, rng)
    with pytest.raises(TypeError):
        run_trial("Peace", EASY_ARMS, thetas, 1.0, rng, m=3)
    with pytest.raises(ValueError):
        run_trial("G-BAI", EASY_ARMS, thetas, 1.0, rng, noise="uniform")
