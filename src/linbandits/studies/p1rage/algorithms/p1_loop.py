"""The loop P1-RAGE and P1-Peace share (Algorithms 2 and 4, batched as published).

Start from the G-optimal design; after round t with t % E == 0 (t = 0, E,
2E, ...) replace the sampling design by the elimination rule's mixture
(mean of its XY designs + G) / 2; recommend argmax of the final IPS estimate.
The paper-text variant `update=every_round` replaces it after every round.
"""
import numpy as np

from linbandits.studies.p1rage.algorithms.base import P1rageAlgorithm, arm_values, ips_increment


class P1Loop(P1rageAlgorithm):
    defaults = {**P1rageAlgorithm.defaults, "update": "batched"}
    choices = {**P1rageAlgorithm.choices, "update": ("batched", "every_round")}

    def levels(self, est):
        """n x L set keys of the elimination rule for estimates est (n x K)."""
        raise NotImplementedError

    def update_times(self):
        if self.options["update"] == "every_round":
            return range(self.T)
        _, E = self.epochs()
        return range(0, self.T, E)

    def play(self, batch):
        G = self.g_design()
        lam = np.broadcast_to(G, (batch.n, self.K))
        sinv = self.sigma_inv(G)
        theta_sum = np.zeros((batch.n, self.d))
        start = 0
        for t in self.update_times():
            sums, _ = batch.pull_iid(start, t + 1 - start, lam)
            theta_sum += ips_increment(self.X, sums, sinv)
            start = t + 1
            lam, sinv = self.mixtures(self.levels(arm_values(self.X, theta_sum / start)))
        if start < self.T:
            sums, _ = batch.pull_iid(start, self.T - start, lam)
            theta_sum += ips_increment(self.X, sums, sinv)
        theta = theta_sum / self.T
        return np.argmax(arm_values(self.X, theta), axis=1), theta
