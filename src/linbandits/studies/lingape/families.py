"""The synthetic instances of Xu et al. Sec. 7.1 (spec section 3)."""
from __future__ import annotations

import numpy as np

from linbandits.errors import UserError
from linbandits.studies.lingape.instance import BAIInstance


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
