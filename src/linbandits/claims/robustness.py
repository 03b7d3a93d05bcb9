"""A claim's verdict again under every switch run of the protocol choices it names.

For each protocol choice the claim lists (`choices:` in claims.yaml) and each switch run of that choice
(an experiment whose `switch` names the choice), the verdict with the switched experiment in place of
its base, beside the default's verdict on the same settings (a like-for-like comparison). A verdict is
"robust" when no switch changes it, and "depends on <choice>" otherwise, with the verdict under each.
"""
from __future__ import annotations

import numpy as np

from linbandits.claims.engine import NO_EVIDENCE, NOT_RUN, experiments_of, judge
from linbandits.claims.evidence import Restricted, Switched
from linbandits.claims.records import interval_text, part_records

ROBUST, DEPENDS, UNTESTED, NO_CHOICES = "robust", "depends", "not run", "none"


def switches_for(claim: dict, switches: list[dict]) -> dict:
    """choice -> value -> {base: (switch experiment, merge)} of the switches a claim's verdict depends on."""
    exps = set(experiments_of(claim))
    out: dict = {}
    for sw in switches:
        if sw["choice"] in claim.get("choices", []) and sw["base"] in exps:
            out.setdefault(sw["choice"], {}).setdefault(str(sw["value"]), {})[sw["base"]] = (sw["switch"], sw["merge"])
    return out


def measured(judged: dict) -> str:
    """The verdict the runs give: on the synthetic stand-in, the stand-in's (a pipeline check)."""
    return judged.get("stand_in_verdict", judged["verdict"])


def robustness(claim: dict, evidence, quantities: dict, switches: list[dict], default_verdict: str,
               level: float) -> dict:
    choices = list(claim.get("choices", []))
    if not choices:
        return {"status": NO_CHOICES, "choices": [], "runs": []}
    found = switches_for(claim, switches)
    runs = []
    for choice in choices:
        for value, replacements in found.get(choice, {}).items():
            switched = Recording(evidence, replacements)
            keep = {base: set(switched.settings(base)) for base in replacements}
            fewer = {base: evidence.trials(sw) for base, (sw, _) in replacements.items()
                     if evidence.trials(sw) < evidence.trials(base)}
            on_switch = judge(claim, switched, quantities, level)
            on_default = judge(claim, Restricted(evidence, keep, fewer), quantities, level)
            verdict, same = measured(on_switch), measured(on_default)
            runs.append({"choice": choice, "value": value, "verdict": verdict, "default_on_same_settings": same,
                         # each part's estimate and simultaneous interval, so that a verdict is read beside them
                         "intervals": _part_intervals(on_switch), "default_intervals": _part_intervals(on_default),
                         "experiments": sorted(sw for sw, _ in replacements.values()),
                         "fewer_runs": [f"{n} runs, not {evidence.trials(base)}" for base, n in fewer.items()],
                         "informative": switched.informative() or not compares_series(claim)})
    untested = [c for c in choices if c not in found]
    # a switch run whose every series gives one and the same constant result (e.g. no series ever errs)
    # cannot tell the algorithms apart: it neither changes a verdict nor makes one robust
    silent = [r for r in runs if not r["informative"]]
    runs_used = [r for r in runs if r["informative"]]
    untested += [c for c in choices if c in found and not any(r["choice"] == c for r in runs_used)]
    changed = [r for r in runs_used if r["verdict"] != r["default_on_same_settings"]]
    if default_verdict in (NOT_RUN, NO_EVIDENCE):
        status = UNTESTED       # nothing was judged, so nothing can be robust (e.g. an opt-in target's claim)
    elif changed:
        status = DEPENDS
    elif runs_used and not untested:
        status = ROBUST
    else:
        status = UNTESTED
    return {"status": status, "choices": choices, "untested": untested, "runs": runs,
            "no_information": [f"{r['choice']} = {r['value']}" for r in silent]}


def _part_intervals(judged: dict) -> list[str]:
    """'estimate [low, high]' of every part of a judged claim (a part not run says why), after the part's
    short label ('R_A(T) - R_B(T)') when there are several."""
    records = part_records(judged["tree"])
    if len(records) == 1:
        return [interval_text(records[0])]
    return [f"{r['label'].split(' (')[0]}: {interval_text(r)}" for r in records]


def compares_series(claim: dict) -> bool:
    """Every part of the claim compares two series (a against b): a ranking claim."""
    def parts(spec):
        for p in spec.get("parts", []):
            if "parts" in p:
                yield from parts(p)
            else:
                yield p
    return all("b" in p for p in parts(claim))


class Recording(Switched):
    """Switched evidence that remembers the columns it answered from the switch runs, to tell whether
    they carry any information (see `informative`)."""

    def __init__(self, evidence, replacements: dict):
        super().__init__(evidence, replacements)
        self.read, self.other_reads = [], 0

    def curve(self, name, setting, algorithm, curve="regret"):
        self.other_reads += 1
        return super().curve(name, setting, algorithm, curve)

    def column(self, name, setting, algorithm, column):
        values = Switched.column(self, name, setting, algorithm, column)
        if self._source(name, setting, algorithm) != name:
            if column == "correct":
                self.read.append((algorithm, np.asarray(values)))
            else:
                self.other_reads += 1
        return values

    def informative(self) -> bool:
        """False when the switch runs answered only error indicators, of at least two series, and every
        one of them is one and the same value (no series ever errs, or every one always does)."""
        if self.other_reads or len({algorithm for algorithm, _ in self.read}) < 2:
            return True
        first = self.read[0][1].flat[0] if self.read[0][1].size else None
        return not all(a.size and np.all(a == first) for _, a in self.read)


def robustness_text(rob: dict, default_verdict: str, default_labels: dict) -> str:
    if rob["status"] == NO_CHOICES:
        return "no open protocol choice"
    if default_verdict in (NOT_RUN, NO_EVIDENCE):
        return f"not judged ({default_verdict})"
    parts = []
    changed = [r for r in rob["runs"] if r["verdict"] != r["default_on_same_settings"]]
    for choice in rob["choices"]:
        mine = [r for r in changed if r["choice"] == choice]
        if mine:
            alts = "; ".join(f"{r['value']}: {r['verdict']}" + (
                f" (default on the same settings and runs: {r['default_on_same_settings']})"
                if r["default_on_same_settings"] != default_verdict else "")
                + (f" [judged on {', '.join(r['fewer_runs'])}]" if r.get("fewer_runs") else "") for r in mine)
            parts.append(f"depends on {choice} ({default_labels.get(choice, 'default')}: {default_verdict}; {alts})")
    if rob["status"] == ROBUST:
        return "robust to " + ", ".join(f"{c} ({', '.join(r['value'] for r in rob['runs'] if r['choice'] == c)})"
                                        for c in rob["choices"])
    if rob.get("opt_in"):
        parts.append("judged for " + ", ".join(rob["opt_in"]) + " only by the opt-in target `snakemake --cores 2 "
                     "robustness` (costly switch runs; it writes robustness.md beside this file)")
    if rob.get("no_information"):
        parts.append("no information from " + ", ".join(rob["no_information"]) + " (every series of the switch run "
                     "gives the same constant result, e.g. no errors at all: it cannot rank the algorithms)")
    if rob.get("untested"):
        parts.append("untested for " + ", ".join(rob["untested"]) + " (no informative switch run on this claim's "
                     "experiments)")
    same = [c for c in rob["choices"] if c not in rob.get("untested", []) + rob.get("opt_in", [])
            and not any(r["choice"] == c for r in changed)]
    if same:
        parts.append("robust to " + ", ".join(same))
    return "; ".join(parts)
