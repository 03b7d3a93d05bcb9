"""The OP design solver: the spec's closed forms (section G), cvxpy as the oracle, the KKT residual."""
import math

import cvxpy as cp
import numpy as np
import pytest

from linbandits.studies.opkb.designs import InformationGain, d_design, kkt_residual, solve_op
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


# ------------------------------------------------------------------ the faster solver = the solver before it
# The oracle replays use the product's solver, so they cannot see a change in it: the solver of core at
# bddb596 is kept verbatim in solver_reference.py, and the faster one must give the same P, leverages and
# information gains bit for bit (it calls the same LAPACK routines with the same arguments and makes the same
# floating-point operations in the same order; only wrappers, copies and repeated evaluations went).

def features_of(seed, N, d, length):
    rng = np.random.default_rng(seed)
    arms = rng.standard_normal((N, d))
    arms /= np.linalg.norm(arms, axis=1)[:, None]
    return np.linalg.cholesky(rbf_gram(arms, length) + 1e-12 * np.eye(N))


SOLVER_CASES = [(seed, N, d, length, beta, lam)
                for seed, (N, d, length) in enumerate([(20, 4, 0.2), (60, 3, 0.5), (100, 10, 0.2), (100, 10, 1.0)])
                for beta, lam in [(2.0, 0.01), (30.0, 0.01), (400.0, 1e-3), (2.0, 20.0 / 4096)]]


def bits(a):
    return np.asarray(a, float).view(np.int64)


def same(a, b):
    return np.array_equal(bits(a), bits(b))


def solve_both(Phi, gaps, beta, lam, start=None):
    from solver_reference import leverages as ref_leverages, solve_op as ref_solve

    from linbandits.studies.opkb import designs

    try:
        P_ref = ref_solve(Phi, gaps, beta, lam)
    except RuntimeError as err:
        with pytest.raises(RuntimeError, match=str(err).split(" > ")[0]):
            designs.solve_op_solution(Phi, gaps, beta, lam, start=start)
        return None
    solution = designs.solve_op_solution(Phi, gaps, beta, lam, start=start)
    S = Phi.T @ (P_ref[:, None] * Phi) + lam * np.eye(Phi.shape[1])
    return (same(solution.P, P_ref), same(solution.M, ref_leverages(Phi, P_ref, lam)),
            np.array_equal(np.tril(solution.S), np.tril(S)) and np.allclose(solution.S, S, rtol=1e-12, atol=0))


@pytest.mark.parametrize("seed, N, d, length, beta, lam", SOLVER_CASES)
def test_solver_equals_the_reference_bit_for_bit(seed, N, d, length, beta, lam):
    from linbandits.studies.opkb import designs

    Phi = features_of(seed, N, d, length)
    gaps = np.zeros(N) if beta == 2.0 else np.random.default_rng(seed + 10).random(N) * 0.5
    for start in (None, designs.uniform_leverages(Phi, lam)):
        outcome = solve_both(Phi, gaps, beta, lam, start)
        assert outcome is None or outcome[:2] == (True, True), outcome
    P = designs.solve_op(Phi, gaps, beta, lam)
    assert same(P, designs.solve_op_solution(Phi, gaps, beta, lam).P)
    if beta == 2.0:
        assert same(designs.d_design(Phi, lam), P)


@pytest.mark.parametrize("N, T, reg", [(20, 3000, 100.0), (100, 10000, 0.01), (100, 10000, 20.0)])
def test_information_gain_equals_the_reference_bit_for_bit(N, T, reg):
    from solver_reference import InformationGain as Reference

    Phi = features_of(N, N, 10, 0.2)
    ref = Reference(Phi, T, reg)
    expected = np.array([ref.get(t) for t in range(2, T + 1)])
    assert same(InformationGain(Phi, T, reg).values(2, T), expected)
    gain = InformationGain(Phi, T, reg)
    assert same([gain.get(t) for t in range(2, 1001)], expected[:999])
    assert same(gain.values(2, 777), expected[:776])                       # after get(): the cached knots
    design_T = d_design(Phi, reg / T)
    assert InformationGain(Phi, T, reg, designs={reg / T: design_T}).exact(T) == ref.exact(T)


