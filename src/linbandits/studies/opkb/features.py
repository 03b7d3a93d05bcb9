"""RBF kernel features of the arms: Phi = cholesky(K) (the code's choice; any Phi with K = Phi Phi^T gives the same algorithms)."""
from __future__ import annotations

import numpy as np

from linbandits.studies.opkb.instances import rbf_gram


def features(arms: np.ndarray, rbf_length: float) -> np.ndarray:
    K = rbf_gram(np.asarray(arms, float), rbf_length)
    jitter = 0.0
    for _ in range(12):
        try:
            return np.linalg.cholesky(K + jitter * np.eye(len(K)))
        except np.linalg.LinAlgError:
            # Duplicate or nearly duplicate arms make K singular: the smallest jitter that factors it.
            jitter = 1e-12 if jitter == 0 else jitter * 10
    raise np.linalg.LinAlgError("kernel matrix is not positive definite even with jitter 1e-1")
