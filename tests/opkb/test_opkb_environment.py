"""The opkb environment meets the paper algorithms' noise: GP-UCB written against it (a SteppedAlgorithm, one
env.step a round) gives the engine's runs exactly (regret and its curve), on switching and stationary
instances, both noise models and several trials; an environment that reads another stream or a round's
neighbour uniform (planted) does not.

The stepped GP-UCB keeps its posterior with the study's compiled rank-one steps (gpucb.add_round,
posterior_mean): a posterior recomputed from scratch differs from them in the last bits, and GP-UCB's
argmax between nearly equal scores would then be a test of round-off, not of the environment."""
import numpy as np
import pytest
from environment_checks import record_differences

from linbandits.environment import SteppedAlgorithm, make_environment
from linbandits.errors import UserError
from linbandits.studies.opkb import gpucb, streams
from linbandits.studies.opkb.algorithms import GPUCB
from linbandits.studies.opkb.designs import InformationGain
from linbandits.studies.opkb.environment import OpkbEnvironment
from linbandits.studies.opkb.instances import opkb_cosine, opkb_env2

SEED = 9
TRIALS = range(3)


class SteppedGPUCB(SteppedAlgorithm):
    """GP-UCB round by round: round 1 plays arm 0; then the arm of the largest mu + beta_t sigma (lowest index
    within the tie tolerance); mu = C z refreshed every REFRESH_EVERY rounds. Its `noise` option reaches
    the environment (an environment option of the same name)."""

    name = "GP-UCB-stepped"
    study = "opkb"
    defaults = dict(GPUCB.defaults)
    choices = dict(GPUCB.choices)

    def setup(self):
        self.Phi = GPUCB(self.instance, **self.options).Phi

    def play(self, env):
        T, N = env.horizon, env.arms.shape[0]
        lam, v = self.options["lam"], self.options["v"]
        betas = np.zeros(T + 1)
        betas[2:] = gpucb.gp_betas(InformationGain(self.Phi, T, lam), T, v)
        C = lam * (self.Phi @ self.Phi.T)
        mu, z = np.zeros(N), np.zeros(N)
        for t in range(1, T + 1):
            if t == 1:
                x = 0
            else:
                if t % gpucb.REFRESH_EVERY == 0:
                    gpucb.posterior_mean(C, z, mu)
                score = mu + betas[t] * np.sqrt(np.maximum(lam * np.diag(C), 0.0))
                x = int(gpucb.argmax_lowest(score))
            gpucb.add_round(C, mu, z, x, env.step(x))


CASES = [(opkb_env2(seed=2, N=20, d=4, T=400, switch1=150, switch2=300), {}),
         (opkb_env2(seed=3, N=15, d=3, T=300, switch1=100, switch2=200), {"noise": "gaussian"}),
         (opkb_cosine(seed=1, N=16, d=3, T=300), {"lam": 5.0})]


def mismatches(inst, options):
    engine = GPUCB(inst, **options).simulate(SEED, TRIALS)
    stepped = SteppedGPUCB(inst, **options).simulate(SEED, TRIALS)
    return record_differences(engine, stepped)


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0].name}-{c[1]}" for c in CASES])
def test_stepped_gpucb_equals_the_engine_exactly(case):
    assert mismatches(*case) == []


def arm_stream_uniforms(self):
    # planted: the arm-draw stream's uniforms instead of the noise stream's
    return streams.arm_uniforms(self.seed, self.trial, self.instance.T)


def shifted_uniforms(self):
    # planted: round t reads round t + 1's uniform
    return np.roll(streams.noise_uniforms(self.seed, self.trial, self.instance.T), -1)


@pytest.mark.parametrize("planted", [arm_stream_uniforms, shifted_uniforms])
def test_a_planted_noise_stream_breaks_the_equality(monkeypatch, planted):
    monkeypatch.setattr(OpkbEnvironment, "_noise_uniforms", planted)
    assert mismatches(*CASES[0]) != []


def test_steps_and_step_many_read_the_same_numbers():
    inst = CASES[0][0]
    for noise in streams.NOISE_KINDS:
        one = make_environment("opkb", inst, SEED, 0, noise=noise)
        many = make_environment("opkb", inst, SEED, 0, noise=noise)
        arms = np.random.default_rng(1).integers(0, inst.N, inst.T)
        singly = [one.step(int(a)) for a in arms]
        assert np.array_equal(singly, np.concatenate([many.step_many(arms[:100]), many.step_many(arms[100:])]))
        assert one.outcome().columns == many.outcome().columns


def test_bad_options_are_one_line():
    with pytest.raises(UserError, match="noise='loud' is not allowed"):
        make_environment("opkb", CASES[0][0], SEED, 0, noise="loud")
    with pytest.raises(UserError, match="has no option 'window'"):
        make_environment("opkb", CASES[0][0], SEED, 0, window=3)
