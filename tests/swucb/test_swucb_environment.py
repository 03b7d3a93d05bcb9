"""The swucb environment meets the paper algorithms' noise: EXP3.S written against it (a SteppedAlgorithm,
one env.step a round) gives the engine's runs exactly (regret, every arm), on several settings, noise
models and trials; an environment that draws its noise matrix in another order or from another stream
(planted) does not."""
import dataclasses
import math
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from environment_checks import record_differences

from linbandits.environment import SteppedAlgorithm, make_environment
from linbandits.streams import generator
from linbandits.studies.swucb import trajectories
from linbandits.studies.swucb.algorithms import EXP3S
from linbandits.studies.swucb.environment import SwucbEnvironment
from linbandits.studies.swucb.instances import swucb_sinusoid

SEED = 23
TRIALS = range(4)


class SteppedEXP3S(SteppedAlgorithm):
    """EXP3.S (Auer et al. 2002) round by round, with the paper algorithm's tuned constants and its own
    stream (one uniform a round, generator(seed, trial, 3)): the engine's arithmetic in its order."""

    name = "EXP3.S-stepped"
    study = "swucb"
    defaults = dict(EXP3S.defaults)
    choices = dict(EXP3S.choices)

    def setup(self):
        paper = EXP3S(self.instance, **self.options)
        self.gamma, self.alpha, self.batch = paper.gamma, paper.alpha, paper.batch

    def play(self, env):
        K, gamma = env.arms.shape[0], self.gamma
        u = generator(env.seed, env.trial, trajectories.ALGORITHM_TAGS["EXP3.S"]).random(env.horizon)
        wts = [1.0] * K
        share_rate = math.e * self.alpha / K
        self.arms = []
        for t in range(env.horizon):
            if self.batch > 0 and t % self.batch == 0:
                wts = [1.0] * K
            total = 0.0
            for w in wts:
                total += w
            p = [(1.0 - gamma) * w / total + gamma / K for w in wts]
            arm, cum = K - 1, 0.0
            for k in range(K):
                cum += p[k]
                if u[t] < cum:
                    arm = k
                    break
            y = env.step(arm)
            self.arms.append(arm)
            xhat = min(max(y, 0.0), 1.0) / p[arm]
            share = share_rate * total
            wts = [w * (math.exp(gamma * xhat / K) if k == arm else 1.0) + share for k, w in enumerate(wts)]
            s = 0.0
            for w in wts:
                s += w
            wts = [w / s for w in wts]


def instance(T, budget, noise):
    return dataclasses.replace(swucb_sinusoid(T=T, budget=budget), noise=noise)


CASES = [(300, "constant", "gaussian", {}), (1000, "cuberoot", "gaussian", {"variant": "rexp3"}),
         (500, "constant", "bounded", {}), (700, "cuberoot", "bounded", {"variation": "budget"})]


def mismatches(case):
    T, budget, noise, options = case
    inst = instance(T, budget, noise)
    engine = EXP3S(inst, **options).simulate(SEED, TRIALS)
    stepped = SteppedEXP3S(inst, **options).simulate(SEED, TRIALS)
    return record_differences(engine, stepped)


@pytest.mark.parametrize("case", CASES, ids=[f"T{c[0]}-{c[1]}-{c[2]}-{c[3]}" for c in CASES])
def test_stepped_exp3s_equals_the_engine_exactly(case):
    assert mismatches(case) == []


def test_every_arm_is_the_engines():
    inst = instance(400, "constant", "gaussian")
    algo = SteppedEXP3S(inst)
    for trial in TRIALS:
        env = algo.environment(SEED, trial)
        algo.play(env)
        run = EXP3S(inst).trajectory(SEED, trial)
        assert algo.arms == run.arms.tolist()
        assert env.regret == run.regret
        assert len(set(algo.arms)) == 2          # both arms played: the rewards of both are read


def transposed_noise(self):
    # planted: the T x K matrix filled column by column (arm by arm) instead of row by row
    rng = generator(self.seed, self.trial, trajectories.NOISE_TAG)
    return rng.standard_normal((self.instance.K, self.instance.T)).T


def algorithm_stream_noise(self):
    # planted: the noise drawn from another purpose of the run (SW-UCB's tie stream)
    return generator(self.seed, self.trial, 1).standard_normal((self.instance.T, self.instance.K))


