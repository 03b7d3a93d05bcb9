"""The batched draws of TrialBatch against the per-trial loops they replaced
(p1rage_reference_engine.ReferenceBatch, the engine at bddb596): bit-equal sums and counts, the
same draws from every trial's generator (its state afterwards), and whole trials of every
algorithm bit-equal, on stationary and non-stationary instances, Gaussian and bounded noise.
The exact replay (test_p1rage_replay.py) covers the arithmetic through an injected stream; this
file covers the path the pipeline takes: each trial's own generator, called directly. The
planted bugs of p1rage_planted_bugs.BATCHED_BUGS show it notices a mistake there."""
import numpy as np
import pytest
from p1rage_reference_engine import (CASE_IDS, CASES, instance, iid_mismatches, planned_mismatches,
                                     trial_mismatches)

from linbandits.studies.p1rage.algorithms import ALGORITHMS
from linbandits.studies.p1rage.kernels import RandomDraws, TrialBatch, trial_rng


@pytest.mark.parametrize("stationary, noise", CASES, ids=CASE_IDS)
def test_iid_pulls_equal_the_per_trial_loop(stationary, noise):
    assert iid_mismatches(stationary, noise) == []


@pytest.mark.parametrize("stationary, noise", CASES, ids=CASE_IDS)
def test_planned_pulls_equal_the_per_trial_loop(stationary, noise):
    assert planned_mismatches(stationary, noise) == []


@pytest.mark.parametrize("stationary, noise", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_whole_trials_equal_the_per_trial_loop(name, stationary, noise):
    assert trial_mismatches(name, stationary, noise) == []


def test_a_wrapped_generator_takes_the_methods_path():
    # A draws object that is not exactly RandomDraws (an injected stream, a subclass) is read
    # through its methods; the plain one through its generator. Both give the same numbers.
    class Wrapped(RandomDraws):
        pass

    inst = instance(False)
    plain = TrialBatch(inst, 3, np.arange(8))
    wrapped = TrialBatch(inst, 3, np.arange(8), draws=[Wrapped(trial_rng(3, t), inst.noise, inst.K)
                                                       for t in range(8)])
    assert plain._rngs is not None and wrapped._rngs is None
    lam = np.full(inst.K, 1.0 / inst.K)
    assert all(np.array_equal(x, y) for x, y in zip(plain.pull_iid(0, 50, lam), wrapped.pull_iid(0, 50, lam)))
