"""LinGapE, XY-static, XY-adaptive and XY-oracle (spec section 2), each once.

Each class drives the compiled pull loops of linbandits.studies.lingape.kernels
and returns one Records row per run: recommended, correct, stopping_time (every
pull, the K initial ones included) and pulls_0 .. pulls_{K-1}. Run i reads only
the streams of (seed, i) (linbandits.studies.lingape.streams, through linbandits.streams) and, for XY-static
and XY-adaptive, reward-free arm sequences that every run shares.
"""
from __future__ import annotations

import math

import numpy as np

from linbandits.errors import UserError
from linbandits.study import Algorithm, Records
from linbandits.studies.lingape import kernels as kn
from linbandits.studies.lingape import streams
from linbandits.studies.lingape.instances import REWARD_GAUSSIAN

DRAW_BLOCK = 1 << 16
REFRESH = 100_000          # re-inversion period against round-off drift (spec DEFAULT)
NO_LIMIT = 10 ** 12
KINDS = ("bai", "bai_armsets")


def draw_block(rng: np.random.Generator, reward_kind: int, size: int) -> np.ndarray:
    """The next `size` per-pull draws of a run: standard normals or uniforms."""
    return rng.standard_normal(size) if reward_kind == REWARD_GAUSSIAN else rng.random(size)


def all_pairs(K: int):
    """Every unordered pair i < j: (pi, pj, pid) with pid[i, j] = pid[j, i] = the pair's index."""
    pi = np.array([i for i in range(K) for j in range(i + 1, K)], dtype=np.int64)
    pj = np.array([j for i in range(K) for j in range(i + 1, K)], dtype=np.int64)
    pid = np.full((K, K), -1, dtype=np.int64)
    pid[pi, pj] = np.arange(len(pi))
    pid[pj, pi] = np.arange(len(pi))
    return pi, pj, pid


def state_after_initial_pulls(X, Y, lam):
    """G, D, W, T after the K initial pulls (arms 0..K-1 in order) and X A^{-1}, log det A."""
    K = X.shape[0]
    T = np.ones(K, dtype=np.int64)
    G, D, W = np.empty((K, K)), np.empty((K, len(Y))), np.empty(len(Y))
    XZ, logdet = kn.fresh_state(G, D, W, T, X, np.ascontiguousarray(Y, dtype=float), lam)
    return G, D, W, T, XZ, logdet


def initial_rewards(X, means, draws, reward_kind, noise_sd):
    """b = sum of x_a r_a over the K initial pulls."""
    rewards = np.array([kn.reward_of(means[a], draws[a], reward_kind, noise_sd) for a in range(X.shape[0])])
    return X.T @ rewards


def min_gap_of(means: np.ndarray) -> float:
    """Delta_min of one arm set: the smallest true gap mu_best - mu_i over the arms other than the best
    (the first index of the max; a second best arm tied with it gives 0)."""
    return float(np.min(np.delete(means.max() - means, np.argmax(means))))


EPSILON_WORDS = ("instance", "half_gap")


def epsilon_setting(raw):
    """LinGapE's `epsilon` option as 'instance', 'half_gap' or a finite number >= 0; anything else is one
    UserError line."""
    value = raw
    if isinstance(raw, str):
        if raw in EPSILON_WORDS:
            return raw
        try:
            value = float(raw)
        except ValueError:
            value = None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (math.isfinite(value) and value >= 0):
        raise UserError(f"LinGapE option epsilon={raw!r} is not allowed; choose instance (the instance's epsilon, "
                        f"0 by default; the scratch form: Delta_min), half_gap (Delta_min/2, the published "
                        f"Table 1 run) or a number >= 0")
    return float(value)


def lingape_epsilon(setting, form: str, means: np.ndarray, instance_eps: float) -> float:
    """The eps of LinGapE's stopping rule B(t) <= eps for one arm set (true means `means`).

    'instance': what each form did before the option existed: the paper form the instance's epsilon
    (0 unless its file says otherwise), the scratch form Delta_min (the authors' LinGapE.py hard-codes
    epsilon = 2 (1 - cos 0.01), Exp. 1's Delta_min). 'half_gap': Delta_min / 2 in either form (the
    authors' LinUgapE.py, the published Table 1 run: epsilon = theta^T (x_1 - x_K) / 2 with the TRUE
    theta, which is Delta_min / 2 on Exps. 1 and 2). A number: that eps."""
    if setting == "instance":
        return min_gap_of(means) if form == "scratch" else float(instance_eps)
    if setting == "half_gap":
        return 0.5 * min_gap_of(means)
    return float(setting)


