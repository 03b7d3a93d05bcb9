"""One BLAS thread per process.

This study's algorithms do many small (100 x 100) matrix operations; a
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
