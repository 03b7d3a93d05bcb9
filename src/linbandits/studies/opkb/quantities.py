"""The study's own claim quantities (linbandits.claims.engine).

The runs of an opkb experiment are its instance seeds: the authors drew one instance per seed and
ran every algorithm once on it, so each setting (seed0, seed1, ...) holds one run (more in the tiny
test config) and a claim reads the runs of every setting together. Every algorithm of a setting
faces the same noise stream (the job seed is the setting's), so differences are paired by
(instance seed, run); a series of another experiment (`ALGO@experiment`, e.g. the neural runs or
SW-GPUCB with window 1000) is paired by instance seed too (same instance, its own noise).

    seeds_mean_difference      mean over the seeds of a - b: paired Student's t
    seeds_relative_difference  (mean a - mean b) / mean b: paired t on the log ratio of means
    tuning_best                the tuning grid's best point with option = value minus the best point
                               with any other value: chosen on half the seeds, judged on the other half

`at`: a round number, 'n' (the horizon), 'n/K', or 'switch' (the instance's first switch, from its
summary: Env 1's t = 3000 at the published size). Without `at`: the final regret (t = T).
25 (or 50) seeds are few: every t here takes its tail at alpha / estimates.SKEWNESS_ALLOWANCE (the
small-sample allowance; tests/test_claims_coverage.py shows the coverage on regrets shaped like the study's).
"""
from __future__ import annotations

import json

import numpy as np

from linbandits.claims import estimates as est
from linbandits.claims.engine import Missing, fmt
from linbandits.claims.evidence import split_series
from linbandits.claims.quantities import round_of

TUNING_NOT_RUN = "tuning not run: opt-in target `snakemake --cores 2 opkb_tuning`"


def _round(evidence, spec, setting, horizon: int) -> int:
    at = spec["at"]
    if at == "switch":
        switches = evidence.summary(spec["experiment"], setting).get("meta", {}).get("switches") or []
        if not switches:
            raise Missing(f"the instances of {spec['experiment']} have no switch")
        return int(switches[0])
    return round_of(at, horizon)


def seed_values(evidence, ref: str, spec: dict) -> tuple[np.ndarray, int, str]:
    """(per-run values of series `ref` over every setting of the part's experiment, in setting order,
    the number of settings, where they were read: 't = 3000' or 't = T')."""
    algorithm, exp = split_series(ref, spec["experiment"])
    settings = evidence.settings(spec["experiment"])
    out, where = [], "t = T"
    for s in settings:
        if "at" in spec:
            t, curves = evidence.curve(exp, s, algorithm, "regret")
            at = _round(evidence, spec, s, int(t[-1]))
            hits = np.flatnonzero(t == at)
            if not hits.size:
                raise Missing(f"the curves of {algorithm} in {exp} have no round {at} (rounds {t[0]}..{t[-1]})")
            out.append(np.asarray(curves[:, hits[0]], float))
            where = f"t = {at}"
        else:
            out.append(np.asarray(evidence.column(exp, s, algorithm, "regret"), float))
    if not out:
        raise Missing(f"{spec['experiment']} has no settings in this run")
    return np.concatenate(out), len(settings), where


def _paired(evidence, spec):
    a, k, where = seed_values(evidence, spec["a"], spec)
    b, _, _ = seed_values(evidence, spec["b"], spec)
    if a.size != b.size:
        raise Missing(f"{spec['a']} has {a.size} runs and {spec['b']} {b.size} over the seeds of "
                      f"{spec['experiment']}: they cannot be paired")
    return a, b, k, where


def _runs(n: int, k: int) -> str:
    return f"{k} instance seeds" + (f" x {n // k} runs" if n != k else "")


def seeds_mean_difference(evidence, spec, alpha, claim_id):
    a, b, k, where = _paired(evidence, spec)
    allowance = est.small_sample_allowance(a.size, "difference")
    e = est.mean_difference(a, b, alpha, paired=True, allowance=allowance)
    e.method = "paired Student's t over the instance seeds" + est.allowance_text(allowance)
    return e, (f"{spec['a']} - {spec['b']} at {where}: {fmt(a.mean())} - {fmt(b.mean())}, {spec['experiment']}, "
               f"{_runs(a.size, k)}")


def seeds_relative_difference(evidence, spec, alpha, claim_id):
    a, b, k, where = _paired(evidence, spec)
    e = est.ratio_of_means_t(a, b, alpha, paired=True, shift=-1.0)
    return e, (f"({spec['a']} - {spec['b']}) / {spec['b']} at {where}: {fmt(a.mean())} vs {fmt(b.mean())}, "
               f"{spec['experiment']}, {_runs(a.size, k)}")


def read_tuning_points(paths) -> list[dict]:
    return [json.loads(open(p, encoding="utf-8").read()) for p in paths]


def tuning_best(evidence, spec, alpha, claim_id):
    """The claimed value of one option against the rest of the tuning grid (spec C; criterion: mean final
    regret over the tuning experiment's seeds). Every point ran the same seeds with the same job seeds.
    Each side's best point is chosen on the first half of the seeds and judged on the other half
    (estimates.best_of_groups_difference: choosing and judging on the same seeds favours the side with
    more points, here the other values)."""
    paths = evidence.extras.get("tuning")
    if not paths:
        raise Missing(TUNING_NOT_RUN)
    algorithm, option, value = spec["algorithm"], spec["option"], spec["value"]
    points = [p for p in read_tuning_points(paths) if p["algorithm"] == algorithm]
    values = sorted({p["options"].get(option) for p in points}, key=float)
    if not any(float(v) == float(value) for v in values):
        raise Missing(f"{option} = {value} is not a point of {algorithm}'s tuning grid ({', '.join(map(str, values))})")
    mine = [p for p in points if float(p["options"][option]) == float(value)]
    rest = [p for p in points if float(p["options"][option]) != float(value)]
    if not rest:
        raise Missing(f"{algorithm}'s tuning grid has no {option} but {value}")
    seeds = {len(p["regrets"]) for p in points}
    if len(seeds) != 1:
        raise Missing(f"{algorithm}'s tuning points ran different numbers of seeds ({sorted(seeds)})")
    n = seeds.pop()
    e, i, j = est.best_of_groups_difference([p["regrets"] for p in mine], [p["regrets"] for p in rest],
                                            n // 2, alpha)

    def point(p):
        from linbandits.studies.opkb.tuning import varied_options

        return ", ".join(f"{k} {v}" for k, v in sorted(varied_options(p["options"]).items()))
    return e, (f"{algorithm}: best point with {option} = {value} ({point(mine[i])}) minus best with any other "
               f"{option} ({point(rest[j])}), each chosen on the first {n // 2} seeds and judged on the other {n - n // 2}"
               f" ({fmt(e.value)})")


QUANTITIES = {f.__name__: f for f in (seeds_mean_difference, seeds_relative_difference, tuning_best)}
