"""The six algorithms of spec section B, written round by round.

Everything is deliberately literal and unoptimised: one Python iteration per
pulled arm, one pseudo-inverse per design change.  Rounds are 0-indexed and
the reward of round t is x_{i_t}^T thetas[t] + noise.
"""

import math

import numpy as np

from .frank_wolfe import g_design, xy_design

ALGORITHMS = ("G-BAI", "P1-RAGE", "P1-Peace", "Peace", "Mixed-Peace", "OD-LinBAI")


# ---------------------------------------------------------------- helpers


class RandomStream:
    """The random numbers of one trial, drawn from a numpy Generator.

    Every algorithm reads its randomness only through these four methods, so
    a test can pass any object with the same methods instead (an injected
    stream that the fast engine reads too) and compare whole trials exactly.
    """

    def __init__(self, rng, noise="gaussian"):
        if noise not in ("gaussian", "bounded"):
            raise ValueError(f"unknown noise model {noise!r}")
        self.rng, self.noise_model = rng, noise

    def arm(self, t, lam):
        """The arm pulled at round t by i.i.d. sampling from design lam."""
        return int(self.rng.choice(len(lam), p=lam))

    def noise(self, t):
        """Unit-sd noise of the pull of round t."""
        if self.noise_model == "gaussian":
            return self.rng.standard_normal()
        return 1.0 if self.rng.random() < 0.5 else -1.0

    def permutation(self, items, start):
        """items (arm indices) in a uniformly random order, pulled from round start."""
        return self.rng.permutation(items)

    def integer(self, n):
        return int(self.rng.integers(n))


def pull(X, thetas, t, arm, stream, noise_sd):
    return float(X[arm] @ thetas[t]) + noise_sd * stream.noise(t)


class DesignLog:
    """What a trial pulled from: per round the i.i.d. design, or per batch
    (start round, pull counts per arm). Lets a test compare designs."""

    def __init__(self, T, K):
        self.per_round = np.full((T, K), np.nan)
        self.batches = []

    def round(self, t, lam):
        self.per_round[t] = lam

    def batch(self, start, counts):
        self.batches.append((int(start), np.array(counts, dtype=int)))


def ips_inverse(X, lam):
    """Sigma(lam)^{-1}, the pseudo-inverse of X^T diag(lam) X."""
    return np.linalg.pinv(X.T @ np.diag(lam) @ X)


def ranked_positions(values):
    """Positions 0..n-1 by value, largest first; equal values in decreasing
    position (spec F: the published runs reverse an ascending index-order
    sort, so among ties the higher index comes first)."""
    return sorted(range(len(values)), key=lambda j: (float(values[j]), j), reverse=True)


def sort_by_estimate(X, arms, theta_hat):
    """Arms by x^T theta_hat, largest first, equal estimates in decreasing arm index."""
    arms = sorted(int(a) for a in arms)
    return [arms[j] for j in ranked_positions([X[k] @ theta_hat for k in arms])]


def n_epochs(X):
    """ceil(log2(rho(all arms))), never fewer than one epoch."""
    _, rho_all = xy_design(X, range(len(X)))
    if rho_all <= 0:
        return 1
    return max(1, math.ceil(math.log2(rho_all)))


def epoch_length(X, T):
    """E = floor(T / n_epochs)."""
    return T // n_epochs(X)


def epoch_sizes(X, T):
    """n_epochs epochs of E rounds; the last one takes what is left of T."""
    count = n_epochs(X)
    E = T // count
    return [E] * (count - 1) + [T - E * (count - 1)]


def halving_prefix(X, sorted_arms, rho_S):
    """Longest prefix S[:k] with rho(S[:k]) <= rho_S / 2, by the spec's binary search.

    The search assumes rho grows with the prefix; prefix length 1 always
    qualifies (rho = 0), so at least the first arm survives.
    """
    threshold = rho_S / 2
    lower, upper = 1, len(sorted_arms)
    while upper - lower > 1:
        mid = (lower + upper) // 2
        _, rho_mid = xy_design(X, sorted_arms[:mid])
        if rho_mid > threshold:
            upper = mid
        else:
            lower = mid
    return list(sorted_arms[:lower])


def efficient_rounding(w, N):
    """Integer allocation of N samples following design w (spec section B).

    Only the support (w_k > 0) receives samples; arms outside it get 0.
    """
    w = np.asarray(w, dtype=float)
    support = np.flatnonzero(w > 0)
    p = len(support)
    counts = np.zeros(len(w), dtype=int)
    counts[support] = np.ceil((N - p / 2) * w[support]).astype(int)
    while counts.sum() != N:
        if counts.sum() < N:
            k = support[np.argmin(counts[support] / w[support])]
            counts[k] += 1
        else:
            k = support[np.argmax((counts[support] - 1) / w[support])]
            counts[k] -= 1
    return counts


