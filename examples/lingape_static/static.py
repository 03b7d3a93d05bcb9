"""A static design with a stopping rule (G-static) for the lingape study, written against the study's
environment (linbandits.environment): the rival a fully adaptive rule such as LinGapE has to beat.

It pulls every arm of the run's arm set in turn, in batches that double (K, 2K, 4K, ... pulls, so the
stopping rule is checked O(log n) times, not once a pull), keeps the least-squares estimate
theta = A^-1 b (A = sum x x^T + lam I, b = sum x r) and stops when the empirically best arm i beats
every other arm j by more than the confidence width,
    (x_i - x_j) . theta > c * C_n * ||x_i - x_j||_{A^-1},
C_n = R sqrt(2 log(K^2 n^2 / delta)) (R the instance's noise scale, delta its confidence), then
recommends i. `max_pulls` caps a run (it then recommends the empirically best arm). Every pull draws
the run's own noise draw at that pull index, as LinGapE and XY-static do (docs/environments.md): where
they pull the same arm at the same index, the reward is the same number.
"""
import numpy as np

from linbandits.environment import SteppedAlgorithm
from linbandits.errors import UserError


class StaticDesign(SteppedAlgorithm):
    name = "G-static"
    summary = "round-robin (a static design) in doubling batches, stopped by a least-squares confidence rule"
    study = "lingape"          # the environment it steps: kinds follow from it
    defaults = {"c": 1.0, "lam": 1.0, "max_pulls": 1000000}

    def setup(self):
        if self.options["c"] <= 0 or self.options["max_pulls"] < 1:
            raise UserError(f"G-static options c={self.options['c']} and max_pulls={self.options['max_pulls']} "
                            f"must be positive")

    def play(self, env):
        X = env.arms
        K, d = X.shape
        inst = self.instance
        A, b = self.options["lam"] * np.eye(d), np.zeros(d)
        cycles = 1
        while True:
            arms = np.tile(np.arange(K), cycles)
            rewards = env.step_many(arms)
            A += cycles * X.T @ X
            b += X.T @ np.bincount(arms, weights=rewards, minlength=K)
            theta = np.linalg.solve(A, b)
            best = int(np.argmax(X @ theta))
            if self.separated(X, A, theta, best, env.t, inst) or env.t + 2 * cycles * K > self.options["max_pulls"]:
                env.recommend(best)
                return
            cycles *= 2

    def separated(self, X, A, theta, best, n, inst) -> bool:
        K = X.shape[0]
        width = self.options["c"] * inst.noise_scale * np.sqrt(2 * np.log(K ** 2 * n ** 2 / inst.delta))
        diffs = X[best] - np.delete(X, best, axis=0)
        norms = np.sqrt(np.einsum("kd,de,ke->k", diffs, np.linalg.inv(A), diffs))
        return bool(np.all(diffs @ theta > width * norms))
