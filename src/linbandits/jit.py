"""Numba for every kernel module: `from linbandits.jit import njit`, with one compile-time saving applied.

Numba compiles into every kernel that assigns an array into a slice of another (its own
`np.linalg.solve` does) an error path that formats both shapes into the message ("cannot assign slice
of shape (2, 2) from input of shape (3, 3)"). That formatting pulls in numba's string support: ~3 CPU-s
to compile the first time in a process, ~1 s for each further pair of dimensions, paid by every job
that compiles on a fresh machine (a warm numba cache loads the compiled kernels and pays nothing).
The path runs only when the shapes differ, which no kernel here does, so it gets the message numba
itself uses on targets without strings. The rest of the compiled code is unchanged, and so is every
result (tests/test_jit.py).

And LLVM optimises at level 2, not numba's default 3, unless NUMBA_OPT is set. Measured on the
default target (bench_pipeline.py; 4 runs at level 2, 6 at 3): XY-static's kernel ran 15-22% faster at level 2
(1.92-2.11 CPU-min against 2.37-2.53), every other algorithm as fast, and compiling took as long. Without fast-math neither
level may reorder floating-point arithmetic, so the results are the same bits (the engines' exact
replay tests run at level 2).
"""
from __future__ import annotations

import os

OPT_LEVEL = "2"
# Numba reads NUMBA_OPT when it is first imported; reload_config below applies it if that was earlier.
os.environ.setdefault("NUMBA_OPT", OPT_LEVEL)

import numba.core.config as _config
import numba.np.arrayobj as _arrayobj
from numba import njit, objmode, types
from numba.extending import overload

_config.reload_config()

__all__ = ["OPT_LEVEL", "SHAPE_MISMATCH", "njit", "objmode", "types"]

SHAPE_MISMATCH = "cannot assign slice from input of different size"


def _raise_shape_mismatch(src_shapes, index_shape):
    raise NotImplementedError


@overload(_raise_shape_mismatch)
def _raise_shape_mismatch_impl(src_shapes, index_shape):
    def impl(src_shapes, index_shape):  # pragma: no cover - compiled
        raise ValueError(SHAPE_MISMATCH)

    return impl


# Numba's slice assignment looks this name up in its module when it compiles one; a numba without
# it (older than 0.57) formats no shapes and needs nothing.
if hasattr(_arrayobj, "raise_with_shape_context"):
    _arrayobj.raise_with_shape_context = _raise_shape_mismatch
