"""`linbandits archive`: a finished run's runs, configs, published data and environment in one file.

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
import hashlib
import importlib
import importlib.util
import io
import json
import subprocess
import tarfile
from pathlib import Path

import yaml

import linbandits
from linbandits import catalogue, experiments, paths, products, study_config
from linbandits.archive import FORMAT, INFO, LOCK, MANIFEST, METADATA, PACKAGE, PUBLISHED, RUN, lock
from linbandits.atomic import atomic_output
from linbandits.errors import UserError

PACKAGE_DIR = Path(linbandits.__file__).resolve().parent
SOURCE_ROOT = PACKAGE_DIR.parents[1]       # the source tree (src/..) when run from a clone
UNKNOWN = "unknown"


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def config_hash(snapshots: list[tuple[str, bytes]]) -> str:
    """12 hex digits naming the run's config: the enabled studies' snapshots, in config order."""
    digest = hashlib.sha256()
    for study, text in snapshots:
        digest.update(study.encode() + b"\0" + text + b"\0")
    return digest.hexdigest()[:12]


def archive_name(snapshots: list[tuple[str, bytes]]) -> str:
    return f"linbandits-{linbandits.__version__}-{config_hash(snapshots)}"


def source_commit() -> dict:
    """The commit of the package's source tree and whether its tracked files differ from it ("unknown"
    in an exported tree, without .git or git)."""
    if not (SOURCE_ROOT / ".git").exists():
        return {"commit": UNKNOWN, "tree": UNKNOWN}
    try:
        commit = subprocess.run(["git", "-C", str(SOURCE_ROOT), "rev-parse", "HEAD"], capture_output=True,
                                text=True, check=True).stdout.strip()
        changed = subprocess.run(["git", "-C", str(SOURCE_ROOT), "status", "--porcelain", "--untracked-files=no"],
                                 capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return {"commit": UNKNOWN, "tree": UNKNOWN}
    return {"commit": commit, "tree": "modified" if changed else "clean"}


def repository_metadata() -> dict:
    """What a data repository (Zenodo, Dataverse, ...) asks of a deposit, from CITATION.cff where the
    source tree has it."""
    cff_path = SOURCE_ROOT / "CITATION.cff"
    cff = yaml.safe_load(cff_path.read_text(encoding="utf-8")) if cff_path.exists() else {}
    creators = [a.get("name") or " ".join(p for p in (a.get("given-names"), a.get("family-names")) if p)
                for a in cff.get("authors") or []]
    return {
        "title": f"Archived runs: {cff.get('title', 'linbandits')}",
        "creators": creators or [UNKNOWN],
        "license": cff.get("license", UNKNOWN),
        "version": linbandits.__version__,
        "description": ("The runs files, config snapshots, published data and environment lock of one run of "
                        "linbandits; `linbandits rebuild` makes every figure, table and claims file from them and "
                        "`linbandits verify` replays a sample of the runs. " + " ".join(str(cff.get("abstract", "")).split())),
        "keywords": list(cff.get("keywords") or []),
        "references": [r.get("title") for r in cff.get("references") or [] if r.get("title")],
        "upload_type": "dataset",
    }


# ---------------------------------------------------------------- what a run holds

def studies_of_config(config_path: Path, preview: bool) -> list[dict]:
    """The studies of a user's config in order, each enabled one with its snapshot path (as rules/common.smk
    finds them)."""
    raw = study_config.read_config(config_path)
    if preview:
        raw["preview"] = True
    prefix = paths.prefix(raw)
    enabled = experiments.enabled_studies(raw)
    return [{"name": s, "enabled": s in enabled,
             **({"snapshot": f"{prefix}results/{s}/config.yaml"} if s in enabled else {})}
            for s in experiments.study_sections(raw)]


def published_in_code(study: str) -> dict[str, object]:
    """The PUBLISHED* tables (mappings or lists) of a study's `published` module, by name."""
    name = f"linbandits.studies.{study}.published"
    if importlib.util.find_spec(name) is None:
        return {}
    module = importlib.import_module(name)
    return {attr: value for attr, value in sorted(vars(module).items())
            if attr.startswith("PUBLISHED") and isinstance(value, (dict, list, tuple))}


