"""The linear kind: K arms, a parameter per round, noise (P1-RAGE and SW-UCB).

An instance file of this kind is an .npz with X (K x d), thetas (T x d; T is
the horizon) and a scalar noise_sd.
"""
from __future__ import annotations

import dataclasses
import functools

import numpy as np

from linbandits.errors import UserError

NOISE_KINDS = ("gaussian", "bounded")


@dataclasses.dataclass(frozen=True)
class LinearInstance:
    """K arms (rows of X, K x d) and theta_t for t = 0..T-1 (rows of thetas).

    noise "gaussian": N(0, noise_sd^2) per pull (the published runs);
    noise "bounded": +-noise_sd with probability 1/2 each, the paper's
    bounded-noise model with the same variance.
    """

    kind = "linear"
    required = ("X", "thetas", "noise_sd")
    optional = ()
    file_settings = ("noise",)

    name: str
    X: np.ndarray
    thetas: np.ndarray
    noise_sd: float
    noise: str = "gaussian"
    meta: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        validate_arrays(self.X, self.thetas, self.noise_sd, where=self.name)
        if self.noise not in NOISE_KINDS:
            raise UserError(f"{self.name}: noise must be one of {NOISE_KINDS}, got {self.noise!r}")

    @property
    def K(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.X.shape[1]

    @property
    def T(self) -> int:
        return self.thetas.shape[0]

    @functools.cached_property
    def stationary(self) -> bool:
        return bool(np.all(self.thetas == self.thetas[0]))

    @functools.cached_property
    def theta_bar(self) -> np.ndarray:
        # The mean of T equal rows is not bit-equal to the row; use the row.
        return self.thetas[0].copy() if self.stationary else self.thetas.mean(axis=0)

    @property
    def arm_values(self) -> np.ndarray:
        """x_k^T theta_bar for every arm."""
        return self.X @ self.theta_bar

    @property
    def best_arm(self) -> int:
        return int(np.argmax(self.arm_values))

    @property
    def gaps(self) -> np.ndarray:
        """Gap of every arm to the best; the best arm's entry is the minimum gap."""
        v = self.arm_values
        b = int(np.argmax(v))
        gaps = v[b] - v
        others = np.delete(gaps, b)
        gaps[b] = others.min() if others.size else 0.0
        return gaps

    @property
    def min_gap(self) -> float:
        return float(self.gaps[self.best_arm])

    def means(self) -> np.ndarray:
        """Expected reward of every arm at every round, T x K."""
        return self.thetas @ self.X.T

    @classmethod
    def from_arrays(cls, arrays: dict, name: str, meta: dict, settings: dict, where: str):
        """noise: settings' noise=gaussian|bounded, else what the file's metadata says, else gaussian."""
        X, thetas, sd = arrays["X"], arrays["thetas"], arrays["noise_sd"]
        for label, arr in (("X", X), ("thetas", thetas), ("noise_sd", sd)):
            if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
                raise UserError(f"{where}: {label} must hold real numbers, got dtype {arr.dtype}")
        validate_arrays(X, thetas, sd, where=where)
        noise = settings.get("noise") or meta.get("noise", "gaussian")
        return cls(name=name, X=X.astype(float), thetas=thetas.astype(float), noise_sd=float(sd),
                   noise=noise, meta=meta)

    def to_arrays(self) -> dict:
        return {"X": np.asarray(self.X, float), "thetas": np.asarray(self.thetas, float),
                "noise_sd": np.float64(self.noise_sd)}

    def file_meta(self) -> dict:
        """What an instance file records beside the arrays (read back by from_arrays)."""
        return {**self.meta, "name": self.name, "noise": self.noise}

    def summary(self) -> dict:
        return {
            "name": self.name,
            "K": self.K,
            "d": self.d,
            "T": self.T,
            "noise": self.noise,
            "noise_sd": self.noise_sd,
            "stationary": self.stationary,
            "best_arm": self.best_arm,
            "min_gap": self.min_gap,
            "gaps": [float(g) for g in self.gaps],
            "meta": self.meta,
        }


def validate_arrays(X, thetas, noise_sd, where: str) -> None:
    X = np.asarray(X)
    thetas = np.asarray(thetas)
    if X.ndim != 2:
        raise UserError(f"{where}: X must be a K x d matrix, got shape {X.shape}")
    if thetas.ndim != 2 or thetas.shape[1] != X.shape[1]:
        raise UserError(
            f"{where}: thetas must be T x d with d = {X.shape[1]} (the columns of X), got shape {thetas.shape}")
    if thetas.shape[0] < 1:
        raise UserError(f"{where}: thetas has no rows (T must be at least 1)")
    if X.shape[0] < 2:
        raise UserError(f"{where}: need at least 2 arms, X has {X.shape[0]}")
    for label, arr in (("X", X), ("thetas", thetas)):
        if not np.all(np.isfinite(arr)):
            raise UserError(f"{where}: {label} contains NaN or inf; every entry must be a finite number")
    if np.linalg.matrix_rank(X) < X.shape[1]:
        raise UserError(
            f"{where}: X has rank {np.linalg.matrix_rank(X)} < d = {X.shape[1]}; the arms must span R^d "
            "(drop redundant feature columns or add arms)")
    sd = np.asarray(noise_sd)
    if sd.ndim != 0 or not np.isfinite(sd) or sd < 0:
        raise UserError(f"{where}: noise_sd must be a finite scalar >= 0, got {noise_sd!r}")
