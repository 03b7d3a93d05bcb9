"""Uniform allocation for P1-RAGE's fixed-budget setting: a baseline no adaptive method should lose to.

Round t pulls arm t mod K (round robin, every arm T/K times); the recommendation is the arm with the
highest mean observed reward. It reads only the instance's public arrays (X, thetas, noise_sd, noise)
and draws every random number from the run's own stream (linbandits.streams.generator(seed, trial)),
so run i depends only on (seed, i), like every algorithm of the study.
"""
import numpy as np

from linbandits.streams import generator
from linbandits.study import Algorithm, Run


class Uniform(Algorithm):
    name = "Uniform"
    summary = "round-robin pulls, recommend the arm with the highest mean reward"
    kinds = ("linear",)        # P1-RAGE's instances: X (K x d), thetas (T x d), noise_sd

    def setup(self):
        inst = self.instance
        self.K, self.T = inst.X.shape[0], inst.thetas.shape[0]
        arms = np.arange(self.T) % self.K
        self.pulls = np.bincount(arms, minlength=self.K)
        # the sum over each arm's rounds of its mean reward x_a . theta_t (no noise): fixed per instance
        means = np.einsum("td,td->t", inst.X[arms], inst.thetas)
        self.mean_sums = np.bincount(arms, weights=means, minlength=self.K)
        self.best = inst.best_arm         # the best arm of the mean theta, as the study scores it

    def run(self, seed, trial):
        rng = generator(seed, trial)
        sd, n = self.instance.noise_sd, self.pulls
        if self.instance.noise == "gaussian":      # the sum of n N(0, sd^2) draws is one N(0, n sd^2) draw
            noise = sd * np.sqrt(n) * rng.standard_normal(self.K)
        else:                                      # +-sd with probability 1/2 each
            noise = sd * (2.0 * rng.binomial(n, 0.5) - n)
        with np.errstate(invalid="ignore", divide="ignore"):
            observed = np.where(n > 0, (self.mean_sums + noise) / np.maximum(n, 1), -np.inf)
        recommended = int(np.argmax(observed))
        return Run(columns={"recommended": recommended, "correct": int(recommended == self.best)})
