"""The greedy XY step scans the pairs widest first and stops early (kernels.greedy_scores).
Its scores must be the full maximum over every pair, bit for bit, and a stale pair order
(a planted bug, applied by the suite) must be caught both here and in a whole run against
the plain oracle."""
import numpy as np
import pytest

from lingape_cases import random_bai, soare_wide
from linbandits.studies.lingape import kernels as kn
from linbandits.studies.lingape.algorithms import all_pairs, state_after_initial_pulls
from linbandits.studies.lingape.instances import lingape_soare

import test_lingape_planted_bugs as planted
from plain_source import plain

STATIC_KERNEL = kn.static_kernel      # the compiled dispatcher (the tests below swap in pure-Python forms)


def full_scan(G, D, W):
    """Plain form: every pair of every arm."""
    f = 1.0 / (1.0 + np.diag(G))
    return np.max(W[None, :] - D * D * f[:, None], axis=1)


def states(inst, pulls, seed):
    """(G, D, W) after the initial pulls and then `pulls` pulls of random arms, every 7th state."""
    rng = np.random.default_rng(seed)
    X = inst.X
    K = X.shape[0]
    pi, pj, _ = all_pairs(K)
    G, D, W, _, _, _ = state_after_initial_pulls(X, np.ascontiguousarray(X[pi] - X[pj]), inst.default_lam_xy)
    u, dc = np.empty(K), np.empty(len(W))
    for n in range(pulls):
        kn.pull(G, D, W, int(rng.integers(K)), u, dc)
        if n % 7 == 0:
            yield G.copy(), D.copy(), W.copy()


CASES = [("random K=6 d=3", random_bai(seed=5, K=6, d=3)),
         ("Soare d=5", lingape_soare(d=5)),
         ("Soare wide d=4", soare_wide(d=4))]


def pruned(G, D, W, order=None):
    if order is None:
        order = np.arange(len(W))
        kn.sort_by_width(order, W)
    scores = np.empty(G.shape[0])
    kn.greedy_scores(G, D, W, order, scores)
    return scores


@pytest.mark.parametrize("name,inst", CASES, ids=[c[0] for c in CASES])
def test_pruned_scores_equal_the_full_scan_bit_for_bit(name, inst):
    checked = 0
    for G, D, W in states(inst, 700, seed=1):
        assert np.array_equal(pruned(G, D, W), full_scan(G, D, W))
        checked += 1
    assert checked == 100


def test_few_pairs_are_all_scanned_and_equal_the_full_scan():
    """Below PRUNE_MIN_PAIRS the kernels score every pair (every_pair_scores): same maxima."""
    assert 6 < kn.PRUNE_MIN_PAIRS <= 10
    for G, D, W in states(random_bai(seed=4, K=4, d=3), 140, seed=2):
        scores = np.empty(G.shape[0])
        kn.every_pair_scores(G, D, W, scores)
        assert np.array_equal(scores, full_scan(G, D, W))


def test_sort_by_width_sorts_widest_first():
    rng = np.random.default_rng(0)
    for _ in range(50):
        W = rng.choice([0.5, 1.0, 2.0, 3.0], size=12) * rng.uniform(0.9, 1.1)
        order = rng.permutation(12)
        kn.sort_by_width(order, W)
        assert sorted(order.tolist()) == list(range(12))
        assert np.all(np.diff(W[order]) <= 0)


def test_planted_stale_order_changes_scores():
    """Planted bug: the pairs scanned in index order (the order never sorted) gives wrong maxima."""
    wrong = 0
    for G, D, W in states(lingape_soare(d=5), 700, seed=1):
        wrong += not np.array_equal(pruned(G, D, W, order=np.arange(len(W))), full_scan(G, D, W))
    assert wrong > 0


def test_planted_unsorted_order_is_caught_in_a_whole_run(monkeypatch):
    """Planted bug: the kernel never re-sorts the pairs after a pull; a whole XY-static run
    (pure-Python kernel, every pull) must then disagree with the plain oracle."""
    planted.python_kernels(monkeypatch)
    inst = random_bai(seed=5, K=5, d=3)      # 10 pairs: the widest-first scan is used
    assert planted.static_mismatches(inst, [0, 1]) == 0
    monkeypatch.setattr(kn, "sort_by_width", lambda order, W: None)
    assert planted.static_mismatches(inst, [0, 1]) > 0


def test_planted_stale_best_arm_is_caught(monkeypatch):
    """Each run's best arm is found in the pass that updates its estimates. Planted bug: the
    pass forgets to record it, so the stopping test keeps using the best arm found before the
    first pull; a whole run must then disagree with the oracle."""
    planted.python_kernels(monkeypatch)
    inst = random_bai(seed=5, K=5, d=3)      # a run whose empirical best arm changes before it stops
    monkeypatch.setattr(kn, "static_kernel", plain(STATIC_KERNEL, "tops[r] = top\n", "tops[r] = top\n"))
    assert planted.static_mismatches(inst, [0, 1, 2, 3]) == 0
    monkeypatch.setattr(kn, "static_kernel", plain(STATIC_KERNEL, "tops[r] = top\n", "pass\n"))
    assert planted.static_mismatches(inst, [0, 1, 2, 3]) > 0