def test_numpy_cholesky_is_numpys_and_the_fallback_gives_the_same_leverages(monkeypatch):
    from linbandits.studies.opkb import designs, kernels

    cholesky = kernels.numpy_cholesky()
    if cholesky is not None:
        assert kernels.reproduces_numpy_cholesky(cholesky)
    Phi = features_of(7, 130, 6, 0.5)
    P = np.random.default_rng(7).random(130)
    P /= P.sum()
    fast = designs.leverages(Phi, P, 0.01)
    monkeypatch.setattr(kernels, "_cholesky", False)            # as where numpy's routine is not found
    assert same(designs.leverages(Phi, P, 0.01), fast)
    # planted: a routine one unit in the last place off, or the upper-triangle algorithm, is refused.
    # (Scipy's own dpotrf is not a reliable plant: with OPENBLAS_CORETYPE set, as on these machines,
    # numpy's and scipy's OpenBLAS run the same kernel and agree bit for bit.)
    assert not kernels.reproduces_numpy_cholesky(lambda S: np.nextafter(np.linalg.cholesky(S), np.inf))
    assert not kernels.reproduces_numpy_cholesky(lambda S: np.linalg.cholesky(S.T, upper=True).T)


def test_planted_reuse_of_a_stale_evaluation_is_caught(monkeypatch):
    """The solver reuses its last evaluation when P has not moved (same_point); reusing it when P has moved
    (planted) changes the solution, and never reusing it changes nothing."""
    from linbandits.studies.opkb import designs

    Phi = features_of(3, 60, 3, 0.5)
    gaps = np.random.default_rng(13).random(60) * 0.5
    monkeypatch.setattr(designs, "same_point", lambda a, b: False)
    assert solve_both(Phi, gaps, 30.0, 0.01)[:2] == (True, True)
    monkeypatch.setattr(designs, "same_point", lambda a, b: True)
    assert caught(Phi, gaps, 30.0, 0.01)


def test_planted_wrong_start_is_caught():
    from linbandits.studies.opkb import designs

    Phi = features_of(3, 60, 3, 0.5)
    gaps = np.random.default_rng(13).random(60) * 0.5
    assert caught(Phi, gaps, 30.0, 0.01, start=designs.uniform_leverages(Phi, 0.02))


def caught(*args, **kwargs):
    """The solver's result differs from the reference's, or the solver fails."""
    try:
        return solve_both(*args, **kwargs)[:2] != (True, True)
    except RuntimeError:
        return True


# ------------------------------------------------------------------ a stalled line search ends the solve
# Where the residual's rounding floor lies above the solver's absolute stop test (1e-13, 1e-14), the interior
# point cannot meet that test: before issue 39 it then ran all MAX_ITERATIONS with ~33 backtracks each, moving P
# by nothing (about half of J.2's initial-network designs at N = 256, width 512). The solver now stops at the
# first stalled line search. Whether a given design reaches its floor before the absolute test is a matter of
# rounding, which depends on the BLAS kernel the CPU selects (J.2 instance 0 stalls under OpenBLAS's Haswell
# kernels, not under SkylakeX's), so these tests use a design that stalls for a structural reason: with
# 2/beta = 1e4 the gradient entries are ~1e4, their rounding alone (~1e-12) is far above 1e-13, and the only
# ways out of the loop are a stalled line search or MAX_ITERATIONS, on any CPU.

STRUCTURAL_STALL = dict(beta=2e-4, lam=0.01)    # 2/beta = 1e4: the residual's floor >> the absolute stop test


def stalling_features():
    """The features of J.2 instance 0's initial network (job seed 0, run 0)."""
    from linbandits.studies.opkb import streams
    from linbandits.studies.opkb.instances import opkb_cosine
    from linbandits.studies.opkb.neural import ReluNetwork, network_features

    arms = opkb_cosine(seed=0).arms
    return network_features(ReluNetwork(arms.shape[1], 512, 3, streams.generator(0, 0, streams.NETWORK)), arms)


def iterations(monkeypatch, module, name, solve):
    """(how many KKT systems `solve` factors: calls of module.name, one an interior-point iteration; its result)."""
    calls = []
    real = getattr(module, name)

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    try:
        result = solve()
    finally:
        monkeypatch.setattr(module, name, real)
    return len(calls), result


