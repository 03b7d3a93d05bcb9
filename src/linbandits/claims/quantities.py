"""The quantities a claim's parts can name, shared by every study.

Each is a function (evidence, spec, alpha, claim_id) -> (Estimate, label). A part's spec
names the experiment, the setting where one is needed, the series `a` (and `b`) as
'ALGORITHM' or 'ALGORITHM@experiment', and the per-run value: a CSV `column` of the runs,
or with `at: t` the run's curve at round t (`curve`, default 'regret'). A study adds its
own quantities (a dict of the same functions) for what only it measures.

    error_rate             errors of a out of its runs (`correct` == 0): exact binomial
    error_difference       a's error probability minus b's: Fisher's exact test
    error_ratio            a's error probability over b's: exact conditional binomial
    error_difference_pooled  the same as error_difference on errors summed over settings
    error_range_difference range of a's error over settings minus b's: parametric bootstrap
    mean                   mean of a's values: Student's t
    mean_difference        a minus b: paired (`paired: true`) or Welch's t
    ratio_of_means         mean a / mean b: bootstrap
    relative_difference    (mean a - mean b) / mean b: bootstrap
    geomean_ratio          geometric mean over settings of mean a / mean b: bootstrap
    loglog_slope           OLS slope of log mean a against log x over settings: bootstrap
    spread_ratio           s.d. of a's values over b's: bootstrap
    ratio_contrast         mean a / mean b in `experiment` minus in `versus`: bootstrap
    relative_growth        (R(n) - R(from n)) / R(n) of a's mean curve: bootstrap
    summary_value          a number from the instance summary: exact
"""
from __future__ import annotations

import numpy as np

from linbandits.claims import estimates as est
from linbandits.claims.engine import Missing, fmt
from linbandits.claims.evidence import split_series
from linbandits.errors import UserError


def _setting(evidence, spec) -> str:
    exp = spec["experiment"]
    if "setting" in spec:
        return spec["setting"]
    settings = evidence.settings(exp)
    if len(settings) != 1:
        raise UserError(f"claim part on {exp}: name a `setting` (or use each_setting); it has {', '.join(settings)}")
    return settings[0]


def _where(evidence, exp, setting) -> str:
    label = evidence.setting_label(exp, setting)
    return f"{exp}" + (f", {label}" if label else "")


def values(evidence, ref: str, spec: dict, setting: str) -> np.ndarray:
    """The per-run values of series `ref` at `setting`: a column, or the curve at round `at`."""
    algorithm, exp = split_series(ref, spec["experiment"])
    if "at" in spec:
        t, curves = evidence.curve(exp, setting, algorithm, spec.get("curve", "regret"))
        at = round_of(spec["at"], int(t[-1]))
        hits = np.flatnonzero(t == at)
        if not hits.size:
            raise Missing(f"the curves of {algorithm} in {exp} have no round {at} (rounds {t[0]}..{t[-1]})")
        return np.asarray(curves[:, hits[0]], float)
    return np.asarray(evidence.column(exp, setting, algorithm, spec.get("column", "regret")), float)


def round_of(at, n: int) -> int:
    """A round given as a number, as 'n' (the horizon) or as 'n/K' (a fraction of it)."""
    if isinstance(at, str):
        text = at.replace(" ", "")
        if text == "n":
            return n
        if text.startswith("n/") and text[2:].isdigit() and n % int(text[2:]) == 0:
            return n // int(text[2:])
        raise UserError(f"claim part: at = {at!r} is not a round, 'n' or 'n/K' with K dividing n = {n}")
    return int(at)


def _errors(evidence, ref, spec, setting) -> tuple[int, int]:
    algorithm, exp = split_series(ref, spec["experiment"])
    correct = np.asarray(evidence.column(exp, setting, algorithm, "correct"))
    return int(correct.size - np.count_nonzero(correct)), int(correct.size)


