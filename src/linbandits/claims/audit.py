"""The audit of a claims file: every part's verdict against the interval printed beside it."""
from __future__ import annotations

import math

from linbandits.claims.engine import FAILS_TO_HOLD, HOLDS, INCONCLUSIVE, LEVEL, Region
from linbandits.claims.records import from_json


def disagreements(results, level: float = LEVEL) -> list[str]:
    """Every part whose verdict contradicts the interval printed beside it, or whose interval is not at
    the claim's simultaneous level: empty for a sound claims file (tests run it on every claims.json)."""
    found = []
    for r in results:
        for source, parts in (("reproduction", r["parts"]), ("published", (r.get("published") or {}).get("parts", []))):
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
