"""The kernels recompute their state from the counts every `refresh` pulls (against round-off
drift). They count to the next multiple instead of dividing at every pull, so these tests pin
the schedule: after a pull that brings n to a multiple of `refresh` the state is exactly the
recomputed one, and with the refresh switched off (or planted off) it is not."""
import numpy as np
import pytest

from lingape_cases import random_bai
from linbandits.studies.lingape import kernels as kn
from linbandits.studies.lingape.algorithms import all_pairs, state_after_initial_pulls


@pytest.mark.parametrize("n,refresh,expected", [(5, 7, 7), (6, 7, 7), (7, 7, 14), (0, 3, 3),
                                                (99_999, 100_000, 100_000), (100_000, 100_000, 200_000),
                                                (12, 0, -1)])
def test_first_refresh_is_the_next_multiple(n, refresh, expected):
    assert kn.first_refresh(n, refresh) == expected


def phase_state(refresh, max_n, kernel=None):
    """Greedy XY pulls (phase kernel, never ending its phase) from n = K up to max_n."""
    inst = random_bai(seed=5, K=5, d=3)
    X = inst.X
    pi, pj, _ = all_pairs(X.shape[0])
    Y = np.ascontiguousarray(X[pi] - X[pj])
    G, D, W, T, _, _ = state_after_initial_pulls(X, Y, 0.0)
    ist = np.array([X.shape[0]], dtype=np.int64)
    status = (kernel or kn.phase_kernel)(G, D, W, T, ist, np.zeros(1), X, Y, 0.0, np.uint64(3), -1.0, max_n,
                                         refresh)
    assert status == kn.AT_LIMIT and ist[0] == max_n
    G2, D2, W2 = np.empty_like(G), np.empty_like(D), np.empty_like(W)
    kn.fresh_state(G2, D2, W2, T, X, Y, 0.0)
    return (G, D, W), (G2, D2, W2)


def same(a, b):
    return all(np.array_equal(x, y) for x, y in zip(a, b))


def test_state_is_recomputed_when_n_reaches_a_multiple_of_refresh():
    tracked, fresh = phase_state(refresh=7, max_n=63)       # last pull: n = 62 -> 63 = 9 x 7
    assert same(tracked, fresh)


def test_without_refresh_the_tracked_state_differs_from_a_recomputed_one():
    """The control that gives the test above its strength: 58 Sherman-Morrison steps leave
    round-off that a recomputation does not have."""
    tracked, fresh = phase_state(refresh=0, max_n=63)
    assert not same(tracked, fresh)
    tracked, fresh = phase_state(refresh=7, max_n=62)       # 62 is no multiple: last refresh at 56
    assert not same(tracked, fresh)


def test_planted_refresh_one_pull_late_is_caught(monkeypatch):
    """Planted bug: the counter starts one past the true multiple (refreshes at n + 1 = 8, 15, ...).
    The kernel's pure-Python form reads the patched counter; unpatched, it agrees first."""
    tracked, fresh = phase_state(refresh=7, max_n=63, kernel=kn.phase_kernel.py_func)
    assert same(tracked, fresh)
    monkeypatch.setattr(kn, "first_refresh", lambda n, refresh: (n // refresh + 1) * refresh + 1)
    tracked, fresh = phase_state(refresh=7, max_n=63, kernel=kn.phase_kernel.py_func)
    assert not same(tracked, fresh)
