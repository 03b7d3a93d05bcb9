"""What every algorithm shares: options, the design cache, IPS estimates."""
from __future__ import annotations

import numpy as np

from linbandits.designs import FW_ITERATIONS, DesignCache, n_epochs
from linbandits.errors import UserError


class Algorithm:
    """One fixed-budget BAI algorithm, run on a TrialBatch in lockstep.

    Subclasses set `name`, extend `defaults` / `choices` with their own
    options and implement `run(batch) -> (recommended, theta_hat or None)`.
    """

    name = ""
    summary = ""
    defaults = {"design": "frank_wolfe", "fw_iterations": FW_ITERATIONS}
    choices = {"design": ("frank_wolfe", "exact")}

    def __init__(self, instance, **options):
        self.options = parse_options(self, options)
        self.instance = instance
        self.X = instance.X
        self.K, self.d, self.T = instance.K, instance.d, instance.T
        self.designs = DesignCache(self.X, solver=self.options["design"],
                                   iterations=int(self.options["fw_iterations"]))
        self._mixtures: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}

    # -- designs ---------------------------------------------------------
    def g_design(self):
        return self.designs.g()[0]

    def epochs(self):
        """(n_epochs, E): ceil(log2 rho(all arms)) epochs of floor(T / n) rounds."""
        n = n_epochs(self.designs)
        return n, max(1, self.T // n)

    def sigma_inv(self, lam):
        return np.linalg.pinv(self.X.T @ (lam[:, None] * self.X), hermitian=True)

    def mixtures(self, level_keys):
        """Per trial: lam = (mean of the XY designs of its sets + G) / 2.

        level_keys: n x L int64 set keys, 0 where a trial has fewer levels.
        Returns lam (n x K) and Sigma(lam)^+ (n x d x d), computed once per
        distinct row.
        """
        level_keys = np.asarray(level_keys, dtype=np.int64)
        uniq, inverse = np.unique(level_keys, axis=0, return_inverse=True)
        lams = np.empty((len(uniq), self.K))
        sinvs = np.empty((len(uniq), self.d, self.d))
        G = self.g_design()
        # Solve every set this update needs in one batched call.
        self.designs.xy(uniq[uniq != 0])
        for j, row in enumerate(uniq):
            key = tuple(int(k) for k in row if k)
            if key not in self._mixtures:
                lam_sets, _ = self.designs.xy(np.array(key, dtype=np.int64))
                lam = (lam_sets.mean(axis=0) + G) / 2.0
                self._mixtures[key] = (lam, self.sigma_inv(lam))
            lams[j], sinvs[j] = self._mixtures[key]
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


def parse_options(algo, options: dict) -> dict:
    out = dict(algo.defaults)
    for key, raw in options.items():
        if key not in algo.defaults:
            valid = ", ".join(f"{k} (default {v})" for k, v in algo.defaults.items())
            raise UserError(f"{algo.name} has no option {key!r}; its options are: {valid}")
        default = algo.defaults[key]
        out[key] = coerce(raw, default, f"{algo.name} option {key}")
        allowed = algo.choices.get(key)
        if allowed is not None and out[key] not in allowed:
            raise UserError(f"{algo.name} option {key}={out[key]!r} is not allowed; choose one of {', '.join(map(str, allowed))}")
    return out


def coerce(raw, default, what: str):
    if not isinstance(raw, str):
        return raw
    try:
        if isinstance(default, bool):
            if raw.lower() in ("true", "1", "yes"):
                return True
            if raw.lower() in ("false", "0", "no"):
                return False
            raise ValueError
        if isinstance(default, int):
            return int(raw)
        if isinstance(default, float):
            return float(raw)
    except ValueError:
        raise UserError(f"{what}: {raw!r} is not a valid {type(default).__name__}") from None
    return raw
