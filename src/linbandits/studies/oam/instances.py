"""The contextual kind: M contexts of K arms in R^d, a context law p, theta, noise, horizon.

An instance file of this kind is an .npz with `actions` (M x K x d; a context
with fewer arms repeats one of its arms), `p` (M,), `theta` (d,), scalar
`noise_sd` and integer `horizon` (n), and optionally a scalar `theta_sd`: when
it is positive every run draws its own theta = g / |g|, g ~ N(0, theta_sd^2 I)
(App. D.2), and `theta` is only the reference the summary's C is computed for.
"""
from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np

from linbandits.errors import UserError
from linbandits.studies.oam.allocation import gaps_of, lower_bound

P_SUM_TOL = 1e-9


@dataclasses.dataclass(frozen=True)
class ContextualInstance:
    kind = "contextual"
    required = ("actions", "p", "theta", "noise_sd", "horizon")
    optional = ("theta_sd",)
    file_settings = ("horizon",)

    name: str
    actions: np.ndarray
    p: np.ndarray
    theta: np.ndarray
    noise_sd: float
    horizon: int
    theta_sd: float = 0.0
    meta: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        validate(self.actions, self.p, self.theta, self.noise_sd, self.horizon, self.theta_sd, self.name)

    @property
    def M(self) -> int:
        return self.actions.shape[0]

    @property
    def K(self) -> int:
        return self.actions.shape[1]

    @property
    def d(self) -> int:
        return self.actions.shape[2]

    @property
    def random_theta(self) -> bool:
        return self.theta_sd > 0

    @functools.cached_property
    def gaps(self) -> np.ndarray:
        return gaps_of(self.actions, self.theta)

    @functools.cached_property
    def allocation(self):
        return lower_bound(self.actions, self.theta)

    @classmethod
    def from_arrays(cls, arrays: dict, name: str, meta: dict, settings: dict, where: str):
        for label in cls.required + tuple(a for a in cls.optional if a in arrays):
            arr = arrays[label]
            if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
                raise UserError(f"{where}: {label} must hold real numbers, got dtype {arr.dtype}")
        horizon = arrays["horizon"]
        if "horizon" in settings:
            try:
                horizon = np.asarray(int(settings["horizon"]))
            except ValueError:
                raise UserError(f"{where}: --setting horizon={settings['horizon']!r} is not an integer") from None
        theta_sd = arrays.get("theta_sd", np.float64(0.0))
        validate(arrays["actions"], arrays["p"], arrays["theta"], arrays["noise_sd"], horizon, theta_sd, where)
        return cls(name=name, actions=arrays["actions"].astype(float), p=arrays["p"].astype(float),
                   theta=arrays["theta"].astype(float), noise_sd=float(arrays["noise_sd"]),
                   horizon=int(horizon), theta_sd=float(theta_sd), meta=meta)

    def to_arrays(self) -> dict:
        out = {"actions": np.asarray(self.actions, float), "p": np.asarray(self.p, float),
               "theta": np.asarray(self.theta, float), "noise_sd": np.float64(self.noise_sd),
               "horizon": np.int64(self.horizon)}
        if self.random_theta:
            out["theta_sd"] = np.float64(self.theta_sd)
        return out

    def summary(self) -> dict:
        alloc = self.allocation
        f_n = exploration_rate(self.horizon, self.d)
        as_list = [[None if math.isinf(a) else float(a) for a in row] for row in alloc.alpha]
        return {
            "name": self.name,
            "kind": self.kind,
            "M": self.M, "K": self.K, "d": self.d,
            "p": [float(v) for v in self.p],
            "theta": [float(v) for v in self.theta],
            "theta_random": self.random_theta,
            "theta_sd": self.theta_sd,
            "noise_sd": self.noise_sd,
            "horizon": self.horizon,
            "gaps": [[float(g) for g in row] for row in self.gaps],
            "optimal_arms": [int(np.argmax(row)) for row in self.actions @ self.theta],
            "lower_bound_C": alloc.C,
            "lower_bound_k": alloc.k,
            "lower_bound_method": alloc.method,
            # alpha_{x,m} per context and arm; null is infinity (a zero-gap, optimal arm).
            "optimal_allocation": as_list,
            "f_n": f_n,
            # OAM's targets T = (f_n / 2) alpha at this horizon (null: infinity).
            "oam_targets": [[None if a is None else f_n / 2 * a for a in row] for row in as_list],
            "meta": self.meta,
        }


def exploration_rate(n: int, d: int, log_inv_delta: float | None = None, c: float = 1.0) -> float:
    """f_{n,delta} = 2 (1 + 1/log n) log(1/delta) + c d log(d log n); f_n takes delta = 1/n."""
    if log_inv_delta is None:
        log_inv_delta = math.log(n)
    return 2.0 * (1.0 + 1.0 / math.log(n)) * log_inv_delta + c * d * math.log(d * math.log(n))


