"""Time and memory of `yahoo-parse` on one synthetic R6A-format day (default 4.5M lines, as a real day).

    python benchmarks/bench_r6a_parse.py [--lines N] [--keep DIR]

The day file is generated in a temporary directory (or DIR, reused if present);
the parse runs in a child process so its peak RSS (resource.getrusage) is the
parse's own, not the generator's. Budget: <= 3 minutes and <= 2 GiB per day, judged from
1M lines up (on fewer, the start-up dominates the rate and the projection to a day means nothing:
`--lines 2000` only checks that the benchmark runs).
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DAY = "20090501"
BUDGET_SECONDS = 180
BUDGET_BYTES = 2 * 1024 ** 3
JUDGED_FROM_LINES = 1_000_000


def generate(out_dir: Path, lines: int) -> Path:
    from linbandits.r6a import reader as r6a, synthetic
    path = out_dir / r6a.day_file_name(DAY)
    if path.exists():
        return path
    t0 = time.perf_counter()
    week = synthetic.WeekModel(seed=1)
    synthetic.write_day_file(path, synthetic.generate_day_lines(week, 1, 0, lines, 0.005), compresslevel=1,
                             stamp=f"{r6a.SYNTHETIC_GZIP_NAME_PREFIX.decode()}.{path.stem}")
    print(f"generated {lines} lines ({path.stat().st_size / 1e6:.0f} MB gzip) in {time.perf_counter() - t0:.0f} s")
    return path


def child(r6a_dir: str) -> None:
    """Run the real CLI command and report wall time and peak RSS as JSON."""
    from linbandits.r6a import cli
    out = Path(r6a_dir)
    t0 = time.perf_counter()
    code = cli.main(["yahoo-parse", "--r6a-dir", r6a_dir, "--day", DAY,
                     "--out", str(out / "day.npz"), "--qc", str(out / "qc.json")])
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024   # Linux reports KiB
    qc = json.loads((out / "qc.json").read_text())
    print(json.dumps({"exit": code, "seconds": seconds, "peak_rss_bytes": peak, "lines": qc["lines_read"]}))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=int, default=4_500_000)
    ap.add_argument("--keep", type=Path, help="generate into (and reuse) this directory instead of a temp one")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = args.keep or Path(tmp)
        out_dir.mkdir(parents=True, exist_ok=True)
        generate(out_dir, args.lines)
        run = subprocess.run([sys.executable, __file__, "--child", str(out_dir)], capture_output=True, text=True)
        if run.returncode != 0:
            print(run.stdout, run.stderr, file=sys.stderr)
            return 1
        res = json.loads(run.stdout.strip().splitlines()[-1])
    rate = res["lines"] / res["seconds"]
    per_day = 4_500_000 / rate
    print(f"parsed {res['lines']} lines in {res['seconds']:.1f} s: {rate:,.0f} lines/s "
          f"(a 4.5M-line day: {per_day:.0f} s, budget {BUDGET_SECONDS} s)")
    print(f"peak RSS {res['peak_rss_bytes'] / 2 ** 20:.0f} MiB (budget {BUDGET_BYTES / 2 ** 20:.0f} MiB)")
    if res["exit"] != 0:
        print(f"yahoo-parse exited with {res['exit']}", file=sys.stderr)
        return 1
    if args.lines < JUDGED_FROM_LINES:
        print(f"budget not judged: {args.lines} lines are too few to project a day (from {JUDGED_FROM_LINES:,})")
        return 0
    ok = per_day <= BUDGET_SECONDS and res["peak_rss_bytes"] <= BUDGET_BYTES
    print("within budget" if ok else "OVER BUDGET")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
