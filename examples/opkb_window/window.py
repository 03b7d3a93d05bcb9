"""Sliding-window UCB on the arms' own means (SW-UCB1, Garivier and Moulines 2011) for the opkb study:
a baseline that ignores the kernel, written against the study's environment (linbandits.environment).

Round t plays every arm once first, then the arm of the largest
    mean_w(k) + c sqrt(log(min(t, w)) / n_w(k)),
mean_w and n_w the mean reward and the pulls of arm k over the last w rounds (an arm unpulled there is
played first; the first such arm). It reads nothing but the rewards of env.step, so it meets the uniform
u_t of every round that the paper's algorithms meet (docs/environments.md): the same arm at the same
round gives the same reward. Its option `noise` is the environment's too (truncated or gaussian).
"""
import numpy as np

from linbandits.environment import SteppedAlgorithm
from linbandits.errors import UserError


class SlidingWindowUCB1(SteppedAlgorithm):
    name = "SW-UCB1"
    summary = "UCB1 on each arm's mean reward over the last `window` rounds (no kernel)"
    study = "opkb"
    defaults = {"window": 200, "c": 0.5, "noise": "truncated"}
    choices = {"noise": ("truncated", "gaussian")}

    def setup(self):
        if self.options["window"] < 1:
            raise UserError(f"SW-UCB1 option window={self.options['window']} must be at least 1")

    def play(self, env):
        K, w, c = env.arms.shape[0], self.options["window"], self.options["c"]
        played, rewards = [], []
        while not env.done:
            recent = slice(max(0, len(played) - w), len(played))
            arms, ys = np.asarray(played[recent], dtype=int), np.asarray(rewards[recent])
            pulls = np.bincount(arms, minlength=K)
            if (pulls == 0).any():
                arm = int(np.argmin(pulls > 0))
            else:
                means = np.bincount(arms, weights=ys, minlength=K) / pulls
                arm = int(np.argmax(means + c * np.sqrt(np.log(min(env.t, w)) / pulls)))
            rewards.append(env.step(arm))
            played.append(arm)
