"""Frank-Wolfe's periodic refresh of Q = X A^{-1} X^T: by a Cholesky factor of A when A is
positive definite, by pinv otherwise (a G design on a set that does not span).

The refresh is checked against pinv directly, and the whole 999-step design against the plain
spec implementation on the pinv path. Planted bugs (the refresh's source with one line changed,
run as plain Python through `_fw_one.py_func`) must make these checks fail.
"""
import sys
from pathlib import Path

import numpy as np
import pytest

import linbandits.cholesky as cholesky
import linbandits.studies.p1rage.designs as designs
from linbandits.studies.p1rage.designs import frank_wolfe_designs

sys.path.insert(0, str(Path(__file__).resolve().parent / "p1rage"))
from p1rage_oracle import frank_wolfe as oracle_fw  # noqa: E402
from plain_source import plain  # noqa: E402


def pinv_q(X, lam):
    return X @ np.linalg.pinv((X.T * lam) @ X) @ X.T


def refresh_mismatch(q_by_cholesky, seed=0, K=9, d=4):
    """Why q_by_cholesky is wrong on a random positive definite case, or '' when it is right."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((K, d))
    lam = rng.dirichlet(np.ones(K))
    Q = np.full((K, K), np.nan)
    if not q_by_cholesky(X, lam, Q):
        return "a positive definite A was refused"
    expected = pinv_q(X, lam)
    err = np.max(np.abs(Q - expected)) / np.max(np.abs(expected))
    return f"relative error {err:.1e}" if not err < 1e-12 else ""


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cholesky_refresh_equals_pinv(seed):
    assert refresh_mismatch(designs._q_by_cholesky, seed) == ""


def test_singular_design_is_left_to_pinv():
    X = np.random.default_rng(3).standard_normal((6, 4))
    lam = np.array([0.5, 0.5, 0, 0, 0, 0])  # rank 2 in 4 dimensions
    Q = np.full((6, 6), 7.0)
    assert not designs._q_by_cholesky(X, lam, Q)
    assert np.all(Q == 7.0)


def test_g_design_on_a_set_that_does_not_span_equals_the_plain_one():
    """Support on 5 of 8 arms that span 3 of the 4 dimensions: A is singular, so every refresh takes
    the pinv path. (Independent arms would make the G design uniform, its steps decided by ties.)"""
    X = np.random.default_rng(4).standard_normal((8, 4))
    S = np.array([0, 2, 4, 5, 7])
    X[S, 3] = 0.0
    sets = np.zeros((1, 8), bool)
    sets[0, S] = True
    lam, val = frank_wolfe_designs(X, sets, "g")
    lam_o, val_o = oracle_fw.design(X[S], X[S])
    np.testing.assert_allclose(lam[0, S], lam_o, rtol=0, atol=1e-10)
    assert np.all(lam[0, np.setdiff1d(np.arange(8), S)] == 0)
    assert val[0] == pytest.approx(val_o, rel=1e-10)


def planted(old, new, where="refresh"):
    """designs._q_by_cholesky as plain Python with one snippet replaced, in itself or in the
    forward substitution it calls."""
    if where == "refresh":
        return plain(designs._q_by_cholesky, old, new)
    buggy = plain(cholesky.forward_substitution, old, new)
    return plain(designs._q_by_cholesky, namespace={"forward_substitution": buggy})


BUGS = {
    "weights_ignored": ("wi = w * X[k, i]", "wi = X[k, i]"),
    "upper_triangle_left_stale": ("Q[b, a] = t", "pass"),
    "forward_substitution_off_by_one": ("for k in range(i):", "for k in range(i - 1):", "forward_substitution"),
}


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_planted_refresh_bug_is_caught(bug):
    assert refresh_mismatch(planted(*BUGS[bug])) != ""


def test_planted_refresh_bug_moves_the_design_away_from_the_plain_one(monkeypatch):
    """The same check on a whole design: Frank-Wolfe run as plain Python with the buggy refresh
    no longer matches the plain spec implementation (unplanted, it does)."""
    X = np.random.default_rng(5).standard_normal((8, 4))
    sets = np.ones((1, 8), bool)
    lam_o, _ = oracle_fw.xy_design(X, np.arange(8))
    buggy = planted(*BUGS["weights_ignored"])
    monkeypatch.setattr(designs, "_fw_one", designs._fw_one.py_func)
    monkeypatch.setattr(designs, "_q_by_cholesky", designs._q_by_cholesky.py_func)
    lam, _ = frank_wolfe_designs(X, sets, "xy")
    np.testing.assert_allclose(lam[0], lam_o, rtol=0, atol=1e-10)
    monkeypatch.setattr(designs, "_q_by_cholesky", buggy)
    lam, _ = frank_wolfe_designs(X, sets, "xy")
    assert np.max(np.abs(lam[0] - lam_o)) > 1e-6
