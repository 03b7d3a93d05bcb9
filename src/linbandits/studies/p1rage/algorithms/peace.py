"""Peace (Katz-Samuels et al. 2020) as run in the paper: a stationary algorithm.

Each epoch pulls the rounded XY design of the active set as a batch in a
uniformly random order, fits OLS on that epoch alone and keeps the longest
sorted prefix whose design value is at most half the set's.
"""
import numpy as np

from linbandits.studies.p1rage.algorithms.base import P1rageAlgorithm, arm_values
from linbandits.studies.p1rage.algorithms.elimination import eliminate_by_prefix
from linbandits.studies.p1rage.designs import efficient_rounding, keys_to_masks


class Peace(P1rageAlgorithm):
    name = "Peace"
    summary = "epochs of rounded XY designs over the active set, OLS per epoch, prefix halving"

    def setup(self) -> None:
        super().setup()
        self._plans = {}

    def plan(self, key: int, n_pulls: int):
        """Rounded pull counts and the OLS pseudo-inverse for one set."""
        if (key, n_pulls) not in self._plans:
            lam, _ = self.designs.xy(np.array([key]))
            counts = efficient_rounding(lam[0], n_pulls)
            gram = self.X.T @ (counts[:, None] * self.X)
            self._plans[key, n_pulls] = (counts, np.linalg.pinv(gram, hermitian=True))
        return self._plans[key, n_pulls]

    def play(self, batch):
        n_ep, E = self.epochs()
        n, K = batch.n, self.K
        keys = np.full(n, (1 << K) - 1, dtype=np.int64)
        est = np.zeros((n, K))
        theta_last = np.zeros((n, self.d))
        live = np.ones(n, dtype=bool)
        for e in range(n_ep):
            n_pulls = E if e < n_ep - 1 else self.T - E * e
            counts = np.zeros((n, K), dtype=np.int64)
            pinvs = np.zeros((n, self.d, self.d))
            for i in np.flatnonzero(live):
                counts[i], pinvs[i] = self.plan(int(keys[i]), n_pulls)
            sums, _ = batch.pull_planned(e * E, counts, live)
            theta = np.einsum("nij,nj->ni", pinvs, np.einsum("nk,kd->nd", sums, self.X))
            est[live] = arm_values(self.X, theta)[live]
            theta_last[live] = theta[live]
            if e < n_ep - 1:
                masks = keys_to_masks(keys, K)
                _, rho = self.designs.xy(keys)
                keys = eliminate_by_prefix(self.designs, est, masks, rho, live)
                live &= keys_to_masks(keys, K).sum(axis=1) > 1
        final = np.where(keys_to_masks(keys, K), est, -np.inf)
        return np.argmax(final, axis=1), theta_last
