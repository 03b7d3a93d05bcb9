"""Algorithm and instance family of the toy study."""
from __future__ import annotations

import numpy as np

from linbandits import streams
from linbandits.problems.linear import LinearInstance
from linbandits.study import Algorithm, Run


def toy_two_arms(*, gap: float = 0.5, T: int = 20) -> LinearInstance:
    """Two arms e_1, e_2 with means 1 and 1 - gap."""
    return LinearInstance(name=f"toy_two_arms[gap={gap:g}]", X=np.eye(2),
                          thetas=np.tile([1.0, 1.0 - gap], (T, 1)), noise_sd=1.0)


class ToyUniform(Algorithm):
    name = "Toy-Uniform"
    summary = "pull the arms in turn, recommend the larger mean"
    kinds = ("linear",)

    def run(self, seed: int, trial: int) -> Run:
        inst = self.instance
        arms = np.arange(inst.T) % inst.K
        noise = inst.noise_sd * streams.generator(seed, trial).standard_normal(inst.T)
        rewards = inst.means()[np.arange(inst.T), arms] + noise
        recommended = int(np.argmax([rewards[arms == k].mean() for k in range(inst.K)]))
        return Run(columns={"recommended": recommended, "correct": int(recommended == inst.best_arm)})
