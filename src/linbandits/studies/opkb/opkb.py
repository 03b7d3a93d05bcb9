"""OPKB and ADA-OPKB (spec B) on a finite arm set with kernel features Phi (K = Phi Phi^T).

Blocks of 2^j E rounds; block 0 plays the D-design pi(X); before block j >= 1
the OP design on the gaps estimated from every round of the epoch gives
P^(j) = (1 - mu_j) ((1 - mix) P* + mix pi(A)) + mu_j pi(X) (the code's mixture).
ADA-OPKB replays earlier strategies inside a block (schedule.py) and, when a
replay interval ends, compares its gaps with the gaps stored at the block ends
of the epoch; a large difference restarts the epoch at the next round.

A block is simulated at once: its strategy of every round is known when it
starts, so arms and rewards are drawn in bulk; only the replay ends (where an
epoch may restart) cut it into pieces.
"""
from __future__ import annotations

import math

import numpy as np

from linbandits.studies.opkb import designs, schedule, streams
from linbandits.studies.opkb.features import features

MAX_DETECTIONS = 100      # the code restarts on detections 1..99 only


class KernelConstants:
    """Everything OPKB derives once from the features and the horizon (the code's values, spec B)."""

    def __init__(self, Phi: np.ndarray, T: int, options: dict):
        self.Phi = Phi
        self.N = Phi.shape[0]
        self.T = T
        o = options
        self.sigma = o["sigma"]
        self.lam = o["sigma"] / T
        self._held = {}
        solution = designs.d_design_solution(Phi, self.lam, start=self.uniform_leverage())
        self.pi = solution.P
        if solution.M is not None:       # leverage(pi) is the solver's last leverage matrix
            self._hold("pi_leverage", (self.pi,), solution.M)
        # exact(T) solves the D-design at sigma / T = lam: pi
        self.gamma_T = designs.InformationGain(Phi, T, o["sigma"], designs={self.lam: self.pi}).exact(T)
        log_term = math.log(8 * self.N * T * math.log2(T) / o["delta"])
        self.E = int(math.ceil(4 * self.gamma_T * log_term * o["e_scale"]))
        self.alpha = o["sigma"] / (4 * log_term)
        self.beta_scale, self.mu_scale, self.g_scale = o["beta_scale"], o["mu_scale"], o["g_scale"]
        self.eps_scale, self.mix = o.get("eps_scale", 0.0), o["mixture_probability"]
        self.j_star = int(o.get("j_star", 4))
        if self.mu(1) > 1:
            from linbandits.errors import UserError

            raise UserError(f"mu_scale = {self.mu_scale:g} makes mu_1 = {self.mu(1):.3g} > 1 (P^(1) would have "
                            "negative entries); use mu_scale <= 2.83")

    def epsilon(self, j: int) -> float:
        return (40 + 16 * math.sqrt(self.alpha)) * 0.5 * 2.0 ** (-j / 2)

    def beta(self, j: int) -> float:
        return 2 * self.gamma_T / self.epsilon(j) * self.beta_scale

    def mu(self, j: int) -> float:
        return 0.5 * 2.0 ** (-j / 2) * self.mu_scale

    def good_threshold(self, j: int) -> float:
        """A = {a: Dhat(a) <= this} for the OP of block j (the code's g_scale knob)."""
        return 2 * self.alpha * self.gamma_T / self.beta(j) * self.beta_scale * self.g_scale

    def refresh(self, indices, arms, ys) -> bool:
        """Called at every block end with the epoch's rounds; True if the features changed (OPNN)."""
        return False

    # Results computed once per features (OPNN's refresh() assigns new ones): a held value is kept with the
    # very objects it was computed from, so that their ids cannot be reused while it is held.
    def _get(self, key, objects):
        held = self._held.get((id(self.Phi), key))
        if held is not None and held[0] is self.Phi and all(a is b for a, b in zip(held[1], objects)):
            return held[2]
        return None

    def _hold(self, key, objects, value):
        self._held = {k: v for k, v in self._held.items() if v[0] is self.Phi}     # earlier features' go
        self._held[(id(self.Phi), key)] = (self.Phi, objects, value)
        return value

    def uniform_leverage(self) -> np.ndarray:
        """leverages at the uniform P, where every OP solve on these features starts."""
        held = self._get("uniform", ())
        return held if held is not None else self._hold("uniform", (), designs.uniform_leverages(self.Phi, self.lam))

    def leverage(self, P: np.ndarray) -> np.ndarray:
        """M = Phi S(P)^-1 Phi^T; pi's once per features (every epoch starts with it)."""
        if P is not self.pi:
            return designs.leverages(self.Phi, P, self.lam)
        held = self._get("pi_leverage", (P,))
        return held if held is not None else self._hold("pi_leverage", (P,), designs.leverages(self.Phi, P, self.lam))

    def good_design(self, good: np.ndarray) -> np.ndarray:
        """pi(A) on A's rows and columns of Phi (spec F10), solved once per set A and features."""
        key = ("good", good.tobytes())
        held = self._get(key, ())
        return held if held is not None else self._hold(key, (), designs.d_design(self.Phi[np.ix_(good, good)], self.lam))

    def next_strategy(self, gaps: np.ndarray, j: int) -> np.ndarray:
        """P^(j) from the epoch's gaps (block j >= 1)."""
        beta = self.beta(j)
        p_star = designs.solve_op_solution(self.Phi, gaps, beta, self.lam, start=self.uniform_leverage()).P
        good = gaps <= self.good_threshold(j)
        if good.all():
            p_good = self.pi
        elif good.sum() == 1:
            p_good = good.astype(float)
        else:
            # The code designs on Phi restricted to A's rows and columns (spec F10).
            p_good = np.zeros(self.N)
            p_good[good] = self.good_design(good)
        mu = self.mu(j)
        return (1 - mu) * (p_star * (1 - self.mix) + p_good * self.mix) + mu * self.pi


