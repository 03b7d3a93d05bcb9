"""A synthetic corpus in the exact R6A line format, so the pipeline runs without licensed data.

Seven gzip day files named like the real ones. User and article features are
five non-negative values summing to about 1 (Dirichlet draws, printed with six
decimals) plus the constant 1:1.000000; about 20 candidate articles per line
from a pool that changes during the day; the displayed article is uniform among
the candidates (R6A logged a uniformly random policy); clicks follow a logistic
model of u^T W_day a whose bias and weights change by day. A sprinkling of
malformed lines of every kind the reader knows is injected (KIND_REASON: the
reason the published reading gives each, or kept), and their exact counts go
to SYNTHETIC.json so a parse can be checked against them.
"""
from __future__ import annotations

import calendar
import gzip
from pathlib import Path

import numpy as np

from linbandits.atomic import atomic_output
from linbandits.errors import UserError
from linbandits.r6a import reader as r6a

# Injected kinds -> the QC reason the published reading must give (None: kept).
# CRLF endings are kept too.
KIND_REASON = {
    "blank": "blank",
    "truncated": "truncated",
    "bad_header": "bad_header",
    "non_numeric": "non_numeric",
    "missing_user_block": "missing_user_block",
    "not_key_value": "not_key_value",              # a vector with 5 tokens: the 6th is the next marker
    "index_out_of_range": "index_out_of_range",    # an index 8 or 9
    "displayed_not_in_candidates": "displayed_not_in_candidates",
    "no_constant_feature": "no_constant_feature",
    "index7_stop": "no_constant_feature",          # the stop leaves slot 1 (the last token) at 0
    "other_candidate_malformed": None,             # not read: kept
    "extra_feature": None,                         # a 7th token after the six: not read, kept
    "repeated_index": None,                        # kept, one slot left 0
}
KINDS = tuple(KIND_REASON)
WEEK_ARTICLES = 60
MIN_LINES = 100
GEN_CHUNK = 20_000
FEATURE_NAMES = ("2", "3", "4", "5", "6")
USER_FORMAT = "2:%.6f 3:%.6f 4:%.6f 5:%.6f 6:%.6f 1:1.000000"


def feature_tokens(values) -> list[str]:
    return [f"{k}:{v:.6f}" for k, v in zip(FEATURE_NAMES, values)] + ["1:1.000000"]


def render(header, user_toks, cands) -> str:
    """header: [ts, id, click]; user_toks: tokens or None (no |user block); cands: [(id, tokens)]."""
    parts = [" ".join(header)]
    if user_toks is not None:
        parts.append("|user " + " ".join(user_toks))
    parts.extend(f"|{cid} " + " ".join(toks) for cid, toks in cands)
    return " ".join(parts)


class WeekModel:
    """Articles, their features and the click model shared by the seven days."""

    def __init__(self, seed: int):
        rng = np.random.default_rng([seed, 0])
        self.ids = np.sort(rng.choice(np.arange(109400, 109800), WEEK_ARTICLES, replace=False))
        self.features = np.round(rng.dirichlet(np.full(5, 0.5), WEEK_ARTICLES), 6)
        self.W = rng.normal(0.0, 1.5, (5, 5))
        self.blocks = [f"|{i} " + " ".join(feature_tokens(f)) for i, f in zip(self.ids, self.features)]


def day_rng(seed: int, day_index: int) -> np.random.Generator:
    return np.random.default_rng([seed, day_index + 1])


