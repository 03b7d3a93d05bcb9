"""The quantities a claim's parts can name, shared by every study.

Each is a function (evidence, spec, alpha, claim_id) -> (Estimate, label). A part's spec
names the experiment, the setting where one is needed, the series `a` (and `b`) as
'ALGORITHM' or 'ALGORITHM@experiment', and the per-run value: a CSV `column` of the runs,
or with `at: t` the run's curve at round t (`curve`, default 'regret'). A study adds its
own quantities (a dict of the same functions) for what only it measures.

    error_rate             errors of a out of its runs (`correct` == 0): exact binomial
    error_difference       a's error probability minus b's: paired exact (the runs of one setting play
                           the same seeds), Newcombe's score interval for unpaired series
    error_ratio            a's error probability over b's: exact conditional binomial (conservative
                           for positively correlated pairs)
    error_difference_pooled  the same as error_difference on the runs of every setting together
    error_range            range (max - min) of a's error over settings: bootstrap of each setting's runs
    error_range_difference range of a's error over settings minus b's: bootstrap of the runs, paired
                           within a setting (a and b resampled together)
    mean                   mean of a's values: Student's t
    mean_difference        a minus b: paired (`paired: true`) or Welch's t
                           (below 100 runs every t takes the small-sample allowance, estimates)
    ratio_of_means         mean a / mean b: bootstrap
    relative_difference    (mean a - mean b) / mean b: bootstrap
    geomean_ratio          geometric mean over settings of mean a / mean b: t on the log scale
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


def _indicators(evidence, ref, spec, setting) -> np.ndarray:
    """1 where a run of series `ref` erred."""
    algorithm, exp = split_series(ref, spec["experiment"])
    return (np.asarray(evidence.column(exp, setting, algorithm, "correct")) == 0).astype(np.int64)


def paired(evidence, spec) -> bool:
    """Series a and b read the same runs (one experiment and setting: the same seeds, trial by trial)."""
    if "@" in str(spec["a"]) or "@" in str(spec["b"]):
        return False
    return bool(getattr(evidence, "paired_runs", lambda exp: True)(spec["experiment"]))


def _discordant(evidence, spec, setting) -> tuple[int, int, int]:
    ea, eb = _indicators(evidence, spec["a"], spec, setting), _indicators(evidence, spec["b"], spec, setting)
    if ea.size != eb.size:
        raise UserError(f"{spec['a']} and {spec['b']} have {ea.size} and {eb.size} runs in {spec['experiment']} "
                        f"({setting}): paired series need the same runs")
    return int(np.count_nonzero(ea > eb)), int(np.count_nonzero(eb > ea)), int(ea.size)


def error_difference(evidence, spec, alpha, claim_id):
    if not paired(evidence, spec):
        return _error_pair(evidence, spec, lambda *k: est.proportion_difference(*k, alpha), "-")
    s = _setting(evidence, spec)
    n10, n01, n = _discordant(evidence, spec, s)
    ka, _ = _errors(evidence, spec["a"], spec, s)
    kb, _ = _errors(evidence, spec["b"], spec, s)
    e = est.paired_proportion_difference(n10, n01, n, alpha)
    return e, (f"{spec['a']} - {spec['b']}: error {fmt(ka / n)} vs {fmt(kb / n)} ({n10} runs only {spec['a']} "
               f"erred, {n01} only {spec['b']}), {_where(evidence, spec['experiment'], s)}")


def error_ratio(evidence, spec, alpha, claim_id):
    return _error_pair(evidence, spec, lambda *k: est.rate_ratio(*k, alpha), "/")


def _experiments(spec) -> list[str]:
    exps = spec.get("experiments") or [spec["experiment"]]
    return [exps] if isinstance(exps, str) else list(exps)


def error_difference_pooled(evidence, spec, alpha, claim_id):
    sums = np.zeros(4, dtype=np.int64)
    discordant = np.zeros(3, dtype=np.int64)
    pairs = True
    for exp in _experiments(spec):
        one = {**spec, "experiment": exp}
        pairs = pairs and paired(evidence, one)
        for s in evidence.settings(exp):
            ka, na = _errors(evidence, spec["a"], one, s)
            kb, nb = _errors(evidence, spec["b"], one, s)
            sums += (ka, na, kb, nb)
            if pairs:
                discordant += _discordant(evidence, one, s)
    ka, na, kb, nb = (int(v) for v in sums)
    where = (f"{spec['a']} - {spec['b']}: the runs of every setting of {', '.join(_experiments(spec))} together: "
             f"{ka}/{na} vs {kb}/{nb} errors")
    if pairs:
        n10, n01, n = (int(v) for v in discordant)
        return est.paired_proportion_difference(n10, n01, n, alpha), where + f" ({n10} vs {n01} discordant runs)"
    return est.proportion_difference(ka, na, kb, nb, alpha), where


def _error_counts(evidence, ref, spec) -> tuple[np.ndarray, np.ndarray]:
    """(errors, runs) of series `ref` at every setting of the part's experiments, in order."""
    k, n = [], []
    for exp in _experiments(spec):
        one = {**spec, "experiment": exp}
        for s in evidence.settings(exp):
            kk, nn = _errors(evidence, ref, one, s)
            k.append(kk)
            n.append(nn)
    return np.array(k), np.array(n)


