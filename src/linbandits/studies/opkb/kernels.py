"""The compiled routines this study calls directly, past numpy's wrappers: one BLAS thread per process,
and numpy's own LAPACK Cholesky without its per-call cost. (The numba round loops of the GP-UCB family
and of the neural variants stay beside their algorithms, in gpucb.py and neural.py.)

One BLAS thread per process: this study's algorithms do many small (100 x 100) matrix operations; a
multi-threaded OpenBLAS spends 60x longer synchronising threads on them than
computing (measured on the 2-core machine: 88 ms against 1.5 ms for one
leverage matrix). The pipeline runs one process per core, so one thread each
is right. numpy is already imported when an algorithm starts, so the thread
count is set through the loaded libraries' own entry points.
"""
from __future__ import annotations

import ctypes

_SYMBOLS = ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads",
            "openblas_set_num_threads64_", "openblas_set_num_threads")
_done = False


def one_blas_thread() -> None:
    global _done
    if _done:
        return
    _done = True
    import numpy  # noqa: F401  (load both libraries before setting them)
    import scipy.linalg  # noqa: F401
    try:
        with open("/proc/self/maps") as handle:
            libraries = {line.split()[-1] for line in handle if "openblas" in line.lower() and ".so" in line}
    except OSError:
        return
    for path in sorted(libraries):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in _SYMBOLS:
            setter = getattr(lib, name, None)
            if setter is not None:
                setter(ctypes.c_int(1))
                break


# ------------------------------------------------------------------ numpy's own Cholesky, without its overhead

_cholesky = None       # None: not looked up yet; False: not available


def numpy_cholesky():
    """A function S -> A: A Fortran-ordered, the factor of np.linalg.cholesky(S) in its lower triangle (S's
    upper part above it; LinAlgError if S is not positive definite). It calls the LAPACK routine numpy's
    cholesky calls (dpotrf, lower, on a column-major copy of S: what numpy's gufunc does), without numpy's
    per-call cost (0.6 ms of its 1.0 ms at N = 256 on the 2-core VMs). None where that routine is not found
    (numpy built against another LAPACK) or does not reproduce np.linalg.cholesky bit for bit on test
    matrices: the caller then uses np.linalg.cholesky."""
    global _cholesky
    if _cholesky is None:
        _cholesky = _find_numpy_cholesky() or False
    return _cholesky or None


def _find_numpy_cholesky():
    import numpy as np
    from numpy.linalg import _umath_linalg

    try:
        # dlsym on numpy's linalg module searches the libraries it links against: its own dpotrf
        lib = ctypes.CDLL(_umath_linalg.__file__)
    except OSError:
        return None
    # only the ILP64 names of numpy's bundled OpenBLAS (64-bit integer arguments)
    routine = next((getattr(lib, name) for name in ("scipy_dpotrf_64_", "dpotrf_64_") if hasattr(lib, name)), None)
    if routine is None:
        return None
    routine.restype = None
    routine.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                        ctypes.c_size_t]
    lower = ctypes.c_char_p(b"L")

    def cholesky(S):
        A = np.array(S, dtype=float, order="F")
        n = ctypes.c_int64(A.shape[0])
        info = ctypes.c_int64(0)
        routine(lower, ctypes.addressof(n), A.ctypes.data, ctypes.addressof(n), ctypes.addressof(info), 1)
        if info.value:
            raise np.linalg.LinAlgError("Matrix is not positive definite")
        return A

    return cholesky if reproduces_numpy_cholesky(cholesky) else None


def reproduces_numpy_cholesky(cholesky) -> bool:
    """Whether cholesky(S)'s lower triangle is np.linalg.cholesky(S), bit for bit, on matrices formed as the
    design forms S (not exactly symmetric), of sizes on both sides of LAPACK's block sizes."""
    import numpy as np

    rng = np.random.default_rng(20261128)
    for n in (1, 3, 8, 17, 33, 64, 100, 130, 256):
        X = rng.standard_normal((n, n))
        p = rng.random(n)
        S = X.T @ (p[:, None] * X)
        S.flat[::n + 1] += 0.01
        if not np.array_equal(np.tril(cholesky(S)), np.linalg.cholesky(S)):
            return False
    return True
