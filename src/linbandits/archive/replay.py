"""Run ranges of an archived run drawn and simulated again (linbandits.archive.verify compares them).

A run range is one simulate job's share of one setting: (experiment, setting, algorithm, runs a..b).
Each is replayed by the pipeline's own simulate job, `linbandits run-job` on its plan, in this process, in
the unpacked run (its paths are the run's), on the run's seeds and instance.
"""
from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import random
from pathlib import Path

from linbandits import catalogue, experiments, jobs, paths, products
from linbandits.user import algorithms as user_algorithms
from linbandits.archive.unpack import Unpacked
from linbandits.errors import UserError


@dataclasses.dataclass
class RunRange:
    study: str
    experiment: experiments.Experiment
    setting: str
    algorithm: str
    first: int
    n: int
    index: int            # the chunk's place among the setting's chunks (its sidecar record)
    config: dict

    @property
    def label(self) -> str:
        return f"{self.experiment.name}/{self.setting}/{self.algorithm} runs {self.first}-{self.first + self.n - 1}"


@contextlib.contextmanager
def working_directory(path: Path):
    """The run's paths are relative to its directory (contextlib.chdir from Python 3.11 on)."""
    old = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def user_algorithm_problem(name: str) -> str | None:
    """Why a user's algorithm cannot be replayed here (None when its class loads)."""
    try:
        user_algorithms.algorithm_class(name)
    except UserError as exc:
        return str(exc)
    return None


def run_ranges(unpacked: Unpacked) -> tuple[list[RunRange], dict[str, str]]:
    """Every run range of the archived default target that can be replayed here, and what cannot (the
    experiment or user algorithm -> why)."""
    out, left_out = [], {}
    with working_directory(unpacked.run):
        for entry in unpacked.enabled():
            config = products.load_config(entry["snapshot"], entry["name"])
            for exp in experiments.study_experiments(config, entry["name"]).values():
                if experiments.on_request(exp) or not Path(f"{paths.runs_stem(config, exp)}.json").is_file():
                    continue
                if exp.instance not in catalogue.family_names() and \
                        not Path(paths.instance_path(config, exp, exp.setting_ids()[0])).is_file():
                    left_out[exp.name] = (f"its instances are built from data the archive does not hold ("
                                          f"{exp.instance}; the R6A licence keeps what is built from the log "
                                          f"out of an archive)")
                    continue
                for algorithm in exp.algorithms:
                    if user_algorithms.is_user_algorithm(algorithm):
                        problem = user_algorithm_problem(algorithm)
                        if problem:
                            left_out[algorithm] = f"a user's algorithm whose code does not load here ({problem})"
                            continue
                    for setting in exp.setting_ids():
                        for index, (first, n) in enumerate(experiments.chunks(config, exp)):
                            out.append(RunRange(entry["name"], exp, setting, algorithm, first, n, index, config))
    return out, left_out


def draw(ranges: list[RunRange], sample: int, seed: int) -> list[RunRange]:
    """`sample` ranges at random, the studies taken in turn (each study's ranges shuffled)."""
    rng = random.Random(seed)
    by_study: dict[str, list[RunRange]] = {}
    for r in ranges:
        by_study.setdefault(r.study, []).append(r)
    queues = [rng.sample(v, len(v)) for _, v in sorted(by_study.items())]
    rng.shuffle(queues)
    chosen = []
    while len(chosen) < sample and any(queues):
        for queue in queues:
            if queue and len(chosen) < sample:
                chosen.append(queue.pop())
    return chosen


def job_settings(r: RunRange) -> list[str]:
    """The settings replayed for a range: its simulate job's (in order) where the study shares state between
    a job's cells, else its own alone."""
    if not catalogue.studies()[r.study].job_context:
        return [r.setting]
    return next(list(group) for group in experiments.setting_groups(r.experiment) if r.setting in group)


def replay_command(r: RunRange, outs: dict[str, str], curves: bool) -> list[str]:
    """The pipeline's simulate job for a range, as its `run-job` command: the plan the workflow would
    write (linbandits.jobs.simulate_plan) for the range's cells, each writing to `outs` (setting -> its
    CSV, paths relative to the run) instead of the run's raw chunk; written to replay/plans/ first."""
    chunk = f"{r.first}-{r.first + r.n - 1}"
    cells = [jobs.Cell(r.experiment, setting, r.algorithm, chunk) for setting in outs]
    plan = jobs.simulate_plan(r.config, cells, curves)
    for cell, out in zip(plan["tasks"][0]["cells"], outs.values()):
        cell["out"] = out
    path = Path("replay/plans") / f"{r.experiment.name}__{r.setting}__{r.algorithm}__{chunk}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    jobs.write_plan(str(path), plan)
    return ["run-job", str(path)]


def run_quietly(words: list[str]) -> str | None:
    """A linbandits command in this process; None, or the one line of its failure."""
    from linbandits import cli

    errors = io.StringIO()
    with contextlib.redirect_stderr(errors):     # the jobs' progress lines
        code = cli.main(words)
    if code:
        lines = [line for line in errors.getvalue().splitlines() if line.strip()]
        return lines[-1] if lines else f"exit {code}"
    return None


def instance_problem(r: RunRange, setting: str) -> tuple[str, str | None]:
    """Build a setting's instance from the config as the run's instance job did, unless the archive (or an
    earlier replay) holds it, and check it against the run's summary: (where it came from, None or what
    differs)."""
    exp = r.experiment
    npz = paths.instance_path(r.config, exp, setting)
    summary = f"replay/instances/{npz}.json"
    if Path(npz).is_file() and not Path(summary).is_file():
        return "instance archived", None
    if not Path(npz).is_file():
        Path(summary).parent.mkdir(parents=True, exist_ok=True)
        words = ["instance-cells", "--instance", exp.instance]
        for key, value in exp.settings.items():
            words += ["--setting", f"{key}={value}"]
        own = "" if exp.sweep is None else f"{exp.sweep}={exp.value_of(setting)}"
        failure = run_quietly([*words, "--cell", own, npz, summary])
        if failure:
            return "instance built", f"its instance could not be built: {failure}"
    if Path(summary).read_bytes() != Path(paths.instance_path(r.config, exp, setting, "json")).read_bytes():
        return "instance built", "the instance built from the config differs from the run's (its summary)"
    return "instance built, summary equal", None