def correct_arm(means: np.ndarray, arm: int, eps: float) -> bool:
    """a_hat is a best arm, or its gap is < eps (spec section 1)."""
    return bool(means[arm] == means.max() or means.max() - means[arm] < eps)


class LingapeAlgorithm(Algorithm):
    """The study's algorithms run many runs at once (`run_many`): XY-static's runs share one reward-free
    arm sequence, XY-adaptive's runs share their phase sequences, XY-oracle is computed once per arm set,
    and LinGapE records the log det A_t points and eps of every run in the sidecar."""

    kinds = KINDS

    def records(self, rows, K, info=None) -> Records:
        rows = list(rows)
        cols = {"recommended": np.array([r[0] for r in rows], dtype=np.int64),
                "correct": np.array([r[1] for r in rows], dtype=np.int64),
                "stopping_time": np.array([int(r[2].sum()) for r in rows], dtype=np.int64)}
        for a in range(K):
            cols[f"pulls_{a}"] = np.array([r[2][a] for r in rows], dtype=np.int64)
        return Records(columns=cols, info=info or {})

    def limit(self) -> int:
        cap = int(self.options.get("max_pulls", 0))
        return cap if cap > 0 else NO_LIMIT


class LinGapE(LingapeAlgorithm):
    name = "LinGapE"
    summary = "Xu et al.'s gap-based fully adaptive BAI: greedy (9) or ratio (12) arm rule"
    defaults = {"rule": "greedy", "form": "paper", "epsilon": "instance", "lam": 1.0, "R": None, "S": None,
                "max_pulls": 0}
    choices = {"rule": ("greedy", "ratio"), "form": ("paper", "scratch")}

    def setup(self) -> None:
        o, instance = self.options, self.instance
        if not o["lam"] > 0:
            raise UserError(f"LinGapE option lam={o['lam']} must be > 0 (the paper uses 1)")
        o["epsilon"] = epsilon_setting(o["epsilon"])
        self.R = float(o["R"]) if o["R"] is not None else float(instance.noise_scale)
        self.S = float(o["S"]) if o["S"] is not None else float(np.linalg.norm(instance.theta))

    def run_one(self, seed: int, trial: int):
        """One run's (arm, correct, counts), whether it stopped, its log det A_t points and its eps."""
        inst, o = self.instance, self.options
        X, means = inst.arms(int(trial))
        K = X.shape[0]
        rng = streams.noise_rng(seed, trial)
        first = draw_block(rng, inst.reward, K)
        b = initial_rewards(X, means, first, inst.reward, inst.noise_scale)
        T = np.ones(K, dtype=np.int64)
        G, D, W, Y = np.empty((K, K)), np.empty((K, K)), np.empty(K), np.empty((K, X.shape[1]))
        mu = np.zeros(K)
        scratch = o["form"] == "scratch"
        eps = lingape_epsilon(o["epsilon"], o["form"], means, inst.epsilon)
        pstar = (self.ratio_tables(trial, X) if o["rule"] == "ratio" else np.zeros((1, 1, 1)))
        ist = np.array([K, 0, -1, -1], dtype=np.int64)    # base -1: the kernel builds the state first
        fst = np.array([0.0])
        draws = draw_block(rng, inst.reward, DRAW_BLOCK)
        key = np.uint64(streams.run_tie_key(seed, trial))
        logdet_at = {}
        mark = 1 << max(4, K.bit_length())
        limit = self.limit()
        while True:
            status = kn.lingape_kernel(G, D, W, Y, mu, b, T, ist, fst, X, means, draws, key, float(o["lam"]), self.R, self.S,
                                       inst.delta, eps, int(scratch), int(o["rule"] == "ratio"), pstar,
                                       inst.reward, inst.noise_scale, min(mark, limit), REFRESH)
            if status == kn.NEED_DRAWS:
                draws = draw_block(rng, inst.reward, DRAW_BLOCK)
                ist[1] = 0
            elif status == kn.AT_LIMIT and ist[0] < limit:
                logdet_at[int(ist[0])] = float(fst[0])    # log det A_t at t = 2^k: the det-growth claim
                mark *= 2
            else:
                break
        logdet_at[int(ist[0])] = float(fst[0])
        arm = int(ist[2])
        return (arm, correct_arm(means, arm, eps), T.copy()), status == kn.STOPPED, logdet_at, eps

    _tables: dict = {}

    def ratio_tables(self, trial, X):
        key = (id(self.instance), 0 if self.instance.runs is None else int(trial))
        if key not in self._tables:
            from linbandits.studies.lingape.designs import ratio_table

            self._tables = {key: ratio_table(X)}
        return self._tables[key]

    def run_many(self, seed, trials, progress=None) -> Records:
        rows, censored, logdets, epsilons = [], [], {}, {}
        for k, trial in enumerate(trials):
            row, stopped, logdet_at, eps = self.run_one(seed, int(trial))
            rows.append(row)
            logdets[int(trial)] = logdet_at
            epsilons[int(trial)] = eps
            if not stopped:
                censored.append(int(trial))
            if progress:
                progress(k + 1, len(trials))
        info = {"censored_trials": censored, "R": self.R, "S": self.S, "epsilon_used": epsilons,
                "log_det_A_at_t": logdets}
        return self.records(rows, self.instance.K, info)


