"""Plain round-by-round OPNN / ADA-OPNN, written from the spec (sections B and E) alone.

The kernel oracle (opkb_oracle.py) with the features a network gives: one round at a time, and at the
end of every complete block the network is reset to its initial weights, trained by `steps` full-batch
gradient steps on the loss as the spec writes it, a sum over the epoch's rounds,

    L(W) = sum_s (f(x_s; W) - y_s)^2 / 2 + m lam ||W - W0||^2 / 2,   f = sqrt(m) g,

with the gradient from the explicit N x p Jacobian of g (no per-layer Gram identity, no per-arm means),
and the features become Phi = cholesky(J J^T). After new features: pi(X) again, every stored strategy's
S(P)^-1 and every stored block's gaps again (on the rounds up to that block's end), as the spec's
"the features change, so does everything computed from them". E, gamma_T and alpha stay those of the
initial network (the code computes them once). It reads the product's random streams (noise, arm and
schedule uniforms, the network's initial weights) and uses the product's design solvers, which are
tested on their own.
"""
from __future__ import annotations

import math

import numpy as np
from opkb_oracle import draw, gaps, noisy, s_inverse, stream

from linbandits.studies.opkb.designs import d_design, solve_op

NOISE, ARMS, SCHEDULE, NETWORK = 0, 1, 2, 3
DTYPES = {"float64": np.float64, "float32": np.float32}


class PlainNetwork:
    """g(x) = W_L relu(... relu(W_1 x)) with the explicit Jacobian of g in every weight."""

    def __init__(self, d, width, hidden, rng, dtype):
        shapes = [(width, d)] + [(width, width)] * hidden + [(1, width)]
        sd = math.sqrt(2.0 / width)
        self.dtype = dtype
        self.width = width
        self.initial = [(rng.standard_normal(s) * sd).astype(dtype) for s in shapes]
        self.weights = [w.copy() for w in self.initial]

    def output_and_jacobian(self, x):
        """(g(x), dg/dW flattened layer by layer) for one input x."""
        h = np.asarray(x, self.dtype)
        layer_inputs, masks = [], []
        for W in self.weights[:-1]:
            layer_inputs.append(h)
            z = W @ h
            masks.append((z > 0).astype(self.dtype))
            h = z * masks[-1]
        layer_inputs.append(h)
        out = float(self.weights[-1][0] @ h)
        # back-propagate dg/dz layer by layer, from the output (dg/dz_L = 1)
        grads = [np.outer(np.ones(1, self.dtype), layer_inputs[-1])]
        back = self.weights[-1][0]
        for W, mask, h_in in zip(reversed(self.weights[:-1]), reversed(masks), reversed(layer_inputs[:-1])):
            delta = back * mask
            grads.append(np.outer(delta, h_in))
            back = W.T @ delta
        return out, np.concatenate([g.ravel() for g in reversed(grads)])

    def jacobian(self, arms):
        return np.stack([self.output_and_jacobian(x)[1] for x in arms])

    def features(self, arms):
        J = self.jacobian(arms)
        gram = J @ J.T
        jitter = 0.0
        for _ in range(12):
            try:
                return np.linalg.cholesky(gram + jitter * np.eye(len(gram), dtype=gram.dtype)).astype(float)
            except np.linalg.LinAlgError:
                jitter = 1e-12 * np.trace(gram) / len(gram) if jitter == 0 else jitter * 10
        raise np.linalg.LinAlgError("Gram not positive definite")

    def train(self, arms, played, ys, steps, lr, lam):
        """Reset to W0, then `steps` gradient steps on the sum over the rounds (played[s], ys[s])."""
        self.weights = [w.copy() for w in self.initial]
        m = self.width
        root_m = math.sqrt(m)
        for _ in range(steps):
            outputs, J = zip(*(self.output_and_jacobian(x) for x in arms))
            outputs, J = np.array(outputs), np.stack(J)
            gradient = np.zeros(J.shape[1])
            for arm, y in zip(played, ys):
                gradient += (root_m * outputs[arm] - y) * root_m * J[arm]
            flat = np.concatenate([w.ravel() for w in self.weights])
            flat0 = np.concatenate([w.ravel() for w in self.initial])
            flat = flat - lr * (gradient + m * lam * (flat - flat0))
            sizes = np.cumsum([w.size for w in self.weights])[:-1]
            self.weights = [piece.reshape(w.shape).astype(self.dtype)
                            for piece, w in zip(np.split(flat, sizes), self.weights)]


