"""Epsilon-greedy linear bandit for OAM's contextual study: a simple baseline beside OAM and LinUCB.

Each round sees context c_t (M contexts of K arms in R^d), explores a uniform arm with probability
eps_t = min(1, c / t), else plays the arm with the best ridge estimate x . theta_hat. It reads the
study's documented stream of run r (numpy's default_rng([seed, r]): theta when the instance redraws
it, n uniforms for the contexts, n standard normals for the noise), so it meets the same contexts,
noise and theta as the paper's algorithms in the same run (paired comparisons); its own coin flips
come from a second stream, linbandits.streams.generator(seed, trial, 1).
"""
import numpy as np

from linbandits.streams import generator
from linbandits.study import Algorithm, Run

GRID_POINTS = 500   # the study's regret curves keep every n/500 rounds


class EpsGreedy(Algorithm):
    name = "EpsGreedy"
    summary = "epsilon-greedy on a ridge estimate, eps_t = min(1, c / t)"
    kinds = ("contextual",)
    defaults = {"c": 10.0, "ridge": 1.0}

    def setup(self):
        n = self.instance.horizon
        self.grid = np.unique(np.ceil(np.arange(1, GRID_POINTS + 1) * n / GRID_POINTS).astype(np.int64))

    def stream(self, seed, trial):
        inst = self.instance
        rng = generator(seed, trial)
        theta = np.asarray(inst.theta, float)
        if inst.theta_sd > 0:
            g = inst.theta_sd * rng.standard_normal(inst.d)
            theta = g / np.linalg.norm(g)
        u = rng.random(inst.horizon)
        contexts = np.minimum(np.searchsorted(np.cumsum(inst.p), u, side="right"), inst.M - 1)
        noise = inst.noise_sd * rng.standard_normal(inst.horizon)
        return theta, contexts, noise

    def run(self, seed, trial):
        inst = self.instance
        theta, contexts, noise = self.stream(seed, trial)
        own = generator(seed, trial, 1)
        explore = own.random(inst.horizon)
        uniform_arm = own.integers(inst.K, size=inst.horizon)
        values = inst.actions @ theta                      # M x K mean rewards
        gaps = values.max(axis=1, keepdims=True) - values
        A = float(self.options["ridge"]) * np.eye(inst.d)
        b = np.zeros(inst.d)
        regret = np.empty(inst.horizon)
        total = 0.0
        for t in range(inst.horizon):
            arms = inst.actions[contexts[t]]
            if explore[t] < min(1.0, float(self.options["c"]) / (t + 1)):
                a = int(uniform_arm[t])
            else:
                a = int(np.argmax(arms @ np.linalg.solve(A, b)))
            x = arms[a]
            A += np.outer(x, x)
            b += x * (values[contexts[t], a] + noise[t])
            total += gaps[contexts[t], a]
            regret[t] = total
        return Run(columns={"regret": regret[-1]}, curves={"t": self.grid, "regret": regret[self.grid - 1]})