def _range_draws(rng, k, n, resamples) -> np.ndarray:
    """The range over settings of resampled error probabilities, each setting's count an independent
    binomial (the nonparametric bootstrap of its 0/1 runs)."""
    draws = rng.binomial(n, k / n, size=(resamples, n.size)) / n
    return draws.max(axis=1) - draws.min(axis=1)


def error_range(evidence, spec, alpha, claim_id):
    """max - min of a's error over the settings; settings have their own seeds, each resampled as its
    binomial count (the nonparametric bootstrap of one setting's 0/1 runs)."""
    k, n = _error_counts(evidence, spec["a"], spec)
    if k.size < 2:
        raise Missing(f"a range needs two settings; {', '.join(_experiments(spec))} has {k.size}")
    rng = np.random.default_rng(_seed(claim_id, spec))
    B = est.BOOTSTRAP_RESAMPLES
    p = k / n
    e = est.from_draws(float(np.ptp(p)), _range_draws(rng, k, n, B), alpha, int(n.min()),
                       f"bootstrap of each setting's runs ({B} resamples)")
    e.value_range = (0.0, 1.0)
    return e, (f"range of {spec['a']}'s error over {', '.join(_experiments(spec))}: {fmt(float(p.min()))} to "
               f"{fmt(float(p.max()))}")


def _unpaired_range_difference(evidence, spec, alpha, claim_id):
    """error_range_difference for series that are not paired (published cells): each series' count of
    each setting resampled as an independent binomial."""
    rng = np.random.default_rng(_seed(claim_id, spec))
    B = est.BOOTSTRAP_RESAMPLES
    (ka, na), (kb, nb) = _error_counts(evidence, spec["a"], spec), _error_counts(evidence, spec["b"], spec)
    ranges = _range_draws(rng, ka, na, B) - _range_draws(rng, kb, nb, B)
    points = float(np.ptp(ka / na)), float(np.ptp(kb / nb))
    e = est.from_draws(points[0] - points[1], ranges, alpha, int(min(na.min(), nb.min())),
                       f"parametric bootstrap of independent binomial counts per setting ({B} resamples)")
    e.value_range = (-1.0, 1.0)
    return e, (f"range of {spec['a']}'s error {fmt(points[0])} minus {spec['b']}'s {fmt(points[1])} over "
               f"{', '.join(_experiments(spec))}")


