"""The OP design solver: the spec's closed forms (section G), cvxpy as the oracle, the KKT residual."""
import math

import cvxpy as cp
import numpy as np
import pytest

from linbandits.studies.opkb.design import InformationGain, d_design, kkt_residual, solve_op
from linbandits.studies.opkb.instances import rbf_gram


@pytest.mark.parametrize("gaps, beta, lam, expected", [
    ([0, 1], 4, 0.0, [0.707107, 0.292893]),
    ([0, 1], 4, 0.01, [0.714213, 0.285787]),
    ([0, 0.5, 1, 2], 20, 0.01, [0.737171, 0.147769, 0.078196, 0.036864]),
])
def test_orthonormal_closed_forms(gaps, beta, lam, expected):
    P = solve_op(np.eye(len(gaps)), gaps, beta, lam)
    assert np.allclose(P, expected, atol=5e-7)
    # and the formula P(a) = max(0, (2/beta)/(Dhat(a) + nu) - lam) itself, nu from the sum
    nu = (2 / beta) / (P[0] + lam) - gaps[0]
    assert np.allclose(P, np.maximum(0, (2 / beta) / (np.array(gaps) + nu) - lam), atol=1e-9)


def test_lam_zero_multiplier():
    P = solve_op(np.eye(2), [0, 1], 4, 0.0)
    assert (2 / 4) / P[0] == pytest.approx(0.707107, abs=1e-6)      # nu of G1


def test_zero_gaps_give_uniform_and_the_design_is_uniform_for_identity():
    assert np.allclose(solve_op(np.eye(5), np.zeros(5), 3.0, 0.01), 0.2, atol=1e-10)
    assert np.allclose(d_design(np.eye(7), 1e-3), 1 / 7, atol=1e-10)


def test_gamma_T_closed_form():
    """K = I, N = 100, T = 1e4, sigma = 100: gamma_T = N log(1 + T/(sigma N)) = 69.315; the code's half 34.657."""
    gain = InformationGain(np.eye(100), 10000, 100.0)
    assert 2 * gain.exact(10000) == pytest.approx(100 * math.log(2), abs=1e-6)
    assert gain.exact(10000) == pytest.approx(34.657, abs=1e-3)


def cvxpy_op(Phi, gaps, beta, lam):
    N, p = Phi.shape
    P = cp.Variable(N, nonneg=True)
    S = Phi.T @ cp.diag(P) @ Phi + lam * np.eye(p)
    problem = cp.Problem(cp.Minimize(gaps @ P - (2 / beta) * cp.log_det(S)), [cp.sum(P) == 1])
    problem.solve(solver=cp.CLARABEL)
    return P.value, problem.value


def objective(Phi, P, gaps, beta, lam):
    S = Phi.T @ np.diag(P) @ Phi + lam * np.eye(Phi.shape[1])
    return float(gaps @ P - (2 / beta) * np.linalg.slogdet(S)[1])


@pytest.mark.parametrize("seed, length", [(0, 0.2), (1, 0.5), (2, 1.0)])
def test_solver_matches_cvxpy_and_reaches_the_kkt_residual(seed, length):
    rng = np.random.default_rng(seed)
    arms = rng.standard_normal((15, 3))
    arms /= np.linalg.norm(arms, axis=1)[:, None]
    Phi = np.linalg.cholesky(rbf_gram(arms, length) + 1e-10 * np.eye(15))
    gaps = rng.random(15) * 0.5
    gaps[3] = 0.0
    beta, lam = 30.0, 0.01
    P = solve_op(Phi, gaps, beta, lam)
    assert kkt_residual(Phi, P, gaps, beta, lam) <= 1e-8
    P_cvx, value = cvxpy_op(Phi, gaps, beta, lam)
    assert objective(Phi, P, gaps, beta, lam) <= value + 1e-7    # at least as good as cvxpy
    assert np.max(np.abs(P - P_cvx)) < 1e-4                      # and the same point (cvxpy is less exact)


def test_kkt_residual_detects_a_wrong_point():
    gaps = np.array([0, 0.5, 1, 2])
    P = solve_op(np.eye(4), gaps, 20, 0.01)
    assert kkt_residual(np.eye(4), P, gaps, 20, 0.01) <= 1e-8
    wrong = np.array([0.7, 0.15, 0.1, 0.05])
    assert kkt_residual(np.eye(4), wrong, gaps, 20, 0.01) > 1e-3
