"""The two-armed sinusoidal instance of Sec. 7, and the variation of a theta sequence.

theta_t = (0.5 + 0.3 sin(5 B_T pi t/T), 0.5 + 0.3 sin(pi + 5 B_T pi t/T)), t = 1..T,
arms e_1, e_2; B_T = 1 (Fig. 1) or T^(1/3) (Fig. 2). The nominal B_T travels in
the instance's metadata: the known-B_T windows need it.
"""
from __future__ import annotations

import numpy as np

from linbandits.errors import UserError
from linbandits.problems.linear import LinearInstance

BUDGETS = ("constant", "cuberoot")


def nominal_budget(budget: str, T: int) -> float:
    """B_T of the experiment: 1 (Fig. 1) or T^(1/3) (Fig. 2), real-valued."""
    if budget == "constant":
        return 1.0
    if budget == "cuberoot":
        return float(T) ** (1.0 / 3.0)
    raise UserError(f"instance swucb_sinusoid: budget={budget!r} is not valid; choose one of {', '.join(BUDGETS)}")


def sinusoid_thetas(T: int, budget_value: float) -> np.ndarray:
    t = np.arange(1, T + 1, dtype=float)
    phase = 5.0 * budget_value * np.pi * t / T
    return np.column_stack([0.5 + 0.3 * np.sin(phase), 0.5 + 0.3 * np.sin(np.pi + phase)])


def swucb_sinusoid(*, T: int = 30000, budget: str = "constant", noise_sd: float = 0.1) -> LinearInstance:
    """Sec. 7's two-armed bandit {e_1, e_2} with sinusoidal theta_t; budget constant (B_T = 1) or cuberoot (T^(1/3))."""
    if T < 2:
        raise UserError(f"instance swucb_sinusoid: T={T} is too short; give T >= 2")
    B = nominal_budget(budget, T)
    return LinearInstance(name=f"swucb_sinusoid[T={T},budget={budget}]", X=np.eye(2),
                          thetas=sinusoid_thetas(T, B), noise_sd=float(noise_sd),
                          meta={"family": "swucb_sinusoid", "budget": budget, "B_T": B})


swucb_sinusoid.setting_choices = {"budget": BUDGETS}


def total_variation(thetas: np.ndarray) -> float:
    """sum_{t<T} ||theta_{t+1} - theta_t||_2 (eq. 1)."""
    return float(np.linalg.norm(np.diff(thetas, axis=0), axis=1).sum())


def bgz_variation(means: np.ndarray) -> float:
    """Besbes-Gur-Zeevi's variation sum_t max_k |mu_{t+1,k} - mu_{t,k}| of the arms' means (T x K)."""
    return float(np.abs(np.diff(means, axis=0)).max(axis=1).sum())


def instance_budget(instance) -> float | None:
    """The nominal B_T an instance file records, or None (a user's file)."""
    value = instance.meta.get("B_T") if isinstance(instance.meta, dict) else None
    return None if value is None else float(value)
