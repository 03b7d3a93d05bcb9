"""The pipeline's jobs and what each one runs: its plan.

A simulate job runs cells. A cell is one algorithm, with its options, on one setting of an experiment
for one run range: it reads the setting's instance file, draws from the setting's seed and writes
    results/<study>/raw/<experiment>/<setting>/<algorithm>/chunk<a>-<b>.csv (+ .json, + .curves.npz)
How many cells one job runs is the run's `job_size` (with the experiments' `chunk_size` and
`settings_per_job`, which cut their runs and settings):

    algorithm  one algorithm's run range of one experiment, over its settings (the default)
    run_range  every algorithm of one run range of one experiment
    study      every cell of a study's experiments that the default target builds (the preview's
               default: its jobs are so small that process start-up would dominate them); experiments
               built only on request (`opt_in`) keep jobs of their own, one a run range

A user's algorithm (`extra_algorithms`) never shares a job with the paper's algorithms or with another
user's: whatever `job_size` says, its cells run in jobs of their own, so its failure can neither fail
the paper's jobs nor make Snakemake delete their files. No number depends on `job_size`: run i of a
setting depends only on the setting's seed and i.

Every simulate job, and every job a study declares (`Study.jobs`: OPKB's tuning grid), reads what it
runs from its plan file, .linbandits/plans/<study>/<job>.json (beside its log, logs/<study>/<job>.log): the
function that runs it (`runner`) and that function's data (a simulate job's: its tasks, each one
algorithm with its options and run range over its cells). The workflow writes every job's plan when
it is read (`write_plans`, before Snakemake builds its DAG), and only where the plan's text changes:
Snakemake reruns a job whose input is newer than its outputs, so it reruns exactly the jobs whose
plan changed, and a config edit that changes no job's cells reruns no simulation. A plan is canonical
JSON: the same plan, the same bytes.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import re
import shlex
from typing import Callable

from linbandits import catalogue
from linbandits.user import algorithms as user_algorithms
from linbandits.atomic import write_text_atomic
from linbandits.errors import UserError
from linbandits.experiments import (Experiment, by_study, chunk_bounds, chunk_names, on_request,
                                    own_instance_settings, runs_owner, seed_of, setting_groups)
from linbandits.paths import instance_path, prefix, raw_inputs, raw_path, runs_stem

JOB_SIZES = ("algorithm", "run_range", "study")
SIMULATE = "linbandits.cells:run_plan"     # the runner of a simulate job's plan


@dataclasses.dataclass(frozen=True)
class PlannedRule:
    """A rule whose jobs each read a plan file: jobs that differ only in the values of their wildcards
    (one job when it has none)."""
    rule: str
    study: str
    outputs: dict             # output name -> file patterns in the wildcards
    inputs: tuple             # what every job of the rule reads besides its plan
    wildcards: tuple          # each job's wildcard values, a dict ({} for the one job of a rule without)
    plan: Callable            # a job's wildcard values -> its plan (JSON-able)
    log: str                  # patterns in the wildcards, like the outputs: its log, benchmark, plan file
    benchmark: str
    plan_file: str
    runtime: int              # minutes, for a cluster's scheduler
    priority: int = 0
    constraints: dict = dataclasses.field(default_factory=dict)   # wildcard -> regular expression

    def plan_path(self, wildcards: dict) -> str:
        """The plan file of the job with these wildcards (written by write_plans)."""
        return self.plan_file.format(**wildcards)

    def write_plan(self, wildcards: dict) -> str:
        """The plan file of the job with these wildcards, written if its text changed (write_plan)."""
        return write_plan(self.plan_path(wildcards), self.plan(wildcards))


def write_plans(rules: list[PlannedRule]) -> None:
    """Every job's plan file, written when the workflow is read, before Snakemake builds its DAG (each only
    where its text changed). Not as each job is planned: Snakemake caches what a folder holds, so a plan
    written while the DAG is built could be taken as missing (two raw targets of one rule were)."""
    for r in rules:
        for wildcards in r.wildcards:
            r.write_plan(wildcards)


def job_files(config, study: str, stem: str, benchmark_stem: str | None = None) -> dict:
    """log, benchmark and plan_file of a job named by `stem` (e.g. simulate/<experiment>/{algorithm}/chunk{chunk}):
    logs/<study>/<stem>.log, logs/<study>/benchmarks/<stem>.tsv, .linbandits/plans/<study>/<stem>.json."""
    return {"log": f"{prefix(config)}logs/{study}/{stem}.log",
            "benchmark": f"{prefix(config)}logs/{study}/benchmarks/{benchmark_stem or stem}.tsv",
            "plan_file": f"{prefix(config)}.linbandits/plans/{study}/{stem}.json"}


def job_size(config) -> str:
    """What one simulate job holds: the config's `job_size`, by default `study` in a preview, else `algorithm`."""
    return config.get("job_size") or ("study" if config.get("preview") else "algorithm")


