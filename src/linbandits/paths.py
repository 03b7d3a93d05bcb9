"""Where every file of a run lives.

results/<study>/{instances,raw,runs,tables}/..., figures/<study>/..., logs/<study>/...; with
`preview: true` everything goes under preview/, so a preview never mixes with a full run.
"""
from __future__ import annotations

from linbandits.experiments import Experiment, chunk_names, own_instance_settings


def prefix(config) -> str:
    """'' for real runs; 'preview/' when the config asks for a preview, so the two never mix."""
    return "preview/" if config.get("preview") else ""


def instance_path(config, exp: Experiment, setting: str, ext: str = "npz") -> str:
    """results/<study>/instances/<experiment>/<setting>.<ext>, of the experiment that writes it."""
    owner, owner_setting = next(((o, os) for own, o, os in exp.borrowed_instances if own == setting),
                                (exp.name, setting))
    return f"{prefix(config)}results/{exp.study}/instances/{owner}/{owner_setting}.{ext}"


def raw_path(config, exp: Experiment, setting: str, algorithm: str, chunk: str, ext: str = "csv") -> str:
    """results/<study>/raw/<experiment>/<setting>/<algorithm>/chunk<a>-<b>.<ext>: one cell's runs a..b."""
    return f"{prefix(config)}results/{exp.study}/raw/{exp.name}/{setting}/{algorithm}/chunk{chunk}.{ext}"


def raw_chunk_paths(config, exp: Experiment, setting: str, algorithm: str, ext: str = "csv") -> list[str]:
    return [raw_path(config, exp, setting, algorithm, chunk, ext) for chunk in chunk_names(config, exp)]


def raw_inputs(config, exp: Experiment) -> list[str]:
    """Every raw chunk CSV of an experiment: settings outer, then algorithms, then run ranges."""
    return [p for s in exp.setting_ids() for a in exp.algorithms for p in raw_chunk_paths(config, exp, s, a)]


def simulate_outputs(config, exp: Experiment, ext: str = "csv", settings=None) -> list[str]:
    """What one simulate job writes: one file per setting of the experiment, as patterns in the
    job's wildcards {algorithm} and {chunk}. A job is (experiment, algorithm, run range): it pays
    process start-up and compilation once for all the settings (results do not change: run i of a
    setting depends only on that setting's seed and i). `settings`: a job's share of them
    (experiments.setting_groups; default all)."""
    return [raw_path(config, exp, s, "{algorithm}", "{chunk}", ext) for s in settings or exp.setting_ids()]


def bundled_simulate_outputs(config, exp: Experiment, ext: str = "csv", settings=None) -> list[str]:
    """What a bundled simulate job writes (bundles_algorithms): every algorithm's file of every setting,
    as patterns in the job's wildcard {chunk}."""
    return [raw_path(config, exp, s, a, "{chunk}", ext) for a in exp.algorithms for s in settings or exp.setting_ids()]


def instance_outputs(config, exp: Experiment, ext: str) -> list[str]:
    """The instance files the experiment's instance job writes."""
    return [instance_path(config, exp, s, ext) for s in own_instance_settings(exp)]


def instance_inputs(config, exp: Experiment, ext: str = "npz", settings=None) -> list[str]:
    """The instance file of every setting of the experiment (or of `settings`), wherever it is written."""
    return [instance_path(config, exp, s, ext) for s in settings or exp.setting_ids()]


def simulate_plan(config, study: str) -> str:
    """results/<study>/raw/simulate_plan.txt: a preview's one simulate job's commands, one per line."""
    return f"{prefix(config)}results/{study}/raw/simulate_plan.txt"


def runs_stem(config, exp: Experiment) -> str:
    """results/<study>/runs/<experiment>: every run of the experiment (.npz and .json; linbandits.runs)."""
    return f"{prefix(config)}results/{exp.study}/runs/{exp.name}"