def pairs_of(arms) -> tuple[np.ndarray, np.ndarray]:
    arms = list(arms)
    pi = [a for k, a in enumerate(arms) for b in arms[k + 1:]]
    pj = [b for k, a in enumerate(arms) for b in arms[k + 1:]]
    return np.array(pi, dtype=np.int64), np.array(pj, dtype=np.int64)


class XYStatic(LingapeAlgorithm):
    name = "XY-static"
    summary = "Soare et al.'s XY-static allocation, greedy incremental (eq. 5); reward-free arm sequence"
    defaults = {"lam": None, "sigma": None, "max_pulls": 0}

    def setup(self) -> None:
        o, instance = self.options, self.instance
        self.lam = float(o["lam"]) if o["lam"] is not None else instance.default_lam_xy
        self.sigma = float(o["sigma"]) if o["sigma"] is not None else float(instance.noise_scale)
        if self.lam < 0:
            raise UserError(f"XY-static option lam={self.lam} must be >= 0")

    def run_group(self, seed: int, trials, X, means):
        """Runs that share the arms X: one reward-free arm sequence, each run its own rewards.
        Returns (recommended, stopped, counts) per run."""
        inst = self.instance
        K, d = X.shape
        R = len(trials)
        rngs = [streams.noise_rng(seed, t) for t in trials]
        pi, pj, pid = all_pairs(K)
        Y = X[pi] - X[pj]
        G, D, W, T, XZ, _ = state_after_initial_pulls(X, Y, self.lam)
        sums = np.array([[kn.reward_of(means[a], draw, inst.reward, inst.noise_scale)
                          for a, draw in enumerate(draw_block(g, inst.reward, K))] for g in rngs])
        mus = (sums @ X) @ XZ.T
        ist = np.array([K, 0], dtype=np.int64)
        active = np.ones(R, dtype=np.bool_)
        stop_n = np.full(R, -1, dtype=np.int64)
        rec = np.full(R, -1, dtype=np.int64)
        stop_counts = np.zeros((R, K), dtype=np.int64)
        draws = np.array([draw_block(g, inst.reward, DRAW_BLOCK) for g in rngs])
        key = np.uint64(streams.shared_tie_key(seed))
        while True:
            status = kn.static_kernel(G, D, W, pid, T, ist, X, Y, self.lam, mus, sums, active, stop_n, rec, stop_counts,
                                      means, draws, key, self.sigma, inst.delta, inst.reward, inst.noise_scale,
                                      self.limit(), REFRESH)
            if status != kn.NEED_DRAWS:
                break
            for r, g in enumerate(rngs):
                if active[r]:     # a stopped run's stream is never read again: not drawn (~1/6 of the draws)
                    draws[r] = draw_block(g, inst.reward, DRAW_BLOCK)
            ist[1] = 0
        out = []
        for r in range(R):
            if active[r]:     # censored at max_pulls: the current estimate, flagged in the sidecar
                out.append((int(np.argmax(mus[r])), False, T.copy()))
            else:
                out.append((int(rec[r]), True, stop_counts[r].copy()))
        return out

    def run_many(self, seed, trials, progress=None) -> Records:
        inst = self.instance
        rows = [None] * len(trials)
        censored = []
        groups = ([list(range(len(trials)))] if inst.runs is None else [[k] for k in range(len(trials))])
        for group in groups:
            X, means = inst.arms(int(trials[group[0]]))
            stops = self.run_group(seed, [int(trials[k]) for k in group], X, means)
            for k, (arm, stopped, counts) in zip(group, stops):
                rows[k] = (arm, correct_arm(means, arm, inst.epsilon), counts)
                if not stopped:
                    censored.append(int(trials[k]))
            if progress:
                progress(sum(r is not None for r in rows), len(trials))
        return self.records(rows, inst.K, {"censored_trials": censored, "lam": self.lam, "sigma": self.sigma})


