"""The LinGapE study's own claim quantities (linbandits.claims.quantities has the shared ones).

Each is a function (evidence, spec, alpha, claim_id) -> (Estimate, label), as the engine asks.
A series is 'ALGORITHM' (of the part's experiment) or 'ALGORITHM@experiment'; the runs of
one seed share their reward streams across algorithms and experiments (run i draws from
generator(seed, i, 0) whatever the algorithm), so ratios of the same runs are paired.

    stop_ratio         mean stopping time of a / of b: bootstrap; runs of a stopped at the pull
                       cap make it a lower bound (it can show a slower, never faster)
    gap_growth         the smallest step, over consecutive settings (towards smaller or larger
                       x), of the growth of mean(a) - mean(b): bootstrap
    pull_share         share of arm `arm` in all pulls of a's runs: bootstrap
    share_spread       max / min - 1 of the pull shares of `arms`: bootstrap
    share_ratio        summed share of `arms` over the mean share of `versus`, minus 1: bootstrap
    published_rank     share of a's runs stopping at or before a published single run: exact binomial
    deterministic_value  a column that is the same in every run (XY-oracle): exact
    logdet_slope       mean over runs of the slope of log det A_t against log t (t >= t_min): t
    forget_share       share of XY-adaptive runs whose active set becomes {1, d+1} within `within`
                       phases and is later every arm again: exact binomial
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


def seed_of(claim_id, spec, *more) -> int:
    return est.stream_seed(claim_id, spec.get("quantity"), spec.get("experiment"), spec.get("setting"),
                           spec.get("a"), spec.get("b"), *more)


def stop_ratio(evidence, spec, alpha, claim_id):
    s = setting_of(evidence, spec)
    a, b = column(evidence, spec["a"], spec, s), column(evidence, spec["b"], spec, s)
    paired = bool(spec.get("paired", True))
    groups = [(a, b)] if paired else [(a,), (b,)]
    e = est.bootstrap(lambda x, y: x.mean(axis=1) / y.mean(axis=1), groups, alpha, seed_of(claim_id, spec))
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

    def stat(*arrays):
        gaps = [arrays[i].mean(axis=1) - arrays[i + 1].mean(axis=1) for i in range(0, len(arrays), 2)]
        return np.min([g2 - g1 for g1, g2 in zip(gaps, gaps[1:])], axis=0)

    # every setting plays the same seeds (seed 0, runs 0..9): run i of one setting is paired with run i
    # of the others, so the runs are resampled with one index across settings
    shared = bool(getattr(evidence, "shares_seeds", lambda _exp: False)(exp))
    e = est.bootstrap(stat, groups, alpha, seed_of(claim_id, spec), shared=shared,
                      method=f"smallest step, percentile bootstrap of the runs ({est.BOOTSTRAP_RESAMPLES} resamples"
                      + (", paired across settings)" if shared else ")"))
    gaps = [float(a.mean() - b.mean()) for a, b in groups]
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


def _shares(counts_by_arm):
    """counts_by_arm: arrays (B, n) per arm -> shares (B, arms) of the pooled counts."""
    sums = np.stack([c.sum(axis=1) for c in counts_by_arm], axis=1)
    return sums / sums.sum(axis=1, keepdims=True)


def _share_bootstrap(evidence, spec, alpha, claim_id, statistic, method):
    s = setting_of(evidence, spec)
    pulls = _pulls(evidence, spec["a"], spec, s)
    K = pulls.shape[1]
    e = est.bootstrap(lambda *arms: statistic(_shares(arms), K), [tuple(pulls.T)], alpha, seed_of(claim_id, spec),
                      method=method)
    shares = pulls.sum(axis=0) / pulls.sum()
    return e, s, shares


def _arms(spec, key, K) -> list[int]:
    """0-based arms from a list that may count from the end (-1 is the last arm)."""
    return [a % K for a in spec[key]]


def pull_share(evidence, spec, alpha, claim_id):
    arm = int(spec["arm"])
    e, s, shares = _share_bootstrap(evidence, spec, alpha, claim_id, lambda sh, K: sh[:, arm],
                                    "pooled share, percentile bootstrap of the runs")
    return e, (f"{_name(spec['a'])}: arm {arm + 1}'s share of all pulls {fmt(shares[arm])}, "
               f"{where(evidence, spec['experiment'], s)}")


def share_spread(evidence, spec, alpha, claim_id):
    def stat(sh, K):
        sub = sh[:, _arms(spec, "arms", K)]
        return sub.max(axis=1) / sub.min(axis=1) - 1.0

    e, s, shares = _share_bootstrap(evidence, spec, alpha, claim_id, stat,
                                    "pooled shares, percentile bootstrap of the runs")
    arms = _arms(spec, "arms", shares.size)
    return e, (f"{_name(spec['a'])}: max / min - 1 of the shares of arms {', '.join(str(a + 1) for a in arms)} "
               f"({' / '.join(f'{shares[a]:.4f}' for a in arms)}), {where(evidence, spec['experiment'], s)}")


def share_ratio(evidence, spec, alpha, claim_id):
    def stat(sh, K):
        return sh[:, _arms(spec, "arms", K)].sum(axis=1) / sh[:, _arms(spec, "versus", K)].mean(axis=1) - 1.0

    e, s, shares = _share_bootstrap(evidence, spec, alpha, claim_id, stat,
                                    "pooled shares, percentile bootstrap of the runs")
    arms, versus = _arms(spec, "arms", shares.size), _arms(spec, "versus", shares.size)
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
    e = est.mean(slopes, alpha)
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