def error_range_difference(evidence, spec, alpha, claim_id):
    """max - min of a's error over the settings minus b's. Bootstrap of the runs: within a setting a and b
    play the same seeds, so a run is resampled with both its outcomes (its cell of the 2 x 2 table of
    errors, drawn as multinomial counts); settings have their own seeds and are resampled independently."""
    if not all(paired(evidence, {**spec, "experiment": exp}) for exp in _experiments(spec)):
        return _unpaired_range_difference(evidence, spec, alpha, claim_id)
    cells, sizes = [], []     # per setting: runs where (a erred, b erred) = (0, 0), (0, 1), (1, 0), (1, 1)
    for exp in _experiments(spec):
        one = {**spec, "experiment": exp}
        for s in evidence.settings(exp):
            ea, eb = _indicators(evidence, spec["a"], one, s), _indicators(evidence, spec["b"], one, s)
            if ea.size != eb.size:
                raise UserError(f"{spec['a']} and {spec['b']} have {ea.size} and {eb.size} runs in {exp} ({s})")
            cells.append(np.bincount(2 * ea + eb, minlength=4))
            sizes.append(ea.size)
    cells, n = np.array(cells, dtype=float), np.array(sizes, dtype=float)      # settings x 4, settings
    rng = np.random.default_rng(_seed(claim_id, spec))
    B = est.BOOTSTRAP_RESAMPLES

    def range_difference(c):                    # c: (..., settings, 4)
        pa = (c[..., 2] + c[..., 3]) / n
        pb = (c[..., 1] + c[..., 3]) / n
        return (pa.max(axis=-1) - pa.min(axis=-1)) - (pb.max(axis=-1) - pb.min(axis=-1))

    draws = np.stack([rng.multinomial(int(n[i]), cells[i] / n[i], size=B) for i in range(len(n))], axis=1)
    value = float(range_difference(cells))
    e = est.from_draws(value, range_difference(draws), alpha, int(n.min()),
                       f"bootstrap of the runs, a and b paired within each setting ({B} resamples)")
    e.value_range = (-1.0, 1.0)
    pa, pb = (cells[:, 2] + cells[:, 3]) / n, (cells[:, 1] + cells[:, 3]) / n
    return e, (f"range of {spec['a']}'s error {fmt(float(np.ptp(pa)))} minus {spec['b']}'s "
               f"{fmt(float(np.ptp(pb)))} over {', '.join(_experiments(spec))}")


# ------------------------------------------------------------------ means

def mean(evidence, spec, alpha, claim_id):
    s = _setting(evidence, spec)
    x = values(evidence, spec["a"], spec, s)
    e = est.mean(x, alpha, est.small_sample_allowance(x.size, "difference"))
    return e, f"mean {spec.get('column', 'regret')} of {spec['a']}{_at(spec)}, {_where(evidence, spec['experiment'], s)}"


def _pair(evidence, spec):
    s = _setting(evidence, spec)
    return s, values(evidence, spec["a"], spec, s), values(evidence, spec["b"], spec, s)


def mean_difference(evidence, spec, alpha, claim_id):
    s, a, b = _pair(evidence, spec)
    allowance = est.small_sample_allowance(min(a.size, b.size), "difference")
    e = est.mean_difference(a, b, alpha, bool(spec.get("paired", False)), allowance)
    return e, (f"{spec['a']} - {spec['b']}{_at(spec)}: {fmt(a.mean())} - {fmt(b.mean())}, "
               f"{_where(evidence, spec['experiment'], s)}")


def _shares_seeds(evidence, exp) -> bool:
    """The settings of `exp` play the same seeds (trial i of every setting reads the same streams)."""
    return bool(getattr(evidence, "shares_seeds", lambda _exp: False)(exp))


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
    pairs = [(values(evidence, spec["a"], spec, s), values(evidence, spec["b"], spec, s)) for s in settings]
    # settings that play the same seeds (a fixed experiment seed) are paired run by run
    e = est.geomean_ratio_t(pairs, alpha, bool(spec.get("paired", False)), _shares_seeds(evidence, exp))
    return e, (f"geometric mean over {len(settings)} settings of {spec['a']} / {spec['b']} ({exp}); "
               f"per setting {', '.join(fmt(a.mean() / b.mean()) for a, b in pairs)}")


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

    shared = _shares_seeds(evidence, exp)
    e = est.bootstrap(stat, [(x,) for x in samples], alpha, _seed(claim_id, spec), shared=shared,
                      method=f"OLS slope, percentile bootstrap of the runs ({est.BOOTSTRAP_RESAMPLES} resamples"
                      + (", paired across settings)" if shared else ")"))
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
    error_rate, error_difference, error_ratio, error_difference_pooled, error_range, error_range_difference,
    mean, mean_difference, ratio_of_means, relative_difference, spread_ratio, ratio_contrast, geomean_ratio,
    loglog_slope, relative_growth, summary_value)}
