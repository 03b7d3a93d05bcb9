"""A compiled Cholesky factorisation and forward substitution for small matrices, shared by the
kernels that need them.

Written out (not numba's np.linalg.cholesky) so that a kernel can ask for a pivot test instead of
an exception, and reuse its own output buffer. Numba's cache does not notice a change here in the
kernels that call it: clear `__pycache__` after editing this file.
"""
from __future__ import annotations

import math

from linbandits.jit import njit


@njit(cache=True)
def cholesky_lower(V, L, rtol):  # pragma: no cover - compiled
    """L <- the lower Cholesky factor of V (upper triangle zeroed). Returns False, at the first
    pivot that is not above rtol times its diagonal entry of V (V is not numerically positive
    definite), with L partly written; rtol = -inf takes every pivot, as a factorisation that
    trusts V to be positive definite."""
    d = V.shape[0]
    for j in range(d):
        s = V[j, j]
        for k in range(j):
            s -= L[j, k] * L[j, k]
        if not s > rtol * V[j, j]:
            return False
        L[j, j] = math.sqrt(s)
        for i in range(j + 1, d):
            t = V[i, j]
            for k in range(j):
                t -= L[i, k] * L[j, k]
            L[i, j] = t / L[j, j]
        for i in range(j):
            L[i, j] = 0.0
    return True


@njit(cache=True)
def forward_substitution(L, x, z):  # pragma: no cover - compiled
    """z <- L^{-1} x for a lower-triangular L."""
    d = L.shape[0]
    for i in range(d):
        s = x[i]
        for k in range(i):
            s -= L[i, k] * z[k]
        z[i] = s / L[i, i]