def ips_estimate(indices, arms, ys, leverage_of, N: int) -> np.ndarray:
    """Rhat_I = (1/|I|) sum_P M_P z_P, z_P[a] = sum of y over the rounds of I played from P with arm a."""
    total = np.zeros(N)
    for m in np.unique(indices):
        sel = indices == m
        total += leverage_of[int(m)] @ np.bincount(arms[sel], weights=ys[sel], minlength=N)
    return total / len(ys)


def gaps_of(estimate: np.ndarray) -> np.ndarray:
    return estimate.max() - estimate


def change_detected(interval_gaps, block_gaps: dict, m: int, j: int, c: KernelConstants) -> bool:
    """The code's test at the end of a replay of index m inside block j: for some stored block k
    (j_star <= k < j), max(Dhat_k - 4 Dhat_I, Dhat_I - 4 Dhat_k) > 4 eps_scale (e_k + e_m)/2."""
    for k in range(c.j_star, j):
        eps = (c.epsilon(k) + c.epsilon(m)) / 2
        diff = max(np.max(block_gaps[k] - 4 * interval_gaps), np.max(interval_gaps - 4 * block_gaps[k]))
        if diff / (4 * eps * c.eps_scale) > 1:
            return True
    return False


def run_opkb(instance, options: dict, seed: int, trial: int, adaptive: bool, constants=None):
    """One run: {regret, arms (of every round), restarts, blocks}."""
    T, N = instance.T, instance.N
    c = constants or KernelConstants(features(instance.arms, options["rbf_length"]), T, options)
    u_noise = streams.noise_uniforms(seed, trial, T)
    u_arm = streams.arm_uniforms(seed, trial, T)
    sched_rng = streams.generator(seed, trial, streams.SCHEDULE)
    rewards = instance.rewards
    regret = np.empty(T)
    played = np.empty(T, dtype=np.int64)
    best = rewards.max(axis=1)
    detections = restarts = blocks = 0
    t0 = 0                                   # 0-based index of the next round
    while t0 < T:
        # a new epoch
        strategies, leverage_of, block_gaps, block_ends = [c.pi], [c.leverage(c.pi)], {}, {}
        h_idx, h_arm, h_y = [], [], []
        j = 0
        restarted = False
        while t0 < T and not restarted:
            blocks += 1
            length = c.E * 2 ** j
            sched = schedule.draw_schedule(j, c.j_star, sched_rng) if adaptive and j > 0 else {}
            idx = schedule.round_indices(j, c.E, sched)
            n = min(length, T - t0)
            idx = idx[:n]
            arms = np.empty(n, dtype=np.int64)
            for m in np.unique(idx):
                sel = idx == m
                arms[sel] = streams.draw_arms(strategies[int(m)], u_arm[t0:t0 + n][sel])
            rounds = np.arange(t0, t0 + n)
            means = rewards[rounds, arms]
            ys = streams.observe(means, u_noise[t0:t0 + n], instance.noise_sd, options["noise"])
            regret[t0:t0 + n] = best[t0:t0 + n] - means
            played[t0:t0 + n] = arms
            used = n
            for end, m, slot in (schedule.replay_ends(j, c.E, sched) if adaptive else []):
                if end >= n:
                    break
                start = end + 1 - c.E * 2 ** m
                est = ips_estimate(idx[start:end + 1], arms[start:end + 1], ys[start:end + 1], leverage_of, N)
                if change_detected(gaps_of(est), block_gaps, m, j, c):
                    detections += 1
                    if detections < MAX_DETECTIONS:
                        restarts += 1
                        used = end + 1
                        restarted = True
                        break
            h_idx.append(idx[:used])
            h_arm.append(arms[:used])
            h_y.append(ys[:used])
            t0 += used
            if restarted or used < length:
                break
            all_idx, all_arm, all_y = (np.concatenate(h) for h in (h_idx, h_arm, h_y))
            block_ends[j] = len(all_y)
            if c.refresh(all_idx, all_arm, all_y):
                # New features (OPNN): every stored strategy's S^-1 and every stored block's gaps again.
                leverage_of = [c.leverage(P) for P in strategies]
                for k, end in block_ends.items():
                    block_gaps[k] = gaps_of(ips_estimate(all_idx[:end], all_arm[:end], all_y[:end], leverage_of, N))
            else:
                block_gaps[j] = gaps_of(ips_estimate(all_idx, all_arm, all_y, leverage_of, N))
            if t0 >= T:
                break
            j += 1
            P = c.next_strategy(block_gaps[j - 1], j)
            strategies.append(P)
            leverage_of.append(c.leverage(P))
    return {"regret": regret, "arms": played, "restarts": restarts, "blocks": blocks}