def test_solver_equals_the_reference_on_neural_features():
    """The reference on the features OPNN solves on (N = 256, width 512; J.2 instance 1): the D-design and an
    OP design of a later block, bit for bit (the same arithmetic on both sides, in one process)."""
    from linbandits.studies.opkb import designs, streams
    from linbandits.studies.opkb.instances import opkb_cosine
    from linbandits.studies.opkb.neural import ReluNetwork, network_features

    arms = opkb_cosine(seed=1).arms
    Phi = network_features(ReluNetwork(arms.shape[1], 512, 3, streams.generator(1, 0, streams.NETWORK)), arms)
    gaps = np.random.default_rng(21).random(256) * 0.5
    for Dhat, beta in ((np.zeros(256), 2.0), (gaps, 400.0)):
        assert solve_both(Phi, Dhat, beta, 0.01, designs.uniform_leverages(Phi, 0.01))[:2] == (True, True)


def stop_of(monkeypatch, designs, solve):
    """(iterations, whether the last line search the solver judged was stalled, the solution)."""
    verdicts = []
    rule = designs.line_search_stalled

    def spy(new, old, alpha):
        verdicts.append(rule(new, old, alpha))
        return verdicts[-1]

    monkeypatch.setattr(designs, "line_search_stalled", spy)
    try:
        count, solution = iterations(monkeypatch, designs, "_dgetrf", solve)
    finally:
        monkeypatch.setattr(designs, "line_search_stalled", rule)
    return count, bool(verdicts and verdicts[-1]), solution


def check_stall_stop(monkeypatch, designs):
    """What the stop rule guarantees whatever the rounding, on a design that must stall: the solve ends at the
    first stalled line search, well before MAX_ITERATIONS, at a KKT point; and iterating on past it (the rule
    before issue 39) costs more iterations and does not move the design beyond rounding."""
    Phi = features_of(3, 30, 3, 0.5)
    Dhat, beta, lam = np.zeros(30), STRUCTURAL_STALL["beta"], STRUCTURAL_STALL["lam"]
    solve = lambda: designs.solve_op_solution(Phi, Dhat, beta, lam)
    count, stalled, solution = stop_of(monkeypatch, designs, solve)
    assert stalled and count < designs.MAX_ITERATIONS, (count, stalled)
    assert designs.kkt_residual(Phi, solution.P, Dhat, beta, lam) <= designs.KKT_TOL
    rule = designs.line_search_stalled
    monkeypatch.setattr(designs, "line_search_stalled", lambda new, old, alpha: False)
    try:
        longer, _, past = stop_of(monkeypatch, designs, solve)
    finally:
        monkeypatch.setattr(designs, "line_search_stalled", rule)
    assert longer > count
    assert np.max(np.abs(past.P - solution.P)) <= 1e-12


def test_a_stalled_line_search_ends_the_solve_with_the_same_design(monkeypatch):
    from linbandits.studies.opkb import designs

    check_stall_stop(monkeypatch, designs)


def test_the_rule_before_issue_39_fails_the_stall_check(monkeypatch):
    """Planted: the old stop rule (no stop at a stalled line search) runs on to MAX_ITERATIONS on the design
    that must stall, which the check refuses."""
    from linbandits.studies.opkb import designs

    monkeypatch.setattr(designs, "line_search_stalled", lambda new, old, alpha: False)
    with pytest.raises(AssertionError):
        check_stall_stop(monkeypatch, designs)


STALL_LIMIT = 40        # a design of J.2 takes 14-16 iterations, stalled or not; 200 without the stall stop


def test_the_neural_design_costs_at_most_a_few_dozen_iterations(monkeypatch):
    """On J.2 instance 0's initial network (N = 256, width 512), the design ends in a few dozen iterations
    whether it reaches the absolute test (SkylakeX's kernels) or stalls first (Haswell's): the cost the stall
    stop bought, which holds on any CPU."""
    from linbandits.studies.opkb import designs

    Phi, lam = stalling_features(), 0.01
    start = designs.uniform_leverages(Phi, lam)
    count, _ = iterations(monkeypatch, designs, "_dgetrf", lambda: designs.d_design_solution(Phi, lam, start=start))
    assert count <= STALL_LIMIT


def test_an_early_stop_that_changes_the_design_is_caught(monkeypatch):
    """Stopping at the first backtrack (a planted premature stop) leaves a design the reference does not give."""
    from linbandits.studies.opkb import designs

    Phi = features_of(3, 60, 3, 0.5)
    gaps = np.random.default_rng(13).random(60) * 0.5
    monkeypatch.setattr(designs, "line_search_stalled", lambda new, old, alpha: alpha < 1.0)
    assert caught(Phi, gaps, 30.0, 0.01)
