"""linbandits.experiments: the config's studies and switch runs as experiments, their settings, run counts
(scaled, previewed), run ranges and seeds. (Where their files are: tests/test_paths.py; what their jobs
run: tests/test_jobs.py.)"""
import pytest

from linbandits import experiments, validation
from linbandits.errors import UserError
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCHEMA = REPO / "workflow/schemas/config.schema.yaml"


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