def ols(features, rewards, dim):
    """Least squares with a pseudo-inverse; zero estimate when there is no data."""
    gram = np.zeros((dim, dim))
    moment = np.zeros(dim)
    for a, r in zip(features, rewards):
        gram += np.outer(a, a)
        moment += a * r
    return np.linalg.pinv(gram) @ moment


# ------------------------------------------------------ virtual eliminations


def rage_elimination(X, theta_hat, G, m=15, first_threshold=0.5):
    """RAGE-Elimination: average XY designs of virtually shrinking sets, mixed with G.

    After the i-th design (i counted from 1) the kept arms are those whose
    estimated gap to the estimated best arm is <= first_threshold * 2^{-(i-1)}.
    """
    X = np.asarray(X, dtype=float)
    active = sort_by_estimate(X, range(len(X)), theta_hat)
    best_value = float(X[active[0]] @ theta_hat)
    design_sum = np.zeros(len(X))
    i = 0
    while len(active) > 1 and i < m:
        lam_S, _ = xy_design(X, active)
        design_sum += lam_S
        i += 1
        threshold = first_threshold * 2.0 ** (-(i - 1))
        active = [k for k in active if best_value - float(X[k] @ theta_hat) <= threshold]
    return (design_sum / i + G) / 2


def peace_elimination(X, theta_hat, G):
    """Peace-Elimination: average XY designs of halving prefixes, mixed with G."""
    X = np.asarray(X, dtype=float)
    active = sort_by_estimate(X, range(len(X)), theta_hat)
    design_sum = np.zeros(len(X))
    iterations = 0
    while len(active) > 1:
        lam_S, rho_S = xy_design(X, active)
        design_sum += lam_S
        iterations += 1
        active = halving_prefix(X, active, rho_S)
    return (design_sum / iterations + G) / 2


# ------------------------------------------------------------- algorithms


def run_g_bai(X, thetas, stream, noise_sd, log):
    return run_p1(X, thetas, stream, noise_sd, log, eliminate=None)


def run_p1(X, thetas, stream, noise_sd, log, eliminate, update="batched"):
    """Shared loop of G-BAI (eliminate=None), P1-RAGE and P1-Peace."""
    T = len(thetas)
    G, _ = g_design(X)
    # With T < n_epochs the spec's E would be 0; updating every round is the
    # only reading that keeps "after t = 0, E, 2E, ..." meaningful.
    E = max(1, epoch_length(X, T)) if eliminate is not None else None
    lam = G
    sigma_inv = ips_inverse(X, lam)
    ips_sum = np.zeros(X.shape[1])
    theta_hat = np.zeros(X.shape[1])
    for t in range(T):
        log.round(t, lam)
        arm = stream.arm(t, lam)
        reward = pull(X, thetas, t, arm, stream, noise_sd)
        ips_sum += sigma_inv @ X[arm] * reward
        theta_hat = ips_sum / (t + 1)
        if eliminate is None:
            continue
        if update == "every_round" or t % E == 0:
            lam = eliminate(theta_hat)
            sigma_inv = ips_inverse(X, lam)
    recommended = int(np.argmax(X @ theta_hat))
    return {"recommended": recommended, "theta_hat": theta_hat}


def run_peace(X, thetas, stream, noise_sd, log):
    """Peace: per-epoch XY design, rounded batch, OLS on the epoch, halving prefix."""
    T, K = len(thetas), len(X)
    sizes = epoch_sizes(X, T)
    active = list(range(K))
    theta_hat = None
    t = 0
    for epoch, size in enumerate(sizes):
        if len(active) == 1:
            break
        lam, rho_S = xy_design(X, active)
        counts = efficient_rounding(lam, size)
        log.batch(t, counts)
        features, rewards = [], []
        for arm in stream.permutation(np.repeat(np.arange(K), counts), t):
            if t >= T:
                break
            features.append(X[arm])
            rewards.append(pull(X, thetas, t, arm, stream, noise_sd))
            t += 1
        theta_hat = ols(features, rewards, X.shape[1])
        if epoch < len(sizes) - 1:
            active = halving_prefix(X, sort_by_estimate(X, active, theta_hat), rho_S)
    if len(active) == 1:
        recommended = active[0]
    else:
        recommended = max(active, key=lambda k: float(X[k] @ theta_hat))
    return {"recommended": int(recommended), "theta_hat": theta_hat}


def run_mixed_peace(X, thetas, stream, noise_sd, log):
    """Mixed-Peace: Peace's epochs and eliminations, i.i.d. sampling and IPS."""
    T, K = len(thetas), len(X)
    G, _ = g_design(X)
    sizes = epoch_sizes(X, T)
    active = list(range(K))
    ips_sum = np.zeros(X.shape[1])
    theta_hat = np.zeros(X.shape[1])
    t = 0
    for epoch, size in enumerate(sizes):
        # xy_design of a single arm is the uniform design, which gives the
        # spec's (uniform + G) / 2 once only one arm is left.
        lam_S, rho_S = xy_design(X, active)
        lam = (lam_S + G) / 2
        sigma_inv = ips_inverse(X, lam)
        for _ in range(size):
            log.round(t, lam)
            arm = stream.arm(t, lam)
            reward = pull(X, thetas, t, arm, stream, noise_sd)
            ips_sum += sigma_inv @ X[arm] * reward
            t += 1
            theta_hat = ips_sum / t
        if len(active) > 1 and epoch < len(sizes) - 1:
            active = halving_prefix(X, sort_by_estimate(X, active, theta_hat), rho_S)
    recommended = int(np.argmax(X @ theta_hat))
    return {"recommended": recommended, "theta_hat": theta_hat}