def validate(actions, p, theta, noise_sd, horizon, theta_sd, where: str) -> None:
    """One UserError per problem, naming the array and what it must be."""
    actions, p, theta = np.asarray(actions), np.asarray(p), np.asarray(theta)
    if actions.ndim != 3 or min(actions.shape) < 1:
        raise UserError(f"{where}: actions must be an M x K x d array (contexts x arms x features), "
                        f"got shape {actions.shape}")
    M, K, d = actions.shape
    if K < 2:
        raise UserError(f"{where}: every context needs at least 2 arms, actions has K = {K}")
    if p.shape != (M,):
        raise UserError(f"{where}: p must hold one probability per context, shape ({M},), got shape {p.shape}")
    if theta.shape != (d,):
        raise UserError(f"{where}: theta must be a vector of d = {d} entries (the last axis of actions), "
                        f"got shape {theta.shape}")
    for label, arr in (("actions", actions), ("p", p), ("theta", theta)):
        if not np.all(np.isfinite(arr)):
            raise UserError(f"{where}: {label} contains NaN or inf; every entry must be a finite number")
    if np.any(p <= 0) or abs(float(p.sum()) - 1.0) > P_SUM_TOL:
        raise UserError(f"{where}: p must be positive and sum to 1 (within {P_SUM_TOL:g}); got {p.tolist()} "
                        f"summing to {float(p.sum()):.12g}")
    if np.linalg.matrix_rank(actions.reshape(M * K, d)) < d:
        raise UserError(f"{where}: the arms of all contexts together must span R^{d} (least squares needs it); "
                        "drop a redundant feature or add arms")
    for label, value, low in (("noise_sd", noise_sd, 0.0), ("theta_sd", theta_sd, 0.0)):
        arr = np.asarray(value)
        if arr.ndim != 0 or not np.isfinite(arr) or arr < low:
            raise UserError(f"{where}: {label} must be a finite scalar >= {low:g}, got {value!r}")
    h = np.asarray(horizon)
    if h.ndim != 0 or not np.isfinite(h) or float(h) != int(h) or int(h) < 3:
        raise UserError(f"{where}: horizon must be an integer scalar >= 3 (the number of rounds n), got {horizon!r}")


# ------------------------------------------------------------------ families

def circle_arms(K: int, arm_seed: int) -> np.ndarray:
    """K normalised N(0, I_2) draws of numpy's default_rng(arm_seed): uniform on the unit circle."""
    g = np.random.default_rng(arm_seed).standard_normal((K, 2))
    return g / np.linalg.norm(g, axis=1, keepdims=True)


def oam_fixed(*, u: float = 0.1, horizon: int = 10000) -> ContextualInstance:
    """Sec. 5.1: one context, arms (1,0), (0,1), (1-u, 5u), theta = (1,0)."""
    actions = np.array([[[1.0, 0.0], [0.0, 1.0], [1.0 - u, 5.0 * u]]])
    return ContextualInstance(name=f"oam_fixed[u={u:g}]", actions=actions, p=np.ones(1),
                              theta=np.array([1.0, 0.0]), noise_sd=1.0, horizon=horizon)


def oam_scenario_one(*, p1: float = 0.3, horizon: int = 10000) -> ContextualInstance:
    """Sec. 5.2 scenario one: two contexts in R^3 each spanning a plane, theta = (1,0,1)."""
    actions = np.array([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.9, 0.5, 0.0]],
                        [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.5, 0.9]]])
    return ContextualInstance(name=f"oam_scenario_one[p1={p1:g}]", actions=actions, p=np.array([p1, 1.0 - p1]),
                              theta=np.array([1.0, 0.0, 1.0]), noise_sd=1.0, horizon=horizon)


def oam_two_contexts(*, p1: float = 0.99, horizon: int = 10000) -> ContextualInstance:
    """Sec. 5.2 scenario two (p1 = 0.99) and Sec. 5.3 (p1 = 0.8): optimal arms span R^2, C = 0."""
    actions = np.array([[[1.0, 0.0], [0.0, 1.0], [0.9, 0.5]],
                        [[0.0, 1.0], [-1.0, 0.0], [-1.0, 0.0]]])
    return ContextualInstance(name=f"oam_two_contexts[p1={p1:g}]", actions=actions, p=np.array([p1, 1.0 - p1]),
                              theta=np.array([1.0, 0.0]), noise_sd=1.0, horizon=horizon)


def oam_circle(*, K: int = 100, arm_seed: int = 0, random_theta: bool = False,
               horizon: int = 10000) -> ContextualInstance:
    """Sec. 5.4 / App. D: K fixed arms uniform on the unit circle, theta = (1,0) or redrawn per run."""
    return ContextualInstance(name=f"oam_circle[K={K},random_theta={random_theta}]",
                              actions=circle_arms(K, arm_seed)[None], p=np.ones(1), theta=np.array([1.0, 0.0]),
                              noise_sd=1.0, horizon=horizon, theta_sd=math.sqrt(10.0) if random_theta else 0.0)
