"""What an archive says about itself: SHA-256 digests, the config hash that names it, the commit of the
package's source tree and a data repository's record from CITATION.cff."""
from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import yaml

import linbandits

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


def json_bytes(data) -> bytes:
    return (json.dumps(data, indent=1, sort_keys=True) + "\n").encode()


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
        "description": ("The runs files, config snapshots, published data and software lock of one run of "
                        "linbandits; `linbandits rebuild` makes every figure, table and claims file from them and "
                        "`linbandits verify` replays a sample of the runs. " + " ".join(str(cff.get("abstract", "")).split())),
        "keywords": list(cff.get("keywords") or []),
        "references": [r.get("title") for r in cff.get("references") or [] if r.get("title")],
        "upload_type": "dataset",
    }
