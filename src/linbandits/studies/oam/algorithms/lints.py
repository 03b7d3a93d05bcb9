"""Linear Thompson sampling (Agrawal & Goyal 2013): B = I + sum x x^T, mu_hat = B^-1 sum x y,
mu_tilde = mu_hat + v L z_t with L L^T = B^-1 and z_t the run's N(0, I) draw of round t."""
from __future__ import annotations

import math

import numpy as np

from linbandits.errors import UserError
from linbandits.jit import njit
from linbandits.studies.oam.algorithms.base import OamAlgorithm
from linbandits.studies.oam.kernels import sherman_morrison


@njit(cache=True)
def lints_run(actions, contexts, noise, theta, true_gaps, normals, v):
    M, K, d = actions.shape
    n = contexts.shape[0]
    Binv = np.eye(d)
    bvec = np.zeros(d)
    mu = np.empty(d)
    sample = np.empty(d)
    gx = np.empty(d)
    arms = np.empty(n, dtype=np.int64)
    cum = np.empty(n)
    total = 0.0
    for t in range(n):
        m = contexts[t]
        L = np.linalg.cholesky(Binv)
        for i in range(d):
            acc = 0.0
            for j in range(d):
                acc += Binv[i, j] * bvec[j]
            mu[i] = acc
        for i in range(d):
            acc = 0.0
            for j in range(i + 1):
                acc += L[i, j] * normals[t, j]
            sample[i] = mu[i] + v * acc
        k = 0
        top = -np.inf
        for j in range(K):
            score = 0.0
            for i in range(d):
                score += actions[m, j, i] * sample[i]
            if score > top:
                top = score
                k = j
        x = actions[m, k]
        y = noise[t]
        for i in range(d):
            y += x[i] * theta[i]
        for i in range(d):
            bvec[i] += x[i] * y
        sherman_morrison(Binv, x, gx)
        arms[t] = k
        total += true_gaps[m, k]
        cum[t] = total
    return arms, cum, np.zeros(0, dtype=np.int64)


def theory_scale(n: int, d: int, R: float = 1.0) -> float:
    """v = R sqrt(24 / eps * d * ln(1/delta)) with eps = 1/ln n, delta = 1/n: R ln n sqrt(24 d)."""
    return R * math.sqrt(24.0 * math.log(n) * d * math.log(n))


class LinTS(OamAlgorithm):
    name = "LinTS"
    summary = "linear Thompson sampling with the theory's variance factor v = R sqrt(24 d ln(n)^2)"
    defaults = {"R": 1.0}
    needs_normals = True

    def check(self):
        if not self.options["R"] > 0:
            raise UserError(f"{self.name} option R must be > 0, got {self.options['R']}")
        self._actions = np.ascontiguousarray(self.instance.actions, dtype=float)
        self._v = self.scale()

    def scale(self) -> float:
        return theory_scale(self.instance.horizon, self.instance.d, self.options["R"])

    def play(self, stream, gaps):
        return lints_run(self._actions, stream.contexts, stream.noise, stream.theta, gaps, stream.normals, self._v)


class LinTSHeuristic(LinTS):
    name = "LinTS-heuristic"
    summary = "linear Thompson sampling with v = 1: the exact posterior of an N(0, I) prior (App. D)"

    def scale(self) -> float:
        return self.options["R"]
