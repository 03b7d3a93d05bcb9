"""The fast SW-UCB, BOB and EXP3.S replay the plain oracle exactly on the same random stream."""
import math

import numpy as np
import pytest

from linbandits.catalogue import build_instance, make_algorithm
from linbandits.problems.linear import LinearInstance
from linbandits.studies.swucb import trajectories

from swucb_replay import mismatch, oracle_bob, oracle_exp3s, oracle_sw_ucb

SEED = 424242


def sinusoid(T, budget):
    return build_instance("swucb_sinusoid", {"T": T, "budget": budget})


def drifting_float_arms(T=900, K=4, d=3, seed=3):
    """Non-basis arms (so V is not diagonal) and a random-walk theta."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(K, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    thetas = 0.4 * rng.normal(size=d) + np.cumsum(rng.normal(scale=0.02, size=(T, d)), axis=0)
    return LinearInstance(name="float_arms", X=X, thetas=thetas, noise_sd=0.3)


CASES = [sinusoid(1500, "constant"), sinusoid(1500, "cuberoot"), drifting_float_arms()]


@pytest.mark.parametrize("instance", CASES, ids=lambda i: i.name)
@pytest.mark.parametrize("window", [None, 1, 37])
def test_sw_ucb_replays_the_oracle(instance, window):
    options = {} if window is None else {"window": window}
    alg = make_algorithm("SW-UCB", instance, options)
    w = math.floor((instance.d * instance.T) ** (2 / 3)) if window is None else window
    for trial in (0, 5):
        fast = alg.trajectory(SEED, trial)
        assert mismatch(fast, oracle_sw_ucb(instance, SEED, trial, w)) == ""


@pytest.mark.parametrize("instance", CASES, ids=lambda i: i.name)
def test_bob_replays_the_oracle(instance):
    alg = make_algorithm("BOB", instance)
    for trial in (0, 3):
        fast = alg.trajectory(SEED, trial)
        slow = oracle_bob(instance, SEED, trial)
        assert len(set(slow.blocks)) > 1       # EXP3 really moved between windows
        assert mismatch(fast, slow) == ""


@pytest.mark.parametrize("instance", CASES[:2], ids=lambda i: i.name)
def test_exp3s_replays_the_oracle(instance):
    T, K = instance.T, instance.K
    means = instance.thetas @ instance.X.T
    V = sum(max(abs(means[t + 1, k] - means[t, k]) for k in range(K)) for t in range(T - 1))
    gamma = min(1.0, (4 * V * K * math.log(K * T) / ((math.e - 1) ** 2 * T)) ** (1 / 3))
    alg = make_algorithm("EXP3.S", instance)
    for trial in (0, 1):
        assert mismatch(alg.trajectory(SEED, trial), oracle_exp3s(instance, SEED, trial, gamma, 1.0 / T)) == ""


def test_rexp3_replays_the_oracle():
    instance = sinusoid(1500, "constant")
    T, K = instance.T, instance.K
    means = instance.thetas @ instance.X.T
    V = float(np.abs(np.diff(means, axis=0)).max(axis=1).sum())
    batch = math.ceil((K * math.log(K)) ** (1 / 3) * (T / V) ** (2 / 3))
    gamma = min(1.0, math.sqrt(K * math.log(K) / ((math.e - 1) * batch)))
    alg = make_algorithm("EXP3.S", instance, {"variant": "rexp3"})
    assert alg.batch == batch
    fast = alg.trajectory(SEED, 2)
    assert mismatch(fast, oracle_exp3s(instance, SEED, 2, gamma, 0.0, batch)) == ""


def test_runs_depend_only_on_seed_and_trial():
    instance = sinusoid(800, "cuberoot")
    for name in ("SW-UCB", "BOB", "EXP3.S"):
        alg = make_algorithm(name, instance)
        alone = alg.simulate(SEED, np.array([7])).columns["regret"]
        among = alg.simulate(SEED, np.array([5, 6, 7])).columns["regret"]
        assert alone[0] == among[2]
        assert among[0] != among[1]
    # a run refills one noise buffer: the same values as a fresh matrix, whatever was in it
    buffer = np.full((instance.T, instance.K), np.nan)
    assert np.array_equal(trajectories.noise_matrix(instance, SEED, 3, out=buffer), trajectories.noise_matrix(instance, SEED, 3))


def test_all_series_of_a_repetition_share_the_noise():
    """SW-UCB and BOB pulling the same arm at the same round see the same reward."""
    instance = sinusoid(600, "constant")
    sw = oracle_sw_ucb(instance, SEED, 0, 10)
    bb = oracle_bob(instance, SEED, 0)
    same = [t for t in range(600) if sw.arms[t] == bb.arms[t]]
    assert len(same) > 100
    assert all(sw.rewards[t] == bb.rewards[t] for t in same)


def test_a_renamed_subclass_draws_its_paper_algorithms_stream(monkeypatch):
    """A user's SW-UCB or BOB under a name of its own (as docs/your-algorithm.md shows) draws the stream of
    the algorithm it subclasses, so its runs are that algorithm's, exactly; a subclass of the bare base
    is refused in one line. Planted: the stream looked up by the subclass's own name (a KeyError)."""
    from linbandits.errors import UserError
    from linbandits.studies.swucb.algorithms import BOB, SWUCB, SwucbAlgorithm

    instance = sinusoid(600, "constant")
    for paper in (SWUCB, BOB):
        mine = type("Mine", (paper,), {"name": "Mine"})
        ours, theirs = mine(instance), paper(instance)
        for trial in (0, 3):
            a, b = ours.trajectory(SEED, trial), theirs.trajectory(SEED, trial)
            assert np.array_equal(a.arms, b.arms) and a.regret == b.regret     # the same code on the same stream
    bare = type("Bare", (SwucbAlgorithm,), {"name": "Bare", "run_on": lambda self, eta, rng: None})
    with pytest.raises(UserError, match="subclass that one"):
        bare(instance).stream_name()
    monkeypatch.setattr(SwucbAlgorithm, "stream_name", lambda self: self.name)
    with pytest.raises(KeyError):
        mine(instance).trajectory(SEED, 0)
