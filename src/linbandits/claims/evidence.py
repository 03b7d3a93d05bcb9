"""What a claim's quantities read: the runs of the study's experiments, by name.

`Evidence` reads each experiment's runs file once (linbandits.runs) and its instance
summaries; a missing experiment, setting or series raises `Missing`, which the engine
reports as "not run". `Switched` is the same evidence with some experiments replaced by
their switch runs (a protocol choice changed): the robustness of a verdict.
"""
from __future__ import annotations

import json
from pathlib import Path

from linbandits.claims.engine import Missing


def split_series(ref: str, experiment: str) -> tuple[str, str]:
    """'ALGO' -> (ALGO, experiment); 'ALGO@other' -> (ALGO, other): a series run in another experiment."""
    if "@" in ref:
        algorithm, other = ref.split("@", 1)
        return algorithm, other
    return ref, experiment


class Evidence:
    """exps: experiment name -> experiments.Experiment; runs_stem(name) and summary_path(name, setting)
    say where the files are. Experiments not in `exps` are not run."""

    def __init__(self, exps: dict, runs_stem, summary_path, extras: dict | None = None):
        self.exps, self._runs_stem, self._summary_path = exps, runs_stem, summary_path
        self.extras = extras or {}     # study-specific inputs by name (e.g. a published table)
        self._runs, self._summaries = {}, {}

    def experiment(self, name: str):
        if name not in self.exps:
            raise Missing(f"experiment {name} not in this run")
        return self.exps[name]

    def runset(self, name: str):
        from linbandits.runs import RunSet

        self.experiment(name)
        if name not in self._runs:
            self._runs[name] = RunSet(self._runs_stem(name))
        return self._runs[name]

    def settings(self, name: str) -> list[str]:
        return self.experiment(name).setting_ids()

    def x(self, name: str, setting: str):
        return self.experiment(name).value_of(setting)

    def setting_label(self, name: str, setting: str) -> str:
        exp = self.experiment(name)
        if exp.sweep is None:
            return ""
        value = exp.value_of(setting)
        return f"{exp.sweep} = {value:g}" if isinstance(value, (int, float)) else f"{exp.sweep} = {value}"

    def has_series(self, name: str, setting: str, algorithm: str) -> bool:
        try:
            return self.runset(name).has(setting, algorithm)
        except Missing:
            return False

    def column(self, name: str, setting: str, algorithm: str, column: str):
        runs = self.runset(name)
        if not runs.has(setting, algorithm):
            raise Missing(f"{algorithm} not run in {name} ({setting})")
        try:
            return runs.column(setting, algorithm, column)
        except KeyError:
            raise Missing(f"{algorithm} in {name} records no column {column!r}") from None

    def curve(self, name: str, setting: str, algorithm: str, curve: str = "regret"):
        runs = self.runset(name)
        if not runs.has(setting, algorithm):
            raise Missing(f"{algorithm} not run in {name} ({setting})")
        return runs.curve(setting, algorithm, curve)

    def info(self, name: str, setting: str, algorithm: str) -> list[dict]:
        runs = self.runset(name)
        if not runs.has(setting, algorithm):
            raise Missing(f"{algorithm} not run in {name} ({setting})")
        return runs.info(setting, algorithm)

    def summary(self, name: str, setting: str) -> dict:
        self.experiment(name)
        key = (name, setting)
        if key not in self._summaries:
            self._summaries[key] = json.loads(Path(self._summary_path(name, setting)).read_text(encoding="utf-8"))
        return self._summaries[key]

    def trials(self, name: str) -> int:
        return self.experiment(name).trials

    def paired_runs(self, name: str) -> bool:
        """The series of one setting play the same seeds, trial by trial (every experiment here)."""
        self.experiment(name)
        return True

    def shares_seeds(self, name: str) -> bool:
        """Every setting of the experiment plays the same seeds (a fixed `seed`), so trial i of one setting
        and trial i of another are paired; otherwise each setting has its own seed."""
        return getattr(self.experiment(name), "seed", None) is not None


class Switched:
    """Evidence with experiment `base` answered by switch experiment `switch`: the switch's settings
    only; its series where it ran them, the base's others when `merge` (the switch changed an
    algorithm's options only, so the other series are the same runs)."""

    def __init__(self, evidence, replacements: dict):
        # replacements: base -> (switch experiment name, merge)
        self.evidence, self.replacements = evidence, replacements
        self.extras = evidence.extras

    def __getattr__(self, attr):
        return getattr(self.evidence, attr)

    def settings(self, name: str) -> list[str]:
        if name in self.replacements:
            switch = self.replacements[name][0]
            own = set(self.evidence.settings(switch))
            return [s for s in self.evidence.settings(name) if s in own]
        return self.evidence.settings(name)

    def _source(self, name, setting, algorithm) -> str:
        if name not in self.replacements:
            return name
        switch, merge = self.replacements[name]
        if setting not in self.evidence.settings(switch):
            raise Missing(f"switch {switch} did not run {setting}")
        if self.evidence.has_series(switch, setting, algorithm):
            return switch
        if merge:
            return name
        raise Missing(f"{algorithm} not run under switch {switch}")

    def column(self, name, setting, algorithm, column):
        return self.evidence.column(self._source(name, setting, algorithm), setting, algorithm, column)

    def curve(self, name, setting, algorithm, curve="regret"):
        return self.evidence.curve(self._source(name, setting, algorithm), setting, algorithm, curve)

    def info(self, name, setting, algorithm):
        return self.evidence.info(self._source(name, setting, algorithm), setting, algorithm)

    def summary(self, name, setting):
        if name in self.replacements:
            return self.evidence.summary(self.replacements[name][0], setting)
        return self.evidence.summary(name, setting)

    def trials(self, name):
        if name in self.replacements:
            return self.evidence.trials(self.replacements[name][0])
        return self.evidence.trials(name)


class Restricted:
    """The default evidence on the settings a switch ran and on as many runs: the like-for-like
    comparison. A switch run plays its base's seeds, so its trial i is the base's trial i: a switch
    with fewer runs is compared with the base's first runs, at the same power."""

    def __init__(self, evidence, keep: dict, runs: dict | None = None):
        self.evidence, self.keep = evidence, keep    # base -> settings kept
        self.runs = runs or {}                         # base -> number of runs kept
        self.extras = evidence.extras

    def __getattr__(self, attr):
        return getattr(self.evidence, attr)

    def settings(self, name):
        out = self.evidence.settings(name)
        return [s for s in out if s in self.keep[name]] if name in self.keep else out

    def column(self, name, setting, algorithm, column):
        values = self.evidence.column(name, setting, algorithm, column)
        return values[: self.runs[name]] if name in self.runs else values

    def curve(self, name, setting, algorithm, curve="regret"):
        t, values = self.evidence.curve(name, setting, algorithm, curve)
        return (t, values[: self.runs[name]]) if name in self.runs else (t, values)

    def trials(self, name):
        return min(self.runs[name], self.evidence.trials(name)) if name in self.runs else self.evidence.trials(name)
