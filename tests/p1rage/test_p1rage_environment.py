"""The p1rage environment, both ways of pulling.

In the engine's batches (env.pull_iid, env.pull_planned) it draws what the paper algorithms draw: P1-RAGE
written against it (a SteppedAlgorithm that pulls each epoch with env.pull_iid and recommends) gives the
engine's published runs exactly, on stationary and oscillating instances, both noise models, several
trials; an environment keyed to another stream (planted) does not. Peace's planned batches likewise.

Step by step it cannot meet the published noise (the engine sums an epoch's noise per arm, one draw per
arm), so the step is tested against the engine fed the same per-round stream (its injected-draws path,
tests/p1rage/p1rage_replay.py): G-BAI stepped round by round (its own uniforms from
env.algorithm_generator(), one env.step a round) recommends what the engine recommends on that stream,
its estimate equal to round-off (the engine adds the means and the noise of an arm separately); a step
that reads the noise of another round (planted) does not."""
import dataclasses

import numpy as np
import pytest
from environment_checks import record_differences

from linbandits.environment import SteppedAlgorithm, make_environment
from linbandits.errors import UserError
from linbandits.streams import generator
from linbandits.studies.p1rage.algorithms import make_algorithm
from linbandits.studies.p1rage.algorithms.base import arm_values, ips_increment
from linbandits.studies.p1rage.environment import P1rageEnvironment
from linbandits.studies.p1rage.instances import multi_osci, soare_osci, soare_sto
from linbandits.studies.p1rage.kernels import TrialBatch, run_trials, trial_rng

SEED = 41
TRIALS = range(5)
FW = {"fw_iterations": 60}


class BatchedP1RAGE(SteppedAlgorithm):
    """P1-RAGE (Algorithms 2-3, batched as published) through the environment's i.i.d. epochs, with the paper
    algorithm's designs and elimination rule."""

    name = "P1-RAGE-batched"
    study = "p1rage"

    def setup(self):
        self.paper = make_algorithm("P1-RAGE", self.instance, FW)
        self.estimates = {}

    def play(self, env):
        p, X, T = self.paper, env.arms, env.horizon
        G = p.g_design()
        lam, sinv = G, p.sigma_inv(G)
        theta_sum = np.zeros((1, X.shape[1]))
        start = 0
        for t in p.update_times():
            sums, _ = env.pull_iid(t + 1 - start, lam)
            theta_sum += ips_increment(X, sums[None], sinv)
            start = t + 1
            lams, sinvs = p.mixtures(p.levels(arm_values(X, theta_sum / start)))
            lam, sinv = lams[0], sinvs[0]
        if start < T:
            sums, _ = env.pull_iid(T - start, lam)
            theta_sum += ips_increment(X, sums[None], sinv)
        self.estimates[env.trial] = theta_sum[0] / T
        env.recommend(int(np.argmax(arm_values(X, theta_sum / T)[0])))


class PlannedPeace(SteppedAlgorithm):
    """Peace's first epoch through env.pull_planned (its rounded XY design of every arm), then the rest of the
    budget on the paper's G-design, recommending the best estimate: checks the planned batches' draws."""

    name = "Peace-planned"
    study = "p1rage"

    def setup(self):
        self.paper = make_algorithm("Peace", self.instance, FW)

    def play(self, env):
        p, X = self.paper, env.arms
        n_ep, E = p.epochs()
        counts, pinv = p.plan((1 << X.shape[0]) - 1, E)
        sums, pulled = env.pull_planned(counts)
        theta = pinv @ (X.T @ sums)
        env.recommend(int(np.argmax(X @ theta)))


def peace_first_epoch(inst, seed, trials):
    """The engine's Peace first epoch, run by hand on a TrialBatch (the same calls PlannedPeace makes)."""
    p = make_algorithm("Peace", inst, FW)
    _, E = p.epochs()
    counts, pinv = p.plan((1 << inst.K) - 1, E)
    batch = TrialBatch(inst, seed, np.asarray(trials))
    sums, _ = batch.pull_planned(0, np.broadcast_to(counts, (batch.n, inst.K)))
    rec = np.argmax((pinv @ (inst.X.T @ sums.T)).T @ inst.X.T, axis=1)
    return rec.tolist()


CASES = [soare_sto(T=300), dataclasses.replace(soare_sto(T=200), noise="bounded"),
         soare_osci(T=400, L=150), multi_osci(T=300)]


def batched_mismatches(inst):
    """Differences of the columns and, bit for bit, of the final estimates (the columns alone are mostly
    'correct' and would hide a change of noise)."""
    stepped = BatchedP1RAGE(inst)
    problems = record_differences(make_algorithm("P1-RAGE", inst, FW).simulate(SEED, TRIALS),
                                  stepped.simulate(SEED, TRIALS))
    engine = run_trials(make_algorithm("P1-RAGE", inst, FW), inst, SEED, TRIALS)
    for k, trial in enumerate(TRIALS):
        if not np.array_equal(engine.theta_hat[k], stepped.estimates[trial]):
            problems.append(f"trial {trial}: estimates differ")
    return problems


