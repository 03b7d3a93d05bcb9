"""`linbandits rebuild ARCHIVE --out DIR`: every figure, table, claims file and the overview of an
archived run, made again from its runs files without a single simulation.

The archive is unpacked and checked (linbandits.archive.unpack) into a temporary directory beside
DIR; each enabled study's products are made there by the command the workflow's rules run
(`linbandits products --study S --kind all --config <snapshot>`, studies side by side on --cores
processes), then the overview (`linbandits overview`). Only then is the directory renamed to DIR
(new, empty, or an earlier rebuild, which is replaced whole; anything else is refused): an archive
that fails its manifest, or products that fail, leave nothing in DIR, and the same command run
again starts afresh. DIR/rebuild.md says, product by product, whether the rebuilt file is the
run's own bytes (the SHA-256 the archive recorded). On the archive's platform (linbandits.archive.lock
and the versions of the packages that draw and write the products) a product that is not is an
error, exit 1; elsewhere a note.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from linbandits.archive import lock
from linbandits.archive.record import PACKAGE_DIR, sha256_file, source_commit
from linbandits.archive.unpack import Unpacked, unpack
from linbandits.atomic import write_text_atomic
from linbandits.errors import UserError

FIGURE_SUFFIXES = (".pdf", ".png")
# the packages whose versions decide a product's bytes, besides the CPU (README: what is identical where)
PRODUCT_PACKAGES = ("linbandits", "numpy", "scipy", "pandas", "matplotlib", "numba", "cvxpy")


def package_command(*words: str) -> list[str]:
    """`python -m linbandits WORDS` run by this interpreter on this package (its src/ first on the path)."""
    return [sys.executable, "-m", "linbandits", *words]


def child_env() -> dict:
    env = dict(os.environ)
    src = str(PACKAGE_DIR.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    return env


def run_logged(words: list[str], cwd: Path, log: Path, what: str) -> None:
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "w", encoding="utf-8") as handle:
        code = subprocess.run(package_command(*words), cwd=cwd, env=child_env(), stdout=handle,
                              stderr=subprocess.STDOUT).returncode
    if code:
        lines = [line for line in log.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]
        raise UserError(f"rebuild: {what} failed ({lines[-1].strip() if lines else f'exit {code}'})")


def make_products(unpacked: Unpacked, cores: int) -> None:
    """Every enabled study's products, then the overview, in the unpacked run."""
    run, prefix = unpacked.run, unpacked.prefix
    jobs = [(s["name"], ["products", "--study", s["name"], "--kind", "all", "--config", s["snapshot"]])
            for s in unpacked.enabled()]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, cores)) as pool:
        futures = [pool.submit(run_logged, words, run, run / f"{prefix}logs/rebuild/{study}.log",
                               f"the products of study {study}") for study, words in jobs]
        for future in futures:
            future.result()
    entries = []
    for s in unpacked.info["studies"]:
        entries += ["--study", s["snapshot"]] if s["enabled"] else ["--disabled", s["name"]]
    run_logged(["overview", *entries, *(["--preview"] if prefix else []), "--out", f"{prefix}results/overview.md"],
               run, run / f"{prefix}logs/rebuild/overview.log", "the overview")


def compare(unpacked: Unpacked) -> list[tuple[str, str, bool]]:
    """(product, kind, rebuilt byte-identical to the run's) for every product the archive recorded."""
    out = []
    for path, digest in sorted(unpacked.info["products"].items()):
        rebuilt = unpacked.run / path
        kind = "figure" if path.endswith(FIGURE_SUFFIXES) else "table or claims"
        out.append((path, kind, rebuilt.is_file() and sha256_file(rebuilt) == digest))
    return out


def platform_differences(archived: dict) -> list[str]:
    """What of this machine differs from the archive's where the products' bytes depend on it."""
    here = lock.current()
    differences = lock.platform_differences(archived, here)
    old, new = archived.get("packages", {}), here["packages"]
    differences += [f"{name}: archive {old.get(name)}, here {new.get(name)}" for name in PRODUCT_PACKAGES
                    if old.get(name) != new.get(name)]
    return differences