def generate_day_lines(week: WeekModel, seed: int, day_index: int, n_lines: int, malformed_rate: float):
    """Yield (text chunk, counts) pairs; the last yield carries the final counts of the day."""
    rng = day_rng(seed, day_index)
    day = r6a.ALL_DAYS[day_index]
    start = calendar.timegm((int(day[:4]), int(day[4:6]), int(day[6:]), 0, 0, 0))
    stamps = start + np.sort(rng.integers(0, 86400, n_lines))
    ctr = rng.uniform(0.025, 0.06)
    W_day = week.W + rng.normal(0.0, 0.7, week.W.shape)
    bias = calibrate_bias(week, W_day, ctr, rng)
    per_kind = max(1, int(round(malformed_rate * n_lines / len(KINDS))))
    kinds = list(KINDS)
    chosen = rng.permutation(n_lines)[:per_kind * len(kinds)]
    injected = {int(i): kinds[j // per_kind] for j, i in enumerate(chosen)}
    crlf = set(rng.choice(n_lines, size=n_lines // 100, replace=False).tolist()) - set(injected)
    counts = dict.fromkeys(kinds, 0)

    pool = [int(a) for a in rng.choice(WEEK_ARTICLES, 20, replace=False)]
    switch_every = max(1, n_lines // 24)   # the pool changes about once an hour
    for seg_start in range(0, n_lines, switch_every):
        seg = range(seg_start, min(n_lines, seg_start + switch_every))
        if seg_start:
            pool.pop(int(rng.integers(len(pool))))
            target = int(rng.integers(19, 23))
            outside = [a for a in range(WEEK_ARTICLES) if a not in pool]
            while len(pool) < target:
                pool.append(outside.pop(int(rng.integers(len(outside)))))
            while len(pool) > target:
                pool.pop(int(rng.integers(len(pool))))
        pool_text = " ".join(week.blocks[a] for a in pool)
        for sub_start in range(seg.start, seg.stop, GEN_CHUNK):
            sub = range(sub_start, min(seg.stop, sub_start + GEN_CHUNK))
            yield "\n".join(day_chunk(week, pool, pool_text, sub, stamps, bias, W_day, injected, crlf,
                                       counts, rng)) + "\n", None
    yield "", {"injected": counts, "crlf_lines": len(crlf), "click_rate_target": round(float(ctr), 6)}


def calibrate_bias(week, W_day, ctr, rng, n=20_000) -> float:
    """The logit offset whose mean click probability over random (user, article) pairs is ctr."""
    U = rng.dirichlet(np.full(5, 0.3), n)
    A = week.features[rng.integers(0, WEEK_ARTICLES, n)]
    s = 2.0 * np.einsum("ni,ij,nj->n", U, W_day, A)
    lo, hi = -20.0, 20.0
    for _ in range(60):   # bisection: the mean probability increases with the offset
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if np.mean(1 / (1 + np.exp(-(mid + s)))) < ctr else (lo, mid)
    return (lo + hi) / 2


def day_chunk(week, pool, pool_text, lines, stamps, bias, W_day, injected, crlf, counts, rng) -> list[str]:
    m = len(lines)
    U = np.round(rng.dirichlet(np.full(5, 0.3), m), 6)
    shown = rng.integers(0, len(pool), m)
    A = week.features[np.array(pool)[shown]]
    logits = bias + 2.0 * np.einsum("ni,ij,nj->n", U, W_day, A)
    clicks = rng.random(m) < 1 / (1 + np.exp(-logits))
    out = []
    for k, i in enumerate(lines):
        header = f"{stamps[i]} {week.ids[pool[shown[k]]]} {int(clicks[k])}"
        if i in injected:
            kind = injected[i]
            counts[kind] += 1
            out.append(malformed_line(kind, week, pool, int(shown[k]), header.split(), U[k], rng))
        else:
            user = USER_FORMAT % tuple(U[k])
            out.append(f"{header} |user {user} {pool_text}" + ("\r" if i in crlf else ""))
    return out


def malformed_line(kind, week, pool, shown, header, u, rng) -> str:
    """One line with exactly the defect `kind` (KIND_REASON gives what the reading must say)."""
    user = feature_tokens(u)
    cands = [(str(week.ids[a]), feature_tokens(week.features[a])) for a in pool]
    if kind in ("not_key_value", "non_numeric", "index_out_of_range", "extra_feature", "repeated_index",
                "index7_stop"):
        # Damage the displayed block only when it is not the line's last block, where
        # a short block or a bad last token reads as a truncated line.
        shown = int(rng.integers(len(pool) - 1))
        header[1] = cands[shown][0]
    target = user if rng.random() < 0.5 else cands[shown][1]
    j = int(rng.integers(5))   # one of the five non-constant features
    if kind == "blank":
        return str(rng.choice(["", "   ", "\t"]))
    if kind == "truncated":
        return truncated_line(header, user, cands, shown, rng)
    if kind == "bad_header":
        if rng.random() < 0.5:
            header[2] = "2"
        else:
            header.append(header[2])
    elif kind == "non_numeric":
        how = int(rng.integers(4))
        if how == 0:
            header[0] = header[0][:4] + "x" + header[0][5:]
        else:
            target[j] = target[j][:2] + ("nan" if how == 1 else "0.1x2" if how == 2 else "abc")
    elif kind == "index_out_of_range":
        target[j] = str(rng.integers(8, 10)) + target[j][1:]
    elif kind == "not_key_value":
        del target[int(rng.integers(6))]
    elif kind == "missing_user_block":
        user = None
    elif kind == "displayed_not_in_candidates":
        header[1] = str(week.ids[next(a for a in range(WEEK_ARTICLES) if a not in pool)])
    elif kind == "no_constant_feature":
        target[5] = "1:0.000000"
    elif kind == "index7_stop":
        target[j] = "7" + target[j][1:]
    elif kind == "extra_feature":
        target.append(target[j])
    elif kind == "repeated_index":
        target[j] = target[(j + 1) % 5][:2] + target[j][2:]
    elif kind == "other_candidate_malformed":
        other = [c for c in range(len(cands) - 1) if c != shown]
        toks = cands[int(rng.choice(other))][1]
        toks[j] = "8" + toks[j][1:]
    return render(header, user, cands)


def truncated_line(header, user, cands, shown, rng) -> str:
    """Cut the line in its header, or inside the tokens of the user block or the displayed block."""
    if rng.random() < 0.1:
        text = " ".join(header)
        return text[:int(rng.integers(1, len(text) + 1))]
    b = 0 if rng.random() < 0.5 else shown + 1   # 0: the user block, b > 0: candidate b - 1
    name, toks = ("user", user) if b == 0 else cands[b - 1]
    before = " ".join(header) if b == 0 else render(header, user, cands[:b - 1])
    how = int(rng.integers(1, 4))
    k = int(rng.integers(5 if how == 3 else 6))   # complete features kept
    tail = {1: "", 2: toks[k][:2], 3: toks[k][:5]}[how]   # '', '3:', or a parseable '3:0.0'
    kept = " ".join(toks[:k])
    return (before + " |" + name + (" " + kept if kept else "") + (" " + tail if tail else "")).rstrip()


def write_synthetic_corpus(out_dir, lines_per_day: int, seed: int, malformed_rate: float = 0.005,
                           compresslevel: int = 1, days=r6a.PUBLISHED_DAYS) -> dict:
    """Write the day files and SYNTHETIC.json into out_dir; returns the marker's content.

    gzip level 1: the stand-in week is written once and read once, and level 6 spent 1.2 of its 3.0
    CPU-s compressing (18 MB on disk instead of 11; the parsed days are the same bytes)."""
    if lines_per_day < MIN_LINES:
        raise UserError(f"--lines-per-day must be at least {MIN_LINES}, got {lines_per_day}")
    if not 0 <= malformed_rate <= 0.5:
        raise UserError(f"malformed rate must be in [0, 0.5], got {malformed_rate}")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    week = WeekModel(seed)
    marker = {"synthetic": True, "source": r6a.SYNTHETIC_SOURCE, "generator": "linbandits.r6a.synthetic",
              "seed": seed, "lines_per_day": lines_per_day, "malformed_rate": malformed_rate, "days": {}}
    for day in days:
        index = r6a.ALL_DAYS.index(day)
        path = out_dir / r6a.day_file_name(day)
        info = write_day_file(path, generate_day_lines(week, seed, index, lines_per_day, malformed_rate),
                              compresslevel, stamp=f"{r6a.SYNTHETIC_GZIP_NAME_PREFIX.decode()}.{path.stem}")
        skipped = dict.fromkeys(r6a.REASONS, 0)
        for kind, n in info["injected"].items():
            if KIND_REASON[kind]:
                skipped[KIND_REASON[kind]] += n
        info["expected_qc"] = {"lines_read": lines_per_day,
                               "lines_kept": lines_per_day - sum(skipped.values()),
                               "skipped_by_reason": skipped,
                               "kept_with_unfilled_slot": info["injected"]["repeated_index"]}
        marker["days"][day] = {"file": path.name, **info}
    r6a.atomic_write_json(out_dir / r6a.SYNTHETIC_MARKER, marker)
    return marker


def write_day_file(path: Path, chunks, compresslevel: int, stamp: str) -> dict:
    """gzip the generated text to a temporary name, then rename; mtime 0 keeps bytes reproducible."""
    info = None
    with atomic_output(path) as tmp, open(tmp, "wb") as raw, \
            gzip.GzipFile(filename=stamp, mode="wb", fileobj=raw, compresslevel=compresslevel, mtime=0) as gz:
        for text, final in chunks:
            gz.write(text.encode("ascii"))
            info = final or info
    return info
