"""The environment a trial runs in: arms, the parameter sequence, the noise."""
from __future__ import annotations

import dataclasses
import functools
import io
import json
import zipfile
from pathlib import Path

import numpy as np

from linbandits.atomic import atomic_output
from linbandits.errors import UserError

NOISE_KINDS = ("gaussian", "bounded")


@dataclasses.dataclass(frozen=True)
class Instance:
    """K arms (rows of X, K x d) and theta_t for t = 0..T-1 (rows of thetas).

    noise "gaussian": N(0, noise_sd^2) per pull (the published runs);
    noise "bounded": +-noise_sd with probability 1/2 each, the paper's
    bounded-noise model with the same variance.
    """

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


def save_instance_file(path, X, thetas, noise_sd, meta: dict | None = None) -> None:
    """Write the user instance format: .npz with X (K x d), thetas (T x d), noise_sd.

    Written to a temporary name and renamed (linbandits.atomic), so a
    half-written file never looks complete.
    """
    path = Path(path)
    validate_arrays(X, thetas, noise_sd, where=str(path))
    arrays = {"X": np.asarray(X, float), "thetas": np.asarray(thetas, float),
              "noise_sd": np.float64(noise_sd), "meta": np.array(json.dumps(meta or {}, sort_keys=True))}
    # np.savez stamps the zip members with the current time; fixed stamps
    # make the same instance the same bytes on every run.
    with atomic_output(path) as tmp, zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_STORED) as zf:
        for name, arr in arrays.items():
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.asanyarray(arr), allow_pickle=False)
            zf.writestr(zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0)), buf.getvalue())


def load_instance_file(path, T: int | None = None, noise: str | None = None) -> Instance:
    """Read a user instance; every problem is reported as one UserError.

    noise: "gaussian" or "bounded"; by default what the file's metadata says
    (an instance written by `linbandits instance` records it), else gaussian.
    """
    path = Path(path)
    if not path.exists():
        raise UserError(f"instance file {path} does not exist")
    try:
        with np.load(path, allow_pickle=False) as z:
            data = {k: z[k] for k in z.files}
    except Exception as exc:  # zipfile, pickle and format errors alike
        raise UserError(f"instance file {path} is not a readable .npz archive ({exc})") from None
    missing = [k for k in ("X", "thetas", "noise_sd") if k not in data]
    if missing:
        raise UserError(f"instance file {path} lacks {', '.join(missing)}; it needs arrays X (K x d), "
                        f"thetas (T x d) and a scalar noise_sd (found: {', '.join(sorted(data)) or 'nothing'})")
    meta = {}
    if "meta" in data:
        try:
            meta = json.loads(str(data["meta"]))
        except ValueError:
            meta = {}
        if not isinstance(meta, dict):
            meta = {}
    X, thetas, sd = data["X"], data["thetas"], data["noise_sd"]
    for label, arr in (("X", X), ("thetas", thetas), ("noise_sd", sd)):
        if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
            raise UserError(f"instance file {path}: {label} must hold real numbers, got dtype {arr.dtype}")
    if thetas.ndim == 2 and T is not None and thetas.shape[0] != T:
        raise UserError(f"instance file {path}: thetas has {thetas.shape[0]} rows but T = {T} was asked for; "
                        "the horizon is the number of rows of thetas")
    validate_arrays(X, thetas, sd, where=f"instance file {path}")
    return Instance(name=meta.get("name", path.stem), X=X.astype(float), thetas=thetas.astype(float),
                    noise_sd=float(sd), noise=noise or meta.get("noise", "gaussian"), meta=meta)