def _seed(claim_id, spec, *more) -> int:
    return est.stream_seed(claim_id, spec.get("quantity"), spec.get("experiment"), spec.get("setting"),
                           spec.get("a"), spec.get("b"), spec.get("at"), *more)


def _at(spec) -> str:
    return f" at t = {spec['at']}" if "at" in spec else ""


# ------------------------------------------------------------------ error probabilities

def error_rate(evidence, spec, alpha, claim_id):
    s = _setting(evidence, spec)
    k, n = _errors(evidence, spec["a"], spec, s)
    e = est.proportion(k, n, alpha)
    return e, f"{spec['a']}: error {fmt(e.value)} ({k}/{n}), {_where(evidence, spec['experiment'], s)}"


def _error_pair(evidence, spec, estimator, sign):
    """a's and b's errors at one setting, compared by `estimator` (a difference or a ratio)."""
    s = _setting(evidence, spec)
    ka, na = _errors(evidence, spec["a"], spec, s)
    kb, nb = _errors(evidence, spec["b"], spec, s)
    e = estimator(ka, na, kb, nb)
    return e, (f"{spec['a']} {sign} {spec['b']}: error {fmt(ka / na)} vs {fmt(kb / nb)}, "
               f"{_where(evidence, spec['experiment'], s)}")


def error_difference(evidence, spec, alpha, claim_id):
    return _error_pair(evidence, spec, lambda *k: est.proportion_difference(*k, alpha), "-")


def error_ratio(evidence, spec, alpha, claim_id):
    return _error_pair(evidence, spec, lambda *k: est.rate_ratio(*k, alpha), "/")


def _experiments(spec) -> list[str]:
    exps = spec.get("experiments") or [spec["experiment"]]
    return [exps] if isinstance(exps, str) else list(exps)


def error_difference_pooled(evidence, spec, alpha, claim_id):
    sums = np.zeros(4, dtype=np.int64)
    for exp in _experiments(spec):
        one = {**spec, "experiment": exp}
        for s in evidence.settings(exp):
            ka, na = _errors(evidence, spec["a"], one, s)
            kb, nb = _errors(evidence, spec["b"], one, s)
            sums += (ka, na, kb, nb)
    ka, na, kb, nb = (int(v) for v in sums)
    e = est.proportion_difference(ka, na, kb, nb, alpha)
    return e, (f"{spec['a']} - {spec['b']}: errors summed over every setting of {', '.join(_experiments(spec))}: "
               f"{ka}/{na} vs {kb}/{nb}")


def error_range_difference(evidence, spec, alpha, claim_id):
    """max - min of a's error over the settings minus b's; resampled as binomial counts per setting."""
    counts = {}
    for ref in (spec["a"], spec["b"]):
        k, n = [], []
        for exp in _experiments(spec):
            one = {**spec, "experiment": exp}
            for s in evidence.settings(exp):
                kk, nn = _errors(evidence, ref, one, s)
                k.append(kk)
                n.append(nn)
        counts[ref] = (np.array(k), np.array(n))
    rng = np.random.default_rng(_seed(claim_id, spec))
    B = est.BOOTSTRAP_RESAMPLES

    def ranges(k, n, draws):
        p = (rng.binomial(n, k / n, size=(draws, n.size)) / n) if draws else (k / n)[None, :]
        return p.max(axis=1) - p.min(axis=1)

    (ka, na), (kb, nb) = counts[spec["a"]], counts[spec["b"]]
    value = float(ranges(ka, na, 0)[0] - ranges(kb, nb, 0)[0])
    stats = ranges(ka, na, B) - ranges(kb, nb, B)
    e = _from_draws(value, stats, alpha, int(min(na.min(), nb.min())),
                    f"parametric bootstrap ({B} binomial resamples per setting)")
    ra, rb = float(ranges(ka, na, 0)[0]), float(ranges(kb, nb, 0)[0])
    return e, f"range of {spec['a']}'s error {fmt(ra)} minus {spec['b']}'s {fmt(rb)} over {', '.join(_experiments(spec))}"


