"""Plain round-by-round OPNN / ADA-OPNN, written from the spec (sections B and E) alone.

The kernel oracle (opkb_oracle.py) with the features a network gives: one round at a time, and at the
end of every complete block the network is reset to its initial weights, trained by `steps` full-batch
gradient steps on the loss as the spec writes it, a sum over the epoch's rounds,

    L(W) = sum_s (f(x_s; W) - y_s)^2 / 2 + m lam ||W - W0||^2 / 2,   f = sqrt(m) g,

with the gradient from the explicit N x p Jacobian of g (no per-layer Gram identity, no per-arm means),
and the features become Phi = cholesky(J J^T). After new features: pi(X) again, every stored strategy's
S(P)^-1 and every stored block's gaps again (on the rounds up to that block's end): whatever was
computed from the old features is computed from the new ones. E, gamma_T and alpha stay those of the
initial network (the code computes them once). It reads the product's random streams (noise, arm and
schedule uniforms, the network's initial weights) and uses the product's design solvers, which are
tested on their own.
"""
from __future__ import annotations

import math

import numpy as np
from opkb_oracle import opkb_oracle, stream

NETWORK = 3
DTYPES = {"float64": np.float64, "float32": np.float32}


class PlainNetwork:
    """g(x) = W_L relu(... relu(W_1 x)) with the explicit Jacobian of g in every weight."""

    def __init__(self, d, width, hidden, rng, dtype, steps=0, lam=0.0, lr=0.0):
        self.steps, self.lam, self.lr = steps, lam, lr
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

    def train(self, arms, played, ys):
        """Reset to W0, then `steps` gradient steps on the sum over the rounds (played[s], ys[s])."""
        steps, lr, lam = self.steps, self.lr, self.lam
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
    """(arm of every round, regret of every round, restarts): the kernel oracle on the network's features."""
    o = options
    network = PlainNetwork(instance.arms.shape[1], o["width"], o["hidden"], stream(seed, trial, NETWORK),
                           DTYPES[o["precision"]], steps=o["steps"], lam=o["lam"],
                           lr=o["lr"] if o["lr"] is not None else 2.048e-5 / o["width"])
    return opkb_oracle(instance, options, seed, trial, adaptive, network=network)
