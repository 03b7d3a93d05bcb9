"""Discounted-ridge UCB (D-LinUCB, Russac, Vernade and Cappe 2019) for the swucb study, written against
the study's environment (linbandits.environment): a sliding window's rival that forgets smoothly.

Round t estimates theta by ridge regression with weights gamma^(t-s) on the past rounds s,
V_t = sum gamma^(t-s) x_s x_s^T + lam I, b_t = sum gamma^(t-s) x_s y_s, and plays the arm of the largest
x . V_t^-1 b_t + beta ||x||_{V_t^-1} (the first on ties). It reads nothing but what the environment shows
(env.arms, the reward of env.step), so each run meets the noise matrix of the paper's algorithms in the
same run: every comparison with SW-UCB, BOB and EXP3.S is paired on the same noise.
"""
import numpy as np

from linbandits.environment import SteppedAlgorithm
from linbandits.errors import UserError


class DiscountedUCB(SteppedAlgorithm):
    name = "D-LinUCB"
    summary = "discounted ridge regression (weights gamma^(t-s)) with an optimistic index"
    study = "swucb"            # the environment it steps: kinds = ("linear",) follow from it
    defaults = {"gamma": 0.99, "lam": 1.0, "beta": 1.0}

    def setup(self):
        if not 0.0 < self.options["gamma"] <= 1.0:
            raise UserError(f"D-LinUCB option gamma={self.options['gamma']} must lie in (0, 1]")

    def play(self, env):
        gamma, lam, beta = self.options["gamma"], self.options["lam"], self.options["beta"]
        X = env.arms
        d = X.shape[1]
        V, b = lam * np.eye(d), np.zeros(d)
        regulariser = (1.0 - gamma) * lam * np.eye(d)     # keeps the ridge at lam as the data fade
        while not env.done:
            Vinv = np.linalg.inv(V)
            widths = np.sqrt(np.einsum("kd,de,ke->k", X, Vinv, X))
            arm = int(np.argmax(X @ (Vinv @ b) + beta * widths))
            y = env.step(arm)
            x = X[arm]
            V = gamma * V + regulariser + np.outer(x, x)
            b = gamma * b + x * y
