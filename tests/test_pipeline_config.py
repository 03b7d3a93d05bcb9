"""The config-expansion logic behind the rules (linbandits.experiments, .paths, .validation; the jobs:
tests/test_jobs.py)."""
import copy

import pytest

from linbandits import catalogue, experiments, paths, products, validation
from linbandits.errors import UserError
from linbandits.study_config import read_config
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCHEMA = REPO / "workflow/schemas/config.schema.yaml"


@pytest.fixture
def config():
    return read_config(REPO / "config/config.yaml")


def test_default_config_is_valid_and_has_the_paper_grid(config):
    validation.validate_config(config, SCHEMA)
    # Other studies add their own experiments; this test pins P1-RAGE's grid.
    exps = {n: e for n, e in experiments.experiments(config).items()
            if e.study == "p1rage" and not e.switch_of}
    assert set(exps) == {"soare_sto", "soare_osci", "soare_period", "multi_osci", "multi_period",
                         "malicious", "multi_sto", "yahoo_repeat"}
    trials = sum(e.trials * len(e.setting_ids()) * len(e.algorithms) for e in exps.values())
    assert trials == 1_098_000  # spec C trial counts
    assert exps["soare_period"].instance_settings("L1800") == {"s": 2.5, "L": 1800}
    assert exps["malicious"].setting_ids() == ["single"]
    switches = {n: e for n, e in experiments.experiments(config).items() if e.study == "p1rage" and e.switch_of}
    assert switches, "the P1-RAGE switch runs (the former ablations) are rows of its switches table"
    choices = config["studies"]["p1rage"]["choices"]
    for name, switch in switches.items():
        assert switch.switch_of in exps and switch.changes and switch.choice in choices
        assert name == f"{switch.switch_of}__{name.split('__')[1]}"


def test_chunks_cover_every_trial_once(config):
    exp = experiments.experiments(config)["soare_sto"]
    for size in (1, 7, 3000, 50000):
        config["chunk_size"] = size
        chunks = experiments.chunks(config, exp)
        covered = [t for lo, n in chunks for t in range(lo, lo + n)]
        assert covered == list(range(exp.trials))
    assert experiments.chunk_bounds("3000-5999") == (3000, 3000)


def test_trial_scale_and_seeds(config):
    config["trial_scale"] = 0.01
    assert experiments.experiments(config)["soare_sto"].trials == 210
    a = experiments.job_seed(config, "soare_sto", "T10")
    assert a == experiments.job_seed(config, "soare_sto", "T10")
    assert a != experiments.job_seed(config, "soare_sto", "T1010")


def test_enabled_studies_and_fixed_experiment_seeds(config):
    enabled = experiments.enabled_studies(config)
    assert "p1rage" in enabled
    config["studies"]["p1rage"]["enabled"] = False
    assert experiments.enabled_studies(config) == [s for s in enabled if s != "p1rage"]
    config["studies"]["p1rage"]["experiments"]["malicious"]["seed"] = 5
    assert experiments.job_seed(config, "malicious", "single") == 5
    assert experiments.job_seed(config, "multi_sto", "single") != 5


def test_a_sweep_over_seeds_is_scaled_like_runs(config):
    """opkb sweeps the instance seed (one instance per run): a preview or trial_scale keeps the
    first values, never fewer than two (a standard error needs two); the full run keeps all 25."""
    full = experiments.experiments(config)["opkb_env1"]
    assert full.values == tuple(range(25))
    preview = experiments.experiments({**config, "preview": True})
    assert preview["opkb_env1"].values == (0, 1)
    assert preview["opkb_cosine"].values == (0, 1)
    assert experiments.experiments({**config, "trial_scale": 0.2})["opkb_env1"].values == tuple(range(5))
    # other sweeps are settings of the environment: never cut
    assert preview["soare_osci"].values == full_values(config, "soare_osci")


def full_values(config, name):
    return experiments.experiments(config)[name].values


def test_a_preview_runs_the_preview_values_only(config):
    assert experiments.experiments(config)["exp2_canonical"].values == (1.0, 0.1, 0.01)
    config["preview"] = True
    assert experiments.experiments(config)["exp2_canonical"].values == (1.0, 0.1)
    assert experiments.experiments(config)["exp1_soare"].values == tuple(range(2, 11))   # no preview_values: all
    config["studies"]["lingape"]["experiments"]["exp2_canonical"]["preview_values"] = [0.1, 0.5]
    with pytest.raises(UserError, match=r"exp2_canonical: preview_values \[0.5\] are not among its values"):
        experiments.experiments(config)


