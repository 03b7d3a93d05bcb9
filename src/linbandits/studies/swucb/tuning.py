"""Every tuned constant of SW-UCB, BOB and EXP3.S (spec section 2), as plain functions.

The engines look these up at call time (module attributes), so the planted
bugs of tests/swucb can replace one and watch the exact replay fail.
"""
from __future__ import annotations

import math

from linbandits.errors import UserError

# Window rules of SW-UCB (spec section 2; `window=N` sets w directly).
WINDOW_RULES = ("agnostic", "known", "eq12", "corrected")
# Arms whose UCB index is within this of the maximum tie (spec section 2, DEFAULT).
TIE_TOLERANCE = 1e-9


def window_agnostic(T: int, d: int) -> int:
    """B_T unknown (Sec. 5.1): w = floor((dT)^(2/3))."""
    return max(1, math.floor((d * T) ** (2.0 / 3.0)))


def window_known(T: int, d: int, budget: float) -> int:
    """B_T known (Sec. 5.1, Thm 3): w = floor((dT)^(2/3) B_T^(-2/3))."""
    return max(1, math.floor((d * T) ** (2.0 / 3.0) * budget ** (-2.0 / 3.0)))


def window_eq12(T: int, d: int, budget: float) -> int:
    """Eq. (12): w = floor((dT)^(2/3) (B_T + 1)^(-2/3)), a different number from Thm 3's."""
    return max(1, math.floor((d * T) ** (2.0 / 3.0) * (budget + 1.0) ** (-2.0 / 3.0)))


def window_corrected(T: int, d: int, budget: float) -> int:
    """The erratum's window (spec section 7): w_c = floor(sqrt(dT / (B_T + 1)))."""
    return max(1, math.floor(math.sqrt(d * T / (budget + 1.0))))


def sliding_window(rule, T: int, d: int, budget: float | None) -> int:
    """The window of a rule name, or an explicit integer window."""
    if isinstance(rule, int):
        if rule < 1:
            raise UserError(f"SW-UCB option window={rule}: a window must be at least 1 round")
        return rule
    if rule == "agnostic":
        return window_agnostic(T, d)
    if budget is None:
        raise UserError(f"SW-UCB option window={rule} needs the nominal variation budget B_T, which this "
                        "instance file does not record (instances of family swucb_sinusoid do); "
                        "give window=agnostic or window=N instead")
    return {"known": window_known, "eq12": window_eq12, "corrected": window_corrected}[rule](T, d, budget)


def parse_window(raw) -> int | str:
    """The `window` option: a rule name or a positive integer."""
    text = str(raw).strip()
    if text in WINDOW_RULES:
        return text
    if text.isdigit() and int(text) >= 1:
        return int(text)
    raise UserError(f"SW-UCB option window={raw!r} is not valid; give one of {', '.join(WINDOW_RULES)} "
                    "or a whole number of rounds >= 1")


def confidence_radius(w: int, d: int, R: float, L: float, lam: float, S: float, delta: float) -> float:
    """beta of eq. (5): R sqrt(d ln((1 + w L^2/lam)/delta)) + sqrt(lam) S (w, not the window's fill)."""
    return R * math.sqrt(d * math.log((1.0 + w * L * L / lam) / delta)) + math.sqrt(lam) * S


# ------------------------------------------------------------------- BOB

def bob_block_length(T: int, d: int) -> int:
    """H = floor(d^(2/3) T^(1/2)) (eq. 22)."""
    return max(1, math.floor(d ** (2.0 / 3.0) * math.sqrt(T)))


def bob_delta(H: int) -> int:
    """Delta = ceil(ln H), natural log (at least 1, so that J has two windows)."""
    return max(1, math.ceil(math.log(H)))


def bob_windows(H: int, Delta: int) -> list[int]:
    """J = {floor(H^(j/Delta)) : j = 0..Delta}; a repeated value stays a separate EXP3 arm."""
    return [math.floor(H ** (j / Delta)) for j in range(Delta + 1)]


def bob_gamma(T: int, H: int, Delta: int) -> float:
    """EXP3 exploration rate min{1, sqrt((Delta+1) ln(Delta+1) / ((e-1) ceil(T/H)))} (eq. 23)."""
    n = Delta + 1
    return min(1.0, math.sqrt(n * math.log(n) / ((math.e - 1.0) * math.ceil(T / H))))


def bob_reward_scale(T: int, H: int, R: float) -> float:
    """The block reward's denominator 2H + 4R sqrt(H ln(T/sqrt H)) (eq. 25; H even for a short last block)."""
    return 2.0 * H + 4.0 * R * math.sqrt(H * math.log(T / math.sqrt(H)))


# ------------------------------------------------------------------- EXP3.S

def exp3s_gamma(T: int, K: int, V: float) -> float:
    """BGZ's tuning: min{1, (4 V K ln(KT) / ((e-1)^2 T))^(1/3)}."""
    return min(1.0, (4.0 * V * K * math.log(K * T) / ((math.e - 1.0) ** 2 * T)) ** (1.0 / 3.0))


def rexp3_batch(T: int, K: int, V: float) -> int:
    """Rexp3's restart period Delta_T = ceil((K ln K)^(1/3) (T/V)^(2/3))."""
    return math.ceil((K * math.log(K)) ** (1.0 / 3.0) * (T / V) ** (2.0 / 3.0))


def rexp3_gamma(K: int, batch: int) -> float:
    """Rexp3's rate min{1, sqrt(K ln K / ((e-1) Delta_T))}."""
    return min(1.0, math.sqrt(K * math.log(K) / ((math.e - 1.0) * batch)))
