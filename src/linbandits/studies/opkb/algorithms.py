"""The algorithm classes of the study: options, one run per trial, Records with per-round curves.

Every run of every algorithm reads the same noise stream for (seed, trial)
(streams.py): algorithms of a setting face the same noise. The CSV column is
`regret`, the cumulative dynamic pseudo-regret at T (computed on means); the
curves hold the cumulative regret at every `curve_step`-th round.
"""
from __future__ import annotations

import numpy as np

from linbandits.options import parse_options
from linbandits.study import Records
from linbandits.studies.opkb import opkb, streams
from linbandits.studies.opkb.blas import one_blas_thread
from linbandits.studies.opkb.kernel import features

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


class ArmRewardsAlgorithm:
    kinds = ("arm_rewards",)
    choices = COMMON_CHOICES

    def __init__(self, instance, **options):
        self.options = parse_options(self, options)
        self.instance = instance
        if self.options["noise"] == "truncated" and np.abs(instance.rewards).max() >= 1:
            from linbandits.errors import UserError

            raise UserError(f"{instance.name}: truncated noise keeps |y| <= 1 and needs max|rewards| < 1, "
                            f"got {np.abs(instance.rewards).max():g}; use --option noise=gaussian")

    def run(self, seed: int, trial: int, Phi) -> tuple[np.ndarray, dict]:
        raise NotImplementedError

    def simulate(self, seed, trials, progress=None) -> Records:
        one_blas_thread()
        Phi = features(self.instance.arms, self.options["rbf_length"]) if "rbf_length" in self.options else None
        rounds = curve_rounds(self.instance.T)
        finals, curves, extras = [], [], {}
        for done, trial in enumerate(trials, 1):
            regret, extra = self.run(int(seed), int(trial), Phi)
            cumulative = np.cumsum(regret)
            finals.append(cumulative[-1])
            curves.append(cumulative[rounds - 1])
            for key, value in extra.items():
                extras.setdefault(key, []).append(value)
            if progress:
                progress(done, len(trials))
        columns = {"regret": np.array(finals)}
        columns.update({k: np.array(v) for k, v in extras.items()})
        return Records(columns=columns, curves={"t": rounds, "regret": np.array(curves)})


class GPUCB(ArmRewardsAlgorithm):
    name = "GP-UCB"
    summary = "GP-UCB with the code's regulariser 1/lam and beta from the interpolated information gain"
    defaults = {**COMMON, "lam": 20.0, "v": 0.01}

    def run(self, seed, trial, Phi):
        return _gpucb().run_gpucb(self.instance, Phi, self.options, seed, trial, window=0)[0], {}


# How a round leaves SW-GPUCB's window: exactly (the paper's window, default) or as the authors' code
# does it (spec F20: the inverse update's denominator has the wrong sign; old rounds are partly kept).
# The same tuple as gpucb.REMOVALS (a test checks), not imported from there: OPKB's jobs need no numba.
REMOVALS = ("exact", "published")


class SWGPUCB(ArmRewardsAlgorithm):
    name = "SW-GPUCB"
    summary = "sliding-window GP-UCB: the last `window` rounds only (removal=published: the authors' update)"
    defaults = {**COMMON, "lam": 20.0, "v": 0.01, "window": 3000, "removal": "exact"}
    choices = {**COMMON_CHOICES, "removal": REMOVALS}

    def run(self, seed, trial, Phi):
        return _gpucb().run_gpucb(self.instance, Phi, self.options, seed, trial, window=self.options["window"],
                                  removal=self.options["removal"])[0], {}


class WGPUCB(ArmRewardsAlgorithm):
    name = "WGPUCB"
    summary = "weighted (discounted) GP-UCB, weights discount^(t-s)"
    defaults = {**COMMON, "lam": 0.01, "scale": 0.5, "discount": 0.9996}

    def run(self, seed, trial, Phi):
        return _gpucb().run_wgpucb(self.instance, Phi, self.options, seed, trial)[0], {}


class OPKB(ArmRewardsAlgorithm):
    name = "OPKB"
    summary = "OP-design kernel bandit in doubling blocks, no change detection"
    defaults = {**COMMON, **OPKB_DEFAULTS}
    adaptive = False

    def run(self, seed, trial, Phi):
        constants = opkb.KernelConstants(Phi, self.instance.T, self.options)
        run = opkb.run_opkb(self.instance, self.options, seed, trial, self.adaptive, constants)
        return run["regret"], {"restarts": run["restarts"], "blocks": run["blocks"]}


class ADAOPKB(OPKB):
    name = "ADA-OPKB"
    summary = "OPKB with replays of earlier strategies and restarts on detected changes"
    defaults = {**COMMON, **OPKB_DEFAULTS, "eps_scale": 0.005, "j_star": 4}
    adaptive = True


# The ADA-OPNN config of the authors (spec C); width 512 with eta * m = 2.048e-5 is this study's default.
OPNN_DEFAULTS = {"noise": "truncated", "sigma": 100.0, "beta_scale": 50.0, "mu_scale": 0.2, "e_scale": 0.005,
                 "g_scale": 0.1, "mixture_probability": 0.2, "delta": 1e-4, "width": 512, "hidden": 3,
                 "steps": 100, "lr": None, "lam": 10.0}


class OPNN(ArmRewardsAlgorithm):
    name = "OPNN"
    summary = "OPKB on neural-tangent features of a bias-free ReLU net retrained at every block end (opt-in)"
    defaults = dict(OPNN_DEFAULTS)
    adaptive = False

    def run(self, seed, trial, Phi):
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
    summary = "OPNN with ADA-OPKB's replays and restarts (opt-in)"
    defaults = {**OPNN_DEFAULTS, "eps_scale": 0.02, "j_star": 4}
    adaptive = True
