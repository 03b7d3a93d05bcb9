"""The numpy network of OPNN: per-layer Gram = explicit Jacobian Gram, gradients = finite differences,
parameter counts of spec G5, and OPNN0 = OPKB on the initial network's features."""
import numpy as np
import pytest

from linbandits.studies.opkb import designs, opkb
from linbandits.studies.opkb.instances import opkb_env1
from linbandits.studies.opkb.neural import ReluNetwork, network_features, neural_constants, step_size


def small_network(seed=0):
    return ReluNetwork(3, 8, 3, np.random.default_rng(seed))


def test_per_layer_gram_equals_the_explicit_jacobian_gram():
    net = small_network()
    net.weights[2] += 0.1                  # away from the initial point, as after training
    X = np.random.default_rng(1).standard_normal((7, 3))
    J = net.jacobian(X)
    assert J.shape == (7, net.n_parameters) == (7, 3 * 8 + 3 * 64 + 8)
    assert np.max(np.abs(J @ J.T - net.gradient_gram(X))) <= 1e-12 * np.abs(J @ J.T).max()


def test_jacobian_is_the_gradient_by_finite_differences():
    net = small_network(2)
    X = np.random.default_rng(3).standard_normal((4, 3))
    J = net.jacobian(X)
    offsets = np.cumsum([0] + [w.size for w in net.weights])
    rng = np.random.default_rng(4)
    for layer in range(len(net.weights)):
        W = net.weights[layer]
        k = int(rng.integers(W.size))
        i, j = np.unravel_index(k, W.shape)
        W[i, j] += 1e-6
        up = net.forward(X)[0]
        W[i, j] -= 2e-6
        down = net.forward(X)[0]
        W[i, j] += 1e-6
        assert np.allclose((up - down) / 2e-6, J[:, offsets[layer] + k], atol=1e-7)


def loss(net, X, n, ybar, lam):
    f = np.sqrt(net.width) * net.forward(X)[0]
    penalty = sum(np.sum((W - W0) ** 2) for W, W0 in zip(net.weights, net.initial))
    return np.sum(n * (f - ybar) ** 2) / 2 + net.width * lam * penalty / 2


def test_one_gradient_step_follows_the_loss_gradient():
    net = small_network(5)
    net.weights[1] += 0.05               # a non-zero penalty gradient too
    X = np.random.default_rng(6).standard_normal((5, 3))
    n, ybar, lam, lr = np.array([1.0, 3, 0, 2, 5]), np.array([0.1, -0.3, 0.0, 0.5, 0.2]), 0.5, 1e-7
    before = [w.copy() for w in net.weights]
    net.train(X, n, ybar, steps=1, lr=lr, lam=lam)
    moved = [(b - w) / lr for b, w in zip(before, net.weights)]
    net.weights = [b.copy() for b in before]
    for layer, (i, j) in ((0, (1, 2)), (2, (3, 4)), (4, (0, 5))):
        W = net.weights[layer]
        W[i, j] += 1e-6
        up = loss(net, X[n > 0], n[n > 0], ybar[n > 0], lam)
        W[i, j] -= 2e-6
        down = loss(net, X[n > 0], n[n > 0], ybar[n > 0], lam)
        W[i, j] += 1e-6
        assert moved[layer][i, j] == pytest.approx((up - down) / 2e-6, rel=1e-4, abs=1e-6)


def test_parameter_counts_of_spec_g5():
    rng = np.random.default_rng(0)
    assert ReluNetwork(10, 512, 3, rng).n_parameters == 792_064
    assert 10 * 2048 + 3 * 2048 ** 2 + 2048 == 12_605_440       # m = 2048 (not built: 100 MB)


def test_step_size_keeps_eta_times_width():
    assert step_size({"lr": None, "width": 2048}) == pytest.approx(1e-8)
    assert step_size({"lr": None, "width": 512}) == pytest.approx(4e-8)
    assert step_size({"lr": 3e-9, "width": 512}) == 3e-9