@pytest.mark.parametrize("inst", CASES, ids=[c.name for c in CASES])
def test_batched_p1rage_equals_the_published_engine_exactly(inst):
    assert batched_mismatches(inst) == []


@pytest.mark.parametrize("inst", CASES[:3], ids=[c.name for c in CASES[:3]])
def test_planned_batches_are_the_engines(inst):
    stepped = PlannedPeace(inst).simulate(SEED, TRIALS).columns["recommended"].tolist()
    assert stepped == peace_first_epoch(inst, SEED, TRIALS)


def another_stream(self):
    # planted: the run's generator keyed with a purpose the engine does not use (not 0: numpy's SeedSequence
    # pads its entropy with zeros, so (seed, trial, 0) is the same stream as (seed, trial))
    return generator(self.seed, self.trial, 5)


def test_a_planted_stream_breaks_the_batched_equality(monkeypatch):
    monkeypatch.setattr(P1rageEnvironment, "_trial_rng", another_stream)
    assert batched_mismatches(CASES[0]) != []


# ---------------------------------------------------------------- step by step, against the injected stream

class SteppedGBAI(SteppedAlgorithm):
    """G-BAI round by round: the arm of round t from the G-design by the engine's inverse-CDF rule on the
    algorithm's own uniform u_t, one env.step a round, the IPS estimate at the end."""

    name = "G-BAI-stepped"
    study = "p1rage"

    def setup(self):
        self.paper = make_algorithm("G-BAI", self.instance, FW)

    def play(self, env):
        X, T, K = env.arms, env.horizon, env.arms.shape[0]
        G = self.paper.g_design()
        cdf = np.cumsum(G)
        u = env.algorithm_generator().random(T)
        sums = np.zeros(K)
        for t in range(T):
            arm = int(np.sum(cdf[:-1] <= u[t] * cdf[-1]))
            sums[arm] += env.step(arm)
        self.theta = ips_increment(X, sums[None], self.paper.sigma_inv(G))[0] / T
        env.recommend(int(np.argmax(X @ self.theta)))


class EnvironmentStream:
    """The engine's draws (kernels.RandomDraws' methods, aggregation off) from what a stepped run reads: the
    algorithm's uniforms u_t (env.algorithm_generator()) and the environment's per-step noise z_t (the
    run's generator, one draw a step)."""

    aggregate = False

    def __init__(self, inst, seed, trial):
        env = make_environment("p1rage", inst, seed, trial)
        self.u = env.algorithm_generator().random(inst.T)
        rng = trial_rng(seed, trial)
        if inst.noise == "gaussian":
            self.z = rng.standard_normal(inst.T)
        else:
            self.z = np.where(rng.random(inst.T) < 0.5, 1.0, -1.0)
        self.K = inst.K

    def uniforms(self, start, length):
        return self.u[start:start + length]

    def noise_sums(self, counts, arms=None, rounds=None):
        return np.bincount(arms, weights=self.z[rounds], minlength=self.K)

    def one_noise(self, t):
        return float(self.z[t])


def stepped_mismatches(inst, trials=TRIALS):
    streams = [EnvironmentStream(inst, SEED, t) for t in trials]
    rec, theta = make_algorithm("G-BAI", inst, FW).play(TrialBatch(inst, SEED, np.asarray(trials), draws=streams))
    problems = []
    algo = SteppedGBAI(inst)
    for k, trial in enumerate(trials):
        run = algo.run(SEED, trial)
        if run.columns["recommended"] != int(rec[k]):
            problems.append(f"trial {trial}: recommended {run.columns['recommended']} vs {int(rec[k])}")
        if not np.allclose(algo.theta, theta[k], rtol=0, atol=1e-12):
            problems.append(f"trial {trial}: estimates differ by {np.abs(algo.theta - theta[k]).max():.3g}")
    return problems


@pytest.mark.parametrize("inst", CASES, ids=[c.name for c in CASES])
def test_stepped_gbai_equals_the_engine_on_the_same_stream(inst):
    assert stepped_mismatches(inst) == []


def test_a_planted_step_noise_of_the_next_round_breaks_it(monkeypatch):
    real = P1rageEnvironment.step

    def step_after_a_skipped_draw(self, arm):
        # planted: one noise draw thrown away before each step's own (the noise of round t is round t + 1's)
        self._rng.standard_normal()
        return real(self, arm)

    monkeypatch.setattr(P1rageEnvironment, "step", step_after_a_skipped_draw)
    assert stepped_mismatches(CASES[0]) != []


def test_the_budget_is_kept_and_a_recommendation_ends_the_run():
    env = make_environment("p1rage", soare_sto(T=20), SEED, 0)
    sums, counts = env.pull_iid(50, np.full(env.arms.shape[0], 1.0 / env.arms.shape[0]))
    assert counts.sum() == 20 and env.t == 20 and env.done
    with pytest.raises(UserError, match="the run is over"):
        env.step(0)
    env.recommend(0)
    assert env.outcome().columns == {"recommended": 0, "correct": 1}
    with pytest.raises(UserError, match="already recommended"):
        env.recommend(1)
