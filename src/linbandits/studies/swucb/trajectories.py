"""One run (a Trajectory) of SW-UCB, BOB or EXP3.S: random streams, state, and the calls into the kernels.

Streams (spec section 3, DEFAULT; linbandits.streams): run `trial` of a job
seeded `seed` draws its noise matrix eta[t, k] (T x K) from
generator(seed, trial, 0) = SeedSequence([seed, trial, 0]), the same for every
algorithm of the setting (and for every switch run of the experiment, which
has the base's seeds), so all series of a repetition see the same noise; the
algorithm's own draws come from generator(seed, trial, tag of the algorithm):
  SW-UCB  the tie-breaking uniforms, used one per tie, in order;
  BOB     one uniform per block (the window index, by inverse CDF), then the
          tie-breaking uniforms of its SW-UCB;
  EXP3.S  one uniform per round (the arm, by inverse CDF).
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from linbandits.streams import generator
from linbandits.studies.swucb import kernels, tuning

NOISE_TAG = 0
ALGORITHM_TAGS = {"SW-UCB": 1, "BOB": 2, "EXP3.S": 3}
FIRST_TIE_BUFFER = 64


def noise_matrix(instance, seed: int, trial: int, out: np.ndarray | None = None) -> np.ndarray:
    """eta[t, k]: the noise arm k would give at round t, in units of noise_sd.

    `out` (T x K floats) is filled instead of a new array: a run at T = 240000 would otherwise
    map, fault in and free 3.8 MB; the values are the same either way."""
    rng = generator(seed, trial, NOISE_TAG)
    shape = (instance.T, instance.K)
    if instance.noise == "bounded":
        return 2.0 * rng.integers(0, 2, size=shape).astype(float) - 1.0
    if out is None or out.shape != shape:
        return rng.standard_normal(shape)
    return rng.standard_normal(out=out)


def algorithm_rng(name: str, seed: int, trial: int) -> np.random.Generator:
    return generator(seed, trial, ALGORITHM_TAGS[name])


@dataclasses.dataclass
class Problem:
    """What every run of an instance shares: arms, means, best mean per round, R, L."""

    X: np.ndarray
    means: np.ndarray   # T x K
    best: np.ndarray    # T
    noise_sd: float
    L: float

    @classmethod
    def of(cls, instance) -> "Problem":
        X = np.ascontiguousarray(instance.X, dtype=float)
        means = np.ascontiguousarray(instance.thetas @ X.T)
        return cls(X=X, means=means, best=means.max(axis=1), noise_sd=float(instance.noise_sd),
                   L=float(np.linalg.norm(X, axis=1).max()))

    @property
    def T(self) -> int:
        return self.means.shape[0]

    @property
    def K(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.X.shape[1]


@dataclasses.dataclass
class Trajectory:
    """One run in full: its regret at T and every arm played (what the exact replays compare)."""

    regret: float
    arms: np.ndarray
    block_choices: np.ndarray | None = None   # BOB: the EXP3 arm j of every block
    drift: float = 0.0                         # largest |theta_hat incremental - from scratch| (check runs)


class SWState:
    """A SW-UCB learner's memory: FIFO of the window's rounds, V, b, counters."""

    def __init__(self, d: int, lam: float, capacity: int):
        self.V = lam * np.eye(d)
        self.b = np.zeros(d)
        self.fifo_arm = np.zeros(capacity, dtype=np.int64)
        self.fifo_y = np.zeros(capacity)
        self.ctr = np.zeros(4, dtype=np.int64)   # head, count, pushes, tie draws used


def fresh_sw_ucb_state(d: int, lam: float, capacity: int, previous: SWState | None = None) -> SWState:
    """A learner with no data (BOB starts one at every block); `previous` is emptied and reused."""
    if previous is None or previous.fifo_arm.shape[0] != capacity:
        return SWState(d, lam, capacity)
    previous.V[...] = 0.0
    previous.V.flat[::d + 1] = lam
    previous.b[...] = 0.0
    previous.ctr[...] = 0
    return previous


def _rounds(problem, state, eta, t0, t1, w, beta, lam, tie_u, regret, arms, trace, check, drift):
    return kernels.sw_ucb_rounds(problem.X, problem.means, problem.best, eta, problem.noise_sd, t0, t1, w, beta,
                                 lam, tuning.TIE_TOLERANCE, state.V, state.b, state.fifo_arm, state.fifo_y,
                                 state.ctr, tie_u, regret, arms, trace, check, drift)


def run_sw_ucb(problem: Problem, w: int, beta: float, lam: float, eta, rng_factory, trace=None,
               check=False) -> Trajectory:
    """SW-UCB over the whole horizon; rng_factory() gives a fresh algorithm stream."""
    trace = np.zeros((0, problem.K)) if trace is None else trace
    n_ties = FIRST_TIE_BUFFER
    while True:
        tie_u = rng_factory().random(n_ties)
        state = fresh_sw_ucb_state(problem.d, lam, w + 1)
        arms = np.empty(problem.T, dtype=np.int64)
        drift = np.zeros(1)
        regret, _, status = _rounds(problem, state, eta, 0, problem.T, w, beta, lam, tie_u, 0.0, arms,
                                    trace, check, drift)
        if status == kernels.OK:
            return Trajectory(regret=regret, arms=arms, drift=float(drift[0]))
        n_ties *= 8


@dataclasses.dataclass(frozen=True)
class BOBPlan:
    """H, Delta, J, gamma and the reward scale of BOB for one horizon (eqs. 22-25)."""

    T: int
    H: int
    Delta: int
    windows: tuple
    gamma: float
    scale: float
    betas: tuple

    @property
    def n_blocks(self) -> int:
        return math.ceil(self.T / self.H)

    @classmethod
    def of(cls, problem: Problem, lam: float, S: float) -> "BOBPlan":
        T, d = problem.T, problem.d
        H = tuning.bob_block_length(T, d)
        Delta = tuning.bob_delta(H)
        J = tuning.bob_windows(H, Delta)
        betas = tuple(tuning.confidence_radius(w, d, problem.noise_sd, problem.L, lam, S, 1.0 / T) for w in J)
        return cls(T=T, H=H, Delta=Delta, windows=tuple(J), gamma=tuning.bob_gamma(T, H, Delta),
                   scale=tuning.bob_reward_scale(T, H, problem.noise_sd), betas=betas)


def run_bob(problem: Problem, plan: BOBPlan, lam: float, eta, rng_factory) -> Trajectory:
    n_ties = plan.n_blocks + FIRST_TIE_BUFFER
    while True:
        rng = rng_factory()
        block_u = rng.random(plan.n_blocks)
        tie_u = rng.random(n_ties)
        run = _bob_once(problem, plan, lam, eta, block_u, tie_u)
        if run is not None:
            return run
        n_ties *= 8


def _bob_once(problem, plan, lam, eta, block_u, tie_u):
    n_arms = plan.Delta + 1
    log_s = [0.0] * n_arms
    arms = np.empty(problem.T, dtype=np.int64)
    choices = np.empty(plan.n_blocks, dtype=np.int64)
    empty_trace = np.zeros((0, problem.K))
    drift = np.zeros(1)
    regret = 0.0
    used = 0
    state = None
    for i in range(plan.n_blocks):
        top = max(log_s)
        s = [math.exp(v - top) for v in log_s]
        total = sum(s)
        p = [(1.0 - plan.gamma) * sj / total + plan.gamma / n_arms for sj in s]
        j = n_arms - 1
        cum = 0.0
        for k in range(n_arms):
            cum += p[k]
            if block_u[i] < cum:
                j = k
                break
        choices[i] = j
        w = plan.windows[j]
        state = fresh_sw_ucb_state(problem.d, lam, plan.H + 1, previous=state)
        state.ctr[3] = used
        t0, t1 = i * plan.H, min((i + 1) * plan.H, problem.T)
        regret, G, status = _rounds(problem, state, eta, t0, t1, w, plan.betas[j], lam, tie_u, regret, arms,
                                    empty_trace, False, drift)
        if status != kernels.OK:
            return None
        used = int(state.ctr[3])
        log_s[j] += plan.gamma / (n_arms * p[j]) * (0.5 + G / plan.scale)
    return Trajectory(regret=regret, arms=arms, block_choices=choices)


def run_exp3s(problem: Problem, gamma: float, alpha: float, batch: int, eta, rng_factory) -> Trajectory:
    u = rng_factory().random(problem.T)
    arms = np.empty(problem.T, dtype=np.int64)
    regret = kernels.exp3s_rounds(problem.means, problem.best, eta, problem.noise_sd, gamma, alpha, batch, u, arms)
    return Trajectory(regret=regret, arms=arms)