def test_opnn0_is_opkb_on_the_initial_networks_features():
    inst = opkb_env1(seed=0, N=15, d=4, T=1500, switch=600)
    options = dict(noise="truncated", sigma=100.0, beta_scale=50.0, mu_scale=0.2, e_scale=0.005, g_scale=0.1,
                   mixture_probability=0.2, delta=1e-4, width=16, hidden=3, steps=0, lr=None, lam=10.0,
                   eps_scale=0.02, j_star=2, precision="float32")
    constants, network = neural_constants(inst.arms, inst.T, options, 3, 0)
    fixed = opkb.KernelConstants(network_features(network, inst.arms), inst.T, options)
    a = opkb.run_opkb(inst, options, 3, 0, True, constants)
    b = opkb.run_opkb(inst, options, 3, 0, True, fixed)
    assert np.array_equal(a["arms"], b["arms"]) and a["restarts"] == b["restarts"]
    trained, _ = neural_constants(inst.arms, inst.T, {**options, "steps": 5, "lr": 1e-4}, 3, 0)
    c = opkb.run_opkb(inst, options, 3, 0, True, trained)
    assert not np.array_equal(a["arms"], c["arms"])             # training changes the features, hence the play


def test_held_results_follow_the_new_features(monkeypatch):
    """OPNN's refresh() replaces the features and pi at every block end: what KernelConstants holds per features
    (pi's leverage, the solver's uniform start, pi(A)) must not outlive them: a run holding them equals a run
    computing everything afresh, and after every refresh the held values are those of the new features
    (the planted stale hold: test_opkb_engine_vs_oracle.py)."""
    inst = opkb_env1(seed=1, N=15, d=4, T=1500, switch=600)
    options = dict(noise="truncated", sigma=100.0, beta_scale=50.0, mu_scale=0.2, e_scale=0.005, g_scale=0.1,
                   mixture_probability=0.2, delta=1e-4, width=16, hidden=3, steps=5, lr=1e-4, lam=10.0,
                   eps_scale=0.02, j_star=2, precision="float32")

    def run(get):
        """The run, and whether the held values were those of the current features after every refresh."""
        monkeypatch.setattr(opkb.KernelConstants, "_get", get)
        c, _ = neural_constants(inst.arms, inst.T, options, 3, 0)
        checks = []
        refresh = c.refresh

        def checked(*args):
            changed = refresh(*args)
            uniform = np.full(len(c.Phi), 1.0 / len(c.Phi))
            checks.append(np.array_equal(c.leverage(c.pi), designs.leverages(c.Phi, c.pi, c.lam))
                          and np.array_equal(c.uniform_leverage(), designs.leverages(c.Phi, uniform, c.lam)))
            return changed

        c.refresh = checked
        return opkb.run_opkb(inst, options, 3, 0, True, c), checks

    (held, checks), (afresh, _) = run(opkb.KernelConstants._get), run(lambda self, key, objects: None)
    assert np.array_equal(held["arms"], afresh["arms"]) and held["blocks"] == afresh["blocks"]
    assert len(checks) >= 5 and all(checks)


# ------------------------------------------------------------------ issue 39's exact speed-ups

def test_fused_weight_update_equals_the_numpy_expression_bit_for_bit(monkeypatch):
    """train() updates the weights in place (neural.descend) with numpy's operations in numpy's order: the
    same network as the update of eaafa4c (solver_reference.descend) after many steps; a reordered update
    (planted) is seen."""
    import solver_reference

    from linbandits.studies.opkb import neural

    X = np.random.default_rng(8).standard_normal((40, 5))
    n = np.random.default_rng(9).integers(0, 4, 40).astype(float)
    ybar = np.random.default_rng(10).uniform(-0.5, 0.5, 40)

    def trained(update):
        monkeypatch.setattr(neural, "descend", update)
        net = ReluNetwork(5, 64, 3, np.random.default_rng(11))
        net.train(X, n, ybar, steps=30, lr=2.048e-5 / 64, lam=10.0)
        return [w.view(np.int64) for w in net.weights]

    fused, before = trained(neural.descend), trained(solver_reference.descend)

    def reordered(W, W0, grad, lr, decay):          # planted: lr distributed over the sum (other roundings)
        W -= lr * grad + lr * decay * (W - W0)

    planted = trained(reordered)
    assert all(np.array_equal(a, b) for a, b in zip(fused, before))
    assert not all(np.array_equal(a, b) for a, b in zip(planted, before))


