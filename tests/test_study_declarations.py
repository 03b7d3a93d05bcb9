"""What shared code used to know about particular studies, each study now declares in its Study(...)
(panel keys, run sweeps, seed limits, external instances): the shared code reads the declaration, so
taking a declaration away changes what the shared code does (each test plants that)."""
import dataclasses
from pathlib import Path

import pytest

from linbandits import catalogue, experiments, validation
from linbandits.errors import UserError
from linbandits.study_config import read_config

REPO = Path(__file__).resolve().parents[1]
SCHEMA = REPO / "workflow/schemas/config.schema.yaml"
STUDY_NAMES = sorted(catalogue.studies())


@pytest.fixture
def config():
    return read_config(REPO / "config/config.yaml")


def declare(monkeypatch, study, **fields):
    """The study as if its Study(...) declared `fields` otherwise."""
    monkeypatch.setitem(catalogue.studies(), study, dataclasses.replace(catalogue.studies()[study], **fields))


def test_shared_modules_name_no_study():
    """The shared modules hold no study's name in code (docstrings and comments may cite a paper)."""
    for module in ("validation", "experiments", "catalogue", "products", "paths", "jobs", "cells", "study_config"):
        text = (REPO / "src/linbandits" / f"{module}.py").read_text()
        for study in STUDY_NAMES:
            assert f'"{study}"' not in text and f"'{study}'" not in text, (module, study)


def test_panel_keys_naming_experiments_are_the_studys(config, monkeypatch):
    panels = config["studies"]["opkb"]["figures"]["opkb_fig1"]["panels"]
    panels[1]["dashed"] = ["no_such_experiment"]
    with pytest.raises(UserError, match="figures/opkb_fig1: experiment 'no_such_experiment' is not an experiment of opkb"):
        validation.check_config(config)
    declare(monkeypatch, "opkb", panel_lists=())     # planted: the study no longer declares `dashed`
    for figure in config["studies"]["opkb"]["figures"].values():
        figure.pop("series")                          # (whose experiments no panel would draw then)
    validation.check_config(config)


def test_a_studys_own_jobs_are_the_ones_it_declares(config, monkeypatch):
    """OPKB's tuning grid is its Study.jobs: planned jobs beside its simulate jobs, each with a plan file."""
    from linbandits import jobs

    def tuning_rules():
        return [r.rule for r in jobs.planned_rules(config, "opkb", list(experiments.experiments(config).values()))
                if r.rule.startswith("opkb_tune_")]

    assert tuning_rules()
    declare(monkeypatch, "opkb", jobs="")      # planted: the study declares no jobs of its own
    assert tuning_rules() == []


def test_a_run_sweep_is_scaled_like_a_run_count(config, monkeypatch):
    config["trial_scale"] = 0.1
    full = len(read_config(REPO / "config/config.yaml")["studies"]["opkb"]["experiments"]["opkb_env1"]["values"])
    assert len(experiments.experiments(config)["opkb_env1"].values) == max(2, round(full * 0.1)) < full
    declare(monkeypatch, "opkb", run_sweeps=())      # planted: the seed sweep is an ordinary setting sweep
    assert len(experiments.experiments(config)["opkb_env1"].values) == full


def test_a_seed_limit_is_the_declaring_studys():
    with pytest.raises(UserError, match=r"seed=4294967296 is not a valid seed; seeds are integers from 0 to 2\*\*32 - 1"):
        catalogue.build_instance("opkb_env1", {"seed": 2**32})
    assert catalogue.coerce_setting("oam_circle", "arm_seed", 2**32, 0) == 2**32   # oam declares no limit
    with pytest.raises(UserError, match="arm_seed=-1 is not a valid seed; seeds are integers from 0 up"):
        catalogue.coerce_setting("oam_circle", "arm_seed", -1, 0)


def test_a_study_names_only_its_own_external_instances(config, monkeypatch):
    validation.check_config(config)
    config["studies"]["lingape"]["experiments"]["exp3_yahoo"]["instance"] = "yahoo"   # P1-RAGE's
    with pytest.raises(UserError, match="experiment exp3_yahoo: unknown instance 'yahoo'"):
        validation.check_config(config)
    config = read_config(REPO / "config/config.yaml")
    declare(monkeypatch, "p1rage", external_instances={})   # planted: P1-RAGE no longer builds its Yahoo! arm sets
    with pytest.raises(UserError, match="unknown instance 'yahoo'"):
        validation.check_config(config)
