"""Where every file of a run lives.

results/<study>/{instances,raw,runs,tables}/..., figures/<study>/..., logs/<study>/...; with
`preview: true` everything goes under preview/, so a preview never mixes with a full run.
"""
from __future__ import annotations

import dataclasses

from linbandits.experiments import Experiment, chunk_names, own_instance_settings, runs_owner


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
    """Every raw chunk CSV of an experiment: settings outer, then algorithms, then run ranges; a user
    algorithm's where another experiment makes its runs (experiments.runs_owner, the same run ranges)."""
    return [p for s in exp.setting_ids() for a in exp.algorithms
            for p in raw_chunk_paths(config, dataclasses.replace(exp, name=runs_owner(exp, s, a)), s, a)]


def instance_outputs(config, exp: Experiment, ext: str) -> list[str]:
    """The instance files the experiment's instance job writes."""
    return [instance_path(config, exp, s, ext) for s in own_instance_settings(exp)]


def instance_inputs(config, exp: Experiment, ext: str = "npz", settings=None) -> list[str]:
    """The instance file of every setting of the experiment (or of `settings`), wherever it is written."""
    return [instance_path(config, exp, s, ext) for s in settings or exp.setting_ids()]


def plan_file(config, study: str) -> str:
    """results/<study>/plan.json: what each job of the study that reads a plan runs (linbandits.jobs)."""
    return f"{prefix(config)}results/{study}/plan.json"


def runs_stem(config, exp: Experiment) -> str:
    """results/<study>/runs/<experiment>: every run of the experiment (.npz and .json; linbandits.runs)."""
    return f"{prefix(config)}results/{exp.study}/runs/{exp.name}"