def opnn_oracle(instance, options, seed, trial, adaptive):
    """(arm of every round, regret of every round, restarts)."""
    o = options
    T, N = instance.T, instance.N
    network = PlainNetwork(instance.arms.shape[1], o["width"], o["hidden"], stream(seed, trial, NETWORK),
                           DTYPES[o["precision"]])
    lr = o["lr"] if o["lr"] is not None else 2.048e-5 / o["width"]
    Phi = network.features(instance.arms)
    lam = o["sigma"] / T
    pi = d_design(Phi, lam)
    gamma_T = 0.5 * np.linalg.slogdet(np.eye(N) + (T / o["sigma"]) * Phi.T @ np.diag(pi) @ Phi)[1]
    log_term = math.log(8 * N * T * math.log2(T) / o["delta"])
    E = math.ceil(4 * gamma_T * log_term * o["e_scale"])
    alpha = o["sigma"] / (4 * log_term)
    j_star = o.get("j_star", 4)

    def eps(i):
        return (40 + 16 * math.sqrt(alpha)) * 0.5 * 2 ** (-i / 2)

    def beta(i):
        return 2 * gamma_T / eps(i) * o["beta_scale"]

    u_noise = stream(seed, trial, NOISE).random(T)
    u_arm = stream(seed, trial, ARMS).random(T)
    coins_rng = stream(seed, trial, SCHEDULE)
    arms_played, regret = [], []
    detections = restarts = 0
    new_epoch = True
    for t in range(1, T + 1):
        if new_epoch:
            strategies, inverses, block_gaps, block_ends, history = [pi], [s_inverse(Phi, pi, lam)], {}, {}, []
            j, block_start, coins = 0, t, {}
            new_epoch = False
        offset = t - block_start
        index = j
        for m in sorted(coins):
            if coins[m][offset // (E * 2 ** m)]:
                index = m
                break
        arm = draw(strategies[index], u_arm[t - 1])
        mean = instance.rewards[t - 1, arm]
        y = noisy(mean, u_noise[t - 1], instance.noise_sd, o["noise"])
        arms_played.append(arm)
        regret.append(instance.rewards[t - 1].max() - mean)
        history.append((index, arm, y))
        restart = False
        for m in sorted(coins):
            length = E * 2 ** m
            if (offset + 1) % length == 0 and coins[m][(offset + 1) // length - 1]:
                interval = gaps(Phi, history[-length:], inverses)
                for k in range(j_star, j):
                    e = (eps(k) + eps(m)) / 2
                    worst = max(np.max(block_gaps[k] - 4 * interval), np.max(interval - 4 * block_gaps[k]))
                    if worst > 4 * e * o["eps_scale"]:
                        restart = True
                        break
                if restart:
                    break
        if restart:
            detections += 1
            if detections < 100:
                restarts += 1
                new_epoch = True
                continue
        if offset + 1 == E * 2 ** j:
            block_ends[j] = len(history)
            if o["steps"] > 0:
                network.train(instance.arms, [a for _, a, _ in history], [y for _, _, y in history],
                              o["steps"], lr, o["lam"])
                Phi = network.features(instance.arms)
                pi = d_design(Phi, lam)
                inverses = [s_inverse(Phi, P, lam) for P in strategies]
                for k, end in block_ends.items():
                    block_gaps[k] = gaps(Phi, history[:end], inverses)
            else:
                block_gaps[j] = gaps(Phi, history, inverses)
            j += 1
            D = block_gaps[j - 1]
            p_star = solve_op(Phi, D, beta(j), lam)
            good = D <= 2 * alpha * gamma_T / beta(j) * o["beta_scale"] * o["g_scale"]
            if good.all():
                p_good = pi
            elif good.sum() == 1:
                p_good = good.astype(float)
            else:
                p_good = np.zeros(N)
                p_good[good] = d_design(Phi[good][:, good], lam)
            mu = 0.5 * 2 ** (-j / 2) * o["mu_scale"]
            mix = o["mixture_probability"]
            P = (1 - mu) * ((1 - mix) * p_star + mix * p_good) + mu * pi
            strategies.append(P)
            inverses.append(s_inverse(Phi, P, lam))
            block_start = t + 1
            coins = {}
            if adaptive:
                for m in range(j_star, j):
                    coins[m] = coins_rng.random(2 ** (j - m)) < math.sqrt(2 ** (m - j))
    return np.array(arms_played), np.array(regret), restarts