@pytest.mark.parametrize("planted", [transposed_noise, algorithm_stream_noise])
def test_a_planted_noise_order_or_stream_breaks_the_equality(monkeypatch, planted):
    monkeypatch.setattr(SwucbEnvironment, "_noise_matrix", planted)
    assert mismatches(CASES[0]) != []


def test_steps_and_step_many_read_the_same_numbers():
    inst = instance(200, "constant", "gaussian")
    one, many = make_environment("swucb", inst, SEED, 1), make_environment("swucb", inst, SEED, 1)
    arms = np.random.default_rng(0).integers(0, 2, 200)
    singly = [one.step(int(a)) for a in arms]
    assert np.array_equal(singly, np.concatenate([many.step_many(arms[:77]), many.step_many(arms[77:])]))
    assert one.outcome().columns == many.outcome().columns


def test_the_run_refuses_steps_past_the_horizon_and_an_early_outcome():
    from linbandits.errors import UserError

    env = make_environment("swucb", instance(10, "constant", "gaussian"), SEED, 0)
    with pytest.raises(UserError, match="stepped 0 of its 10 rounds"):
        env.outcome()
    env.step_many(np.zeros(10, dtype=int))
    with pytest.raises(UserError, match="the run is over"):
        env.step(0)
    with pytest.raises(UserError, match="is not an arm"):
        make_environment("swucb", instance(10, "constant", "gaussian"), SEED, 0).step(2)


# ---------------------------------------------------------------- the example, end to end through Snakemake

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "swucb_discounted"


@pytest.fixture(scope="module")
def example_run(tmp_path_factory, make_workdir, snakemake):
    """.test's swucb section with the example's overlay, run as its config file says (from the workdir, which
    holds a copy of the example at the same relative path)."""
    from linbandits import catalogue

    workdir = make_workdir(tmp_path_factory.mktemp("discounted"))
    config = yaml.safe_load((workdir / "config" / "config.yaml").read_text())
    for study in catalogue.studies():
        config["studies"][study]["enabled"] = study == "swucb"
    (workdir / "config" / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    shutil.copytree(EXAMPLE, workdir / "examples" / "swucb_discounted")
    snakemake(workdir, "--cores", "2", "swucb", "--configfile", str(workdir / "config" / "config.yaml"),
              str(workdir / "examples" / "swucb_discounted" / "config.yaml"))
    return workdir


def test_the_example_runs_in_the_pipeline_with_its_options_on_the_paper_noise(example_run):
    """Its raw runs are those of the class on the pipeline's instance and job seed, with the overlay's
    option: it stepped the paper algorithms' environment of every run."""
    from linbandits import experiments, paths
    from linbandits.problems import load_instance_file
    from linbandits.study_config import read_config
    from linbandits.user.algorithms import algorithm_class, register

    config = read_config(example_run / "config" / "config.yaml")
    config["extra_algorithms"] = yaml.safe_load((EXAMPLE / "config.yaml").read_text())["extra_algorithms"]
    exps = experiments.study_experiments(config, "swucb")
    register("D-LinUCB", f"{EXAMPLE / 'discounted.py'}:DiscountedUCB", "swucb")
    cls = algorithm_class("D-LinUCB")
    checked = 0
    for name, exp in exps.items():
        if exp.switch_of:
            assert "D-LinUCB" not in exp.algorithms
            continue
        assert "D-LinUCB" in exp.algorithms
        for setting in exp.setting_ids():
            raw = pd.concat([pd.read_csv(example_run / p)
                             for p in paths.raw_chunk_paths(config, exp, setting, "D-LinUCB")])
            inst = load_instance_file(example_run / paths.instance_path(config, exp, setting))
            mine = cls(inst, gamma=0.995).simulate(experiments.seed_of(config, exp, setting), raw["trial"].to_numpy())
            assert np.array_equal(raw["regret"].to_numpy(), mine.columns["regret"])
            default = cls(inst).simulate(experiments.seed_of(config, exp, setting), raw["trial"].to_numpy())
            assert not np.array_equal(raw["regret"].to_numpy(), default.columns["regret"])   # the option reached it
            checked += 1
    assert checked == 4


def test_the_example_is_compared_with_the_paper_algorithms(example_run):
    text = (example_run / "results" / "swucb" / "claims.md").read_text()
    assert "## D-LinUCB against the paper's algorithms" in text
    regret = pd.read_csv(example_run / "results" / "swucb" / "tables" / "regret.csv")
    assert any(str(s).startswith("D-LinUCB") for s in regret["series"])     # (the label may carry its options)
