"""Compiled steps that OAM, LinUCB and LinTS share inside their compiled loops (each loop is in its
algorithm's module): the initialisation's rank-raising arm and the rank-one inverse update. Called from
njit code, they compile into it; the operations and their order are those the loops had inline, so the
runs are the same bit for bit (tests/oam/test_oam_engine_vs_oracle.py)."""
from __future__ import annotations

import numpy as np

from linbandits.jit import njit
from linbandits.studies.oam.allocation import RANK_TOL


@njit(cache=True)
def raise_rank(arms, Q, rank):
    """(the first arm whose Gram-Schmidt residual against Q[:rank] is not negligible, else 0; the new rank),
    the residual's direction stored in Q[rank] when the rank rises."""
    for j in range(arms.shape[0]):
        x = arms[j]
        r = x.copy()
        for i in range(rank):
            r -= np.dot(Q[i], x) * Q[i]
        nr = np.sqrt(np.dot(r, r))
        nx = np.sqrt(np.dot(x, x))
        if nx > 0.0 and nr > RANK_TOL * nx:
            Q[rank] = r / nr
            return j, rank + 1
    return 0, rank


@njit(cache=True)
def sherman_morrison(Ainv, x, gx):
    """Ainv <- (A + x x^T)^-1 in place (Sherman-Morrison); returns 1 + x^T A^-1 x, the determinant's factor.
    gx is scratch (it ends holding A^-1 x)."""
    d = x.shape[0]
    for i in range(d):
        acc = 0.0
        for j in range(d):
            acc += Ainv[i, j] * x[j]
        gx[i] = acc
    denom = 1.0
    for i in range(d):
        denom += x[i] * gx[i]
    for i in range(d):
        for j in range(d):
            Ainv[i, j] -= gx[i] * gx[j] / denom
    return denom
