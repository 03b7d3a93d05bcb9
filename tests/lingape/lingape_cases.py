"""Small instances on which the plain oracle runs in well under a second per run."""
import numpy as np

from linbandits.studies.lingape.instances import (
    ArmSetsInstance,
    BAIInstance,
    lingape_canonical,
    lingape_soare,
)


def soare_wide(d=3, omega=0.6):
    return lingape_soare(d=d, omega=omega)


def canonical(Delta=0.8, d=4):
    return lingape_canonical(Delta=Delta, d=d)


def random_bai(seed=3, K=5, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(K, d))
    theta = rng.normal(size=d)
    return BAIInstance(name="random", X=X, theta=theta, noise_sd=0.5)


def pm1_sets(seed=4, runs=3, K=3, d=6):
    """+-1 rewards, d > K (ridge needed), one arm set per run."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=d) * 0.3
    sets = []
    while len(sets) < runs:
        X = rng.normal(size=(K, d)) * 0.6
        m = X @ theta
        if np.all(np.abs(m) < 0.9) and np.sort(m)[-1] - np.sort(m)[-2] > 0.4:
            sets.append(X)
    return ArmSetsInstance(name="pm1", arm_sets=np.array(sets), theta=theta, noise_scale=1.0)
