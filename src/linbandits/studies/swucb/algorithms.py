"""SW-UCB, BOB and EXP3.S as algorithms of the product (`linbandits.study.Algorithm`).

Each `run(seed, trial)` is one run with the column `regret`, the cumulative dynamic
pseudo-regret at T: sum_t (max_k x_k.theta_t - x_{I_t}.theta_t); `trajectory(seed, trial)`
is the same run in full (every arm, BOB's block windows), for the exact replays.
Constants not in the file: lam = S = 1, delta = 1/T (spec section 5);
R = noise_sd and L = max_k ||x_k|| come from the file.
"""
from __future__ import annotations

import functools

import numpy as np

from linbandits.errors import UserError
from linbandits.study import Algorithm, Run
from linbandits.studies.swucb import trajectories, tuning
from linbandits.studies.swucb.instances import bgz_variation, instance_budget


def _positive(algo, key):
    value = algo.options[key]
    if not value > 0:
        raise UserError(f"{algo.name} option {key}={value} must be > 0")
    return float(value)


class SwucbAlgorithm(Algorithm):
    """The study's algorithm base: the noise matrix of a run (shared by every algorithm of the setting),
    the algorithm's tuned constants, one trial's regret; subclasses implement `run_on(eta, rng_factory)`."""

    kinds = ("linear",)
    choices: dict = {}

    def setup(self) -> None:
        self.problem = trajectories.Problem.of(self.instance)
        self._eta = np.empty((self.problem.T, self.problem.K))   # every run's noise matrix, refilled
        self.tune()

    def tune(self) -> None:
        """The algorithm's constants for this instance and options."""

    def trajectory(self, seed: int, trial: int) -> trajectories.Trajectory:
        eta = trajectories.noise_matrix(self.instance, seed, trial, out=self._eta)
        return self.run_on(eta, functools.partial(trajectories.algorithm_rng, self.stream_name(), seed, trial))

    def stream_name(self) -> str:
        """The paper algorithm whose random stream this one draws: its own, or, for a user's subclass of
        one (a renamed SW-UCB with options of its own), that algorithm's."""
        for cls in type(self).__mro__:
            if getattr(cls, "name", None) in trajectories.ALGORITHM_TAGS:
                return cls.name
        raise UserError(f"{self.name}: a subclass of SwucbAlgorithm draws its random stream as one of "
                        f"{', '.join(trajectories.ALGORITHM_TAGS)}; subclass that one, or write run() yourself")

    def run(self, seed: int, trial: int) -> Run:
        return Run(columns={"regret": self.trajectory(seed, trial).regret})

    def info(self) -> dict:
        return {"tuning": self.tuning()}


class SWUCB(SwucbAlgorithm):
    name = "SW-UCB"
    summary = "sliding-window linear UCB (Cheung et al. 2019, Alg. 1); window agnostic|known|eq12|corrected|N"
    defaults = {"window": "agnostic", "lam": 1.0, "S": 1.0}

    def tune(self) -> None:
        p, instance = self.problem, self.instance
        self.lam = _positive(self, "lam")
        rule = tuning.parse_window(self.options["window"])
        self.w = tuning.sliding_window(rule, p.T, p.d, instance_budget(instance))
        self.beta = tuning.confidence_radius(self.w, p.d, p.noise_sd, p.L, self.lam, float(self.options["S"]),
                                             1.0 / p.T)

    def run_on(self, eta, rng_factory, trace=None, check=False) -> trajectories.Trajectory:
        return trajectories.run_sw_ucb(self.problem, self.w, self.beta, self.lam, eta, rng_factory, trace, check)

    def tuning(self) -> dict:
        return {"window": self.w, "beta": self.beta, "lam": self.lam}


class BOB(SwucbAlgorithm):
    name = "BOB"
    summary = "bandit-over-bandit: EXP3 over SW-UCB windows per block (Cheung et al. 2019, Alg. 2)"
    defaults = {"lam": 1.0, "S": 1.0}

    def tune(self) -> None:
        self.lam = _positive(self, "lam")
        self.plan = trajectories.BOBPlan.of(self.problem, self.lam, float(self.options["S"]))

    def run_on(self, eta, rng_factory) -> trajectories.Trajectory:
        return trajectories.run_bob(self.problem, self.plan, self.lam, eta, rng_factory)

    def tuning(self) -> dict:
        pl = self.plan
        return {"H": pl.H, "Delta": pl.Delta, "J": list(pl.windows), "gamma": pl.gamma, "scale": pl.scale,
                "blocks": pl.n_blocks}


class EXP3S(SwucbAlgorithm):
    name = "EXP3.S"
    summary = "Exp3.S (Auer et al. 2002) with BGZ's tuning; variant exp3s|rexp3 (restarts), variation instance|budget"
    defaults = {"variant": "exp3s", "variation": "instance"}
    choices = {"variant": ("exp3s", "rexp3"), "variation": ("instance", "budget")}

    def tune(self) -> None:
        p, instance = self.problem, self.instance
        if self.options["variation"] == "budget":
            V = instance_budget(instance)
            if V is None:
                raise UserError("EXP3.S option variation=budget needs the nominal B_T, which this instance file "
                                "does not record (instances of family swucb_sinusoid do); use variation=instance")
        else:
            V = bgz_variation(p.means)
        self.V = V
        if self.options["variant"] == "rexp3":
            self.batch = tuning.rexp3_batch(p.T, p.K, V) if V > 0 else p.T
            self.gamma, self.alpha = tuning.rexp3_gamma(p.K, self.batch), 0.0
        else:
            self.batch, self.alpha = 0, 1.0 / p.T
            self.gamma = tuning.exp3s_gamma(p.T, p.K, V)

    def run_on(self, eta, rng_factory) -> trajectories.Trajectory:
        return trajectories.run_exp3s(self.problem, self.gamma, self.alpha, self.batch, eta, rng_factory)

    def tuning(self) -> dict:
        return {"V": self.V, "gamma": self.gamma, "alpha": self.alpha, "batch": self.batch}
