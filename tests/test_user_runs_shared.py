"""A user algorithm runs once per distinct instance set (issue 47): experiments on the same instance,
seed, run ranges and with its same options (lingape's exp1_soare/_xy/_adaptive, exp2_canonical/_adaptive,
exp3_yahoo/_adaptive) read one experiment's runs of it (experiments.runs_experiment), and each
experiment's runs file still holds them, equal to the runs the experiment would have made itself.

Planted: without the sharing every experiment runs it again (7 jobs, not 3); experiments with another
seed or other options must not share; through the real Snakemake the user's simulate jobs drop and the
runs file of the reading experiment equals the runs made on its own instance and seed.
"""
from pathlib import Path

import numpy as np
import pytest
import yaml
from user_lingape import SCHEMA, TEST_CONFIG, write_user_file
from user_lingape import lingape_config as declared_in

from linbandits import experiments as experiments_module
from linbandits import jobs, products
from linbandits.catalogue import make_algorithm
from linbandits.experiments import experiments, seed_of
from linbandits.paths import instance_path, raw_inputs
from linbandits.problems import load_instance_file
from linbandits.runs import RunSet
from linbandits.study_config import read_config
from linbandits.user import algorithms as user_algorithms
from linbandits.user import comparison
from linbandits.validation import validate_config


@pytest.fixture(scope="module")
def user_file(tmp_path_factory):
    return write_user_file(tmp_path_factory.mktemp("user"))


def lingape_config(user_file, **rows) -> dict:
    config = declared_in(user_file)
    for name, change in rows.items():
        config["studies"]["lingape"]["experiments"][name].update(change)
    return config


def user_jobs(config) -> dict:
    """The user's simulate jobs of lingape: rule -> number of jobs."""
    rules = jobs.planned_rules(config, "lingape", list(experiments(config).values()))
    return {r.rule: len(r.wildcards) for r in rules if r.rule.endswith("__Mine")}


def owners(config) -> dict:
    return {(e.name, s): experiments_module.runs_experiment(config, e.name, "Mine", s).name
            for e in experiments(config).values() if "Mine" in e.algorithms for s in e.setting_ids()}


def test_experiments_on_the_same_instances_share_the_users_runs(user_file):
    config = lingape_config(user_file)
    assert user_jobs(config) == {"simulate_exp1_soare__Mine": 1, "simulate_exp2_canonical__Mine": 1,
                                 "simulate_exp3_yahoo__Mine": 1}
    own = owners(config)
    assert own[("exp1_soare_xy", "d5")] == own[("exp1_soare_adaptive", "d3")] == "exp1_soare"
    assert own[("exp2_adaptive", "Delta1")] == "exp2_canonical"
    assert own[("exp3_adaptive", "K2")] == "exp3_yahoo"
    # the paper's algorithms keep their runs: XY-static in exp2_canonical and exp2_adaptive both run
    assert experiments_module.runs_experiment(config, "exp2_adaptive", "XY-static", "Delta1").name == "exp2_adaptive"
    # the runs file of a reading experiment reads the owner's raw files, the same run ranges
    exp = experiments(config)["exp2_adaptive"]
    assert [p for p in raw_inputs(config, exp) if "/Mine/" in p] == \
        [p.replace("/exp2_adaptive/", "/exp2_canonical/") for p in raw_inputs(
            config, experiments_module.dataclasses.replace(exp, borrowed_runs=())) if "/Mine/" in p]


def test_planted_no_sharing_runs_it_once_per_experiment(user_file, monkeypatch):
    monkeypatch.setattr(experiments_module, "_share_user_runs", lambda config, exps: exps)
    assert sum(user_jobs(lingape_config(user_file)).values()) == 7
    with pytest.raises(AssertionError):
        test_experiments_on_the_same_instances_share_the_users_runs(user_file)


@pytest.mark.parametrize("change", [{"seed": 1}, {"options": {"Mine": {"S": 2.0}}}, {"trials": 3}])
def test_another_seed_options_or_run_count_does_not_share(user_file, change):
    config = lingape_config(user_file, exp2_adaptive=change)
    assert owners(config)[("exp2_adaptive", "Delta1")] == "exp2_adaptive"
    assert "simulate_exp2_adaptive__Mine" in user_jobs(config)


def test_hashed_seeds_of_differently_named_experiments_do_not_share(user_file):
    """Experiments without their own `seed` draw from a hash of their name: never shared."""
    config = lingape_config(user_file, exp2_canonical={"seed": None}, exp2_adaptive={"seed": None})
    exps = experiments(config)
    assert seed_of(config, exps["exp2_canonical"], "Delta1") != seed_of(config, exps["exp2_adaptive"], "Delta1")
    assert owners(config)[("exp2_adaptive", "Delta1")] == "exp2_adaptive"


# ---------------------------------------------------------------- through the real Snakemake