class PhaseSequences:
    """XY-adaptive's reward-free greedy sequences, one per active set, shared by every run.

    Within a phase the design restarts from the K initial pulls and only the
    active set S (through the pairs Y_S) steers the greedy pulls, so the phase's
    pulls are a prefix of one fixed sequence per S; a phase ends at the first
    step whose score v is <= its threshold. Sequences are kept as checkpoints
    (n, v, G, T) at the phase ends asked for so far (and where a phase reached the
    pull limit), and resumed from the last checkpoint with v above a new threshold
    (v never increases along a sequence)."""

    def __init__(self, X: np.ndarray, lam: float, seed: int, limit: int):
        self.X, self.lam, self.seed, self.limit = X, lam, seed, limit
        self.entries = {}

    def phase(self, arms: list[int], threshold: float):
        """(counts, v, ended) of a phase with active set `arms`."""
        K = self.X.shape[0]
        mask = sum(1 << a for a in arms)
        pi, pj = pairs_of(arms)
        Y = np.ascontiguousarray(self.X[pi] - self.X[pj])
        if mask not in self.entries:
            G0, D0, W0, T0, _, _ = state_after_initial_pulls(self.X, Y, self.lam)
            self.entries[mask] = [(K, np.inf, (G0, D0, W0), T0)]
        points = self.entries[mask]
        start = max(k for k, p in enumerate(points) if p[1] > threshold)
        n0, v0, (G0, D0, W0), T0 = points[start]
        G, D, W, T = G0.copy(), D0.copy(), W0.copy(), T0.copy()
        ist, fst = np.array([n0], dtype=np.int64), np.array([v0])
        status = kn.phase_kernel(G, D, W, T, ist, fst, self.X, Y, self.lam,
                                 np.uint64(streams.shared_tie_key(self.seed, mask)), threshold, self.limit, REFRESH)
        ended = status == kn.PHASE_END
        # A phase cut at the limit is kept too: the next run that reaches it resumes there and is cut at once,
        # instead of redoing the same max_pulls greedy steps.
        if (ended or status == kn.AT_LIMIT) and (start + 1 == len(points) or points[start + 1][0] != ist[0]):
            points.insert(start + 1, (int(ist[0]), float(fst[0]), (G.copy(), D.copy(), W.copy()), T.copy()))
        return T, float(fst[0]), ended


def eliminate(X, means_hat_inputs, T, lam, sigma, delta):
    """Arms no other arm dominates on this phase's data (the authors' code: all K arms are re-tested)."""
    K, d = X.shape
    b = X.T @ means_hat_inputs
    A = lam * np.eye(d) + X.T @ (T[:, None] * X)
    Ainv = np.linalg.inv(A)
    mu = X @ (Ainv @ b)
    G = X @ Ainv @ X.T
    n = int(T.sum())
    c = 2.0 * math.sqrt(2.0) * sigma * math.sqrt(math.log(6.0 * n * n * K * K / (math.pi ** 2 * delta)))
    keep = []
    for i in range(K):
        widths = np.sqrt(np.maximum(np.diag(G) + G[i, i] - 2.0 * G[i], 0.0))
        diffs = mu - mu[i]
        diffs[i] = -np.inf
        if not np.any(diffs > c * widths):
            keep.append(i)
    return keep


def phase_reward_sums(rng, T, means, reward_kind, noise_sd):
    """Sum of each arm's rewards over a phase, drawn exactly from its distribution:
    Gaussian: T_a mu_a + noise_sd sqrt(T_a) z_a; +-1: 2 Binomial(T_a, p_a) - T_a.
    (Only these sums enter the phase-end elimination, so drawing them whole is exact.)"""
    if reward_kind == REWARD_GAUSSIAN:
        return T * means + noise_sd * np.sqrt(T) * rng.standard_normal(len(T))
    p = 0.5 * (1.0 + np.clip(means, -1.0, 1.0))
    return 2.0 * rng.binomial(T, p) - T


