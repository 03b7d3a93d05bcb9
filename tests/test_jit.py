"""linbandits.jit: every kernel is compiled with its cheap slice-assignment error path.

The saving is measured by `benchmarks/bench_pipeline.py --cold` (its compile table), not here. These
tests check that it is in effect where kernels compile, and that it leaves the error itself in place:
a wrong slice assignment still raises, with numba's short message. Results are unchanged because
the engines' exact-replay tests run with it.
"""
import ast
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from linbandits.jit import SHAPE_MISMATCH

SRC = Path(__file__).resolve().parents[1] / "src" / "linbandits"

# Compiles one slice assignment whose shapes differ and prints the error's message. With UNDO the
# module's own replacement is taken back first (a planted bug: numba's message must come back, or
# the test below could not tell the two apart).
PROBE = """
import sys
import numba.np.arrayobj
original = numba.np.arrayobj.raise_with_shape_context
from linbandits.jit import njit
if sys.argv[1] == "undo":
    numba.np.arrayobj.raise_with_shape_context = original
import numpy as np

@njit
def assign(a, b):
    a[:2, :2] = b

try:
    assign(np.zeros((3, 3)), np.ones((3, 3)))
except ValueError as error:
    print(error)
"""


def probe_message(mode: str) -> str:
    out = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_a_shape_mismatch_still_raises_with_the_short_message():
    assert probe_message("keep") == SHAPE_MISMATCH


def test_planted_without_the_replacement_numba_formats_the_shapes():
    message = probe_message("undo")
    assert message != SHAPE_MISMATCH
    assert "(2, 2)" in message and "(3, 3)" in message


def test_a_kernel_compiled_in_this_process_gets_it():
    from linbandits.jit import njit

    @njit
    def assign(a, b):
        a[:] = b

    with pytest.raises(ValueError, match=SHAPE_MISMATCH):
        assign(np.zeros(3), np.ones(4))


def numba_njit_imports(source: str) -> list[int]:
    """Lines that take njit from numba itself (`from numba import njit`, `numba.njit`), bypassing linbandits.jit."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module == "numba":
            if any(alias.name == "njit" for alias in node.names):
                lines.append(node.lineno)
        elif isinstance(node, ast.Attribute) and node.attr == "njit":
            if isinstance(node.value, ast.Name) and node.value.id == "numba":
                lines.append(node.lineno)
    return lines


def test_every_kernel_module_takes_njit_from_linbandits_jit():
    offenders = {str(path.relative_to(SRC)): numba_njit_imports(path.read_text(encoding="utf-8"))
                 for path in SRC.rglob("*.py") if path.name != "jit.py"}
    assert {path: lines for path, lines in offenders.items() if lines} == {}


@pytest.mark.parametrize("source", ["from numba import njit\n", "import numba\n\n@numba.njit\ndef f():\n    pass\n"])
def test_planted_a_module_taking_njit_from_numba_is_found(source):
    assert numba_njit_imports(source)
