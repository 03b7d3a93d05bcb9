"""The audit of a claims file: every part's verdict against the interval printed beside it, and every
post-hoc reading marked as one and never judged on the published data it was fitted to."""
from __future__ import annotations

import math

from linbandits.claims.engine import FAILS_TO_HOLD, HOLDS, INCONCLUSIVE, LEVEL, Region
from linbandits.claims.records import from_json


def disagreements(results, level: float = LEVEL) -> list[str]:
    """Every part whose verdict contradicts the interval printed beside it, or whose interval is not at
    the claim's simultaneous level, in either reading of a claim (primary and post hoc) and on either
    evidence (the reproduction and the published data): empty for a sound claims file (tests run it on
    every claims.json)."""
    found = []
    for r in results:
        post = r.get("post_hoc") or {}
        readings = [("reproduction", r["parts"]), ("published", (r.get("published") or {}).get("parts", [])),
                    ("post hoc", post.get("parts", [])), ("post hoc, published", (post.get("published") or {}).get("parts", []))]
        for source, parts in readings:
            estimated = [p for p in parts if "low" in p]
            for p in estimated:
                region = Region(from_json(p["region"]["low"]), from_json(p["region"]["high"]), p["region"]["closed"])
                low, high, verdict = from_json(p["low"]), from_json(p["high"]), p["verdict"]
                where = f"{r['id']} ({source}): {p['label']}"
                if verdict == HOLDS and not region.holds(low, high):
                    found.append(f"{where}: holds but its interval [{low}, {high}] is not on the claimed side")
                if verdict == FAILS_TO_HOLD and not region.fails(low, high):
                    found.append(f"{where}: does not hold but its interval [{low}, {high}] is not on the other side")
                if verdict == INCONCLUSIVE and (region.holds(low, high) or region.fails(low, high)):
                    found.append(f"{where}: inconclusive but its interval [{low}, {high}] does not straddle")
                want = 1 - (1 - level) / len(estimated)
                if not math.isclose(p["level"], want, rel_tol=1e-9):
                    found.append(f"{where}: interval at {p['level']:.6g}, not the simultaneous {want:.6g}")
    return found


def post_hoc_problems(results) -> list[str]:
    """Every post-hoc reading that does not say what was seen, what prompted it and why it is worth reading,
    or that carries a verdict on the paper's published data when it was chosen after seeing them."""
    found = []
    for r in results:
        post = r.get("post_hoc")
        if not post:
            continue
        missing = [k for k in ("seen", "prompted_by", "reason") if not post.get(k)]
        if missing:
            found.append(f"{r['id']}: its post-hoc reading does not say {', '.join(missing)}")
        published = post.get("published") or {}
        if "published" in (post.get("seen") or []) and published and not published.get("circular"):
            found.append(f"{r['id']}: its post-hoc reading, chosen after seeing the published data, is judged on them")
    return found
