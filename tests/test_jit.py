"""linbandits.jit: every kernel is compiled with its cheap slice-assignment error path.

The saving is measured by `benchmarks/bench_pipeline.py --cold` (its compile table), not here. These
tests check that it is in effect where kernels compile, and that it leaves the error itself in place:
a wrong slice assignment still raises, with numba's short message. Results are unchanged because
the engines' exact-replay tests run with it.
"""
import ast
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from linbandits.jit import OPT_LEVEL, SHAPE_MISMATCH

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
        elif (isinstance(node, ast.Attribute) and node.attr == "njit"
              and isinstance(node.value, ast.Name) and node.value.id == "numba"):
            lines.append(node.lineno)
    return lines


def test_every_kernel_module_takes_njit_from_linbandits_jit():
    offenders = {str(path.relative_to(SRC)): numba_njit_imports(path.read_text(encoding="utf-8"))
                 for path in SRC.rglob("*.py") if path.name != "jit.py"}
    assert {path: lines for path, lines in offenders.items() if lines} == {}


@pytest.mark.parametrize("source", ["from numba import njit\n", "import numba\n\n@numba.njit\ndef f():\n    pass\n"])
def test_planted_a_module_taking_njit_from_numba_is_found(source):
    assert numba_njit_imports(source)


# Prints the LLVM optimisation level numba compiles at once linbandits.jit is imported. "numba-first"
# imports numba before it (its level then comes from the environment as numba read it); "undo" is the
# planted bug: the module's default is never set, so numba's own 3 must show.
OPT_PROBE = """
import os, sys
if sys.argv[1] == "numba-first":
    import numba
if sys.argv[1] == "undo":
    os.environ.setdefault = lambda key, value: value
import linbandits.jit
import numba.core.config
print(int(numba.core.config.OPT))
"""


def opt_level(mode: str, numba_opt: str | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_OPT"}
    if numba_opt is not None:
        env["NUMBA_OPT"] = numba_opt
    out = subprocess.run([sys.executable, "-c", OPT_PROBE, mode], capture_output=True, text=True, check=True, env=env)
    return out.stdout.strip()


@pytest.mark.parametrize("mode", ["plain", "numba-first"])
def test_kernels_compile_at_the_products_opt_level(mode):
    assert opt_level(mode) == OPT_LEVEL


def test_a_users_numba_opt_wins():
    assert opt_level("plain", numba_opt="1") == "1"


def test_planted_without_the_default_numba_compiles_at_its_own_level():
    assert opt_level("undo") == "3" != OPT_LEVEL
