"""The oam environment meets the paper algorithms' stream: LinUCB (OFUL) written against it (a SteppedAlgorithm,
one env.step a round, reading env.context and env.arms) gives the engine's runs exactly (regret and its
curve), on fixed and changing action sets and several trials; an environment that draws its stream in
another order, or pairs a round with the next round's noise (planted), does not."""
import math

import numpy as np
import pytest
from environment_checks import record_differences

from linbandits.environment import SteppedAlgorithm, make_environment
from linbandits.errors import UserError
from linbandits.streams import generator
from linbandits.studies.oam.algorithms.linucb import LinUCB
from linbandits.studies.oam.environment import OamEnvironment
from linbandits.studies.oam.instances import oam_fixed, oam_scenario_one, oam_two_contexts
from linbandits.studies.oam.streams import RunStream

SEED = 5
TRIALS = range(3)


class SteppedLinUCB(SteppedAlgorithm):
    """OFUL round by round: V^-1 by Sherman-Morrison, radius sqrt(2 log n + log det V) + |theta|, the first
    arm of the largest index; the engine's arithmetic in its order (scalar loops)."""

    name = "LinUCB-stepped"
    study = "oam"

    def play(self, env):
        d = env.arms.shape[1]
        n = env.horizon
        log_n = math.log(n)
        theta_norm = float(np.linalg.norm(env.theta))      # S = |theta|, as the paper's LinUCB takes it
        Vinv = [[1.0 if i == j else 0.0 for j in range(d)] for i in range(d)]
        b = [0.0] * d
        logdet = 0.0
        for _ in range(n):
            arms = env.arms
            theta_hat = matvec(Vinv, b)
            width = np.sqrt(2.0 * log_n + logdet) + theta_norm
            k, top = 0, -np.inf
            for j, a in enumerate(arms):
                mean = quad = 0.0
                for i in range(d):
                    mean += a[i] * theta_hat[i]
                    for i2 in range(d):
                        quad += a[i] * Vinv[i][i2] * a[i2]
                index = mean + width * np.sqrt(quad)
                if index > top:
                    top, k = index, j
            x = arms[k]
            y = env.step(k)
            for i in range(d):
                b[i] += x[i] * y
            gx = matvec(Vinv, x)
            denom = 1.0
            for i in range(d):
                denom += x[i] * gx[i]
            for i in range(d):
                for j in range(d):
                    Vinv[i][j] -= gx[i] * gx[j] / denom
            logdet += math.log(denom)


def matvec(M, v):
    """M v, each entry summed in index order (the engine's loops)."""
    out = []
    for row in M:
        acc = 0.0
        for j in range(len(v)):
            acc += row[j] * v[j]
        out.append(acc)
    return out


CASES = [oam_fixed(u=0.1, horizon=1500), oam_scenario_one(horizon=1000), oam_two_contexts(p1=0.8, horizon=800)]


def mismatches(inst):
    return record_differences(LinUCB(inst).simulate(SEED, TRIALS), SteppedLinUCB(inst).simulate(SEED, TRIALS))


@pytest.mark.parametrize("inst", CASES, ids=[c.name for c in CASES])
def test_stepped_linucb_equals_the_engine_exactly(inst):
    assert mismatches(inst) == []


def test_the_contexts_are_the_paper_runs_and_change():
    env = make_environment("oam", CASES[1], SEED, 0)
    seen = []
    while not env.done:
        seen.append(env.context)
        assert np.array_equal(env.arms, CASES[1].actions[env.context])
        env.step(0)
    from linbandits.studies.oam.streams import run_stream

    assert seen == run_stream(CASES[1], SEED, 0).contexts.tolist()
    assert set(seen) == {0, 1} and env.context is None


def noise_before_contexts(self):
    # planted: the noise drawn before the contexts (the stream's order swapped)
    inst = self.instance
    rng = generator(self.seed, self.trial)
    noise = inst.noise_sd * rng.standard_normal(inst.horizon)
    u = rng.random(inst.horizon)
    contexts = np.minimum(np.searchsorted(np.cumsum(inst.p), u, side="right"), inst.M - 1)
    return RunStream(theta=np.asarray(inst.theta, float), contexts=contexts.astype(np.int64), noise=noise,
                     normals=None)


def next_rounds_noise(self):
    # planted: round t reads the noise of round t + 1
    from linbandits.studies.oam.streams import run_stream

    s = run_stream(self.instance, self.seed, self.trial)
    return RunStream(theta=s.theta, contexts=s.contexts, noise=np.roll(s.noise, -1), normals=None)


@pytest.mark.parametrize("planted", [noise_before_contexts, next_rounds_noise])
def test_a_planted_stream_order_breaks_the_equality(monkeypatch, planted):
    monkeypatch.setattr(OamEnvironment, "_run_stream", planted)
    assert mismatches(CASES[1]) != []


def test_an_incomplete_run_has_no_outcome():
    env = make_environment("oam", CASES[0], SEED, 0)
    env.step(0)
    with pytest.raises(UserError, match="stepped 1 of its 1500 rounds"):
        env.outcome()
