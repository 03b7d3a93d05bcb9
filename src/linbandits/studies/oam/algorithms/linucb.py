"""LinUCB (ref. [1] = OFUL) with the spec's radius, and the `fwidth` switch: the optimistic
policy of Thm 3.9, OAM's initialisation then width sqrt(f_{n,1/t^2}) on plain least squares."""
from __future__ import annotations

import math

import numpy as np

from linbandits.jit import njit
from linbandits.studies.oam.algorithms.base import OamAlgorithm
from linbandits.studies.oam.kernels import raise_rank, sherman_morrison

WIDTHS = ("oful", "fwidth")


@njit(cache=True)
def linucb_run(actions, contexts, noise, theta, true_gaps, fwidth, log_n, f_const, theta_norm):
    """oful: V = I + sum x x^T, index <x, V^-1 sum x y> + (sqrt(2 log n + log det V) + |theta|) |x|_{V^-1}.
    fwidth: V = sum x x^T after OAM's initialisation, width sqrt(f_{n,1/t^2})."""
    M, K, d = actions.shape
    n = contexts.shape[0]
    Vinv = np.eye(d)
    V = np.eye(d)
    logdet = 0.0
    bvec = np.zeros(d)
    Q = np.zeros((d, d))
    rank = d
    if fwidth:
        V[:, :] = 0.0
        rank = 0
    arms = np.empty(n, dtype=np.int64)
    cum = np.empty(n)
    counts = np.zeros(1, dtype=np.int64)
    theta_hat = np.empty(d)
    gx = np.empty(d)
    total = 0.0
    for t in range(n):
        m = contexts[t]
        if rank < d:
            k, rank = raise_rank(actions[m], Q, rank)
            counts[0] += 1
        else:
            for i in range(d):
                acc = 0.0
                for j in range(d):
                    acc += Vinv[i, j] * bvec[j]
                theta_hat[i] = acc
            if fwidth:
                width = np.sqrt(2.0 * (1.0 + 1.0 / log_n) * 2.0 * math.log(t + 1) + f_const)
            else:
                width = np.sqrt(2.0 * log_n + logdet) + theta_norm
            k = 0
            top = -np.inf
            for j in range(K):
                mean = 0.0
                quad = 0.0
                for i in range(d):
                    mean += actions[m, j, i] * theta_hat[i]
                    for i2 in range(d):
                        quad += actions[m, j, i] * Vinv[i, i2] * actions[m, j, i2]
                index = mean + width * np.sqrt(quad)
                if index > top:
                    top = index
                    k = j
        x = actions[m, k]
        y = noise[t]
        for i in range(d):
            y += x[i] * theta[i]
        for i in range(d):
            bvec[i] += x[i] * y
            for j in range(d):
                V[i, j] += x[i] * x[j]
        if rank == d and (not fwidth or counts[0] < t + 1):
            denom = sherman_morrison(Vinv, x, gx)
            logdet += math.log(denom)
        elif rank == d:
            Vinv = np.linalg.inv(V)     # the initialisation just made V invertible
        arms[t] = k
        total += true_gaps[m, k]
        cum[t] = total
    return arms, cum, counts


class LinUCB(OamAlgorithm):
    name = "LinUCB"
    summary = "OFUL: optimism with the self-normalised radius (lambda = 1, R = 1, delta = 1/n, S = |theta|)"
    defaults = {"width": "oful", "c": 1.0}
    choices = {"width": WIDTHS}
    counters = ("initialisation",)

    def check(self):
        inst = self.instance
        self._actions = np.ascontiguousarray(inst.actions, dtype=float)
        self._log_n = math.log(inst.horizon)
        self._f_const = self.options["c"] * inst.d * math.log(inst.d * self._log_n)

    def play(self, stream, gaps):
        return linucb_run(self._actions, stream.contexts, stream.noise, stream.theta, gaps,
                          self.options["width"] == "fwidth", self._log_n, self._f_const,
                          float(np.linalg.norm(stream.theta)))
