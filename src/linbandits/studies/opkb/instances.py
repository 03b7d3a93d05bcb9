"""The arm-rewards instance kind (N arms, a mean reward per arm and round) and the paper's environments.

An instance file of this kind is an .npz with `arms` (N x d), `rewards` (T x N: row t-1 holds the
mean reward of every arm at round t) and a scalar `noise_sd`. The families draw the instances as the
authors' code drew them (spec C): one legacy numpy stream seeded by the run's seed s,
A = randn(N, d) normalised to the unit sphere, then the reward vector.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from linbandits.errors import UserError

NOISE_BOUND = 1.0     # the code's reward_bound: |y| <= 1 under truncated noise


@dataclasses.dataclass(frozen=True)
class ArmRewardsInstance:
    kind = "arm_rewards"
    required = ("arms", "rewards", "noise_sd")
    optional = ()
    file_settings = ()

    name: str
    arms: np.ndarray
    rewards: np.ndarray
    noise_sd: float
    meta: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        validate(self.arms, self.rewards, self.noise_sd, where=self.name)

    @property
    def N(self) -> int:
        return self.arms.shape[0]

    @property
    def d(self) -> int:
        return self.arms.shape[1]

    @property
    def T(self) -> int:
        return self.rewards.shape[0]

    @classmethod
    def from_arrays(cls, arrays: dict, name: str, meta: dict, settings: dict, where: str):
        for label in cls.required:
            arr = arrays[label]
            if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
                raise UserError(f"{where}: {label} must hold real numbers, got dtype {arr.dtype}")
        validate(arrays["arms"], arrays["rewards"], arrays["noise_sd"], where=where)
        return cls(name=name, arms=arrays["arms"].astype(float), rewards=arrays["rewards"].astype(float),
                   noise_sd=float(arrays["noise_sd"]), meta=meta)

    def to_arrays(self) -> dict:
        return {"arms": np.asarray(self.arms, float), "rewards": np.asarray(self.rewards, float),
                "noise_sd": np.float64(self.noise_sd)}

    def summary(self) -> dict:
        best = self.rewards.max(axis=1)
        return {"name": self.name, "N": self.N, "d": self.d, "T": self.T, "noise_sd": self.noise_sd,
                "max_abs_reward": float(np.abs(self.rewards).max()),
                "changes": int(np.sum(np.any(self.rewards[1:] != self.rewards[:-1], axis=1))),
                "mean_best_reward": float(best.mean()), "meta": self.meta}


def validate(arms, rewards, noise_sd, where: str) -> None:
    arms, rewards = np.asarray(arms), np.asarray(rewards)
    if arms.ndim != 2:
        raise UserError(f"{where}: arms must be an N x d matrix, got shape {arms.shape}")
    if arms.shape[0] < 2:
        raise UserError(f"{where}: need at least 2 arms, arms has {arms.shape[0]} row(s)")
    if rewards.ndim != 2 or rewards.shape[1] != arms.shape[0]:
        raise UserError(f"{where}: rewards must be T x N with N = {arms.shape[0]} (the rows of arms), "
                        f"got shape {rewards.shape}")
    if rewards.shape[0] < 1:
        raise UserError(f"{where}: rewards has no rows (T must be at least 1)")
    for label, arr in (("arms", arms), ("rewards", rewards)):
        if not np.all(np.isfinite(arr)):
            raise UserError(f"{where}: {label} contains NaN or inf; every entry must be a finite number")
    sd = np.asarray(noise_sd)
    if sd.ndim != 0 or not np.isfinite(sd) or sd < 0:
        raise UserError(f"{where}: noise_sd must be a finite scalar >= 0, got {noise_sd!r}")


# ------------------------------------------------------------------ families

def rbf_gram(arms: np.ndarray, length: float) -> np.ndarray:
    """k(x, x') = exp(-||x - x'||^2 / (2 length^2)) (sklearn's RBF, as the authors used)."""
    sq = np.sum(arms ** 2, axis=1)
    dist = np.maximum(sq[:, None] + sq[None, :] - 2.0 * arms @ arms.T, 0.0)
    np.fill_diagonal(dist, 0.0)
    return np.exp(-dist / (2.0 * length ** 2))


def sphere_arms(state: np.random.RandomState, N: int, d: int) -> np.ndarray:
    arms = state.randn(N, d)
    return arms / np.sqrt(np.square(arms).sum(axis=1))[:, np.newaxis]


def kernel_reward_vector(seed: int, N: int, d: int, rbf_length: float, max_reward: float):
    """The authors' kernel bandit: A on the sphere, r ~ N(0, K), scaled so max|r| = max_reward."""
    state = np.random.RandomState(seed)
    arms = sphere_arms(state, N, d)
    r = state.multivariate_normal(np.zeros(N), rbf_gram(arms, rbf_length))
    return arms, r / np.max(np.abs(r)) * max_reward


def switching(seed, N, d, T, rbf_length, max_reward, noise_sd, switches, label):
    arms, r = kernel_reward_vector(seed, N, d, rbf_length, max_reward)
    # Round t uses r times (-1)^(number of switch times s < t): the code's `switch_time >= t`.
    rounds = np.arange(1, T + 1)
    flips = np.searchsorted(np.asarray(switches), rounds, side="left")
    signs = np.where(flips % 2 == 0, 1.0, -1.0)
    return ArmRewardsInstance(name=f"{label}[seed={seed}]", arms=arms, rewards=signs[:, None] * r[None, :],
                              noise_sd=noise_sd,
                              meta={"family": label, "seed": seed, "switches": list(switches),
                                    "rbf_length": rbf_length})


def opkb_env1(*, seed: int = 0, N: int = 100, d: int = 10, T: int = 10000, switch: int = 3000,
              rbf_length: float = 0.2, max_reward: float = 0.8, noise_sd: float = 0.1) -> ArmRewardsInstance:
    """Env 1 (Fig. 1a): RBF kernel bandit, reward sign flipped after round `switch`."""
    return switching(seed, N, d, T, rbf_length, max_reward, noise_sd, [switch], "opkb_env1")


def opkb_env2(*, seed: int = 0, N: int = 100, d: int = 10, T: int = 10000, switch1: int = 1500,
              switch2: int = 5000, rbf_length: float = 0.2, max_reward: float = 0.8,
              noise_sd: float = 0.1) -> ArmRewardsInstance:
    """Env 2 (Fig. 1b): RBF kernel bandit, r, -r, r with switches after switch1 and switch2."""
    return switching(seed, N, d, T, rbf_length, max_reward, noise_sd, [switch1, switch2], "opkb_env2")


def cosine_draw(seed: int, N: int, d: int):
    state = np.random.RandomState(seed)
    arms = sphere_arms(state, N, d)
    theta = state.randn(d)
    theta /= np.sqrt(np.square(theta).sum())
    return arms, theta, state


def opkb_cosine(*, seed: int = 0, N: int = 256, d: int = 8, T: int = 10000, amplitude: float = 0.8,
                frequency: float = 3.0, phase: str = "0", noise_sd: float = 0.1) -> ArmRewardsInstance:
    """App. J.2 stationary cosine bandit r(x) = 0.8 cos(3 x^T theta + phase); phase 0 or 'random'."""
    arms, theta, state = cosine_draw(seed, N, d)
    if phase == "random":          # the code's configs without a phase: U[0, 2 pi) from the same stream
        value = state.rand() * 2 * np.pi
    else:
        try:
            value = float(phase) * np.pi   # the code's phase setting is in units of pi
        except ValueError:
            raise UserError(f"instance opkb_cosine: phase={phase!r} must be a number (units of pi) "
                            "or 'random'") from None
    r = np.cos(arms @ theta * frequency + value) * amplitude
    return ArmRewardsInstance(name=f"opkb_cosine[seed={seed}]", arms=arms, rewards=np.tile(r, (T, 1)),
                              noise_sd=noise_sd, meta={"family": "opkb_cosine", "seed": seed, "phase": value})


def slow_phase(t: int) -> float:
    """The J.3 phase at round t: 0 until 1000, linear to pi at 3000, pi until 4000, to 2 pi at 6000."""
    if t < 1000:
        return 0.0
    if t < 3000:
        return (t - 1000) * math.pi / 2000
    if t < 4000:
        return math.pi
    if t < 6000:
        return (t - 4000) * math.pi / 2000 + math.pi
    return 2 * math.pi


def opkb_cosine_slow(*, seed: int = 0, N: int = 100, d: int = 10, T: int = 10000, amplitude: float = 0.8,
                     frequency: float = 3.0, noise_sd: float = 0.1) -> ArmRewardsInstance:
    """App. J.3 slowly varying cosine bandit: the phase moves 0 -> pi (rounds 1000-3000), pi -> 2 pi (4000-6000)."""
    arms, theta, _ = cosine_draw(seed, N, d)
    phases = np.array([slow_phase(t) for t in range(1, T + 1)])
    rewards = np.cos((arms @ theta)[None, :] * frequency + phases[:, None]) * amplitude
    return ArmRewardsInstance(name=f"opkb_cosine_slow[seed={seed}]", arms=arms, rewards=rewards,
                              noise_sd=noise_sd, meta={"family": "opkb_cosine_slow", "seed": seed})
