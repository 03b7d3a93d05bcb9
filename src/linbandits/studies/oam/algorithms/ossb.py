"""OSSB (Combes et al. 2017) on a fixed action set: empirical means per arm (no
regression), the allocation c = alpha(Delta_hat) of the lower-bound program re-solved
every round, exploit when N_x >= (1 + gamma) c_x log t for every x."""
from __future__ import annotations

import math

import numpy as np

from linbandits.errors import UserError
from linbandits.jit import njit
from linbandits.studies.oam.algorithms.base import OamAlgorithm, require_single_context
from linbandits.studies.oam.algorithms.oam import allocation_alpha
from linbandits.studies.oam.allocation import GAP_TOL, TIE_TOL, first_occurrence


@njit(cache=True)
def ossb_run(actions, first, noise, theta, true_gaps, eps, gamma):
    _, K, d = actions.shape
    n = noise.shape[0]
    sums = np.zeros(K)
    N = np.zeros(K, dtype=np.int64)
    gaps = np.empty((1, K))
    ratio = np.empty(K)
    s = 0
    arms = np.empty(n, dtype=np.int64)
    cum = np.empty(n)
    counts = np.zeros(4, dtype=np.int64)   # initialisation, exploit, explore_min, explore_ratio
    total = 0.0
    for t in range(n):
        if t < K:
            k = t
            counts[0] += 1
        else:
            best = 0
            for j in range(K):
                if sums[j] / N[j] > sums[best] / N[best]:
                    best = j
            for j in range(K):
                gaps[0, j] = sums[best] / N[best] - sums[j] / N[j]
            alpha, _ = allocation_alpha(actions, gaps, first)
            logt = math.log(t + 1)
            exploit = True
            for j in range(K):
                # Zero-gap arms carry no constraint: c = 0 there (alpha = inf only marks them optimal).
                c = 0.0 if gaps[0, j] <= GAP_TOL else alpha[0, j]
                ratio[j] = N[j] / c if c > 0.0 else np.inf
                if N[j] < (1.0 + gamma) * c * logt:
                    exploit = False
            if exploit:
                k = best
                counts[1] += 1
            else:
                s += 1
                kmin = 0
                for j in range(K):
                    if N[j] < N[kmin]:
                        kmin = j
                if N[kmin] <= eps * s:
                    k = kmin
                    counts[2] += 1
                else:
                    rmin = np.inf
                    for j in range(K):
                        if ratio[j] < rmin:
                            rmin = ratio[j]
                    k = 0
                    for j in range(K):
                        if ratio[j] <= rmin * (1.0 + TIE_TOL):
                            k = j
                            break
                    counts[3] += 1
        y = noise[t]
        for i in range(d):
            y += actions[0, k, i] * theta[i]
        sums[k] += y
        N[k] += 1
        arms[t] = k
        total += true_gaps[0, k]
        cum[t] = total
    return arms, cum, counts


class OSSB(OamAlgorithm):
    name = "OSSB"
    summary = "OSSB (Combes et al. 2017): empirical means, track the lower-bound allocation, fixed action set"
    defaults = {"epsilon": 0.0, "gamma": 0.0}
    counters = ("initialisation", "exploit", "explore_min", "explore_ratio")

    def check(self):
        require_single_context(self)
        for key in ("epsilon", "gamma"):
            if not (self.options[key] >= 0 and math.isfinite(self.options[key])):
                raise UserError(f"OSSB option {key} must be a finite number >= 0, got {self.options[key]}")
        if self.instance.horizon <= self.instance.K:
            raise UserError(f"OSSB pulls each of the K = {self.instance.K} arms once: the horizon must exceed K")
        self._actions = np.ascontiguousarray(self.instance.actions, dtype=float)
        self._first = first_occurrence(self._actions)

    def play(self, stream, gaps):
        return ossb_run(self._actions, self._first, stream.noise, stream.theta, gaps,
                        float(self.options["epsilon"]), float(self.options["gamma"]))