class XYAdaptive(LingapeAlgorithm):
    name = "XY-adaptive"
    summary = "Soare et al.'s XY-adaptive allocation (eq. 6): phases, reset design, alpha = 0.1"
    defaults = {"alpha": 0.1, "lam": None, "sigma": None, "max_pulls": 0}

    def setup(self) -> None:
        o, instance = self.options, self.instance
        self.lam = float(o["lam"]) if o["lam"] is not None else instance.default_lam_xy
        self.sigma = float(o["sigma"]) if o["sigma"] is not None else float(instance.noise_scale)
        if not 0 < o["alpha"] < 1:
            raise UserError(f"XY-adaptive option alpha={o['alpha']} must lie in (0, 1) (the authors use 0.1)")
        self.sequences = {}

    def run_one(self, seed: int, trial: int):
        """One run's (arm, correct, counts), whether it stopped, and its phases."""
        inst = self.instance
        X, means = inst.arms(trial)
        K = X.shape[0]
        group = None if inst.runs is None else trial
        if group not in self.sequences:
            self.sequences = {group: PhaseSequences(X, self.lam, seed, self.limit())}
        seqs = self.sequences[group]
        rng = streams.noise_rng(seed, trial)
        arms, rho = list(range(K)), 1.0
        total = np.zeros(K, dtype=np.int64)
        history = []
        stopped = True
        while len(arms) > 1:
            T, v, ended = seqs.phase(arms, self.options["alpha"] * rho)
            total += T
            if not ended or total.sum() >= self.limit():
                stopped = False
                break
            sums = phase_reward_sums(rng, T, means, inst.reward, inst.noise_scale)
            arms = eliminate(X, sums, T, self.lam, self.sigma, inst.delta)
            history.append({"n": int(T.sum()), "v": v, "active_after": arms})
            rho = v
        arm = arms[0] if stopped else int(np.argmax(means * 0 + [a in arms for a in range(K)]))
        return (arm, stopped and correct_arm(means, arm, inst.epsilon), total), stopped, history

    def run_many(self, seed, trials, progress=None) -> Records:
        rows, censored, phases = [], [], {}
        for k, trial in enumerate(trials):
            row, stopped, history = self.run_one(seed, int(trial))
            rows.append(row)
            phases[int(trial)] = history
            if not stopped:
                censored.append(int(trial))
            if progress:
                progress(k + 1, len(trials))
        return self.records(rows, self.instance.K, {"censored_trials": censored, "lam": self.lam,
                                                    "sigma": self.sigma, "phases": phases})


class XYOracle(LingapeAlgorithm):
    name = "XY-oracle"
    summary = "Soare et al.'s XY-oracle allocation (eq. 18): tracks p* built from the true theta; reward-free"
    defaults = {"sigma": None, "max_pulls": 0}
    LAM = 1.0      # A starts at I (the authors' code)

    def setup(self) -> None:
        o = self.options
        self.sigma = float(o["sigma"]) if o["sigma"] is not None else float(self.instance.noise_scale)
        self.solved = {}

    def design(self, X, means):
        from linbandits.studies.lingape.designs import oracle_design

        return oracle_design(X, means)

    def run_arms(self, X, means):
        """(counts, stopped, p*, design value): deterministic, rewards are never used."""
        K = X.shape[0]
        p, value = self.design(X, means)
        best = int(np.argmax(means))
        others = [i for i in range(K) if i != best]
        Y = X[best] - X[others]
        gaps = means[best] - means[others]
        G, D, W, T, _, _ = state_after_initial_pulls(X, Y, self.LAM)
        ist = np.array([K], dtype=np.int64)
        status = kn.oracle_kernel(G, D, W, T, ist, X, np.ascontiguousarray(Y), self.LAM, p, gaps, self.sigma,
                                  self.instance.delta, self.limit(), REFRESH)
        return T, status == kn.STOPPED, p, value

    def run_many(self, seed, trials, progress=None) -> Records:
        inst = self.instance
        rows, censored, designs = [], [], {}
        for k, trial in enumerate(trials):
            group = None if inst.runs is None else int(trial)
            X, means = inst.arms(int(trial))
            if group not in self.solved:
                self.solved[group] = self.run_arms(X, means)
            T, stopped, p, value = self.solved[group]
            best = int(np.argmax(means))
            rows.append((best, True, T.copy()))
            designs[str(group)] = {"p_star": p.tolist(), "design_value": value}
            if not stopped:
                censored.append(int(trial))
            if progress:
                progress(k + 1, len(trials))
        return self.records(rows, inst.K, {"censored_trials": censored, "sigma": self.sigma, "designs": designs})
