"""The instance-file kinds of the LinGapE study (fixed-confidence best-arm identification) and its
synthetic instance families (Xu et al. Sec. 7.1, spec section 3: `lingape_soare`, `lingape_canonical`).

`bai` (issue 11, section 5): an .npz with X (K x d), theta (d,), noise_sd
(scalar > 0) and optionally delta (default 0.05) and epsilon (default 0).
Rewards are x_a^T theta + N(0, noise_sd^2).

`bai_armsets` (Exp. 3, Yahoo! R6A): one arm set per run, arm_sets (R x K x d),
theta (d,), noise_scale (the sub-Gaussian scale the algorithms assume, 2 in the
paper), delta, epsilon. Rewards are +1 with probability (1 + x^T theta)/2
(x^T theta clipped to [-1, 1]), else -1. Run i plays arm set i.
"""
from __future__ import annotations

import dataclasses
import functools

import numpy as np

from linbandits.errors import UserError

REWARD_GAUSSIAN = 0
REWARD_PLUS_MINUS_ONE = 1


def _real(arr, label, where):
    arr = np.asarray(arr)
    if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise UserError(f"{where}: {label} must hold real numbers, got dtype {arr.dtype}")
    if not np.all(np.isfinite(arr)):
        raise UserError(f"{where}: {label} contains NaN or inf; every entry must be a finite number")
    return arr.astype(float)


def _scalar(arrays, key, default, where):
    if key not in arrays:
        return default
    arr = np.asarray(arrays[key])
    if arr.ndim != 0:
        raise UserError(f"{where}: {key} must be a scalar, got shape {arr.shape}")
    return float(_real(arr, key, where))


def check_confidence(delta, epsilon, where):
    if not 0.0 < delta < 1.0:
        raise UserError(f"{where}: delta = {delta!r} must lie in (0, 1) (the error probability; the paper uses 0.05)")
    if not epsilon >= 0.0:
        raise UserError(f"{where}: epsilon = {epsilon!r} must be >= 0 (the paper uses 0)")


def check_arms(X, theta, where, label="X"):
    if X.ndim != 2:
        raise UserError(f"{where}: {label} must be a K x d matrix, got shape {X.shape}")
    if X.shape[0] < 2:
        raise UserError(f"{where}: need at least 2 arms, {label} has {X.shape[0]}")
    if theta.ndim != 1 or theta.shape[0] != X.shape[1]:
        raise UserError(f"{where}: theta must be a vector of length d = {X.shape[1]} (the columns of {label}), "
                        f"got shape {theta.shape}")


def gaps_of(values: np.ndarray) -> np.ndarray:
    """Gap of every arm to the best; the best arm's entry is the minimum gap (eq. 14)."""
    best = int(np.argmax(values))
    gaps = values[best] - values
    others = np.delete(gaps, best)
    gaps[best] = others.min()
    return gaps