def opnn0_run(inst, options, retrain: bool):
    """OPNN0's run, and how many times its features were computed; retrain: refresh as before issue 39 (reset,
    train 0 steps, new features and pi at every block end) instead of keeping the initial ones."""
    from linbandits.studies.opkb import neural

    computed = []
    real = neural.network_features

    def counted(*args):
        computed.append(1)
        return real(*args)

    neural.network_features = counted
    try:
        constants, _ = neural_constants(inst.arms, inst.T, options, 5, 0)
        constants.trains = retrain
        return opkb.run_opkb(inst, options, 5, 0, True, constants), len(computed)
    finally:
        neural.network_features = real


def test_opnn0_keeps_its_features_with_the_same_run_as_refreshing_them():
    inst = opkb_env1(seed=2, N=40, d=4, T=3000, switch=1200)
    options = dict(noise="truncated", sigma=100.0, beta_scale=50.0, mu_scale=0.2, e_scale=0.005, g_scale=0.1,
                   mixture_probability=0.2, delta=1e-4, width=32, hidden=3, steps=0, lr=None, lam=10.0,
                   eps_scale=0.02, j_star=2, precision="float32")
    (kept, once), (refreshed, every_block) = opnn0_run(inst, options, False), opnn0_run(inst, options, True)
    assert once == 1 and every_block > 10                     # the old path refreshed at every block end
    assert np.array_equal(kept["regret"].view(np.int64), refreshed["regret"].view(np.int64))
    assert np.array_equal(kept["arms"], refreshed["arms"]) and kept["restarts"] == refreshed["restarts"]
    assert kept["restarts"] >= 1                               # the run restarts: the stored gaps are read


# ------------------------------------------------------------------ precision (float32 default, float64 switch)

def test_float32_network_draws_the_same_weights_and_computes_in_float32():
    from linbandits.studies.opkb import algorithms, neural

    assert algorithms.PRECISIONS == tuple(neural.PRECISIONS)
    X = np.random.default_rng(12).standard_normal((30, 5))
    X /= np.linalg.norm(X, axis=1)[:, None]
    n = np.random.default_rng(13).integers(0, 5, 30).astype(float)
    ybar = np.random.default_rng(14).uniform(-0.5, 0.5, 30)
    nets = {p: ReluNetwork(5, 64, 3, np.random.default_rng(15), dtype) for p, dtype in neural.PRECISIONS.items()}
    single, double = nets["float32"], nets["float64"]
    assert all(a.dtype == np.float32 and np.array_equal(a, b.astype(np.float32))
               for a, b in zip(single.initial, double.initial))              # the float64 draws, rounded
    for net in nets.values():
        net.train(X, n, ybar, steps=20, lr=2.048e-5 / 64, lam=10.0)
    assert all(w.dtype == np.float32 for w in single.weights)
    assert single.gradient_gram(X).dtype == np.float32
    # float32 arithmetic, not float64 rounded at the end: close to the float64 network but not its rounding
    moved = [(w - w0) for w, w0 in zip(double.weights, double.initial)]
    assert all(np.max(np.abs(m)) > 0 for m in moved)
    assert all(np.allclose(a, b, rtol=1e-3, atol=1e-5) for a, b in zip(single.weights, double.weights))
    assert not all(np.array_equal(a, b.astype(np.float32)) for a, b in zip(single.weights, double.weights))
    features = {p: network_features(net, X) for p, net in nets.items()}
    assert all(f.dtype == np.float64 for f in features.values())            # the OP design solves in float64
    gram32, gram64 = (features[p] @ features[p].T for p in ("float32", "float64"))
    assert np.max(np.abs(gram32 - gram64)) <= 1e-4 * np.max(np.abs(gram64))
    assert not np.array_equal(features["float32"], features["float64"])
