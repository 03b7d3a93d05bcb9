"""Multivariate testing (Figs. 3 and 5): 4 slots, 16 layouts, d = 11 (spec C "Multivariate").

Everything random is drawn from numpy's legacy RandomState(6) in the exact
order of the published runs, so theta* and every oscillation setting are
reproduced bit for bit. Setting k of a series depends on the draws of
settings 0..k-1, which are therefore replayed before it.
"""
from __future__ import annotations

import itertools

import numpy as np

from linbandits.errors import UserError
from linbandits.problems.linear import LinearInstance
from linbandits.studies.p1rage.instances.soare import noise_suffix

SLOTS = 4
SEED = 6
TOP_TWO_MIN_DIFF = 1e-5     # theta* acceptance: the best arm must be unambiguous
THETA_MAX_DRAWS = 1000      # published loop is unbounded; the first draw is accepted for seed 6
OSCILLATION_MAX_REDRAWS = 50

# The published sweeps, in the order they were drawn (one of s, L is fixed per series).
SERIES = {
    "scale": {"s": (0, 1, 2, 3, 4, 5, 6, 7, 8, 9), "L": (900,)},
    "period": {"s": (2,), "L": (300, 600, 900, 1200, 1500, 1800, 2100, 2400, 2700, 3000)},
}
INDICATORS = ("all", "bernoulli")          # all: published; bernoulli: paper text (spec D3)
THETA_DRAWS = ("published", "uniform")     # published: integers / 100; uniform: paper text (spec D4)


def layout_arms() -> np.ndarray:
    """16 x 11: (1, w_1..w_4, w_k w_l for k < l) for w in {-1,1}^4, -1 before 1."""
    layouts = np.array(list(itertools.product([-1, 1], repeat=SLOTS)), dtype=float)
    pairs = [layouts[:, k] * layouts[:, l] for k, l in itertools.combinations(range(SLOTS), 2)]
    return np.column_stack([np.ones(len(layouts)), layouts, *pairs])


def draw_theta_star(rng: np.random.RandomState, X: np.ndarray, theta_draw: str) -> np.ndarray:
    """theta* by rejection: redraw until the top two arm values differ by >= 1e-5."""
    d = X.shape[1]
    for _ in range(THETA_MAX_DRAWS):
        if theta_draw == "published":
            theta = rng.randint(-10, 10, size=(d, 1)) / 100
            theta[SLOTS + 1] *= 0.5           # only the first pairwise weight is halved
        else:
            theta = rng.uniform(-0.1, 0.1, size=(d, 1))
            theta[SLOTS + 1:] *= 0.5          # every pairwise weight is halved
        top_two = np.sort((X @ theta).ravel())[-2:]
        if top_two[1] - top_two[0] >= TOP_TWO_MIN_DIFF:
            return theta.ravel()
    raise UserError(f"multivariate: no theta* with a unique best arm in {THETA_MAX_DRAWS} draws "
                    f"(theta_draw={theta_draw})")


def draw_oscillation(rng, X, theta_star, s, L, T, indicator):
    """One setting's theta_t (T x d), redrawn until theta_bar keeps theta*'s best arm.

    Returns (thetas, phases, indicators, draws used).
    """
    d = theta_star.size
    best = int(np.argmax(X @ theta_star))
    amplitude = s * np.max(np.abs(theta_star))
    t = np.arange(T)[:, None]
    for draw in range(1, OSCILLATION_MAX_REDRAWS + 2):   # the first draw plus up to 50 redraws
        flags, phases = np.empty(d), np.empty(d)
        for j in range(d):          # scalar calls, interleaved, to match the published stream
            flags[j] = rng.randint(0, 2)
            phases[j] = rng.uniform(0, 2 * np.pi)
        gate = flags if indicator == "bernoulli" else np.ones(d)
        thetas = theta_star + amplitude * gate * np.sin(2 * np.pi * t / L + phases)
        if int(np.argmax(X @ thetas.mean(axis=0))) == best:
            return thetas, phases, flags, draw
    raise UserError(f"multi_osci: no oscillation for s={s:g}, L={L} kept the best arm {best} of theta* "
                    f"in {OSCILLATION_MAX_REDRAWS} redraws; choose another setting or T")


def check_choice(key: str, value: str, allowed) -> None:
    if value not in allowed:
        raise UserError(f"multivariate: {key} must be one of {', '.join(allowed)}; got {value!r}")


def multi_sto(*, T: int = 10000, noise_sd: float = 0.3, noise: str = "gaussian",
              theta_draw: str = "published") -> LinearInstance:
    """Stationary multivariate testing (Fig. 5): theta_t = theta*."""
    check_choice("theta_draw", theta_draw, THETA_DRAWS)
    X = layout_arms()
    theta_star = draw_theta_star(np.random.RandomState(SEED), X, theta_draw)
    thetas = np.zeros((max(T, 0), X.shape[1])) + theta_star
    variant = "" if theta_draw == "published" else f",theta_draw={theta_draw}"
    settings = dict(T=T, noise_sd=noise_sd, noise=noise, theta_draw=theta_draw)
    return LinearInstance(name=f"multi_sto[T={T}{variant}{noise_suffix(noise)}]", X=X, thetas=thetas,
                    noise_sd=noise_sd, noise=noise,
                    meta={"family": "multi_sto", **settings, "theta_star": theta_star.tolist()})


def multi_osci(*, series: str = "scale", s: float = 2.0, L: int = 900, T: int = 10000,
               indicator: str = "all", theta_draw: str = "published", noise_sd: float = 0.3,
               noise: str = "gaussian") -> LinearInstance:
    """Oscillating multivariate testing (Fig. 3): setting (s, L) of a published series."""
    check_choice("series", series, tuple(SERIES))
    check_choice("indicator", indicator, INDICATORS)
    check_choice("theta_draw", theta_draw, THETA_DRAWS)
    if T < 1:
        raise UserError(f"multi_osci: T must be at least 1, got T={T}")
    sweep = list(itertools.product(SERIES[series]["s"], SERIES[series]["L"]))
    if (s, L) not in sweep:
        allowed = SERIES[series]
        raise UserError(f"multi_osci: (s={s:g}, L={L}) is not a setting of the published {series} series; "
                        f"allowed: s in {list(allowed['s'])} with L in {list(allowed['L'])}")
    X = layout_arms()
    rng = np.random.RandomState(SEED)     # each series starts from a fresh seed-6 generator
    theta_star = draw_theta_star(rng, X, theta_draw)
    for setting in sweep[:sweep.index((s, L)) + 1]:   # replay earlier settings to reach this one's draws
        thetas, phases, flags, draws = draw_oscillation(rng, X, theta_star, *setting, T, indicator)
    variant = "".join(f",{k}={v}" for k, v, published in
                      (("indicator", indicator, "all"), ("theta_draw", theta_draw, "published"))
                      if v != published)
    settings = dict(series=series, s=s, L=L, T=T, indicator=indicator, theta_draw=theta_draw,
                    noise_sd=noise_sd, noise=noise)
    return LinearInstance(name=f"multi_osci[series={series},s={s:g},L={L}{variant}{noise_suffix(noise)}]",
                    X=X, thetas=thetas, noise_sd=noise_sd, noise=noise,
                    meta={"family": "multi_osci", **settings, "theta_star": theta_star.tolist(),
                          "phases": phases.tolist(), "indicators": flags.astype(int).tolist(),
                          "draws": draws})
