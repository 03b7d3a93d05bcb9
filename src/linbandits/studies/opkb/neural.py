"""The bias-free ReLU network of OPNN (spec B, E) in numpy: forward, backward, gradient descent, and the
neural-tangent features of every arm from the per-layer Gram identity.

f(x; W) = sqrt(m) g(x; W), g(x; W) = W_L relu(W_{L-1} ... relu(W_1 x)): the code's network has
W_1 (m x d), `hidden` layers m x m and W_L (1 x m), all i.i.d. N(0, 2/m) at initialisation.
The features are the gradients of the unscaled g; their Gram is, layer by layer,
  <dg(x)/dW_l, dg(x')/dW_l> = (delta_l(x) . delta_l(x')) (h_{l-1}(x) . h_{l-1}(x'))
(delta_l: dg/d(pre-activation of layer l), h_{l-1}: the layer's input), so
G G^T = sum_l (Delta_l Delta_l^T) * (H_{l-1} H_{l-1}^T) from one batched forward and backward pass,
without the N x p Jacobian (p = 792,064 parameters at m = 512, 12.6 million at 2048).

precision: the network's arithmetic (weights, training, Gram, its Cholesky factor), float32 (the authors'
code; the default) or float64. The same initial draws either way (float64 draws, rounded); the features
go to the OP design in float64 (docs/protocols/opkb.md).
"""
from __future__ import annotations

import numpy as np

from linbandits.jit import njit

PRECISIONS = {"float64": np.float64, "float32": np.float32}


class ReluNetwork:
    def __init__(self, d: int, width: int, hidden: int, rng: np.random.Generator, dtype=np.float64):
        shapes = [(width, d)] + [(width, width)] * hidden + [(1, width)]
        sd = np.sqrt(2.0 / width)
        self.width = width
        self.dtype = np.dtype(dtype)
        self.initial = [(rng.standard_normal(s) * sd).astype(self.dtype, copy=False) for s in shapes]
        self.weights = [w.copy() for w in self.initial]

    @property
    def n_parameters(self) -> int:
        return sum(w.size for w in self.weights)

    def reset(self) -> None:
        self.weights = [w.copy() for w in self.initial]

    def forward(self, X: np.ndarray):
        """(g(x) for every row of X, the inputs of every layer, the pre-activations)."""
        inputs, pre = [], []
        h = np.asarray(X, self.dtype)
        for W in self.weights[:-1]:
            inputs.append(h)
            z = h @ W.T
            pre.append(z)
            h = np.maximum(z, 0.0)
        inputs.append(h)
        return (h @ self.weights[-1].T)[:, 0], inputs, pre

    def deltas(self, pre) -> list[np.ndarray]:
        """dg/d(pre-activation) of every layer for every row (the last layer's is 1)."""
        out = [np.ones((pre[0].shape[0], 1), self.dtype)]
        back = np.repeat(self.weights[-1], pre[0].shape[0], axis=0)          # dg/dh of the last hidden layer
        for W, z in zip(reversed(self.weights[:-1]), reversed(pre)):
            delta = back * (z > 0)
            out.append(delta)
            back = delta @ W
        return out[::-1]

    def gradient_gram(self, X: np.ndarray) -> np.ndarray:
        """G G^T of the gradients of g at the rows of X, by the per-layer identity."""
        _, inputs, pre = self.forward(X)
        gram = np.zeros((len(X), len(X)), self.dtype)
        for delta, h in zip(self.deltas(pre), inputs):
            gram += (delta @ delta.T) * (h @ h.T)
        return gram

    def jacobian(self, X: np.ndarray) -> np.ndarray:
        """The explicit N x p Jacobian of g (for tests on small networks only)."""
        _, inputs, pre = self.forward(X)
        blocks = [np.einsum("ni,nj->nij", delta, h).reshape(len(X), -1)
                  for delta, h in zip(self.deltas(pre), inputs)]
        return np.hstack(blocks)

    def train(self, arms: np.ndarray, counts: np.ndarray, means: np.ndarray, steps: int, lr: float, lam: float):
        """J full-batch gradient steps on sum_a n_a (f(a) - ybar_a)^2 / 2 + m lam ||W - W0||^2 / 2
        (the code's per-arm aggregation of sum_s (f(x_s) - y_s)^2 / 2: the same gradient)."""
        played = counts > 0
        X, n, ybar = arms[played], counts[played].astype(self.dtype), means[played].astype(self.dtype)
        # in float64 the same Python floats as before; in float32 float32 scalars (no silent float64 upcast)
        root_m, lr, decay = (self.dtype.type(v) if self.dtype != np.float64 else v
                             for v in (np.sqrt(self.width), lr, self.width * lam))
        for _ in range(steps):
            g, inputs, pre = self.forward(X)
            residual = n * (root_m * g - ybar) * root_m                      # dLoss/dg per arm
            deltas = self.deltas(pre)
            grads = [(delta * residual[:, None]).T @ h for delta, h in zip(deltas, inputs)]
            for W, W0, grad in zip(self.weights, self.initial, grads):
                descend(W, W0, grad, lr, decay)