def _from_draws(value, stats, alpha, n, method):
    stats = np.asarray(stats, float)
    B = stats.size

    def p_above(t):
        return (1.0 + np.count_nonzero(stats <= t)) / (B + 1.0)

    def p_below(t):
        return (1.0 + np.count_nonzero(stats >= t)) / (B + 1.0)

    return est.Estimate(value, float(np.quantile(stats, alpha)), float(np.quantile(stats, 1 - alpha)), n, method,
                        p_above, p_below)


# ------------------------------------------------------------------ means

def mean(evidence, spec, alpha, claim_id):
    s = _setting(evidence, spec)
    x = values(evidence, spec["a"], spec, s)
    e = est.mean(x, alpha)
    return e, f"mean {spec.get('column', 'regret')} of {spec['a']}{_at(spec)}, {_where(evidence, spec['experiment'], s)}"


def _pair(evidence, spec):
    s = _setting(evidence, spec)
    return s, values(evidence, spec["a"], spec, s), values(evidence, spec["b"], spec, s)


def mean_difference(evidence, spec, alpha, claim_id):
    s, a, b = _pair(evidence, spec)
    e = est.mean_difference(a, b, alpha, bool(spec.get("paired", False)))
    return e, (f"{spec['a']} - {spec['b']}{_at(spec)}: {fmt(a.mean())} - {fmt(b.mean())}, "
               f"{_where(evidence, spec['experiment'], s)}")


def _groups(a, b, paired):
    return [(a, b)] if paired else [(a,), (b,)]


def ratio_of_means(evidence, spec, alpha, claim_id):
    s, a, b = _pair(evidence, spec)
    e = est.bootstrap(lambda x, y: x.mean(axis=1) / y.mean(axis=1), _groups(a, b, spec.get("paired", False)),
                      alpha, _seed(claim_id, spec))
    return e, (f"{spec['a']} / {spec['b']}{_at(spec)}: {fmt(a.mean())} / {fmt(b.mean())}, "
               f"{_where(evidence, spec['experiment'], s)}")


def relative_difference(evidence, spec, alpha, claim_id):
    s, a, b = _pair(evidence, spec)
    e = est.bootstrap(lambda x, y: (x.mean(axis=1) - y.mean(axis=1)) / y.mean(axis=1),
                      _groups(a, b, spec.get("paired", False)), alpha, _seed(claim_id, spec))
    return e, (f"({spec['a']} - {spec['b']}) / {spec['b']}{_at(spec)}: {fmt(a.mean())} vs {fmt(b.mean())}, "
               f"{_where(evidence, spec['experiment'], s)}")


def geomean_ratio(evidence, spec, alpha, claim_id):
    exp = spec["experiment"]
    settings = spec.get("settings") or evidence.settings(exp)
    paired = bool(spec.get("paired", False))
    groups, per = [], []
    for s in settings:
        a, b = values(evidence, spec["a"], spec, s), values(evidence, spec["b"], spec, s)
        per.append(a.mean() / b.mean())
        groups += _groups(a, b, paired)

    def stat(*arrays):
        logs = [np.log(arrays[i].mean(axis=1) / arrays[i + 1].mean(axis=1)) for i in range(0, len(arrays), 2)]
        return np.exp(np.mean(logs, axis=0))

    e = est.bootstrap(stat, groups, alpha, _seed(claim_id, spec))
    return e, (f"geometric mean over {len(settings)} settings of {spec['a']} / {spec['b']} ({exp}); "
               f"per setting {', '.join(fmt(r) for r in per)}")


def spread_ratio(evidence, spec, alpha, claim_id):
    """Standard deviation of a's values over b's (how much less stable a is): bootstrap."""
    s, a, b = _pair(evidence, spec)
    e = est.bootstrap(lambda x, y: x.std(axis=1, ddof=1) / y.std(axis=1, ddof=1),
                      _groups(a, b, spec.get("paired", False)), alpha, _seed(claim_id, spec))
    return e, (f"s.d. of {spec['a']} / s.d. of {spec['b']}{_at(spec)}: {fmt(a.std(ddof=1))} / {fmt(b.std(ddof=1))}, "
               f"{_where(evidence, spec['experiment'], s)}")