@dataclasses.dataclass(frozen=True)
class BAIInstance:
    """K arms (rows of X), one parameter theta, Gaussian noise N(0, noise_sd^2)."""

    kind = "bai"
    required = ("X", "theta", "noise_sd")
    optional = ("delta", "epsilon")
    file_settings = ()
    reward = REWARD_GAUSSIAN
    default_lam_xy = 0.0     # XY-static / XY-adaptive on synthetic data: plain OLS (spec section 2)

    name: str
    X: np.ndarray
    theta: np.ndarray
    noise_sd: float
    delta: float = 0.05
    epsilon: float = 0.0
    meta: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        where = self.name
        check_arms(self.X, self.theta, where)
        if np.linalg.matrix_rank(self.X) < self.X.shape[1]:
            raise UserError(f"{where}: X has rank {np.linalg.matrix_rank(self.X)} < d = {self.X.shape[1]}; the arms "
                            "must span R^d (drop redundant feature columns or add arms)")
        if not (np.isfinite(self.noise_sd) and self.noise_sd > 0):
            raise UserError(f"{where}: noise_sd = {self.noise_sd!r} must be a finite number > 0")
        check_confidence(self.delta, self.epsilon, where)

    @property
    def K(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.X.shape[1]

    @property
    def noise_scale(self) -> float:
        return self.noise_sd

    @property
    def runs(self) -> int | None:
        return None     # every run plays the same arms

    def arms(self, run: int) -> tuple[np.ndarray, np.ndarray]:
        """(X, true means) of run `run`."""
        return self.X, self.X @ self.theta

    @functools.cached_property
    def means(self) -> np.ndarray:
        return self.X @ self.theta

    @property
    def best_arm(self) -> int:
        return int(np.argmax(self.means))

    @property
    def gaps(self) -> np.ndarray:
        return gaps_of(self.means)

    @property
    def min_gap(self) -> float:
        return float(self.gaps[self.best_arm])

    @classmethod
    def from_arrays(cls, arrays: dict, name: str, meta: dict, settings: dict, where: str):
        X = _real(arrays["X"], "X", where)
        theta = _real(arrays["theta"], "theta", where)
        sd = np.asarray(arrays["noise_sd"])
        if sd.ndim != 0:
            raise UserError(f"{where}: noise_sd must be a scalar > 0, got shape {sd.shape}")
        sd = float(_real(sd, "noise_sd", where))
        check_arms(X, theta, where)
        return cls(name=name, X=X, theta=theta, noise_sd=sd, delta=_scalar(arrays, "delta", 0.05, where),
                   epsilon=_scalar(arrays, "epsilon", 0.0, where), meta=meta)

    def to_arrays(self) -> dict:
        return {"X": np.asarray(self.X, float), "theta": np.asarray(self.theta, float),
                "noise_sd": np.float64(self.noise_sd), "delta": np.float64(self.delta),
                "epsilon": np.float64(self.epsilon)}

    def summary(self) -> dict:
        return {"name": self.name, "kind": self.kind, "K": self.K, "d": self.d, "noise_sd": self.noise_sd,
                "delta": self.delta, "epsilon": self.epsilon, "best_arm": self.best_arm,
                "min_gap": self.min_gap, "gaps": [float(g) for g in self.gaps],
                "means": [float(m) for m in self.means], "theta_norm": float(np.linalg.norm(self.theta)),
                "meta": self.meta}


@dataclasses.dataclass(frozen=True)
class ArmSetsInstance:
    """One K-arm set per run (Exp. 3), a shared theta, +-1 rewards."""

    kind = "bai_armsets"
    required = ("arm_sets", "theta", "noise_scale")
    optional = ("delta", "epsilon")
    file_settings = ()
    reward = REWARD_PLUS_MINUS_ONE
    default_lam_xy = 0.01    # Yahoo: XY-static and XY-adaptive use ridge 0.01 (paper, App. A)

    name: str
    arm_sets: np.ndarray
    theta: np.ndarray
    noise_scale: float = 2.0
    delta: float = 0.05
    epsilon: float = 0.0
    meta: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        where = self.name
        if self.arm_sets.ndim != 3 or self.arm_sets.shape[0] < 1:
            raise UserError(f"{where}: arm_sets must be R x K x d (one arm set per run), got shape "
                            f"{self.arm_sets.shape}")
        check_arms(self.arm_sets[0], self.theta, where, label="each arm set")
        if not (np.isfinite(self.noise_scale) and self.noise_scale > 0):
            raise UserError(f"{where}: noise_scale = {self.noise_scale!r} must be a finite number > 0")
        check_confidence(self.delta, self.epsilon, where)

    @property
    def K(self) -> int:
        return self.arm_sets.shape[1]

    @property
    def d(self) -> int:
        return self.arm_sets.shape[2]

    @property
    def runs(self) -> int:
        return self.arm_sets.shape[0]

    def arms(self, run: int) -> tuple[np.ndarray, np.ndarray]:
        if not 0 <= run < self.runs:
            raise UserError(f"{self.name}: run {run} needs arm set {run}, but the file holds {self.runs} arm sets "
                            f"(runs 0..{self.runs - 1}); rebuild the instance with more runs")
        X = self.arm_sets[run]
        return X, X @ self.theta

    def set_gaps(self) -> np.ndarray:
        return np.array([gaps_of(X @ self.theta) for X in self.arm_sets])

    @classmethod
    def from_arrays(cls, arrays: dict, name: str, meta: dict, settings: dict, where: str):
        sets = _real(arrays["arm_sets"], "arm_sets", where)
        theta = _real(arrays["theta"], "theta", where)
        scale = _scalar(arrays, "noise_scale", 2.0, where)
        if sets.ndim != 3:
            raise UserError(f"{where}: arm_sets must be R x K x d (one arm set per run), got shape {sets.shape}")
        return cls(name=name, arm_sets=sets, theta=theta, noise_scale=scale,
                   delta=_scalar(arrays, "delta", 0.05, where), epsilon=_scalar(arrays, "epsilon", 0.0, where),
                   meta=meta)

    def to_arrays(self) -> dict:
        return {"arm_sets": np.asarray(self.arm_sets, float), "theta": np.asarray(self.theta, float),
                "noise_scale": np.float64(self.noise_scale), "delta": np.float64(self.delta),
                "epsilon": np.float64(self.epsilon)}

    def summary(self) -> dict:
        gaps = self.set_gaps()
        best = [int(np.argmax(X @ self.theta)) for X in self.arm_sets]
        return {"name": self.name, "kind": self.kind, "K": self.K, "d": self.d, "runs": self.runs,
                "noise_scale": self.noise_scale, "delta": self.delta, "epsilon": self.epsilon,
                "best_arm": best, "min_gap": [float(g[b]) for g, b in zip(gaps, best)],
                "gaps": gaps.tolist(), "theta_norm": float(np.linalg.norm(self.theta)), "meta": self.meta}


# ------------------------------------------------------------------ the families of Sec. 7.1 (spec section 3)

def lingape_soare(d: int = 5, omega: float = 0.01, noise_sd: float = 1.0, delta: float = 0.05,
                  epsilon: float = 0.0) -> BAIInstance:
    """Soare et al.'s instance (Exp. 1): x_i = e_i, x_{d+1} = (cos w, sin w, 0, ...), theta = 2 e_1."""
    if d < 2:
        raise UserError(f"instance lingape_soare: d = {d} must be >= 2")
    X = np.vstack([np.eye(d), np.r_[np.cos(omega), np.sin(omega), np.zeros(d - 2)]])
    theta = np.zeros(d)
    theta[0] = 2.0
    return BAIInstance(name=f"lingape_soare_d{d}", X=X, theta=theta, noise_sd=noise_sd, delta=delta,
                       epsilon=epsilon, meta={"family": "lingape_soare", "d": d, "omega": omega})


def lingape_canonical(Delta: float = 0.1, d: int = 5, noise_sd: float = 1.0, delta: float = 0.05,
                      epsilon: float = 0.0) -> BAIInstance:
    """Canonical arms (Exp. 2): x_i = e_i (K = d), theta = (Delta, 0, ..., 0)."""
    if not Delta > 0:
        raise UserError(f"instance lingape_canonical: Delta = {Delta} must be > 0")
    theta = np.zeros(d)
    theta[0] = Delta
    return BAIInstance(name=f"lingape_canonical_D{Delta:g}", X=np.eye(d), theta=theta, noise_sd=noise_sd,
                       delta=delta, epsilon=epsilon, meta={"family": "lingape_canonical", "Delta": Delta, "d": d})
