"""What every algorithm shares: options, the design cache, IPS estimates."""
from __future__ import annotations

import numpy as np

from linbandits import study
from linbandits.study import Records
from linbandits.studies.p1rage.designs import FW_ITERATIONS, n_epochs, shared_cache


class P1rageAlgorithm(study.Algorithm):
    """The study's algorithm base: one fixed-budget BAI algorithm, run on a TrialBatch in lockstep.

    Subclasses set `name`, extend `defaults` / `choices` with their own
    options and implement `play(batch) -> (recommended, theta_hat or None)`:
    `run_many` moves blocks of trials through it together (study.Algorithm's
    run loop with a batched kernel; trial i depends only on (seed, i)).
    """

    name = ""
    summary = ""
    kinds = ("linear",)
    defaults = {"design": "frank_wolfe", "fw_iterations": FW_ITERATIONS}
    choices = {"design": ("frank_wolfe", "exact")}

    def setup(self) -> None:
        instance = self.instance
        self.X = instance.X
        self.K, self.d, self.T = instance.K, instance.d, instance.T
        self.designs = shared_cache(self.X, solver=self.options["design"],
                                    iterations=int(self.options["fw_iterations"]))
        self._mixtures: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}

    def play(self, batch):
        raise NotImplementedError(f"{type(self).__name__} does not implement play(batch)")

    def run_many(self, seed: int, trials: np.ndarray, progress=None) -> Records:
        """Trials `trials` of this algorithm: recommended arm, correct or not."""
        from linbandits.studies.p1rage.kernels import run_trials

        solved_before = self.designs.solves
        res = run_trials(self, self.instance, seed, trials, progress=progress)
        return Records(columns={"recommended": res.recommended, "correct": res.correct},
                       info={"errors": int(res.trials.size - res.correct.sum()),
                             "designs_solved": self.designs.solves - solved_before})

    # -- designs ---------------------------------------------------------
    def g_design(self):
        return self.designs.g()[0]

    def epochs(self):
        """(n_epochs, E): ceil(log2 rho(all arms)) epochs of floor(T / n) rounds."""
        n = n_epochs(self.designs)
        return n, max(1, self.T // n)

    def sigma_inv(self, lam):
        return np.linalg.pinv(np.einsum("k,ki,kj->ij", lam, self.X, self.X), hermitian=True)

    def mixtures(self, level_keys):
        """Per trial: lam = (mean of the XY designs of its sets + G) / 2.

        level_keys: n x L int64 set keys, 0-padded at the end where a trial
        has fewer levels. Returns lam (n x K) and Sigma(lam)^+ (n x d x d),
        computed once per distinct row.
        """
        level_keys = np.asarray(level_keys, dtype=np.int64)
        uniq, inverse = np.unique(level_keys, axis=0, return_inverse=True)
        row_ids = [row.tobytes() for row in uniq]
        new = [j for j, rid in enumerate(row_ids) if rid not in self._mixtures]
        if new:
            rows = uniq[new]
            used = rows != 0
            lam_sets, _ = self.designs.xy(rows)
            # Unused levels add exact zeros, so the sum equals the sum of the used ones.
            lam = (np.sum(lam_sets * used[:, :, None], axis=1) / used.sum(axis=1)[:, None] + self.g_design()) / 2.0
            sinv = np.linalg.pinv(np.einsum("mk,ki,kj->mij", lam, self.X, self.X), hermitian=True)
            for j, l, si in zip(new, lam, sinv):
                self._mixtures[row_ids[j]] = (l, si)
        lams = np.stack([self._mixtures[rid][0] for rid in row_ids])
        sinvs = np.stack([self._mixtures[rid][1] for rid in row_ids])
        inverse = inverse.reshape(-1)
        return lams[inverse], sinvs[inverse]


def ips_increment(X, sums, sinv):
    """Sum over an epoch of Sigma^+ x_{i_s} r_s, per trial (n x d).

    Uses einsum, not BLAS, so a trial's row never depends on the batch size.
    """
    v = np.einsum("nk,kd->nd", sums, X)
    if sinv.ndim == 2:
        return np.einsum("ij,nj->ni", sinv, v)
    return np.einsum("nij,nj->ni", sinv, v)


def arm_values(X, theta):
    return np.einsum("kd,nd->nk", X, theta)
