"""The compiled engine against the plain pull-by-pull oracle, on the same streams: whole runs
agree exactly (recommended arm, stopping time, every pull count)."""
import numpy as np
import pytest

import lingape_oracle as oracle
from lingape_cases import canonical, pm1_sets, random_bai, soare_wide
from linbandits.studies.lingape import streams
from linbandits.studies.lingape.algorithms import LinGapE, XYAdaptive, XYOracle, XYStatic
from linbandits.studies.lingape.designs import ratio_table
from linbandits.studies.lingape.instances import REWARD_GAUSSIAN

SEED = 17


def engine_runs(algo, trials):
    rec = algo.simulate(SEED, np.asarray(trials))
    K = algo.instance.K
    counts = np.array([rec.columns[f"pulls_{a}"] for a in range(K)]).T
    return rec, counts


def oracle_lingape(inst, trial, **kw):
    X, means = inst.arms(trial)
    gaussian = inst.reward == REWARD_GAUSSIAN
    return oracle.lingape(X, means, oracle.draw_stream(SEED, trial, gaussian), streams.run_tie_key(SEED, trial),
                          gaussian=gaussian, noise_sd=inst.noise_scale, delta=inst.delta, **kw)


def assert_same(rec, counts, k, expected):
    arm, T, stopped = expected
    assert stopped
    assert int(rec.columns["recommended"][k]) == arm
    assert counts[k].tolist() == T.tolist()
    assert int(rec.columns["stopping_time"][k]) == int(T.sum())


@pytest.mark.parametrize("make", [soare_wide, canonical, random_bai, pm1_sets])
def test_lingape_greedy_paper_form(make):
    inst = make()
    algo = LinGapE(inst)
    trials = [0, 1, 2]
    rec, counts = engine_runs(algo, trials)
    for k, t in enumerate(trials):
        assert_same(rec, counts, k, oracle_lingape(inst, t, R=algo.R, S=algo.S))


def test_lingape_ratio_rule_and_scratch_form():
    inst = random_bai(seed=5)
    for opts in ({"rule": "ratio"}, {"form": "scratch"}, {"rule": "ratio", "form": "scratch"}):
        algo = LinGapE(inst, **opts)
        rec, counts = engine_runs(algo, [0, 1])
        eps = 0.0 if opts.get("form") != "scratch" else inst.min_gap
        for k in range(2):
            expected = oracle_lingape(inst, k, R=algo.R, S=algo.S, rule=opts.get("rule", "greedy"),
                                      form=opts.get("form", "paper"), eps=eps, pstar=ratio_table(inst.X))
            assert_same(rec, counts, k, expected)


def oracle_static(inst, algo, trial):
    X, means = inst.arms(trial)
    gaussian = inst.reward == REWARD_GAUSSIAN
    return oracle.xy_static(X, means, oracle.draw_stream(SEED, trial, gaussian), streams.shared_tie_key(SEED),
                            gaussian=gaussian, noise_sd=inst.noise_scale, sigma=algo.sigma, lam=algo.lam,
                            delta=inst.delta)


@pytest.mark.parametrize("make", [canonical, random_bai, pm1_sets])
def test_xy_static(make):
    inst = make()
    algo = XYStatic(inst)
    trials = [0, 1, 2]
    rec, counts = engine_runs(algo, trials)
    for k, t in enumerate(trials):
        assert_same(rec, counts, k, oracle_static(inst, algo, t))


def test_xy_static_refills_draws_of_active_runs_only(monkeypatch):
    """Reward draws come in blocks; a block is drawn only for runs still active. With blocks of 16
    pulls the refills happen while other runs have stopped: every run must still equal the oracle."""
    import linbandits.studies.lingape.algorithms as algorithms

    monkeypatch.setattr(algorithms, "DRAW_BLOCK", 16)
    inst = random_bai(seed=4, K=3, d=2)
    algo = XYStatic(inst)
    trials = [0, 1, 2, 3]
    rec, counts = engine_runs(algo, trials)
    assert len(set(rec.columns["stopping_time"].tolist())) > 1     # runs stop at different pulls
    for k, t in enumerate(trials):
        assert_same(rec, counts, k, oracle_static(inst, algo, t))


def test_xy_static_runs_do_not_depend_on_their_chunk():
    inst = canonical()
    whole, _ = engine_runs(XYStatic(inst), [0, 1, 2, 3])
    part, _ = engine_runs(XYStatic(inst), [2, 3])
    for col in whole.columns:
        assert whole.columns[col][2:].tolist() == part.columns[col].tolist()


@pytest.mark.parametrize("make", [lambda: canonical(Delta=1.0, d=3), lambda: random_bai(seed=8, K=4, d=2),
                                  lambda: pm1_sets(seed=6)])
def test_xy_adaptive(make):
    inst = make()
    algo = XYAdaptive(inst)
    trials = [0]
    rec, counts = engine_runs(algo, trials)
    for k, t in enumerate(trials):
        X, means = inst.arms(t)
        gaussian = inst.reward == REWARD_GAUSSIAN
        arm, T, phases = oracle.xy_adaptive(X, means, streams.noise_rng(SEED, t),
                                            lambda mask: streams.shared_tie_key(SEED, mask), gaussian=gaussian,
                                            noise_sd=inst.noise_scale, sigma=algo.sigma, lam=algo.lam,
                                            delta=inst.delta)
        assert_same(rec, counts, k, (arm, T, True))


def test_xy_oracle():
    inst = soare_wide(d=3, omega=0.3)
    algo = XYOracle(inst)
    rec, counts = engine_runs(algo, [0, 1])
    p = np.array(rec.info["designs"]["None"]["p_star"])
    arm, T, stopped = oracle.xy_oracle(inst.X, inst.means, p, sigma=algo.sigma, delta=inst.delta)
    for k in range(2):
        assert_same(rec, counts, k, (arm, T, stopped))


def test_xy_adaptive_cut_at_max_pulls():
    """Soare's instance at d = 2 needs ~1.2e6 pulls in its fourth phase: a cap of 3000 cuts every run there.
    The first run's cut phase is kept and the next runs resume at its end; each run equals the same run made
    alone (fresh sequences) and the plain oracle's run with the same cap."""
    inst = soare_wide(d=2, omega=0.01)
    trials = [0, 1, 2]
    rec, counts = engine_runs(XYAdaptive(inst, max_pulls=3000), trials)
    assert rec.info["censored_trials"] == trials
    for k, t in enumerate(trials):
        alone, alone_counts = engine_runs(XYAdaptive(inst, max_pulls=3000), [t])
        assert alone_counts[0].tolist() == counts[k].tolist()
        arm, T, phases = oracle.xy_adaptive(inst.X, inst.means, streams.noise_rng(SEED, t),
                                            lambda mask: streams.shared_tie_key(SEED, mask), sigma=1.0, lam=0.0,
                                            delta=inst.delta, max_pulls=3000)
        assert phases[-1] == "cut" and len(phases) > 1
        assert counts[k].tolist() == T.tolist()
        assert int(rec.columns["recommended"][k]) == arm and int(rec.columns["correct"][k]) == 0
