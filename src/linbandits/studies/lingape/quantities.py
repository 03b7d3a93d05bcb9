"""The LinGapE study's own claim quantities (linbandits.claims.quantities has the shared ones).

Each is a function (evidence, spec, alpha, claim_id) -> (Estimate, label), as the engine asks.
A series is 'ALGORITHM' (of the part's experiment) or 'ALGORITHM@experiment'; the runs of
one seed share their reward streams across algorithms and experiments (run i draws from
generator(seed, i, 0) whatever the algorithm), so ratios of the same runs are paired.

    stop_ratio         mean stopping time of a / of b: t on the log ratio; runs of a stopped at the
                       pull cap make it a lower bound (it can show a slower, never faster)
    gap_growth         the smallest step, over consecutive settings (towards smaller or larger
                       x), of the growth of mean(a) - mean(b): t of each step (paired runs)
    pull_share         share of arm `arm` in all pulls of a's runs: t on the log ratio
    share_spread       max / min - 1 of the pull shares of `arms`: t on each log ratio of two arms'
                       pulls, Bonferroni over the pairs
    share_ratio        summed share of `arms` over the mean share of `versus`, minus 1: t on the log ratio
    published_rank     share of a's runs stopping at or before a published single run: exact binomial
    deterministic_value  a column that is the same in every run (XY-oracle): exact
    logdet_slope       mean over runs of the slope of log det A_t against log t (t >= t_min): t
    forget_share       share of XY-adaptive runs whose active set becomes {1, d+1} within `within`
                       phases and is later every arm again: exact binomial

Ten runs a setting are few: every t here takes its tail at alpha / estimates.SKEWNESS_ALLOWANCE (the
small-sample allowance: tests/test_claims_coverage.py shows the coverage at the claims' tail levels on
stopping times shaped like the study's, and that the percentile bootstrap used before under-covers).
A share read off the one published run of Table 1 is exact for that run: it has no interval.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from linbandits.claims import estimates as est
from linbandits.claims.engine import Missing, fmt
from linbandits.claims.evidence import split_series
from linbandits.errors import UserError


def setting_of(evidence, spec) -> str:
    if "setting" in spec:
        return spec["setting"]
    settings = evidence.settings(spec["experiment"])
    if len(settings) != 1:
        raise UserError(f"claim part on {spec['experiment']}: name a `setting` (or use each_setting); "
                        f"it has {', '.join(settings)}")
    return settings[0]


def where(evidence, exp, setting) -> str:
    label = evidence.setting_label(exp, setting)
    return exp + (f", {label}" if label else "")


def column(evidence, ref, spec, setting, name="stopping_time") -> np.ndarray:
    algorithm, exp = split_series(ref, spec["experiment"])
    return np.asarray(evidence.column(exp, setting, algorithm, name), float)


def censored(evidence, ref, spec, setting) -> int:
    """Runs of a series stopped at the pull cap (the sidecars' censored_trials)."""
    algorithm, exp = split_series(ref, spec["experiment"])
    return sum(len(info.get("censored_trials", [])) for info in evidence.info(exp, setting, algorithm))


def stop_ratio(evidence, spec, alpha, claim_id):
    s = setting_of(evidence, spec)
    a, b = column(evidence, spec["a"], spec, s), column(evidence, spec["b"], spec, s)
    e = est.ratio_of_means_t(a, b, alpha, bool(spec.get("paired", True)))
    ca, cb = censored(evidence, spec["a"], spec, s), censored(evidence, spec["b"], spec, s)
    notes = []
    if ca:
        # a's mean is at least this: the ratio can only be larger. Were every run of a at the cap, the
        # ratio could be no more than cap / mean(b): what the design can show at most.
        e = dataclasses.replace(e, lower_bound=True, value_range=(0.0, float(a.max()) / float(b.mean())))
        notes.append(f"{ca} of {a.size} runs of {split_series(spec['a'], spec['experiment'])[0]} at the pull cap")
    if cb:
        # b's mean is at least this: the ratio can only be smaller (an upper bound)
        e = dataclasses.replace(e, upper_bound=True)
        notes.append(f"{cb} of {b.size} runs of {split_series(spec['b'], spec['experiment'])[0]} at the pull cap")
    label = (f"{_name(spec['a'])} / {_name(spec['b'])}: {fmt(a.mean())} / {fmt(b.mean())}, "
             f"{where(evidence, spec['experiment'], s)}")
    return e, label + (f" ({'; '.join(notes)})" if notes else "")


def _name(ref: str) -> str:
    return ref.split("@", 1)[0]


def _ordered_settings(evidence, spec) -> list[str]:
    exp = spec["experiment"]
    settings = list(spec.get("settings") or evidence.settings(exp))
    towards = spec.get("towards", "larger")
    if towards not in ("larger", "smaller"):
        raise UserError(f"claim {spec}: towards must be 'larger' or 'smaller', got {towards!r}")
    return sorted(settings, key=lambda s: float(evidence.x(exp, s)), reverse=towards == "smaller")


def gap_growth(evidence, spec, alpha, claim_id):
    """min over consecutive settings s_k -> s_{k+1} (in the direction `towards`) of
    [mean a - mean b](s_{k+1}) - [mean a - mean b](s_k)."""
    exp = spec["experiment"]
    settings = _ordered_settings(evidence, spec)
    if len(settings) < 2:
        raise Missing(f"{exp} has {len(settings)} setting(s); a growth needs two")
    groups = [(column(evidence, spec["a"], spec, s), column(evidence, spec["b"], spec, s)) for s in settings]
    # every setting plays the same seeds (seed 0, runs 0..9): run i of one setting is paired with run i
    # of the others, so each step is a paired t of the runs' own steps
    shared = bool(getattr(evidence, "shares_seeds", lambda _exp: False)(exp))
    if shared and len({x.size for g in groups for x in g}) != 1:
        raise UserError(f"claim {claim_id}: the settings of {exp} share seeds but not their run counts")
    n = min(x.size for g in groups for x in g)
    allowance = est.small_sample_allowance(n, "difference")

    def interval(a_):
        if n < 2:
            return -np.inf, np.inf
        if shared:
            per_run = np.stack([a - b for a, b in groups])
        else:       # settings of their own seeds: as many runs each, a and b paired within a setting
            per_run = np.stack([(a - b)[:n] for a, b in groups])
        _, low, high = est.min_step_interval(per_run, a_, allowance, shared=shared)
        return float(low), float(high)

    gaps = [float(a.mean() - b.mean()) for a, b in groups]
    value = min(g2 - g1 for g1, g2 in zip(gaps, gaps[1:]))
    p_above, p_below = est.p_values_from(interval)
    method = ("smallest step: Student's t of each step, " + ("paired across settings" if shared else "Welch")
              + f"; lower bound at alpha, upper bound Bonferroni over the {len(groups) - 1} steps"
              + est.allowance_text(allowance))
    e = est.Estimate(value, *interval(alpha), n, method, p_above, p_below, interval_at=interval)
    steps = ", ".join(f"{evidence.setting_label(exp, s)}: {fmt(g)}" for s, g in zip(settings, gaps))
    return e, (f"smallest growth of mean {_name(spec['a'])} - mean {_name(spec['b'])} towards "
               f"{spec.get('towards', 'larger')} {evidence.experiment(exp).sweep} ({exp}); differences {steps}")


def _pulls(evidence, ref, spec, setting) -> np.ndarray:
    """runs x arms pull counts."""
    algorithm, exp = split_series(ref, spec["experiment"])
    out = []
    for arm in range(10_000):
        try:
            out.append(np.asarray(evidence.column(exp, setting, algorithm, f"pulls_{arm}"), float))
        except Missing:
            if arm == 0:
                raise
            break
    return np.stack(out, axis=1)


ONE_RUN = "the one run itself, read exactly (one run gives no interval about the algorithm)"


def _pull_ratio(top, bottom, alpha, shift=0.0):
    """mean top / mean bottom (+ shift) of the runs' pull counts: t on the log ratio; one run read exactly."""
    if top.size == 1:
        return est.exact(float(top[0] / bottom[0]) + shift, ONE_RUN)
    return est.ratio_of_means_t(top, bottom, alpha, paired=True, shift=shift)


def _arms(spec, key, K) -> list[int]:
    """0-based arms from a list that may count from the end (-1 is the last arm)."""
    return [a % K for a in spec[key]]


def pull_share(evidence, spec, alpha, claim_id):
    arm = int(spec["arm"])
    s = setting_of(evidence, spec)
    pulls = _pulls(evidence, spec["a"], spec, s)
    shares = pulls.sum(axis=0) / pulls.sum()
    e = _pull_ratio(pulls[:, arm], pulls.sum(axis=1), alpha)
    return e, (f"{_name(spec['a'])}: arm {arm + 1}'s share of all pulls {fmt(shares[arm])}, "
               f"{where(evidence, spec['experiment'], s)}")


def share_spread(evidence, spec, alpha, claim_id):
    """max / min - 1 of the pooled shares of `arms`: the largest ratio of two arms' mean pulls, minus 1. Each
    ordered pair's ratio has its t interval on the log scale at alpha / pairs (Bonferroni: the largest is not
    known in advance, so both bounds must hold for every pair); the interval is that of the largest."""
    s = setting_of(evidence, spec)
    pulls = _pulls(evidence, spec["a"], spec, s)
    shares = pulls.sum(axis=0) / pulls.sum()
    arms = _arms(spec, "arms", shares.size)
    pairs = [(i, j) for i in arms for j in arms if i != j]
    value = max(shares[i] / shares[j] for i, j in pairs) - 1.0
    if pulls.shape[0] == 1:
        e = est.exact(value, ONE_RUN)
    else:
        def interval(a_):
            bounds = [_pull_ratio(pulls[:, i], pulls[:, j], a_ / len(pairs), -1.0) for i, j in pairs]
            return max(b.low for b in bounds), max(b.high for b in bounds)

        p_above, p_below = est.p_values_from(interval)
        e = est.Estimate(value, *interval(alpha), pulls.shape[0],
                         f"largest of {len(pairs)} ratios of two arms' pulls, each t on the log ratio, Bonferroni over "
                         "the pairs" + est.allowance_text(est.small_sample_allowance(pulls.shape[0])),
                         p_above, p_below, interval_at=interval)
    return e, (f"{_name(spec['a'])}: max / min - 1 of the shares of arms {', '.join(str(a + 1) for a in arms)} "
               f"({' / '.join(f'{shares[a]:.4f}' for a in arms)}), {where(evidence, spec['experiment'], s)}")


def share_ratio(evidence, spec, alpha, claim_id):
    s = setting_of(evidence, spec)
    pulls = _pulls(evidence, spec["a"], spec, s)
    shares = pulls.sum(axis=0) / pulls.sum()
    arms, versus = _arms(spec, "arms", shares.size), _arms(spec, "versus", shares.size)
    e = _pull_ratio(pulls[:, arms].sum(axis=1), pulls[:, versus].mean(axis=1), alpha, -1.0)
    return e, (f"{_name(spec['a'])}: shares of arms {' + '.join(str(a + 1) for a in arms)} "
               f"({fmt(float(shares[arms].sum()))}) over the mean share of arms "
               f"{', '.join(str(a + 1) for a in versus)} ({fmt(float(shares[versus].mean()))}), minus 1; "
               f"{where(evidence, spec['experiment'], s)}")


def published_rank(evidence, spec, alpha, claim_id):
    s = setting_of(evidence, spec)
    x = column(evidence, spec["a"], spec, s, spec.get("column", "stopping_time"))
    published = float(spec["published"])
    k = int(np.count_nonzero(x <= published))
    e = est.proportion(k, x.size, alpha)
    return e, (f"{_name(spec['a'])}: {k} of {x.size} runs stop at or before the published {published:,.0f} "
               f"(runs {x.min():,.0f} .. {x.max():,.0f}), {where(evidence, spec['experiment'], s)}")


def deterministic_value(evidence, spec, alpha, claim_id):
    s = setting_of(evidence, spec)
    x = column(evidence, spec["a"], spec, s, spec.get("column", "stopping_time"))
    if not np.all(x == x[0]):
        raise UserError(f"claim {claim_id}: {spec['a']}'s {spec.get('column', 'stopping_time')} differs between "
                        f"runs ({x.min():g} .. {x.max():g}); deterministic_value needs the same value in every run")
    return est.exact(float(x[0])), (f"{_name(spec['a'])}: {spec.get('column', 'stopping_time')} {x[0]:,.0f} in "
                                    f"every run, {where(evidence, spec['experiment'], s)}")


def run_slopes(points_by_run: dict, t_min: float) -> list[float]:
    """Least-squares slope of log det A_t against log t over each run's points t >= t_min
    (points: {t: log det A_t}, keys strings or ints); runs with fewer than 3 such points are left out."""
    slopes = []
    for points in points_by_run.values():
        ts = np.array(sorted(int(t) for t in points), dtype=float)
        ts = ts[ts >= t_min]
        if ts.size < 3:
            continue
        ld = np.array([points[str(int(t))] if str(int(t)) in points else points[int(t)] for t in ts], float)
        slopes.append(float(np.polyfit(np.log(ts), ld, 1)[0]))
    return slopes


def logdet_slope(evidence, spec, alpha, claim_id):
    s = setting_of(evidence, spec)
    algorithm, exp = split_series(spec["a"], spec["experiment"])
    points = {}
    for info in evidence.info(exp, s, algorithm):
        points.update(info.get("log_det_A_at_t", {}))
    t_min = float(spec.get("t_min", 1000))
    slopes = run_slopes(points, t_min)
    if len(slopes) < 2:
        raise Missing(f"{algorithm} in {exp} ({s}): {len(slopes)} run(s) with 3 points of log det A_t at t >= "
                      f"{t_min:g}; a slope with an interval needs two")
    e = est.mean(slopes, alpha, est.small_sample_allowance(len(slopes), "difference"))
    return e, (f"{algorithm}: slope of log det A_t against log t (t >= {t_min:g}, points at t = 2^k), mean over "
               f"{len(slopes)} runs (median {fmt(float(np.median(slopes)))}), {where(evidence, exp, s)}")


def forget_share(evidence, spec, alpha, claim_id):
    """Runs whose active set is {first arm, last arm} after one of the first `within` phases and is every
    arm after a later phase (the paper's "finds {1, d+1} ... forgets ... gets X again")."""
    exp = spec["experiment"]
    algorithm = spec.get("a", "XY-adaptive")
    within = int(spec.get("within", 4))
    hits = total = 0
    per = []
    for s in evidence.settings(exp):
        if not evidence.has_series(exp, s, algorithm):
            raise Missing(f"{algorithm} not run in {exp} ({s})")
        K = sum(c.startswith("pulls_") for c in evidence.runset(exp).meta["series"][f"{s}/{algorithm}"]["columns"])
        histories = {}
        for info in evidence.info(exp, s, algorithm):
            histories.update(info.get("phases", {}))
        found_here = 0
        for phases in histories.values():
            sets = [sorted(p["active_after"]) for p in phases]
            first = next((k for k, act in enumerate(sets) if act == [0, K - 1]), None)
            back = first is not None and any(len(act) == K for act in sets[first + 1:])
            found_here += bool(first is not None and first < within and back)
        hits += found_here
        total += len(histories)
        per.append(f"{evidence.setting_label(exp, s)}: {found_here}/{len(histories)}")
    if not total:
        raise Missing(f"no phase histories of {algorithm} in {exp}")
    e = est.proportion(hits, total, alpha)
    return e, (f"{algorithm} runs reaching {{1, K}} within {within} phases and later every arm again: "
               f"{hits}/{total} ({'; '.join(per)}), {exp}")


QUANTITIES = {f.__name__: f for f in (stop_ratio, gap_growth, pull_share, share_spread, share_ratio, published_rank,
                                      deterministic_value, logdet_slope, forget_share)}
