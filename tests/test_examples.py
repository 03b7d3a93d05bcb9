"""Every example under examples/ (one per study; swucb's in tests/swucb/test_swucb_environment.py) runs
its config's command line end to end through the real Snakemake on the .test config (issue 47): the
study's claims report compares it, and every experiment's runs file holds the runs of the example's class
on the pipeline's instance and seed with the options of that experiment (an experiment row's options
reach it: the class's runs with the declared options differ there).
"""
import re
import shlex
import shutil
from pathlib import Path

import numpy as np
import pytest
import yaml

from linbandits import catalogue
from linbandits.catalogue import make_algorithm
from linbandits.experiments import seed_of, study_experiments
from linbandits.paths import instance_path, runs_stem
from linbandits.problems import load_instance_file
from linbandits.runs import RunSet
from linbandits.study_config import deep_merge, with_study_defaults
from linbandits.user import algorithms as user_algorithms

REPO = Path(__file__).resolve().parents[1]

# example folder -> (study, the experiment whose row gives the example an option of its own, or None)
EXAMPLES = {
    "lingape_static": ("lingape", "exp2_canonical"),
    "p1rage_uniform": ("p1rage", None),
    "oam_egreedy": ("oam", None),
    "opkb_window": ("opkb", "opkb_slow_sw1000"),
}


def command_of(folder: Path) -> list[str]:
    """The snakemake command line the example's config.yaml gives (its README line)."""
    lines = [m[1] for m in re.finditer(r"^#\s+(snakemake .*)$", (folder / "config.yaml").read_text(), re.M)]
    assert len(lines) == 1, f"{folder}/config.yaml gives {len(lines)} command lines"
    return shlex.split(lines[0])


def test_every_study_has_an_example():
    studies = {study for study, _ in EXAMPLES.values()} | {"swucb"}
    assert studies == set(catalogue.studies())
    assert set(EXAMPLES) | {"swucb_discounted"} == {p.name for p in (REPO / "examples").iterdir() if p.is_dir()}


@pytest.fixture(scope="module", params=sorted(EXAMPLES))
def example_run(request, tmp_path_factory, make_workdir, snakemake):
    """.test's config with the example's study only, the example copied to the same relative path, and its
    command line run from there (its relative paths are the workdir's)."""
    name = request.param
    workdir = make_workdir(tmp_path_factory.mktemp(name))
    config = yaml.safe_load((workdir / "config" / "config.yaml").read_text())
    study = EXAMPLES[name][0]
    for other in catalogue.studies():
        config["studies"][other]["enabled"] = other == study
    (workdir / "config" / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    shutil.copytree(REPO / "examples" / name, workdir / "examples" / name)
    words = command_of(REPO / "examples" / name)
    assert words[:4] == ["snakemake", "--cores", "2", study]
    snakemake(workdir, *[str(workdir / w) if (workdir / w).exists() else w for w in words[1:]])
    return name, workdir


def test_the_example_is_compared_and_its_runs_are_its_class_with_each_experiments_options(example_run):
    name, workdir = example_run
    study, own_options_in = EXAMPLES[name]
    overlay = yaml.safe_load((REPO / "examples" / name / "config.yaml").read_text())
    (algo, entry), = overlay["extra_algorithms"][study].items()
    assert f"## {algo} against the paper's algorithms" in (workdir / "results" / study / "claims.md").read_text()

    # the config the run read: the workdir's, the overlay merged over it (as Snakemake merges --configfile)
    config = with_study_defaults(deep_merge(yaml.safe_load((workdir / "config" / "config.yaml").read_text()),
                                            overlay))
    target = entry["class"] if isinstance(entry, dict) else entry
    user_algorithms.register(algo, str(REPO / target.split(":")[0]) + ":" + target.split(":")[1], study)
    checked, differs = 0, []
    for exp in study_experiments(config, study).values():
        if algo not in exp.algorithms or exp.opt_in:
            continue
        runs = RunSet(str(workdir / runs_stem(config, exp)))
        for setting in exp.setting_ids():
            instance = load_instance_file(str(workdir / instance_path(config, exp, setting)), {})
            seed, trials = seed_of(config, exp, setting), np.arange(exp.trials)
            mine = make_algorithm(algo, instance, {k: str(v) for k, v in exp.options[algo].items()})
            for column, values in mine.simulate(seed, trials).columns.items():
                assert np.array_equal(runs.column(setting, algo, column), np.asarray(values)), (exp.name, setting)
            checked += 1
            if exp.name == own_options_in:
                declared = make_algorithm(algo, instance, {k: str(v) for k, v in (entry.get("options") or {}).items()})
                differs.append(any(not np.array_equal(runs.column(setting, algo, c), np.asarray(v))
                                   for c, v in declared.simulate(seed, trials).columns.items()))
    assert checked >= 2
    if own_options_in:
        assert differs and all(differs), f"the options of {own_options_in} did not reach {algo}"
