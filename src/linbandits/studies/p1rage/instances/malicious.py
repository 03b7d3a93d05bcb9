"""The malicious example (Fig. 4 right): theta favours e_2..e_d early, then flips to e_1.

Elimination algorithms drop e_1 in the first third and never recover, while
theta_bar still makes e_1 (index 0) the best arm.
"""
from __future__ import annotations

import numpy as np

from linbandits.problems.linear import LinearInstance
from linbandits.studies.p1rage.instances.soare import SOARE_DIM, noise_suffix, soare_arms

MALICIOUS_OMEGA = 0.5


def malicious(*, T: int = 10000, zero_round: bool = True, noise_sd: float = 1.0,
              noise: str = "gaussian") -> LinearInstance:
    """Malicious switch at floor(T/3); zero_round=True adds the published theta = 0 round there."""
    switch = max(T, 0) // 3
    thetas = np.zeros((max(T, 0), SOARE_DIM))
    thetas[:switch, 1:] = 1.0
    # Published runs: theta = 0 at t = switch, so 2 e_1 starts one round later (spec D7).
    thetas[switch + int(zero_round):, 0] = 2.0
    settings = dict(T=T, zero_round=zero_round, noise_sd=noise_sd, noise=noise)
    variant = "" if zero_round else ",zero_round=false"
    return LinearInstance(name=f"malicious[T={T}{variant}{noise_suffix(noise)}]", X=soare_arms(MALICIOUS_OMEGA),
                    thetas=thetas, noise_sd=noise_sd, noise=noise,
                    meta={"family": "malicious", **settings, "switch_round": switch})