def small_workdir(path: Path, user_file) -> Path:
    """.test's lingape Exp. 2 only (exp2_canonical, exp2_adaptive), with Mine."""
    config = yaml.safe_load(TEST_CONFIG.read_text())
    lingape = read_config(TEST_CONFIG)["studies"]["lingape"]
    rows = {k: None for k in lingape["experiments"] if not k.startswith("exp2_")}   # null drops a default
    config["studies"] = {"lingape": {"experiments": rows, "switches": [], "figures": None, "table1": None,
                                     "algorithms": ["LinGapE", "XY-static", "XY-adaptive"]}}
    config["extra_algorithms"] = {"lingape": {"Mine": f"{user_file}:Mine"}}
    (path / "config").mkdir(parents=True, exist_ok=True)
    (path / "config" / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    return path


RUNS = ["results/lingape/runs/exp2_canonical.npz", "results/lingape/runs/exp2_adaptive.npz"]


@pytest.fixture(scope="module")
def shared_run(tmp_path_factory, user_file, snakemake, planned_jobs):
    workdir = small_workdir(tmp_path_factory.mktemp("shared"), user_file)
    counts = planned_jobs(workdir, *RUNS)
    snakemake(workdir, "--cores", "2", *RUNS)
    return workdir, counts


def test_snakemake_runs_the_user_once_and_both_runs_files_hold_its_runs(shared_run, user_file):
    workdir, counts = shared_run
    assert counts.get("simulate_exp2_canonical__Mine") == 1 and "simulate_exp2_adaptive__Mine" not in counts
    assert not (workdir / "results/lingape/raw/exp2_adaptive/Delta1/Mine").exists()
    canonical, adaptive = (RunSet(str(workdir / r)[: -len(".npz")]) for r in RUNS)
    assert adaptive.has("Delta1", "Mine")
    config = read_config(workdir / "config" / "config.yaml")
    user_algorithms.register("Mine", f"{user_file}:Mine", "lingape")
    exp = experiments(config)["exp2_adaptive"]
    # what exp2_adaptive would have run itself: Mine on its own instance file and seed
    instance = load_instance_file(str(workdir / instance_path(config, exp, "Delta1")), {})
    own = make_algorithm("Mine", instance, {}).simulate(seed_of(config, exp, "Delta1"), np.arange(exp.trials))
    for column, values in own.columns.items():
        assert np.array_equal(adaptive.column("Delta1", "Mine", column), np.asarray(values))
        assert np.array_equal(canonical.column("Delta1", "Mine", column), np.asarray(values))


# ---------------------------------------------------------------- switch runs the user lists

def test_a_listed_switch_run_reads_the_bases_runs_unless_it_changes_the_users(user_file):
    """A switch run the user lists (its entry's `experiments`) runs the user's algorithm there: on the base's
    instances and seeds, so where the switch changes only a paper algorithm's options (scratch: LinGapE's
    form) the user's runs are the base's, made once; where the switch row gives the user's algorithm
    options of its own, it runs them."""
    config = lingape_config(user_file)
    config["extra_algorithms"]["lingape"]["Mine"]["experiments"] = [
        "exp2_canonical", "exp2_canonical__scratch", "exp2_canonical__ratio"]
    switches = config["studies"]["lingape"]["switches"]
    ratio = next(sw for sw in switches if sw["name"] == "ratio")
    ratio["options"] = {**ratio["options"], "Mine": {"rule": "ratio"}}
    validate_config(config, SCHEMA)
    exps = experiments(config)
    assert "Mine" in exps["exp2_canonical__scratch"].algorithms and exps["exp2_canonical__ratio"].options["Mine"] == \
        {"rule": "ratio"}
    own = owners(config)
    assert own[("exp2_canonical__scratch", "Delta1")] == "exp2_canonical"
    assert own[("exp2_canonical__ratio", "Delta1")] == "exp2_canonical__ratio"
    assert set(user_jobs(config)) == {"simulate_exp2_canonical__Mine", "simulate_exp2_canonical__ratio__Mine"}


def listed_switch_config(user_file) -> dict:
    config = lingape_config(user_file)
    config["extra_algorithms"]["lingape"]["Mine"]["experiments"] = ["exp2_canonical", "exp2_canonical__scratch"]
    validate_config(config, SCHEMA)
    return config


def test_a_listed_switch_run_is_compared_and_its_runs_are_read_by_the_claims_product(user_file):
    """Switch variants the user lists are compared too (issue 47 item 3): the comparison's experiments hold
    the listed switch run (where the paper's LinGapE runs in its scratch form beside the user's), the
    claims product that writes the comparison reads its runs files, and a switch run not listed is not
    compared. Planted: the published experiments alone."""
    config = listed_switch_config(user_file)
    ctx = products.Context(config, "lingape")
    compared = comparison.compared_experiments(ctx.experiments)
    assert "exp2_canonical__scratch" in compared and "Mine" in compared["exp2_canonical__scratch"].algorithms
    assert [n for n, e in compared.items() if "Mine" in e.algorithms] == ["exp2_canonical", "exp2_canonical__scratch"]
    claims = next(p for p in products.study_products(config, "lingape") if p.name == "claims")
    assert set(ctx.runs_files("exp2_canonical__scratch")) <= set(claims.inputs)
    assert comparison.user_algorithms_in(ctx.experiments) == ["Mine"]


def test_planted_published_experiments_alone_leave_the_listed_switch_run_out(user_file, monkeypatch):
    monkeypatch.setattr(comparison, "compared_experiments", experiments_module.published)
    with pytest.raises(AssertionError):
        test_a_listed_switch_run_is_compared_and_its_runs_are_read_by_the_claims_product(user_file)
