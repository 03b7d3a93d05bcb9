"""The toy study's algorithm."""
from __future__ import annotations

import numpy as np

from linbandits import streams
from linbandits.study import Algorithm, Run


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
