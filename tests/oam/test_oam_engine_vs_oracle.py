"""The numba engine against the plain oracle (oam_oracle.py), exactly: both replay the same
stream (run_stream), so whole runs must choose the same arm in every round and reach the
same cumulative pseudo-regret (1e-12)."""
import functools
import math

import numpy as np
import pytest

import oam_oracle as oracle
from linbandits.catalogue import make_algorithm
from linbandits.studies.oam.algorithms.lints import theory_scale
from linbandits.studies.oam.algorithms.oam import COUNTERS
from linbandits.studies.oam.instances import oam_circle, oam_fixed, oam_scenario_one, oam_two_contexts
from linbandits.studies.oam.streams import run_stream

SEED = 3


def replay(name, inst, trial, options=None):
    """(engine arms, engine regret, oracle arms, oracle regret, engine counters) of one run."""
    options = dict(options or {})
    algo = make_algorithm(name, inst, options)
    stream = run_stream(inst, SEED, trial, normals=algo.needs_normals)
    arms, cum, counts = algo.play(stream, oracle.true_gaps(inst.actions, stream.theta))
    if name == "OAM":
        o_arms, o_cum = oracle.oam(inst, stream, **{k: (float(v) if k != "schedule" else v) for k, v in options.items()})
    elif name == "LinUCB":
        o_arms, o_cum = oracle.linucb(inst, stream, **options)
    elif name == "OSSB":
        o_arms, o_cum = oracle.ossb(inst, stream, **{k: float(v) for k, v in options.items()})
    else:
        v = theory_scale(inst.horizon, inst.d) if name == "LinTS" else 1.0
        o_arms, o_cum = oracle.lints(inst, stream, v)
    return arms, cum, o_arms, o_cum, counts


def assert_same_run(arms, cum, o_arms, o_cum):
    diverge = np.flatnonzero(arms != o_arms)
    assert diverge.size == 0, f"first different round: {diverge[0] + 1 if diverge.size else None}"
    np.testing.assert_allclose(cum, o_cum, rtol=0, atol=1e-12)


CASES = [
    ("OAM", oam_fixed(u=0.1, horizon=2500), {}),
    ("OAM", oam_fixed(u=0.2, horizon=1500), {"schedule": "loglog"}),
    ("OAM", oam_scenario_one(horizon=1500), {}),
    ("OAM", oam_two_contexts(p1=0.8, horizon=1500), {}),
    # eps = 0 is the protocol's default; the switch eps = 0.01 forces exploration rounds (b2)
    ("OAM", oam_circle(K=5, horizon=1500), {"epsilon": 0.01}),
    ("OAM", oam_circle(K=20, random_theta=True, horizon=600), {"epsilon": 0.01}),
    ("LinUCB", oam_fixed(u=0.1, horizon=1500), {}),
    ("LinUCB", oam_scenario_one(horizon=1500), {"width": "fwidth"}),
    ("OSSB", oam_circle(K=5, horizon=1500), {}),
    ("OSSB", oam_circle(K=20, random_theta=True, horizon=300), {"epsilon": 0.01}),
    ("LinTS", oam_circle(K=100, horizon=600), {}),
    ("LinTS-heuristic", oam_scenario_one(horizon=1500), {}),
]


@functools.lru_cache(maxsize=None)
def replay_case(index, trial):
    name, inst, options = CASES[index]
    return replay(name, inst, trial, options)


@pytest.mark.parametrize("index", range(len(CASES)), ids=[f"{c[0]}-{c[1].name}-{c[2]}" for c in CASES])
def test_engine_replays_the_oracle_exactly(index):
    for trial in (0, 1):
        arms, cum, o_arms, o_cum, _ = replay_case(index, trial)
        assert_same_run(arms, cum, o_arms, o_cum)


def test_replays_exercise_every_branch_of_oam():
    """The OAM replays above meet initialisation, exploitation, b1, forced b2 and wasted rounds,
    and scenario one's replays an SDP re-solve (k = 2)."""
    total = sum(replay_case(i, t)[4] for i, c in enumerate(CASES) if c[0] == "OAM" for t in (0, 1))
    assert np.all(total > 0), dict(zip(COUNTERS, total))


def test_runs_do_not_depend_on_chunking():
    inst = oam_two_contexts(p1=0.8, horizon=600)
    algo = make_algorithm("OAM", inst)
    whole = algo.simulate(7, np.arange(4))
    parts = [algo.simulate(7, np.arange(2)), algo.simulate(7, np.arange(2, 4))]
    np.testing.assert_array_equal(whole.columns["regret"], np.concatenate([p.columns["regret"] for p in parts]))
    np.testing.assert_array_equal(whole.curves["regret"], np.vstack([p.curves["regret"] for p in parts]))
    assert whole.curves["t"][-1] == 600 and whole.curves["regret"][:, -1].tolist() == whole.columns["regret"].tolist()


def test_exploration_rate_matches_the_spec_targets():
    assert oracle.f_rate(10 ** 4, 2, math.log(10 ** 4)) == pytest.approx(26.248, abs=5e-4)
    assert oracle.f_rate(10 ** 4, 3, math.log(10 ** 4)) == pytest.approx(30.377, abs=5e-4)
    T = oracle.f_rate(10 ** 4, 2, math.log(10 ** 4)) / 2 * 200
    assert T == pytest.approx(2624.8, abs=0.05)
