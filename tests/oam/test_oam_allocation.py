"""The lower-bound program: the spec's public values, closed form = rescaled SDP, KKT."""
import numpy as np
import pytest

from linbandits.studies.oam.allocation import GAP_TOL, allocate, complement_basis, gaps_of, lower_bound
from linbandits.studies.oam.instances import circle_arms, oam_circle, oam_fixed, oam_scenario_one, oam_two_contexts

MAB = (np.eye(4)[None], np.array([1.0, 0.8, 0.5, 0.2]))


def circle_closed_vs_sdp():
    """The comparison the no-rescaling bug must break: C of the 100-arm circle, closed form vs SDP."""
    arms = circle_arms(100, 0)[None]
    closed = lower_bound(arms, [1.0, 0.0], "closed")
    sdp = lower_bound(arms, [1.0, 0.0], "sdp")
    return closed.C, sdp.C


@pytest.mark.parametrize("u, C, a3", [(0.1, 20.0, 200.0), (0.2, 10.0, 50.0)])
def test_fixed_action_set_values(u, C, a3):
    inst = oam_fixed(u=u)
    alloc = inst.allocation
    assert alloc.method == "closed form" and alloc.k == 1
    assert alloc.C == pytest.approx(C, rel=1e-12)
    assert alloc.alpha[0, 2] == pytest.approx(a3, rel=1e-12) and alloc.alpha[0, 1] == 0.0
    assert np.isinf(alloc.alpha[0, 0])


@pytest.mark.parametrize("u", [0.01, 0.03, 0.039, 0.041, 0.1, 0.3])
def test_fixed_action_set_any_u(u):
    alloc = oam_fixed(u=u).allocation
    assert alloc.C == pytest.approx(min(50.0, 2.0 / u), rel=1e-12)
    # x2 = (0, 1) is used only when u < 0.04
    assert (alloc.alpha[0, 1] > 0) == (u < 0.04)


def test_scenario_one_splits_the_tie():
    alloc = oam_scenario_one().allocation
    assert alloc.C == pytest.approx(20.0, rel=1e-12)
    np.testing.assert_allclose(alloc.alpha[:, 2], [100.0, 100.0], rtol=1e-12)
    assert alloc.alpha[0, 1] == 0.0 and alloc.alpha[1, 0] == 0.0


@pytest.mark.parametrize("p1", [0.99, 0.8])
def test_optimal_arms_spanning_give_zero(p1):
    alloc = oam_two_contexts(p1=p1).allocation
    assert alloc.C == 0.0 and alloc.k == 0
    # the repeated arm (-1, 0) of context 2 is one pair with one alpha
    assert alloc.alpha[1, 1] == alloc.alpha[1, 2] == 0.0


def test_multi_armed_bandit_is_lai_robbins():
    alloc = lower_bound(*MAB)
    assert alloc.method == "cvxpy" and alloc.k == 3
    assert alloc.C == pytest.approx(16.5, rel=1e-6)
    np.testing.assert_allclose(alloc.alpha[0, 1:], 2.0 / np.array([0.2, 0.5, 0.8]) ** 2, rtol=1e-6)


def test_circle_of_100_arms():
    alloc = oam_circle().allocation
    assert alloc.k == 1 and alloc.C == pytest.approx(3219.93, abs=0.005)


def test_closed_form_and_rescaled_sdp_agree_where_both_apply():
    for inst in (oam_fixed(u=0.1), oam_fixed(u=0.2), oam_scenario_one()):
        closed = lower_bound(inst.actions, inst.theta, "closed")
        sdp = lower_bound(inst.actions, inst.theta, "sdp")
        assert sdp.C == pytest.approx(closed.C, rel=1e-6)
        finite = np.isfinite(closed.alpha)
        np.testing.assert_allclose(sdp.alpha[finite], closed.alpha[finite], rtol=1e-5, atol=1e-6 * closed.C)
    closed, sdp = circle_closed_vs_sdp()
    assert sdp == pytest.approx(closed, rel=1e-6)


def kkt_residuals(actions, gaps, alpha):
    """Worst relative violations of the KKT conditions of the convex program at alpha.

    g_j(alpha) = z_j^T H^-1 z_j - Delta_j^2 / 2 <= 0 and d g_j / d alpha_i = -(z_i^T H^-1 z_j)^2,
    so alpha is optimal iff lambda >= 0 on the active constraints solves
    Delta_i = sum_j lambda_j (z_i^T H^-1 z_j)^2 on the support and >= off it; then also
    C = sum_j lambda_j Delta_j^2 / 2 (Euler: g is homogeneous of degree -1)."""
    U = complement_basis(actions, gaps)
    pairs = [(m, k) for m in range(gaps.shape[0]) for k in range(gaps.shape[1]) if gaps[m, k] > GAP_TOL]
    Z = np.array([U.T @ actions[m, k] for m, k in pairs])
    dg = np.array([gaps[m, k] for m, k in pairs])
    a = np.array([alpha[m, k] for m, k in pairs])
    H = (Z.T * a) @ Z
    P = (Z @ np.linalg.solve(H, Z.T)) ** 2
    slack = np.diag(np.sqrt(P)) - dg ** 2 / 2
    active = slack >= -1e-5 * dg ** 2
    support = a > 1e-6 * a.max()
    # (scipy's nnls aborts the interpreter on some of these small systems: least squares, sign checked)
    lam = np.linalg.lstsq(P[np.ix_(support, active)], dg[support], rcond=None)[0]
    fitted = P[:, active] @ lam
    C = float(a @ dg)
    return {
        "feasibility": float(np.max(slack / dg ** 2)),
        "stationarity": float(np.max(np.abs(fitted[support] - dg[support]) / dg[support])),
        "dual_feasibility": float(np.max(fitted[~support] / dg[~support] - 1.0, initial=0.0)),
        "multiplier_sign": float(max(0.0, -lam.min(initial=0.0) / max(lam.max(initial=0.0), 1e-300))),
        "duality_gap": abs(float(lam @ dg[active] ** 2 / 2) - C) / C,
    }


@pytest.mark.parametrize("seed", range(6))
def test_allocation_satisfies_kkt_on_random_instances(seed):
    rng = np.random.default_rng(seed)
    M, K, d = [(1, 6, 3), (2, 4, 3), (2, 5, 4), (3, 3, 4), (1, 8, 2), (1, 5, 4)][seed]
    actions = rng.standard_normal((M, K, d))
    theta = rng.standard_normal(d)
    gaps = gaps_of(actions, theta)
    alloc = allocate(actions, gaps)
    assert alloc.method == ("closed form" if alloc.k == 1 else "cvxpy")
    res = kkt_residuals(actions, gaps, alloc.alpha)
    assert res["feasibility"] <= 1e-5, res
    assert res["stationarity"] <= 1e-4, res
    assert res["dual_feasibility"] <= 1e-4, res
    assert res["duality_gap"] <= 1e-4, res
    assert res["multiplier_sign"] <= 1e-6, res


def test_a_wrong_allocation_fails_kkt():
    """The KKT check can fail: half the optimal allocation is infeasible, a doubled one is not stationary."""
    actions = np.random.default_rng(1).standard_normal((2, 4, 3))
    gaps = gaps_of(actions, np.array([1.0, -0.5, 0.3]))
    alpha = allocate(actions, gaps).alpha
    assert kkt_residuals(actions, gaps, alpha / 2)["feasibility"] > 0.1
    assert kkt_residuals(actions, gaps, alpha * 2)["stationarity"] > 0.1
