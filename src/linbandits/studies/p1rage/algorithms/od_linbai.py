"""OD-LinBAI (Yang and Tan 2022), as implemented for the paper (spec B).

ceil(log2 d) epochs; each pulls the G-optimal design of the active arms
(in the subspace they span) m times, rounded up, as a batch in random order,
fits OLS and keeps the ceil(d / 2^r) best. As published (spec F), the
survivors stay in ranked order (value descending, ties in decreasing
position): the rows of the active matrix follow it, so Frank-Wolfe's
first-maximum rules and the next epoch's tie order see that order. The
projection and design of an epoch depend only on the ordered survivors so
far, so they are computed once per distinct history of ordered active
sets, and the designs of all new histories of one shape are solved in one
batch.
"""
import math

import numpy as np

from linbandits.studies.p1rage.algorithms.base import P1rageAlgorithm
from linbandits.studies.p1rage.designs import exact_design, frank_wolfe_designs
from linbandits.studies.p1rage.algorithms.elimination import rank_descending


class ODLinBAI(P1rageAlgorithm):
    name = "OD-LinBAI"
    summary = "optimal-design elimination keeping ceil(d/2^r) arms per epoch, projected to the active span"

    def setup(self) -> None:
        super().setup()
        self._coords = {(): (np.arange(self.K), self.X, self.d)}
        self._plans = {}

    def budget_per_epoch(self):
        d, K, T = self.d, self.K, self.T
        n_ep = math.ceil(math.log2(d)) if d > 1 else 1
        reserved = min(K, d * (d + 1) // 2) + sum(math.ceil(d / 2 ** r) for r in range(1, n_ep))
        return n_ep, (T - reserved) / n_ep

    def coords(self, history: tuple):
        """Active arms (in ranked order), their coordinates, and the dimension
        after `history` (a tuple of ordered arm tuples, one per elimination):
        project onto the top right singular vectors when the rank drops."""
        if history not in self._coords:
            parent_arms, parent_coords, parent_dim = self.coords(history[:-1])
            arms = np.array(history[-1], dtype=np.int64)
            position = {int(a): j for j, a in enumerate(parent_arms)}
            coords = parent_coords[[position[int(a)] for a in arms]]
            dim = parent_dim
            rank = np.linalg.matrix_rank(coords)
            if rank < parent_dim:
                _, _, vt = np.linalg.svd(coords, full_matrices=False)
                coords, dim = coords @ vt[:rank].T, rank
            self._coords[history] = (arms, coords, dim)
        return self._coords[history]

    def plans(self, histories):
        """Pull counts ceil(pi m) and the OLS pseudo-inverse per history."""
        missing = [h for h in dict.fromkeys(histories) if h not in self._plans]
        by_shape = {}
        for h in missing:
            by_shape.setdefault(self.coords(h)[1].shape, []).append(h)
        _, m = self.budget_per_epoch()
        for shape, group in by_shape.items():
            stack = np.stack([self.coords(h)[1] for h in group])
            if self.options["design"] == "exact":
                pis = np.array([exact_design(c, np.ones(shape[0], bool), "g")[0] for c in stack])
            else:
                pis = frank_wolfe_designs(stack, np.ones((len(group), shape[0]), bool), "g",
                                          int(self.options["fw_iterations"]))[0]
            for h, coords, pi in zip(group, stack, pis):
                counts = np.ceil(pi * m).astype(np.int64)
                pinv = np.linalg.pinv(coords.T @ (counts[:, None] * coords), hermitian=True)
                self._plans[h] = (counts, pinv)
        return [self._plans[h] for h in histories]

    def play(self, batch):
        n_ep, m = self.budget_per_epoch()
        if m <= 0:
            return batch.uniform_arm(), None
        n, K = batch.n, self.K
        histories = [()] * n
        next_round = np.zeros(n, dtype=np.int64)
        recommended = np.full(n, -1, dtype=np.int64)
        live = np.ones(n, dtype=bool)
        for r in range(1, n_ep + 1):
            keep = math.ceil(self.d / 2 ** r)
            idx = np.flatnonzero(live)
            plans = dict(zip(idx, self.plans([histories[i] for i in idx])))
            counts = np.zeros((n, K), dtype=np.int64)
            for i in idx:
                counts[i, self.coords(histories[i])[0]] = plans[i][0]
            sums, pulled = batch.pull_planned(next_round, counts, live)
            next_round += pulled.sum(axis=1)
            for i in idx:
                arms, coords, _ = self.coords(histories[i])
                c, pinv = plans[i]
                if not np.array_equal(pulled[i, arms], c):  # the budget ran out mid-batch
                    pinv = np.linalg.pinv(coords.T @ (pulled[i, arms][:, None] * coords), hermitian=True)
                est = coords @ (pinv @ (coords.T @ sums[i, arms]))
                arms = arms[rank_descending(est)[:keep]]
                if len(arms) == 1:
                    recommended[i], live[i] = arms[0], False
                else:
                    histories[i] = histories[i] + (tuple(int(a) for a in arms),)
        # ceil(d / 2^n_ep) == 1, so every trial has ended by now.
        return recommended, None