def bundles_steps(config) -> bool:
    """One job per study for the short per-experiment steps (instance files, runs files, products) whenever
    simulate jobs hold more than one algorithm: such runs want few jobs."""
    return job_size(config) != "algorithm"


# ---------------------------------------------------------------- simulate jobs

@dataclasses.dataclass(frozen=True)
class Cell:
    """One algorithm's run range on one setting; `algorithm` and `chunk` may be the rule's wildcards."""
    experiment: Experiment
    setting: str
    algorithm: str
    chunk: str

    def filled(self, wildcards: dict) -> "Cell":
        return dataclasses.replace(self, algorithm=self.algorithm.format(**wildcards),
                                   chunk=self.chunk.format(**wildcards))


def simulate_rules(config, exps: list[Experiment]) -> list[PlannedRule]:
    """Every simulate rule of the experiments `exps` at the config's job_size (module docstring)."""
    size = job_size(config)
    if size not in JOB_SIZES:
        raise UserError(f"config: job_size = {size!r}; choose one of {', '.join(JOB_SIZES)}")
    whole = by_study(exps) if size == "study" else {}
    out = [r for study, group in whole.items() for r in study_rules(config, study, group)]
    bundled = {e.name for group in whole.values() for e in group}
    for exp in exps:
        if exp.name not in bundled:
            out += experiment_rules(config, exp, size == "algorithm")
    return out


def paper_and_user_algorithms(exp: Experiment) -> tuple[list[str], list[str]]:
    users = [a for a in exp.algorithms if user_algorithms.is_user_algorithm(a)]
    return [a for a in exp.algorithms if a not in users], users


def experiment_rules(config, exp: Experiment, per_algorithm: bool) -> list[PlannedRule]:
    """simulate_<experiment> (or __part<g>, one a group of `settings_per_job` settings): a job per run range,
    and per algorithm too unless `run_range`; simulate_<experiment>[__part<g>]__<user algorithm> per user's."""
    paper, users = paper_and_user_algorithms(exp)
    groups = setting_groups(exp)
    chunks = chunk_names(config, exp)
    by_chunk = ([{"chunk": c} for c in chunks], {"chunk": "|".join(chunks)})
    out = []
    for g, settings in enumerate(groups):
        part = "" if len(groups) == 1 else f"__part{g}"
        if per_algorithm:
            cells = [Cell(exp, s, "{algorithm}", "{chunk}") for s in settings]
            values = [{"algorithm": a, "chunk": c} for a in paper for c in chunks]
            constraints = {"algorithm": "|".join(map(re.escape, paper)), "chunk": "|".join(chunks)}
            who = "{algorithm}"
        else:
            cells = [Cell(exp, s, a, "{chunk}") for a in paper for s in settings]
            (values, constraints), who = by_chunk, "all"
        if paper:      # (an experiment may run users' algorithms only)
            out.append(simulate_rule(config, f"simulate_{exp.name}{part}", cells, values, constraints,
                                     f"simulate/{exp.name}/{who}/chunk{{chunk}}{part}", None, exp.priority))
        for user in users:
            own = [s for s in settings if runs_owner(exp, s, user) == exp.name]   # (issue 47: runs made once)
            if own:
                out.append(simulate_rule(config, f"simulate_{exp.name}{part}__{rule_word(user)}",
                                         [Cell(exp, s, user, "{chunk}") for s in own], *by_chunk,
                                         f"simulate/{exp.name}/{user}/chunk{{chunk}}{part}", None, exp.priority))
    return out


def study_rules(config, study: str, exps: list[Experiment]) -> list[PlannedRule]:
    """simulate_<study>: every paper algorithm's cell of `exps` in one job; simulate_<study>__<user
    algorithm>: each user's cells in one job of its own."""
    priority = max(e.priority for e in exps)
    runs = [(e, c) for e in exps for c in chunk_names(config, e)]
    paper = [Cell(e, s, a, c) for e, c in runs for a in paper_and_user_algorithms(e)[0] for s in e.setting_ids()]
    # the benchmark three levels deep, like an experiment's (benchmarks/bench_pipeline.py reads them so)
    out = [simulate_rule(config, f"simulate_{study}", paper, [{}], {}, "simulate/all", "simulate/all/all/all",
                         priority)] if paper else []
    users = []
    for e in exps:
        users += [u for u in paper_and_user_algorithms(e)[1] if u not in users]
    for user in users:
        cells = [Cell(e, s, user, c) for e, c in runs if user in e.algorithms for s in e.setting_ids()
                 if runs_owner(e, s, user) == e.name]
        if not cells:    # (every run of it made by an experiment built only on request)
            continue
        out.append(simulate_rule(config, f"simulate_{study}__{rule_word(user)}", cells, [{}], {},
                                 f"simulate/{user}", f"simulate/all/{user}/all", priority))
    return out


