"""The shared R6A subcommands of the `linbandits` CLI (yahoo-synthetic, -check, -parse, -qc).

add_subcommands(subparsers) registers them; each sets `func`, which takes the
parsed arguments and returns an exit code. Problems are raised as UserError
(the main CLI prints the message alone and exits 2).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from linbandits.errors import UserError, check_seed
from linbandits.r6a import reader as r6a, synthetic


def add_subcommands(subparsers) -> None:
    p = subparsers.add_parser("yahoo-synthetic", help="write a synthetic stand-in corpus in the R6A format")
    p.add_argument("--out-dir", required=True, type=Path)
    p.add_argument("--lines-per-day", required=True, type=int)
    p.add_argument("--seed", required=True, type=int)
    p.add_argument("--malformed-rate", type=float, default=0.005,
                   help="share of injected malformed lines, split over the kinds (default 0.005)")
    p.set_defaults(func=cmd_synthetic)

    p = subparsers.add_parser("yahoo-check", help="validate the seven R6A day files (May 1-7)")
    p.add_argument("--r6a-dir", required=True, type=Path)
    p.add_argument("--quick", action="store_true",
                   help="read only the start of each file (a truncated gzip is then not noticed)")
    p.set_defaults(func=cmd_check)

    p = subparsers.add_parser("yahoo-parse", help="parse one R6A day into features z and clicks")
    p.add_argument("--r6a-dir", required=True, type=Path)
    p.add_argument("--day", required=True, help="YYYYMMDD, e.g. 20090501")
    p.add_argument("--out", required=True, type=Path, help="output .npz (z: n x 36 float32, clicks, meta)")
    p.add_argument("--qc", required=True, type=Path, help="output QC JSON (line counts by reason)")
    p.set_defaults(func=cmd_parse)

    p = subparsers.add_parser("yahoo-qc", help="merge the per-day QC files")
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("day_qc", nargs="+", type=Path)
    p.set_defaults(func=cmd_qc)


def cmd_synthetic(args) -> int:
    check_seed(args.seed)
    marker = synthetic.write_synthetic_corpus(args.out_dir, args.lines_per_day, args.seed, args.malformed_rate)
    print(f"wrote {len(marker['days'])} synthetic day files ({marker['source']}) to {args.out_dir}")
    return 0


def cmd_check(args) -> int:
    report = r6a.check_r6a_dir(args.r6a_dir, full=not args.quick)
    for f in report["files"]:
        print(f"ok  {f['file']}  {f['bytes']} bytes" + (f"  {f['lines']} lines" if f["lines"] else ""))
    print(f"source: {report['source']}")
    return 0


def cmd_parse(args) -> int:
    day = r6a.check_day(args.day)
    path = r6a.day_paths(args.r6a_dir, (day,))[0]
    try:
        r6a.check_day_file(path, full=False)   # fail early on a wrong file; the parse reads to the end
        parser = r6a.parse_day_file(path)
    except UserError as exc:
        raise UserError(f"{exc}. {r6a.how_to_get_r6a(args.r6a_dir, (day,))}") from None
    is_synthetic = r6a.corpus_is_synthetic(args.r6a_dir, [path])
    qc = {"day": day, "file": path.name, "synthetic": is_synthetic,
          "source": r6a.SYNTHETIC_SOURCE if is_synthetic else r6a.REAL_SOURCE, **parser.qc()}
    expected = expected_synthetic_qc(args.r6a_dir, day) if is_synthetic else None
    if expected is not None:
        qc["matches_generator_counts"] = all(qc[k] == v for k, v in expected.items())
    meta = {"day": day, "file": path.name, "synthetic": is_synthetic, "source": qc["source"],
            "z_layout": "outer(u, a) flattened user-major, feature indices 1..6; z[0] = u_1 a_1",
            "reading": r6a.READING, "qc": qc}
    r6a.write_day_npz(args.out, parser, meta)
    r6a.atomic_write_json(args.qc, qc)
    print(f"{day}: {qc['lines_kept']} of {qc['lines_read']} lines kept -> {args.out}")
    return 0


def expected_synthetic_qc(r6a_dir: Path, day: str):
    try:
        marker = json.loads((Path(r6a_dir) / r6a.SYNTHETIC_MARKER).read_text())
        return marker["days"][day]["expected_qc"]
    except (OSError, ValueError, KeyError):
        return None


def cmd_qc(args) -> int:
    days = {}
    for path in args.day_qc:
        try:
            qc = json.loads(path.read_text())
            day = qc["day"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise UserError(f"QC file {path} is not a yahoo-parse QC JSON ({exc})") from None
        if day in days:
            raise UserError(f"QC file {path} repeats day {day}; pass each day's QC file once")
        days[day] = qc
    flags = {bool(q.get("synthetic")) for q in days.values()}
    if len(flags) > 1:
        raise UserError("the QC files mix the real R6A data and the synthetic stand-in")
    is_synthetic = flags.pop()
    totals = {k: sum(q[k] for q in days.values())
              for k in ("lines_read", "lines_kept", "lines_skipped", "kept_with_unfilled_slot", "clicks")}
    totals["skipped_by_reason"] = {r: sum(q["skipped_by_reason"].get(r, 0) for q in days.values())
                                   for r in r6a.REASONS}
    merged = {"reading": r6a.READING, "synthetic": is_synthetic, "source": r6a.SYNTHETIC_SOURCE if is_synthetic else r6a.REAL_SOURCE,
              "days": dict(sorted(days.items())), "totals": totals}
    r6a.atomic_write_json(args.out, merged)
    print(f"{len(days)} days: {totals['lines_kept']} of {totals['lines_read']} lines kept -> {args.out}")
    return 0


def main(argv=None) -> int:
    """Stand-alone entry (python -m linbandits.r6a.cli): the main CLI's handling."""
    from linbandits.cli import main as linbandits_main

    return linbandits_main(argv)


if __name__ == "__main__":
    sys.exit(main())
