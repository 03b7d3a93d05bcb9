"""Virtual elimination rules, vectorised over a batch of trials.

Active sets are int64 bitmasks (bit k = arm k), the key of the design cache.
"""
from __future__ import annotations

import numpy as np

from linbandits.studies.p1rage.designs import DesignCache, masks_to_keys


def rage_levels(est, m: int = 15, first_threshold: float = 0.5):
    """RAGE-Elimination's sets S_0, S_1, ... for every trial (spec B).

    est: n x K estimated arm values. S_0 is every arm; S_i keeps the arms
    whose estimated gap to the best is <= first_threshold * 2^-(i-1); a
    level is used while |S_i| > 1 and i < m. Returns n x m keys, 0 for
    unused levels.
    """
    n, K = est.shape
    gaps = est.max(axis=1, keepdims=True) - est
    thresholds = first_threshold * 2.0 ** -np.arange(max(m - 1, 0))
    masks = np.ones((n, m, K), dtype=bool)
    masks[:, 1:] = gaps[:, None, :] <= thresholds[None, :, None]
    # Sets are nested, so "every level so far had > 1 arm" is "this one has".
    used = masks.sum(axis=2) > 1
    return np.where(used, masks_to_keys(masks), 0)


def rank_descending(values):
    """Indices along the last axis by value, largest first, ties in
    *decreasing* index: the published numpy.flip(numpy.argsort(values))
    (spec F). A stable ascending sort keeps ties in increasing index, so its
    reverse has them in decreasing index whatever numpy's default kernel does."""
    return np.flip(np.argsort(values, axis=-1, kind="stable"), axis=-1)


def sorted_prefixes(est, active_masks):
    """Arms of each trial's active set ranked by estimate (rank_descending);
    row j of the result is the key of the j best arms (j = 0..K)."""
    n, K = est.shape
    # Inactive arms at -inf sort first ascending, so last after the flip.
    ranked = np.where(active_masks, est, -np.inf)
    order = rank_descending(ranked)
    prefix = np.zeros((n, K + 1), dtype=np.int64)
    prefix[:, 1:] = np.cumsum(np.int64(1) << order.astype(np.int64), axis=1)
    return prefix


def halve_by_prefix(cache: DesignCache, prefix, size, threshold, live):
    """Largest prefix length k with rho(S[:k]) <= threshold, by the binary
    search of spec B (lower = 1, upper = |S|), for the live trials."""
    rows = np.arange(len(size))
    lower = np.ones_like(size)
    upper = size.copy()
    searching = live & (upper - lower > 1)
    while searching.any():
        idx = rows[searching]
        mid = (lower[idx] + upper[idx]) // 2
        too_big = cache.xy_value(prefix[idx, mid]) > threshold[idx]
        upper[idx[too_big]] = mid[too_big]
        lower[idx[~too_big]] = mid[~too_big]
        searching = live & (upper - lower > 1)
    return np.where(live, lower, size)


def peace_levels(cache: DesignCache, est):
    """Peace-Elimination's sets for every trial: halve rho by the longest
    sorted prefix until one arm is left. Returns n x L keys, 0-padded."""
    n, K = est.shape
    prefix = sorted_prefixes(est, np.ones_like(est, dtype=bool))
    rows = np.arange(n)
    size = np.full(n, K, dtype=np.int64)
    levels = []
    live = size > 1
    while live.any():
        keys = np.where(live, prefix[rows, size], 0)
        levels.append(keys)
        rho = np.zeros(n)
        rho[live] = cache.xy_value(keys[live])
        size = halve_by_prefix(cache, prefix, size, rho / 2.0, live)
        live = size > 1
    return np.stack(levels, axis=1) if levels else np.zeros((n, 0), dtype=np.int64)


def eliminate_by_prefix(cache: DesignCache, est, active_masks, rho_active, live):
    """One Peace epoch's elimination: keep the longest prefix of the active
    set (sorted by est) whose design value is <= half the set's value."""
    prefix = sorted_prefixes(est, active_masks)
    size = active_masks.sum(axis=1).astype(np.int64)
    new_size = halve_by_prefix(cache, prefix, size, rho_active / 2.0, live)
    keys = prefix[np.arange(len(size)), new_size]
    keys = np.where(live, keys, masks_to_keys(active_masks))
    return keys