def rule_word(name: str) -> str:
    """An algorithm's name as a part of a rule's name (a Python identifier)."""
    return re.sub(r"\W", "_", name)


def simulate_rule(config, rule, cells, wildcards, constraints, stem, benchmark_stem, priority) -> PlannedRule:
    study = cells[0].experiment.study
    curves = catalogue.studies()[study].curves
    exts = ["csv", "json"] + (["curves.npz"] if curves else [])
    outputs = {ext.replace(".", "_"): [raw_path(config, c.experiment, c.setting, c.algorithm, c.chunk, ext)
                                       for c in cells] for ext in exts}
    inputs = tuple(dict.fromkeys(instance_path(config, c.experiment, c.setting) for c in cells))
    series = {(c.experiment.name, c.setting, c.algorithm) for c in cells}   # minutes: 10 a series, run ranges apart
    return PlannedRule(rule=rule, study=study, outputs=outputs, inputs=inputs, wildcards=tuple(wildcards),
                plan=lambda w: simulate_plan(config, [c.filled(w) for c in cells], curves),
                **job_files(config, study, stem, benchmark_stem), runtime=30 + 10 * len(series), priority=priority,
                constraints=constraints)


def simulate_plan(config, cells: list[Cell], curves: bool) -> dict:
    """A simulate job's plan: its tasks, one per (experiment, run range, algorithm) in the order of
    `cells`, each that algorithm with its options and run range over its cells (instance file, seed,
    output), in setting order. Options are text, as `linbandits simulate --option` takes them."""
    tasks: dict = {}
    for c in cells:
        key = (c.experiment.name, c.chunk, c.algorithm)
        if key not in tasks:
            first, n = chunk_bounds(c.chunk)
            task = {"algorithm": c.algorithm,
                    "options": {k: str(v) for k, v in sorted(c.experiment.options.get(c.algorithm, {}).items())},
                    "first_trial": first, "trials": n, "curves": curves, "cells": []}
            if user_algorithms.is_user_algorithm(c.algorithm):
                task.update(study=c.experiment.study, user_class=user_algorithms.target_of(c.algorithm))
            tasks[key] = task
        tasks[key]["cells"].append({"instance": instance_path(config, c.experiment, c.setting),
                                    "seed": seed_of(config, c.experiment, c.setting),
                                    "out": raw_path(config, c.experiment, c.setting, c.algorithm, c.chunk)})
    return {"runner": SIMULATE, "tasks": list(tasks.values())}


# ---------------------------------------------------------------- plans

def planned_rules(config, study: str, exps: list[Experiment]) -> list[PlannedRule]:
    """Every job of a study that reads a plan: its simulate jobs, then those its Study.jobs declares."""
    declared = catalogue.studies()[study].jobs
    out = simulate_rules(config, [e for e in exps if e.study == study])
    return out + (list(catalogue.resolve(declared)(config)) if declared else [])


def check_unique(rules: list[PlannedRule]) -> None:
    """Two rules of one name would be one rule to Snakemake: refused in one line naming the name."""
    seen = set()
    for r in rules:
        if r.rule in seen:
            raise UserError(f"config: two jobs of the workflow are named {r.rule} (an experiment or switch name meets "
                            f"a user algorithm's name); rename the experiment, the switch or the algorithm")
        seen.add(r.rule)


def plan_text(plan: dict) -> str:
    """A plan as canonical JSON: the same plan, the same bytes."""
    return json.dumps(plan, sort_keys=True, indent=1) + "\n"


def write_plan(path: str, plan: dict) -> str:
    """Write a job's plan file unless it holds this plan already (its time then stays, and Snakemake reruns
    nothing for it); the path."""
    return write_if_changed(path, plan_text(plan))


def write_if_changed(path: str, text: str) -> str:
    """Write `text` to `path` unless the file holds it already (its time then stays); the path. A file
    the workflow writes when it is read, as an input whose time tells Snakemake what changed: it does
    not depend on Snakemake's own records, which a copied or archived run does not carry."""
    try:
        with open(path, encoding="utf-8") as handle:
            if handle.read() == text:
                return path
    except FileNotFoundError:
        pass
    write_text_atomic(path, text)
    return path


