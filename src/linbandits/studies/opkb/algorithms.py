"""The algorithm classes of the study: options and one run per trial (study.Algorithm), with per-round curves.

Every run of every algorithm reads the same noise stream for (seed, trial)
(streams.py): algorithms of a setting face the same noise. The CSV column is
`regret`, the cumulative dynamic pseudo-regret at T (computed on means); the
curves hold the cumulative regret at every `curve_step`-th round.
"""
from __future__ import annotations

import numpy as np

from linbandits.errors import UserError
from linbandits.study import Algorithm, Run
from linbandits.studies.opkb import opkb, streams
from linbandits.studies.opkb.kernels import one_blas_thread
from linbandits.studies.opkb.features import features

COMMON = {"rbf_length": 0.2, "noise": "truncated"}
COMMON_CHOICES = {"noise": streams.NOISE_KINDS}
OPKB_DEFAULTS = {"sigma": 100.0, "beta_scale": 50.0, "mu_scale": 0.2, "e_scale": 0.01, "g_scale": 0.05,
                 "mixture_probability": 0.2, "delta": 1e-4}
CURVE_POINTS = 1000


def _gpucb():
    """The GP-UCB family's compiled loops, imported on first use: OPKB's jobs need no numba."""
    from linbandits.studies.opkb import gpucb

    return gpucb


def curve_rounds(T: int) -> np.ndarray:
    """Rounds at which the curves are kept: every step-th round and T (3000 and T are among them for T = 1e4)."""
    step = max(1, T // CURVE_POINTS)
    return np.unique(np.r_[np.arange(step, T + 1, step), T])


class OpkbAlgorithm(Algorithm):
    """The study's algorithm base and run loop: `run_one` gives a run's per-round regret and its counters;
    `run` keeps the cumulative regret at T (the CSV's `regret`) and at the curve rounds."""

    kinds = ("arm_rewards",)
    choices = COMMON_CHOICES

    def setup(self) -> None:
        if self.options["noise"] == "truncated" and np.abs(self.instance.rewards).max() >= 1:
            raise UserError(f"{self.instance.name}: truncated noise keeps |y| <= 1 and needs max|rewards| < 1, "
                            f"got {np.abs(self.instance.rewards).max():g}; use --option noise=gaussian")
        one_blas_thread()
        # The kernel features, once per algorithm (the OPNN family derives its own per run).
        self.Phi = features(self.instance.arms, self.options["rbf_length"]) if "rbf_length" in self.options else None
        self.rounds = curve_rounds(self.instance.T)

    def run_one(self, seed: int, trial: int) -> tuple[np.ndarray, dict]:
        """(regret of every round, extra CSV columns) of run `trial`."""
        raise NotImplementedError

    def run(self, seed: int, trial: int) -> Run:
        regret, extra = self.run_one(int(seed), int(trial))
        cumulative = np.cumsum(regret)
        return Run(columns={"regret": cumulative[-1], **extra},
                   curves={"t": self.rounds, "regret": cumulative[self.rounds - 1]})


class GPUCB(OpkbAlgorithm):
    name = "GP-UCB"
    summary = "GP-UCB with the code's regulariser 1/lam and beta from the interpolated information gain"
    defaults = {**COMMON, "lam": 20.0, "v": 0.01}

    def run_one(self, seed, trial):
        return _gpucb().run_gpucb(self.instance, self.Phi, self.options, seed, trial, window=0)[0], {}


# How a round leaves SW-GPUCB's window: exactly (the paper's window, default) or as the authors' code
# does it (spec F20: the inverse update's denominator has the wrong sign; old rounds are partly kept).
# The same tuple as gpucb.REMOVALS (a test checks), not imported from there: OPKB's jobs need no numba.
REMOVALS = ("exact", "published")


class SWGPUCB(OpkbAlgorithm):
    name = "SW-GPUCB"
    summary = "sliding-window GP-UCB: the last `window` rounds only (removal=published: the authors' update)"
    defaults = {**COMMON, "lam": 20.0, "v": 0.01, "window": 3000, "removal": "exact"}
    choices = {**COMMON_CHOICES, "removal": REMOVALS}

    def run_one(self, seed, trial):
        return _gpucb().run_gpucb(self.instance, self.Phi, self.options, seed, trial, window=self.options["window"],
                                  removal=self.options["removal"])[0], {}


class WGPUCB(OpkbAlgorithm):
    name = "WGPUCB"
    summary = "weighted (discounted) GP-UCB, weights discount^(t-s)"
    defaults = {**COMMON, "lam": 0.01, "scale": 0.5, "discount": 0.9996}

    def run_one(self, seed, trial):
        return _gpucb().run_wgpucb(self.instance, self.Phi, self.options, seed, trial)[0], {}


class OPKB(OpkbAlgorithm):
    name = "OPKB"
    summary = "OP-design kernel bandit in doubling blocks, no change detection"
    defaults = {**COMMON, **OPKB_DEFAULTS}
    adaptive = False

    def run_one(self, seed, trial):
        constants = opkb.KernelConstants(self.Phi, self.instance.T, self.options)
        run = opkb.run_opkb(self.instance, self.options, seed, trial, self.adaptive, constants)
        return run["regret"], {"restarts": run["restarts"], "blocks": run["blocks"]}


class ADAOPKB(OPKB):
    name = "ADA-OPKB"
    summary = "OPKB with replays of earlier strategies and restarts on detected changes"
    defaults = {**COMMON, **OPKB_DEFAULTS, "eps_scale": 0.005, "j_star": 4}
    adaptive = True


# The ADA-OPNN config of the authors (spec C), float32 as their code computes; width 512 with eta * m = 2.048e-5
# is this study's default (theirs: 2048; docs/protocols/opkb.md: the `width` and `precision` choices).
OPNN_DEFAULTS = {"noise": "truncated", "sigma": 100.0, "beta_scale": 50.0, "mu_scale": 0.2, "e_scale": 0.005,
                 "g_scale": 0.1, "mixture_probability": 0.2, "delta": 1e-4, "width": 512, "hidden": 3,
                 "steps": 100, "lr": None, "lam": 10.0, "precision": "float32"}
# The same names as neural.PRECISIONS (a test checks), not imported from there: it loads numba.
PRECISIONS = ("float64", "float32")


class OPNN(OpkbAlgorithm):
    name = "OPNN"
    summary = "OPKB on neural-tangent features of a bias-free ReLU net retrained at every block end"
    defaults = dict(OPNN_DEFAULTS)
    choices = {**COMMON_CHOICES, "precision": PRECISIONS}
    adaptive = False

    def run_one(self, seed, trial):
        from linbandits.studies.opkb.neural import neural_constants

        constants, _ = neural_constants(self.instance.arms, self.instance.T, self.options, seed, trial)
        run = opkb.run_opkb(self.instance, self.options, seed, trial, self.adaptive, constants)
        return run["regret"], {"restarts": run["restarts"], "blocks": run["blocks"]}


class OPNN0(OPNN):
    name = "OPNN0"
    summary = "OPNN with the initial network's features throughout (no training, J = 0)"
    defaults = {**OPNN_DEFAULTS, "steps": 0}


class ADAOPNN(OPNN):
    name = "ADA-OPNN"
    summary = "OPNN with ADA-OPKB's replays and restarts"
    defaults = {**OPNN_DEFAULTS, "eps_scale": 0.02, "j_star": 4}
    adaptive = True
