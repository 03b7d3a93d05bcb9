"""G-BAI (Algorithm 1): sample the G-optimal design every round, IPS estimate."""
import numpy as np

from linbandits.studies.p1rage.algorithms.base import P1rageAlgorithm, arm_values, ips_increment


class GBAI(P1rageAlgorithm):
    name = "G-BAI"
    summary = "i.i.d. pulls from the G-optimal design; recommend argmax of the IPS estimate"

    def play(self, batch):
        G = self.g_design()
        sums, _ = batch.pull_iid(0, self.T, G)
        theta = ips_increment(self.X, sums, self.sigma_inv(G)) / self.T
        return np.argmax(arm_values(self.X, theta), axis=1), theta