@njit(cache=True)
def descend(W, W0, grad, lr, decay):
    """W -= lr * (grad + decay * (W - W0)) in place, entry by entry: numpy's expression made the same
    operations in the same order (so the same W bit for bit, tests/opkb/test_opkb_neural.py) through four
    temporaries of W's size: 0.25 -> 0.08 ms a 512 x 512 layer in float64 (0.14 -> 0.03 in float32; 100
    steps x 5 layers at every block end)."""
    for i in range(W.shape[0]):
        for j in range(W.shape[1]):
            W[i, j] -= lr * (grad[i, j] + decay * (W[i, j] - W0[i, j]))


def network_features(network: ReluNetwork, arms: np.ndarray) -> np.ndarray:
    """Phi = cholesky(G G^T) (the code's feature map) in the network's precision, with the smallest jitter that
    factors it; returned in float64 (what the OP design solves in)."""
    gram = network.gradient_gram(arms)
    jitter = 0.0
    for _ in range(12):
        try:
            return np.linalg.cholesky(gram + jitter * np.eye(len(gram), dtype=gram.dtype)).astype(float, copy=False)
        except np.linalg.LinAlgError:
            jitter = 1e-12 * np.trace(gram) / len(gram) if jitter == 0 else jitter * 10
    raise np.linalg.LinAlgError("neural tangent Gram is not positive definite")


STEP_TIMES_WIDTH = 2.048e-5     # the code's eta = 1e-8 at m = 2048; kept fixed when the width changes (spec E)


def step_size(options: dict) -> float:
    return options["lr"] if options["lr"] is not None else STEP_TIMES_WIDTH / options["width"]


def neural_constants(arms: np.ndarray, T: int, options: dict, seed: int, trial: int):
    """OPKB's constants on the features of the initial network; refresh() trains it at every block end."""
    from linbandits.studies.opkb import designs, streams
    from linbandits.studies.opkb.opkb import KernelConstants

    network = ReluNetwork(arms.shape[1], options["width"], options["hidden"],
                          streams.generator(seed, trial, streams.NETWORK), PRECISIONS[options["precision"]])
    lr = step_size(options)

    class NeuralConstants(KernelConstants):
        def refresh(self, indices, played, ys) -> bool:
            if not self.trains:
                # No training (OPNN0): the reset network's features, pi and every held value would be computed
                # again bit for bit the same (tests/opkb/test_opkb_neural.py): keep them.
                return False
            # Reset to W0 and train on every round of the epoch (the code), then new features and pi(X).
            network.reset()
            counts = np.bincount(played, minlength=len(arms)).astype(float)
            sums = np.bincount(played, weights=ys, minlength=len(arms))
            means = np.divide(sums, counts, out=np.zeros(len(arms)), where=counts > 0)
            network.train(arms, counts, means, options["steps"], lr, options["lam"])
            self.Phi = network_features(network, arms)
            self.pi = designs.d_design_solution(self.Phi, self.lam, start=self.uniform_leverage()).P
            return True

    constants = NeuralConstants(network_features(network, arms), T, options)
    constants.trains = options["steps"] > 0
    return constants, network
