"""linbandits.cholesky: the lower Cholesky factor (upper triangle zeroed, whatever the buffer held), refused at
the first pivot not above rtol times its diagonal entry (relative: a tiny but well-conditioned V passes), every
pivot taken with rtol = -inf; forward substitution solves L z = x. Planted bugs (the compiled source run as
plain Python with one snippet changed): the upper triangle left as it was, an absolute pivot test, a pivot
test that lets a zero pivot through, a substitution one term short."""
import numpy as np
import pytest
from plain_source import plain

from linbandits.cholesky import cholesky_lower, forward_substitution


def spd(seed, d=5, scale=1.0):
    A = np.random.default_rng(seed).standard_normal((d + 2, d))
    return scale * (A.T @ A)


def factor(cholesky, V, rtol=1e-12):
    """(accepted, L) from a buffer full of NaN, as a kernel reusing its buffer may hand over."""
    L = np.full_like(V, np.nan)
    return cholesky(V, L, rtol), L


def factor_problem(cholesky, seed=0):
    """Why cholesky's factor of a positive definite V is wrong, or ''."""
    V = spd(seed)
    accepted, L = factor(cholesky, V)
    if not accepted:
        return "a positive definite V was refused"
    if np.isnan(L).any() or np.triu(L, 1).any():
        return "the upper triangle is not zero"
    err = np.max(np.abs(L @ L.T - V)) / np.max(np.abs(V))
    return f"L L^T differs from V by {err:.1e}" if not err < 1e-13 else ""


@pytest.mark.parametrize("seed", [0, 1])
def test_the_factor_of_a_positive_definite_matrix(seed):
    assert factor_problem(cholesky_lower, seed) == ""


def test_planted_upper_triangle_left_alone_is_caught():
    planted = plain(cholesky_lower, "for i in range(j):\n            L[i, j] = 0.0", "pass")
    assert factor_problem(planted) == "the upper triangle is not zero"


def test_a_pivot_is_judged_relative_to_its_diagonal_entry():
    """V = I * 1e-20 is perfectly conditioned (accepted); V singular or within rounding of it is refused
    unless rtol = -inf. Planted: the pivot compared with rtol itself, and a test that only refuses s < 0."""
    tiny, singular = np.eye(3) * 1e-20, np.ones((2, 2))
    nearly = np.array([[1.0, 1.0], [1.0, 1.0 + 1e-14]])

    def verdicts(cholesky):
        return [factor(cholesky, V)[0] for V in (tiny, singular, nearly)] + [factor(cholesky, nearly, -np.inf)[0]]

    assert verdicts(cholesky_lower) == [True, False, False, True]
    absolute = plain(cholesky_lower, "rtol * V[j, j]", "rtol")
    assert verdicts(absolute)[0] is False
    negative_only = plain(cholesky_lower, "if not s > rtol * V[j, j]:", "if s < 0:")
    assert verdicts(negative_only)[1] is True


def substitution_error(substitute, seed=0):
    rng = np.random.default_rng(seed)
    L = np.linalg.cholesky(spd(seed))
    x = rng.standard_normal(len(L))
    z = np.full_like(x, np.nan)
    substitute(L, x, z)
    return np.max(np.abs(L @ z - x)) / np.max(np.abs(x))


def test_forward_substitution_solves_the_lower_system():
    assert substitution_error(forward_substitution) < 1e-13
    planted = plain(forward_substitution, "for k in range(i):", "for k in range(i - 1):")
    assert not substitution_error(planted) < 1e-13
