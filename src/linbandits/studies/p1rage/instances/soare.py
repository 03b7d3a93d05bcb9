"""Soare et al. (2014) benchmark: arms e_1..e_d plus x' close to e_1 (spec C).

x' = cos(omega) e_1 + sin(omega) e_2 is the last arm, so e_1 (index 0) and x'
(index d) compete and e_2 is the informative arm to pull.
"""
from __future__ import annotations

import numpy as np

from linbandits.errors import UserError
from linbandits.problems.linear import LinearInstance

SOARE_DIM = 10


def soare_arms(omega: float, d: int = SOARE_DIM) -> np.ndarray:
    """(d+1) x d matrix: e_1..e_d then x' = cos(omega) e_1 + sin(omega) e_2."""
    x_prime = np.zeros(d)
    x_prime[0], x_prime[1] = np.cos(omega), np.sin(omega)
    return np.vstack([np.eye(d), x_prime])


def soare_sto(*, T: int = 1010, omega: float = 0.1, noise_sd: float = 1.0,
              noise: str = "gaussian") -> LinearInstance:
    """Stationary Soare benchmark (Fig. 2a): theta = 2 e_1, best arm e_1."""
    X = soare_arms(omega)
    theta = np.zeros(SOARE_DIM)
    theta[0] = 2.0
    thetas = np.zeros((max(T, 0), SOARE_DIM)) + theta
    settings = dict(T=T, omega=omega, noise_sd=noise_sd, noise=noise)
    return LinearInstance(name=f"soare_sto[T={T},omega={omega:g}{noise_suffix(noise)}]", X=X, thetas=thetas,
                    noise_sd=noise_sd, noise=noise, meta={"family": "soare_sto", **settings})


def soare_osci(*, s: float = 2.5, L: int = 1800, T: int = 10000, omega: float = 0.5,
               noise_sd: float = 1.0, noise: str = "gaussian") -> LinearInstance:
    """Oscillating Soare benchmark (Fig. 6): theta_t = 0.3 e_1 + (0.5 - s sin(2 pi t / L)) e_10."""
    if L <= 0:
        raise UserError(f"soare_osci: the period L must be a positive number of rounds, got L={L}")
    X = soare_arms(omega)
    t = np.arange(max(T, 0))
    thetas = np.zeros((t.size, SOARE_DIM))
    thetas[:, 0] = 0.3
    thetas[:, SOARE_DIM - 1] = 0.5 - s * np.sin(2 * np.pi * t / L)
    settings = dict(s=s, L=L, T=T, omega=omega, noise_sd=noise_sd, noise=noise)
    return LinearInstance(name=f"soare_osci[s={s:g},L={L}{noise_suffix(noise)}]", X=X, thetas=thetas,
                    noise_sd=noise_sd, noise=noise, meta={"family": "soare_osci", **settings})


def noise_suffix(noise: str) -> str:
    """Name fragment flagging the paper-text noise model; empty for the published Gaussian."""
    return "" if noise == "gaussian" else f",noise={noise}"
