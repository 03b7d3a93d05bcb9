"""The command lines of the instance and simulate jobs (after `linbandits`), from the config.

A simulate job runs one algorithm on every setting of an experiment for one run range
(`simulate-cells`); in a preview (or with `bundle_algorithms: true`) one job runs every algorithm
of a run range, and a preview one job per study, through `linbandits batch`: the same commands in
one process, the same files and numbers.
"""
from __future__ import annotations

import shlex

from linbandits.experiments import (Experiment, by_study, chunk_bounds, chunk_names, on_request,
                                    own_instance_settings, seed_of)
from linbandits import user_algorithms
from linbandits.paths import bundled_simulate_outputs, instance_path, raw_inputs, raw_path, runs_stem, simulate_outputs


def setting_args(settings: dict) -> str:
    """--setting flags for `linbandits instance` ('' when there are none)."""
    return " ".join(f"--setting {shlex.quote(f'{k}={v}')}" for k, v in settings.items())


def option_args(options: dict) -> str:
    return " ".join(f"--option {shlex.quote(f'{k}={v}')}" for k, v in sorted(options.items()))


def simulate_cell_args(config, exp: Experiment, csvs, settings=None) -> str:
    """`--cell INSTANCE SEED OUT` for every setting (or those of `settings`), in setting order (csvs: the
    job's CSV outputs)."""
    settings = list(settings or exp.setting_ids())
    if len(csvs) != len(settings):
        raise ValueError(f"{exp.name}: {len(csvs)} outputs for {len(settings)} settings")
    return " ".join(f"--cell {shlex.quote(instance_path(config, exp, s))} {seed_of(config, exp, s)} "
                    f"{shlex.quote(str(out))}" for s, out in zip(settings, csvs))


def bundles_algorithms(config) -> bool:
    """One simulate job per experiment and run range for all its algorithms (one process), instead of one
    per algorithm: a preview's jobs are so small that process start-up would dominate them."""
    return bool(config.get("preview") or config.get("bundle_algorithms"))


def study_simulate_jobs(config, exps: list[Experiment]) -> dict[str, list[Experiment]]:
    """In a preview, one simulate job per study (by_study: every run range and algorithm of its
    experiments; its jobs are so small that start-up would dominate even one per experiment).
    Empty otherwise."""
    return by_study(exps) if config.get("preview") else {}


def upstream_priority(config, exps: list[Experiment], every: list[Experiment]) -> int:
    """The scheduling priority of a job that `exps`' simulate jobs wait for (their instances, their
    runs files): theirs, or in a preview, where one simulate job serves a whole study, the study's
    (Snakemake does not pass a job's priority on to the jobs it waits for)."""
    if config.get("preview"):
        studies = {e.study for e in exps}
        exps = [e for e in every if e.study in studies]
    return max((e.priority for e in exps), default=0)


def simulate_exts(curves: bool) -> list[str]:
    """The files a simulate job writes per cell."""
    return ["csv", "json"] + (["curves.npz"] if curves else [])


def study_simulate_job(config, exps: list[Experiment], curves: bool):
    """(outputs by extension, commands after `linbandits`) of a study's one simulate job: the bundled
    jobs of every experiment and run range, run by one `batch --file PLAN` (the commands one per line).
    In a file, not on the command line: Snakemake records a job's command line and inputs once per
    output file, and this job has ~1000 outputs (a 40 kB command line cost ~50 s of Snakemake's time)."""
    runs = [(e, c) for e in exps for c in chunk_names(config, e)]
    outputs = {ext: [p.format(chunk=c) for e, c in runs for p in bundled_simulate_outputs(config, e, ext)]
               for ext in simulate_exts(curves)}
    return outputs, [simulate_command(config, e, a, c, curves) for e, c in runs for a in e.algorithms]


def simulate_command(config, exp: Experiment, algorithm: str, chunk: str, curves: bool, settings=None) -> str:
    """`simulate-cells ...` (after `linbandits`) for one algorithm and run range over every setting (or
    those of `settings`)."""
    first, n = chunk_bounds(chunk)
    settings = list(settings or exp.setting_ids())
    csvs = [raw_path(config, exp, s, algorithm, chunk) for s in settings]
    words = [f"simulate-cells --algorithm {shlex.quote(algorithm)} --first-trial {first} --trials {n}",
             # [user algorithms, issue 37] the job process learns the user's class from its command line
             user_algorithms.command_flag(algorithm) if user_algorithms.is_user_algorithm(algorithm) else "",
             option_args(exp.options.get(algorithm, {})), "--curves" if curves else "",
             simulate_cell_args(config, exp, csvs, settings)]
    return " ".join(w for w in words if w)


def simulate_job(config, exp: Experiment, curves: bool, settings=None):
    """(output patterns by extension, the job's name in log paths, the command after `linbandits`)
    of the experiment's simulate jobs: per algorithm and run range, or all algorithms of a run range
    in one `batch` when bundles_algorithms; over every setting, or those of `settings` (one of
    experiments.setting_groups). The command is a function of the job's wildcards."""
    exts = simulate_exts(curves)
    if not bundles_algorithms(config):
        return ({ext: simulate_outputs(config, exp, ext, settings) for ext in exts}, "{algorithm}",
                lambda w: simulate_command(config, exp, w.algorithm, w.chunk, curves, settings))
    return ({ext: bundled_simulate_outputs(config, exp, ext, settings) for ext in exts}, "all",
            lambda w: batch_command([simulate_command(config, exp, a, w.chunk, curves, settings)
                                     for a in exp.algorithms]))


def batch_command(commands: list[str]) -> str:
    """One `linbandits` command line (after `linbandits`) running `commands` in order in one process:
    the command itself if there is one, else a `batch` of them."""
    return commands[0] if len(commands) == 1 else "batch " + " ".join(shlex.quote(c) for c in commands)


def experiment_jobs(config, exps: list[Experiment]) -> dict[str, list[Experiment]]:
    """The jobs of a per-experiment step (instances, runs files), by name: one per experiment, or, when
    bundles_algorithms (a preview), one per study (by_study; their commands in one `batch`) and one per
    experiment built only on request."""
    if not bundles_algorithms(config):
        return {e.name: [e] for e in exps}
    return {**by_study(exps), **{e.name: [e] for e in exps if on_request(e)}}


instance_jobs = experiment_jobs


def collect_command(config, exps: list[Experiment], curves) -> str:
    """The command (after `linbandits`) of a runs job: `collect-runs` for each experiment of `exps`;
    curves(exp) says whether its simulate jobs write curves."""
    return batch_command([
        f"collect-runs --study {e.study} --experiment {e.name} --trials {e.trials}"
        + (" --curves" if curves(e) else "")
        + f" --out-stem {shlex.quote(runs_stem(config, e))} " + " ".join(shlex.quote(p) for p in raw_inputs(config, e))
        for e in exps])


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
