"""`linbandits archive`: a finished run's runs, configs, published data and software lock in one file.

    linbandits archive [--directory RUN] [--preview] [--config FILE] [--out FILE]
    linbandits archive --study results/<study>/config.yaml ... [--disabled STUDY ...] --out FILE

Without --study, the studies, their order and which are enabled come from the run's config (as the
workflow reads it: config/config.yaml with each study's defaults); the workflow's `archive` rule
names them itself. What goes in is what the products of the default target read (their declared
inputs, linbandits.products) and the instance files the replay needs, nothing else; every product
the run made and its overview must exist, and their SHA-256 are recorded, so that `rebuild` can say
which of its products are the run's own bytes. The file is the same bytes for the same run: members
in sorted order, no time stamps, no owners.
"""
from __future__ import annotations

import argparse
import gzip
import io
import json
import tarfile
from pathlib import Path

import linbandits
from linbandits import paths
from linbandits.archive import FORMAT, INFO, LOCK, MANIFEST, METADATA, PACKAGE, PUBLISHED, RUN, lock
from linbandits.archive.contents import published_in_code, study_contents, studies_of_config
from linbandits.archive.record import (PACKAGE_DIR, archive_name, config_hash, json_bytes, repository_metadata,
                                       sha256_bytes, sha256_file, source_commit)
from linbandits.atomic import atomic_output, check_writable
from linbandits.errors import UserError


def missing_message(path: str, what: str) -> UserError:
    return UserError(f"archive: the run has no {path} ({what}); finish the run first (`snakemake --cores 2 "
                     f"archive` runs what is missing, then archives) or, for a preview, give --preview")


def tar_member(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mtime, info.mode = len(data), 0, 0o644
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    tar.addfile(info, io.BytesIO(data))


def build(run_dir: Path, studies: list[dict], out: Path | None) -> tuple[Path, dict]:
    """Write the archive of the run in `run_dir`; (its path, its archive.json)."""
    enabled = [s for s in studies if s["enabled"]]
    if not enabled:
        raise UserError("archive: no enabled study to archive; name one (--study results/<study>/config.yaml)")
    members: dict[str, bytes] = {}
    run_files, package_files, product_hashes, snapshots = set(), set(), {}, []
    prefix = None
    for entry in enabled:
        snapshot = entry["snapshot"]
        if not (run_dir / snapshot).is_file():
            raise missing_message(snapshot, f"the config snapshot of study {entry['name']}")
        share = study_contents(run_dir, entry["name"], snapshot)
        snapshots.append((entry["name"], (run_dir / snapshot).read_bytes()))
        prefix = paths.prefix(share["config"]) if prefix is None else prefix
        run_files |= share["run"]
        package_files |= share["package"]
        for f in share["products"]:
            if not (run_dir / f).is_file():
                raise missing_message(f, f"a product of study {entry['name']}")
            product_hashes[f] = sha256_file(run_dir / f)
        for attr, table in published_in_code(entry["name"]).items():
            members[f"{PUBLISHED}/{entry['name']}/{attr}.json"] = json_bytes(table)
    overview = f"{prefix}results/overview.md"
    if not (run_dir / overview).is_file():
        raise missing_message(overview, "the overview")
    product_hashes[overview] = sha256_file(run_dir / overview)
    for f in sorted(run_files):
        if not (run_dir / f).is_file():
            raise missing_message(f, "a file the products or the replay read")
        members[f"{RUN}/{f}"] = (run_dir / f).read_bytes()
    for f in sorted(package_files):
        members[f"{PACKAGE}/{f}"] = (PACKAGE_DIR / f).read_bytes()
    name = archive_name(snapshots)
    runs = [f for f in run_files if "/runs/" in f and f.endswith(".json")]
    info = {
        "format": FORMAT, "name": name, "linbandits": linbandits.__version__, **source_commit(),
        "config_hash": config_hash(snapshots), "prefix": prefix,
        "studies": studies, "products": product_hashes,
        "package_files": {f: sha256_bytes(members[f"{PACKAGE}/{f}"]) for f in sorted(package_files)},
        "runs": {"files": len(runs), "runs": sum(count_runs(run_dir / f) for f in runs),
                 "bytes": sum((run_dir / f).stat().st_size + (run_dir / f).with_suffix(".npz").stat().st_size
                              for f in runs)},
    }
    members[INFO] = json_bytes(info)
    members[LOCK] = json_bytes(lock.current())
    members[METADATA] = json_bytes(repository_metadata())
    manifest = "".join(f"{sha256_bytes(data)}  {member}\n" for member, data in sorted(members.items()))
    members[MANIFEST] = manifest.encode()
    out = Path(out) if out else run_dir / f"{prefix}archive" / f"{name}.tar.gz"
    with atomic_output(out) as tmp:
        with open(tmp, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as zipped, \
                tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for member in sorted(members):
                tar_member(tar, f"{name}/{member}", members[member])
    return out, info


def count_runs(runs_json: Path) -> int:
    meta = json.loads(runs_json.read_text(encoding="utf-8"))
    return sum(int(s.get("runs", 0)) for s in meta.get("series", {}).values())


def human_size(n: int) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="linbandits archive",
                                description="Write one file holding a finished run's runs files, config snapshots, "
                                            "published data, software lock and SHA-256 manifest.")
    p.add_argument("--directory", type=Path, default=Path("."), help="the run's directory (default: here)")
    p.add_argument("--config", type=Path, help="the run's config (default: DIRECTORY/config/config.yaml)")
    p.add_argument("--preview", action="store_true", help="archive the preview (preview/), not the full run")
    p.add_argument("--study", action="append", dest="entries", type=lambda v: ("study", v), metavar="SNAPSHOT",
                   help="an enabled study's config snapshot (results/<study>/config.yaml), in config order")
    p.add_argument("--disabled", action="append", dest="entries", type=lambda v: ("disabled", v), metavar="STUDY",
                   help="a study of the config that the default target does not build")
    p.add_argument("--out", type=Path, help="the archive (default: DIRECTORY/[preview/]archive/"
                                            "linbandits-<version>-<config hash>.tar.gz)")
    args = p.parse_args(argv)
    if args.out:
        check_writable(args.out)      # before the run's files are read
    run_dir = args.directory
    if args.entries:
        studies = [{"name": Path(v).parent.name, "enabled": True, "snapshot": v} if kind == "study"
                   else {"name": v, "enabled": False} for kind, v in args.entries]
    else:
        config = args.config or run_dir / "config" / "config.yaml"
        if not config.is_file():
            raise UserError(f"archive: no config {config}; run from the run's directory or give --directory RUN "
                            f"(or --config FILE)")
        studies = studies_of_config(config, args.preview)
    out, info = build(run_dir, studies, args.out)
    print(f"{out}: {human_size(out.stat().st_size)}, {len([s for s in studies if s['enabled']])} studies, "
          f"{info['runs']['files']} runs files ({info['runs']['runs']} runs), {len(info['products'])} products "
          f"recorded; SHA-256 {sha256_file(out)}")
    return 0