def published_files(study: str) -> list[Path]:
    """The data files (PUBLISHED* paths) of a study's `published` module."""
    name = f"linbandits.studies.{study}.published"
    if importlib.util.find_spec(name) is None:
        return []
    module = importlib.import_module(name)
    return [value for attr, value in sorted(vars(module).items())
            if attr.startswith("PUBLISHED") and isinstance(value, Path)]


def replay_files(config: dict, study: str) -> set[str]:
    """What `verify` needs beyond the products' inputs: the instance summary of every setting the default
    target runs (a replay checks the instance it builds from the config against it), and the instance files
    a study's own command builds from data (the Yahoo! arm sets), which a reader cannot build without
    that data: from the synthetic stand-in only (the R6A licence does not allow passing the log on, nor
    what is built from it here)."""
    external = catalogue.studies()[study].external_instances
    synthetic = (config.get("r6a") or {}).get("source", "synthetic") == "synthetic"
    out = set()
    for exp in experiments.study_experiments(config, study).values():
        if experiments.on_request(exp):
            continue
        for setting in exp.setting_ids():
            out.add(paths.instance_path(config, exp, setting, "json"))
            if exp.instance in external and synthetic:
                out.add(paths.instance_path(config, exp, setting, "npz"))
    return out


def user_algorithm_files(config: dict) -> set[str]:
    """The user's own algorithm files (`extra_algorithms` targets `path/file.py:Class`, relative to the run)."""
    out = set()
    for entries in (config.get("extra_algorithms") or {}).values():
        for spec in (entries or {}).values():
            target = spec.get("class") if isinstance(spec, dict) else spec
            module = str(target).rpartition(":")[0]
            if module.endswith(".py") and not Path(module).is_absolute():
                out.add(module)
    return out


def study_contents(run_dir: Path, study: str, snapshot: str) -> dict:
    """One enabled study's share: its run files (relative to the run), its package files and its products."""
    config = products.load_config(run_dir / snapshot, study)
    made = [p for p in products.study_products(config, study) if not p.target]
    outputs = {str(f) for p in made for f in p.outputs}
    run_files, package_files = {snapshot}, set()
    for f in {str(f) for p in made for f in p.inputs} - outputs:
        path = Path(f)
        if not path.is_absolute():
            run_files.add(f)
        elif path.resolve().is_relative_to(PACKAGE_DIR):
            package_files.add(path.resolve().relative_to(PACKAGE_DIR).as_posix())
        else:
            raise UserError(f"study {study}: a product reads {f}, which lies neither in the run nor in the "
                            f"linbandits package; an archive cannot hold it")
    package_files |= {p.resolve().relative_to(PACKAGE_DIR).as_posix() for p in published_files(study)}
    run_files |= replay_files(config, study) | user_algorithm_files(config)
    return {"config": config, "run": run_files, "package": package_files, "products": sorted(outputs)}


def missing_message(path: str, what: str) -> UserError:
    return UserError(f"the run has no {path} ({what}); finish the run first (`snakemake --cores 2`, with "
                     f"`--config preview=true` for a preview) and archive again")


# ---------------------------------------------------------------- writing

def tar_member(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mtime, info.mode = len(data), 0, 0o644
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    tar.addfile(info, io.BytesIO(data))


def json_bytes(data) -> bytes:
    return (json.dumps(data, indent=1, sort_keys=True) + "\n").encode()


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
    members[LOCK] = json_bytes(lock.environment())
    members[METADATA] = json_bytes(repository_metadata())
    manifest = "".join(f"{sha256_bytes(data)}  {member}\n" for member, data in sorted(members.items()))
    members[MANIFEST] = manifest.encode()
    out = Path(out) if out else run_dir / f"{prefix}archive" / f"{name}.tar.gz"
    out.parent.mkdir(parents=True, exist_ok=True)
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
                                            "published data, environment lock and SHA-256 manifest.")
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