def run_plan_file(path: str) -> int:
    """Run one job from its plan file: the plan's runner (a "module:function" of the package) on the plan."""
    try:
        with open(path, encoding="utf-8") as handle:
            plan = json.load(handle)
        runner = catalogue.resolve(plan["runner"])
    except FileNotFoundError:
        raise UserError(f"no plan file {path}; the workflow writes a job's plan: run the workflow, or "
                        f"`linbandits simulate` for one cell by hand") from None
    except (json.JSONDecodeError, KeyError, TypeError, ImportError, AttributeError):
        raise UserError(f"{path} is not a job's plan; delete it and run the workflow again") from None
    return runner(plan) or 0


def main_run(argv=None) -> int:
    p = argparse.ArgumentParser(prog="linbandits run-job",
                                description="Run one job of the workflow from its plan file (the simulate jobs "
                                            "and the jobs a study declares).")
    p.add_argument("plan", help="the job's plan file, .linbandits/plans/<study>/<job>.json")
    args = p.parse_args(argv)
    return run_plan_file(args.plan)


# ---------------------------------------------------------------- instance and runs jobs

def experiment_jobs(config, exps: list[Experiment]) -> dict[str, list[Experiment]]:
    """The jobs of a per-experiment step (instances, runs files), by name: one per experiment, or, when
    bundles_steps, one per study (by_study; their commands in one `batch`) and one per experiment built
    only on request."""
    if not bundles_steps(config):
        return {e.name: [e] for e in exps}
    return {**by_study(exps), **{e.name: [e] for e in exps if on_request(e)}}


instance_jobs = experiment_jobs


def upstream_priority(config, exps: list[Experiment], every: list[Experiment]) -> int:
    """The scheduling priority of a job that `exps`' simulate jobs wait for (their instances, their
    runs files): theirs, or where one simulate job serves a whole study (job_size study), the study's
    (Snakemake does not pass a job's priority on to the jobs it waits for)."""
    if job_size(config) == "study":
        studies = {e.study for e in exps}
        exps = [e for e in every if e.study in studies]
    return max((e.priority for e in exps), default=0)


def batch_command(commands: list[str]) -> str:
    """One `linbandits` command line (after `linbandits`) running `commands` in order in one process:
    the command itself if there is one, else a `batch` of them."""
    return commands[0] if len(commands) == 1 else "batch " + " ".join(shlex.quote(c) for c in commands)


def collect_command(config, exps: list[Experiment]) -> str:
    """The command (after `linbandits`) of a runs job: `collect-runs` for each experiment of `exps`."""
    return batch_command([
        f"collect-runs --study {e.study} --experiment {e.name} --trials {e.trials}"
        + (" --curves" if catalogue.studies()[e.study].curves else "")
        + f" --out-stem {shlex.quote(runs_stem(config, e))} " + " ".join(shlex.quote(p) for p in raw_inputs(config, e))
        for e in exps])


def setting_args(settings: dict) -> str:
    """--setting flags for `linbandits instance` ('' when there are none)."""
    return " ".join(f"--setting {shlex.quote(f'{k}={v}')}" for k, v in settings.items())


def instance_command(config, exps: list[Experiment]) -> str:
    """The command (after `linbandits`) of an instance job writing the own instance files of `exps`."""
    return batch_command([f"instance-cells --instance {shlex.quote(e.instance)} {instance_cell_args(config, e)}"
                          for e in exps])


def setting_instance_command(config, exp: Experiment, command) -> str:
    """One process for the own instance files of an experiment whose instances a study command builds:
    `command(setting)` (the words before the output paths) + `--out NPZ --summary JSON` per setting."""
    return batch_command([f"{command(s)} --out {shlex.quote(instance_path(config, exp, s))} "
                          f"--summary {shlex.quote(instance_path(config, exp, s, 'json'))}"
                          for s in own_instance_settings(exp)])


def instance_cell_args(config, exp: Experiment) -> str:
    """`--setting` for the experiment's fixed settings, then `--cell SWEPT OUT SUMMARY` per own setting."""
    cells = []
    for s in own_instance_settings(exp):
        own = "" if exp.sweep is None else f"{exp.sweep}={exp.value_of(s)}"
        cells.append(f"--cell {shlex.quote(own)} {shlex.quote(instance_path(config, exp, s))} "
                     f"{shlex.quote(instance_path(config, exp, s, 'json'))}")
    return " ".join(filter(None, [setting_args(exp.settings), *cells]))


