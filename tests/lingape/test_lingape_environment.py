"""The lingape environment meets the paper algorithms' per-pull draws: LinGapE (greedy rule, paper form)
written against it (a SteppedAlgorithm: the K initial pulls in one step_many, then one env.step a pull,
ending with env.recommend) gives the engine's runs exactly (recommended, correct, stopping time, every
pull count), on Gaussian instances and on +-1 arm-set instances, several trials each; an environment
that skips a draw or draws uniforms for Gaussian rewards (planted) does not.

The stepped LinGapE is plain: A inverted afresh every pull (as the oracle, tests/lingape/lingape_oracle.py,
which agrees with the engine on these instances)."""
import math

import numpy as np
import pytest
from environment_checks import record_differences
from lingape_cases import canonical, pm1_sets, random_bai, soare_wide
from lingape_oracle import first_argmax

from linbandits.environment import SteppedAlgorithm, make_environment
from linbandits.errors import UserError
from linbandits.studies.lingape import streams
from linbandits.studies.lingape.algorithms import LinGapE
from linbandits.studies.lingape.environment import LingapeEnvironment

SEED = 17
TIE_RTOL = 1e-12


class SteppedLinGapE(SteppedAlgorithm):
    """LinGapE, Algorithms 1-2 of Xu et al.: C_t of Lemma 5, greedy arm rule (9), stop when B(t) <= eps."""

    name = "LinGapE-stepped"
    study = "lingape"

    def play(self, env):
        inst = env.instance
        X = env.arms
        K, d = X.shape
        R, S, lam = inst.noise_scale, float(np.linalg.norm(inst.theta)), 1.0
        key = streams.run_tie_key(env.seed, env.trial)       # LinGapE's own tie stream
        A, b = lam * np.eye(d), np.zeros(d)
        for a, r in enumerate(env.step_many(np.arange(K))):
            A += np.outer(X[a], X[a])
            b += X[a] * r
        while True:
            n = env.t
            Ainv = np.linalg.inv(A)
            theta = Ainv @ b
            est = X @ theta
            i = first_argmax(est)
            logdet = np.linalg.slogdet(A)[1]
            C = R * math.sqrt(2 * math.log(K * K * math.exp(0.5 * logdet - 0.5 * d * math.log(lam)) / inst.delta)) \
                + math.sqrt(lam) * S
            values = [float((X[j] - X[i]) @ theta) + math.sqrt(max(float((X[j] - X[i]) @ Ainv @ (X[j] - X[i])), 0.0))
                      * C if j != i else 0.0 for j in range(K)]
            j = first_argmax(values)
            if values[j] <= inst.epsilon:
                env.recommend(i)
                return
            y = X[i] - X[j]
            scores = [float(y @ np.linalg.inv(A + np.outer(X[a], X[a])) @ y) for a in range(K)]
            m = min(scores)
            tied = [a for a, s in enumerate(scores) if abs(s - m) <= TIE_RTOL * abs(m)]
            arm = tied[0] if len(tied) == 1 else streams.pick_tied(tied, key, n)
            r = env.step(arm)
            A += np.outer(X[arm], X[arm])
            b += X[arm] * r


CASES = [soare_wide, canonical, random_bai, pm1_sets]


def mismatches(make, trials=range(3)):
    inst = make()
    return record_differences(LinGapE(inst).simulate(SEED, trials), SteppedLinGapE(inst).simulate(SEED, trials))


@pytest.mark.parametrize("make", CASES, ids=[c.__name__ for c in CASES])
def test_stepped_lingape_equals_the_engine_exactly(make):
    assert mismatches(make) == []


def skipped_first_draw(self):
    # planted: the stream's first draw dropped (the K initial pulls read draws 1..K)
    rng = streams.noise_rng(self.seed, self.trial)
    rng.standard_normal() if self._gaussian else rng.random()
    return rng


class UniformsForGaussian:
    """planted: uniforms drawn for Gaussian rewards (the +-1 instances' draw)."""

    def __init__(self, rng):
        self.rng = rng

    def standard_normal(self, size):
        return self.rng.random(size)

    def random(self, size):
        return self.rng.random(size)


def uniforms_for_gaussian(self):
    return UniformsForGaussian(streams.noise_rng(self.seed, self.trial))


@pytest.mark.parametrize("planted, make", [(skipped_first_draw, canonical), (skipped_first_draw, pm1_sets),
                                           (uniforms_for_gaussian, random_bai)])
def test_a_planted_draw_order_breaks_the_equality(monkeypatch, planted, make):
    monkeypatch.setattr(LingapeEnvironment, "_noise_rng", planted)
    assert mismatches(make) != []


def test_step_many_is_the_same_as_steps_and_reaches_a_million_pulls():
    """The batched way: one call for a million pulls, the same rewards as pulling one at a time."""
    for inst in (canonical(), pm1_sets()):
        arms = np.random.default_rng(2).integers(0, inst.K, 3000)
        one, many = make_environment("lingape", inst, SEED, 1), make_environment("lingape", inst, SEED, 1)
        singly = [one.step(int(a)) for a in arms]
        assert np.array_equal(singly, np.concatenate([many.step_many(arms[:5]), many.step_many(arms[5:])]))
        assert one.pulls.tolist() == many.pulls.tolist()
    env = make_environment("lingape", canonical(), SEED, 0)
    rewards = env.step_many(np.zeros(10 ** 6, dtype=np.int64))
    assert env.t == 10 ** 6 and env.pulls[0] == 10 ** 6
    assert abs(rewards.mean() - canonical().theta[0]) < 5e-3


def test_the_armsets_runs_play_their_own_arm_set_and_plus_minus_one_rewards():
    inst = pm1_sets()
    for trial in range(inst.runs):
        env = make_environment("lingape", inst, SEED, trial)
        assert np.array_equal(env.arms, inst.arm_sets[trial])
        assert set(env.step_many(np.arange(inst.K).repeat(20)).tolist()) == {-1.0, 1.0}
    with pytest.raises(UserError, match="needs arm set 3"):
        make_environment("lingape", inst, SEED, 3)


def test_a_run_without_recommendation_has_no_outcome():
    env = make_environment("lingape", canonical(), SEED, 0)
    env.step(0)
    with pytest.raises(UserError, match="made no recommendation"):
        env.outcome()
    env.recommend(0)
    with pytest.raises(UserError, match="the run is over"):
        env.step(0)
    assert env.outcome().columns["stopping_time"] == 1