def report(unpacked: Unpacked, rows, differences, seconds: float) -> str:
    info = unpacked.info
    lines = [f"# Rebuilt from {unpacked.archive.name}", "",
             f"Made by linbandits {info['linbandits']} at commit {info['commit']} ({info['tree']} tree); rebuilt in "
             f"{seconds:.1f} s without a simulation. Each product below is compared with the SHA-256 of the run's own "
             f"file, recorded in the archive.", ""]
    here = source_commit()["commit"]
    if here != info["commit"]:
        lines += [f"This linbandits is at commit {here}, not the archive's: where the code that makes a product changed "
                  f"in between, that product differs.", ""]
    lines += ["This machine is the archive's platform (CPU, LLVM target, BLAS kernels and the products' packages)."
              if not differences else "This machine differs from the archive's platform, so products may differ in "
                                      "their last digits or pixels: " + "; ".join(differences) + ".", ""]
    lines += ["| product | kind | identical to the run's |", "|---|---|---|"]
    lines += [f"| `{path}` | {kind} | {'yes' if same else '**no**'} |" for path, kind, same in rows]
    return "\n".join(lines) + "\n"


def summary(rows) -> str:
    parts = []
    for kind, label in (("table or claims", "tables, claims files and the overview"), ("figure", "figure files")):
        of_kind = [same for _, k, same in rows if k == kind]
        parts.append(f"{sum(of_kind)} of {len(of_kind)} {label}")
    return " and ".join(parts) + " byte-identical to the run's"


REPORT = "rebuild.md"


def check_out_dir(out: Path) -> None:
    """DIR is new, empty or an earlier rebuild (which a rebuild replaces whole); anything else is refused."""
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / REPORT).is_file())):
        raise UserError(f"rebuild: --out {out} exists and is neither empty nor an earlier rebuild; give a new "
                        f"directory (a rebuild writes a whole run there)")


def move_into_place(tree: Path, out: Path, scratch: Path) -> None:
    """Rename the rebuilt tree to DIR; an earlier rebuild there is moved aside first and then deleted."""
    check_out_dir(out)      # nobody wrote there meanwhile
    if out.exists():
        if any(out.iterdir()):
            os.rename(out, scratch / "previous")
        else:
            out.rmdir()
    os.rename(tree, out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="linbandits rebuild",
                                description="Rebuild every figure, table, claims file and the overview of an archived "
                                            "run from its runs files, without a simulation.")
    p.add_argument("archive", type=Path, help="the .tar.gz that `linbandits archive` wrote")
    p.add_argument("--out", type=Path, required=True,
                   help="a new or empty directory, or an earlier rebuild (replaced): the rebuilt run")
    p.add_argument("--cores", type=int, default=os.cpu_count() or 1, help="studies made side by side (default: all cores)")
    args = p.parse_args(argv)
    out = args.out.absolute()
    check_out_dir(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    scratch = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".rebuilding", dir=out.parent))
    try:
        unpacked = unpack(args.archive, scratch)
        make_products(unpacked, args.cores)
        rows = compare(unpacked)
        differences = platform_differences(unpacked.lock)
        seconds = time.perf_counter() - started
        write_text_atomic(unpacked.run / REPORT, report(unpacked, rows, differences, seconds))
        move_into_place(unpacked.run, out, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"rebuilt {out} from {args.archive} in {seconds:.1f} s: {summary(rows)} (the list: {out / REPORT})")
    differing = [path for path, _, same in rows if not same]
    if differing and not differences:
        print(f"error: on the archive's own platform {len(differing)} product(s) differ from the run's, e.g. "
              f"{differing[0]}; the code or data that made them is not the archive's", file=sys.stderr)
        return 1
    if differing:
        print(f"note: {len(differing)} product(s) differ from the run's; this machine is not the archive's platform "
              f"({differences[0]}{', ...' if len(differences) > 1 else ''})")
    return 0