def test_paths_are_grouped_by_study_and_preview_goes_elsewhere(config):
    exp = experiments.experiments(config)["malicious"]
    assert products.Context(config, "p1rage").table_paths("malicious")[0] == "results/p1rage/tables/malicious.csv"
    assert paths.raw_chunk_paths(config, exp, "single", "Peace")[0] == \
        "results/p1rage/raw/malicious/single/Peace/chunk0-999.csv"
    assert products.Context(config, "p1rage").figure_paths("fig4_malicious")[1] == "figures/p1rage/fig4_malicious.png"
    config["preview"] = True
    exp = experiments.experiments(config)["malicious"]
    assert exp.trials == 20   # 1000 x the default preview scale 0.02
    assert products.Context(config, "p1rage").table_paths("malicious")[0] == "preview/results/p1rage/tables/malicious.csv"


def test_an_instance_is_written_once_and_read_by_every_experiment_that_needs_it(config):
    """Experiments on the same family and settings (switch runs that change an algorithm's options only)
    read the instance file of the first published experiment that has it; each
    file has exactly one writer, and a setting differing in one value keeps its own file."""
    exps = experiments.experiments(config)
    writers = {}
    for name, exp in exps.items():
        for path in paths.instance_outputs(config, exp, "npz"):
            assert path not in writers, f"{path} written by {writers[path]} and {name}"
            writers[path] = name
    for name, exp in exps.items():
        for path in paths.instance_inputs(config, exp):
            if exp.instance in catalogue.family_names():
                assert path in writers, f"{name} reads {path}, which no instance job writes"
    rexp3, fig1 = exps["swucb_fig1__rexp3"], exps["swucb_fig1"]
    assert paths.instance_outputs(config, rexp3, "npz") == []
    assert paths.instance_inputs(config, rexp3) == paths.instance_inputs(config, fig1)
    # fig2 differs from fig1 only in its budget setting: its own files
    assert set(paths.instance_inputs(config, exps["swucb_fig2"])).isdisjoint(paths.instance_inputs(config, fig1))
    # a switch run never owns a file a published experiment needs
    for name, exp in exps.items():
        if not exp.switch_of:
            assert all(not exps[writers[p]].switch_of for p in paths.instance_inputs(config, exp) if p in writers)
    # a changed setting is a different instance
    changed = copy.deepcopy(config)
    rexp3_row = [sw for sw in changed["studies"]["swucb"]["switches"] if sw["name"] == "rexp3"][0]
    rexp3_row["settings"] = {"budget": "cuberoot"}
    moved = experiments.experiments(changed)["swucb_fig1__rexp3"]
    assert paths.instance_inputs(changed, moved) == paths.instance_inputs(changed, experiments.experiments(changed)["swucb_fig2"])


@pytest.mark.parametrize("mutate, message", [
    (lambda c: c.update(chunk_sise=3), "unknown key 'chunk_sise'"),
    (lambda c: c["studies"]["p1rage"]["experiments"]["malicious"].update(trials="x"), "wrong type"),
    (lambda c: c["r6a"].update(source="web"), "choose one of synthetic, r6a"),
    (lambda c: c["studies"]["p1rage"].update(experimentz={}), "unknown key 'experimentz' at studies/p1rage"),
    (lambda c: c["studies"]["p1rage"]["yahoo"].update(pca="global"), "studies/p1rage/yahoo/pca"),
    (lambda c: c["studies"]["p1rage"]["figures"]["fig4_malicious"].update(kind="pie"), "choose one of curves"),
    (lambda c: c["studies"].update(nosuchpaper=c["studies"]["p1rage"]), "nosuchpaper is not a study"),
    (lambda c: c["studies"]["p1rage"].update(algorithms=["G-BAI", "P2-RAGE"]), "unknown algorithm 'P2-RAGE'"),
    (lambda c: c["studies"]["p1rage"]["experiments"]["malicious"].update(instance="evil"), "unknown instance 'evil'"),
])
def test_bad_config_names_the_problem(config, mutate, message):
    mutate(config)
    with pytest.raises(UserError, match=message):
        validation.validate_config(config, SCHEMA)


@pytest.mark.parametrize("given, expected", [("true", True), ("True", True), ("false", False), (True, True)])
def test_preview_switch_from_the_command_line(config, given, expected):
    # `--config preview=true` arrives as the string 'true'
    config["preview"] = given
    validation.validate_config(config, SCHEMA)
    assert config["preview"] is expected
    assert paths.prefix(config) == ("preview/" if expected else "")


def test_a_misspelled_boolean_is_still_refused(config):
    config["preview"] = "yes please"
    with pytest.raises(UserError, match="preview"):
        validation.validate_config(config, SCHEMA)