def ratio_contrast(evidence, spec, alpha, claim_id):
    """mean a / mean b in `experiment` minus the same ratio in `versus`: bootstrap (the two experiments
    are independent; within each, a and b are paired when `paired`)."""
    s, a, b = _pair(evidence, spec)
    other = {**spec, "experiment": spec["versus"]}
    other.pop("setting", None)
    s2, a2, b2 = _pair(evidence, other)
    paired = spec.get("paired", False)
    groups = _groups(a, b, paired) + _groups(a2, b2, paired)

    def stat(*arrays):
        x, y, x2, y2 = arrays
        return x.mean(axis=1) / y.mean(axis=1) - x2.mean(axis=1) / y2.mean(axis=1)

    e = est.bootstrap(stat, groups, alpha, _seed(claim_id, spec))
    return e, (f"{spec['a']} / {spec['b']} in {spec['experiment']} ({fmt(a.mean() / b.mean())}) minus in "
               f"{spec['versus']} ({fmt(a2.mean() / b2.mean())}){_at(spec)}")


def loglog_slope(evidence, spec, alpha, claim_id):
    exp = spec["experiment"]
    settings = spec.get("settings") or evidence.settings(exp)
    logx = np.log([float(evidence.x(exp, s)) for s in settings])
    samples = [values(evidence, spec["a"], spec, s) for s in settings]
    centred = logx - logx.mean()

    def stat(*arrays):
        y = np.log(np.stack([x.mean(axis=1) for x in arrays], axis=1))
        return (y - y.mean(axis=1, keepdims=True)) @ centred / (centred @ centred)

    e = est.bootstrap(stat, [(x,) for x in samples], alpha, _seed(claim_id, spec),
                      method=f"OLS slope, percentile bootstrap of the runs ({est.BOOTSTRAP_RESAMPLES} resamples)")
    return e, f"log-log slope of mean {spec.get('column', 'regret')} of {spec['a']} against {evidence.experiment(exp).sweep} ({exp})"


def relative_growth(evidence, spec, alpha, claim_id):
    s = _setting(evidence, spec)
    algorithm, exp = split_series(spec["a"], spec["experiment"])
    t, curves = evidence.curve(exp, s, algorithm, spec.get("curve", "regret"))
    end = int(t[-1])
    start = int(round(end * float(spec.get("from", 0.5))))
    hits = np.flatnonzero(t == start)
    if not hits.size:
        raise Missing(f"the curves of {algorithm} in {exp} have no round {start}")
    r_end, r_start = curves[:, -1].astype(float), curves[:, hits[0]].astype(float)
    e = est.bootstrap(lambda x, y: (x.mean(axis=1) - y.mean(axis=1)) / x.mean(axis=1), [(r_end, r_start)],
                      alpha, _seed(claim_id, spec))
    return e, (f"{algorithm}: (R({end}) - R({start})) / R({end}) = ({fmt(r_end.mean())} - {fmt(r_start.mean())}) / "
               f"{fmt(r_end.mean())}, {_where(evidence, exp, s)}")


def summary_value(evidence, spec, alpha, claim_id):
    s = _setting(evidence, spec)
    summary = evidence.summary(spec["experiment"], s)
    key = spec["key"]
    if key not in summary:
        raise UserError(f"claim {claim_id}: the instance summary of {spec['experiment']} has no {key!r}")
    return est.exact(summary[key]), f"{key} = {fmt(float(summary[key]))}, {_where(evidence, spec['experiment'], s)}"


QUANTITIES = {f.__name__: f for f in (
    error_rate, error_difference, error_ratio, error_difference_pooled, error_range_difference,
    mean, mean_difference, ratio_of_means, relative_difference, spread_ratio, ratio_contrast, geomean_ratio,
    loglog_slope, relative_growth, summary_value)}