def od_linbai_budget_per_epoch(K, d, T):
    """m = (T - min(K, d(d+1)/2) - sum_{r=1}^{n_ep-1} ceil(d/2^r)) / n_ep."""
    n_ep = max(1, math.ceil(math.log2(d)))
    reserve = min(K, d * (d + 1) / 2) + sum(math.ceil(d / 2**r) for r in range(1, n_ep))
    return n_ep, (T - reserve) / n_ep


def project_if_rank_dropped(A, dim):
    """Express the active arms in their top-rank right singular basis when rank < dim."""
    rank = int(np.linalg.matrix_rank(A))
    if rank >= dim:
        return A, dim
    _, _, Vt = np.linalg.svd(A)
    return A @ Vt[:rank].T, rank


def run_od_linbai(X, thetas, stream, noise_sd, log):
    """OD-LinBAI (Yang and Tan 2022) as the published runs implement it."""
    T, (K, d) = len(thetas), X.shape
    n_ep, m = od_linbai_budget_per_epoch(K, d, T)
    if m <= 0:
        return {"recommended": stream.integer(K), "theta_hat": None}

    # Row j of A is arm active[j] in the current coordinates; after each
    # elimination the rows follow the ranking (spec F), not the arm index.
    active = list(range(K))
    A, dim = X.copy(), d
    t = 0
    for r in range(1, n_ep + 1):
        if len(active) == 1:
            break
        A, dim = project_if_rank_dropped(A, dim)
        pi, _ = g_design(A)
        counts = np.ceil(pi * m).astype(int)
        per_arm = np.zeros(K, dtype=int)
        per_arm[active] = counts
        log.batch(t, per_arm)
        row_of = {arm: j for j, arm in enumerate(active)}
        features, rewards = [], []
        for arm in stream.permutation(np.repeat(np.arange(K), per_arm), t):
            if t >= T:
                break
            features.append(A[row_of[arm]])
            rewards.append(pull(X, thetas, t, arm, stream, noise_sd))
            t += 1
        estimates = A @ ols(features, rewards, dim)
        kept_rows = ranked_positions(estimates)[:math.ceil(d / 2**r)]
        active = [active[j] for j in kept_rows]
        A = A[kept_rows]
    return {"recommended": int(active[0]), "theta_hat": None}


# ------------------------------------------------------------ entry point


def run_trial(name, X, thetas, noise_sd, rng, noise="gaussian", **options):
    """Run one trial of algorithm `name`; thetas is T x d, one row per round.

    rng: a numpy Generator, or a stream with RandomStream's methods (then
    `noise` is the stream's business). Returns the recommended arm, the
    final estimate (None for OD-LinBAI) and the DesignLog.
    """
    X = np.asarray(X, dtype=float)
    thetas = np.asarray(thetas, dtype=float)
    stream = RandomStream(rng, noise) if isinstance(rng, np.random.Generator) else rng
    log = DesignLog(len(thetas), len(X))
    out = _run(name, X, thetas, noise_sd, stream, log, options)
    out["log"] = log
    return out


def _run(name, X, thetas, noise_sd, stream, log, options):
    if name == "G-BAI":
        _no_options(name, options)
        return run_g_bai(X, thetas, stream, noise_sd, log)
    if name == "P1-RAGE":
        m = options.pop("m", 15)
        first_threshold = options.pop("first_threshold", 0.5)
        update = _update_option(options)
        _no_options(name, options)
        G, _ = g_design(X)

        def eliminate(theta_hat):
            return rage_elimination(X, theta_hat, G, m=m, first_threshold=first_threshold)

        return run_p1(X, thetas, stream, noise_sd, log, eliminate, update)
    if name == "P1-Peace":
        update = _update_option(options)
        _no_options(name, options)
        G, _ = g_design(X)
        return run_p1(X, thetas, stream, noise_sd, log,
                      lambda theta_hat: peace_elimination(X, theta_hat, G), update)
    runners = {"Peace": run_peace, "Mixed-Peace": run_mixed_peace, "OD-LinBAI": run_od_linbai}
    if name in runners:
        _no_options(name, options)
        return runners[name](X, thetas, stream, noise_sd, log)
    raise ValueError(f"unknown algorithm {name!r}")


def _update_option(options):
    update = options.pop("update", "batched")
    if update not in ("batched", "every_round"):
        raise ValueError(f"unknown update rule {update!r}")
    return update


def _no_options(name, options):
    if options:
        raise TypeError(f"{name} takes no options {sorted(options)}")
