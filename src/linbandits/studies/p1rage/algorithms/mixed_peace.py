"""Mixed-Peace (Algorithm 6): Peace's epochs and eliminations, but each epoch
samples i.i.d. from (XY design of the active set + G) / 2 and the estimate is
the IPS running mean over all rounds."""
import numpy as np

from linbandits.studies.p1rage.algorithms.base import P1rageAlgorithm, arm_values, ips_increment
from linbandits.studies.p1rage.algorithms.elimination import eliminate_by_prefix
from linbandits.studies.p1rage.designs import keys_to_masks


class MixedPeace(P1rageAlgorithm):
    name = "Mixed-Peace"
    summary = "Peace's eliminations with i.i.d. pulls from (XY design + G)/2 and an IPS estimate"

    def play(self, batch):
        n_ep, E = self.epochs()
        n, K = batch.n, self.K
        keys = np.full(n, (1 << K) - 1, dtype=np.int64)
        theta_sum = np.zeros((n, self.d))
        for e in range(n_ep):
            start = e * E
            n_pulls = E if e < n_ep - 1 else self.T - start
            lam, sinv = self.mixtures(keys[:, None])
            sums, _ = batch.pull_iid(start, n_pulls, lam)
            theta_sum += ips_increment(self.X, sums, sinv)
            est = arm_values(self.X, theta_sum / (start + n_pulls))
            masks = keys_to_masks(keys, K)
            live = masks.sum(axis=1) > 1
            if e < n_ep - 1 and live.any():
                _, rho = self.designs.xy(keys)
                keys = eliminate_by_prefix(self.designs, est, masks, rho, live)
        theta = theta_sum / self.T
        return np.argmax(arm_values(self.X, theta), axis=1), theta
