"""An archive opened and checked before anything in it is used: its manifest, its format and version,
and the package files its products read. Every refusal is one UserError, raised before the caller
writes anything outside its own temporary directory.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import posixpath
import tarfile
from pathlib import Path

import linbandits
from linbandits.archive import FORMAT, INFO, LOCK, MANIFEST, PACKAGE, PUBLISHED, RUN
from linbandits.archive.contents import published_in_code
from linbandits.archive.record import PACKAGE_DIR, json_bytes, sha256_file
from linbandits.errors import UserError

AGAIN = "get the archive again from where it was published (its SHA-256 is printed beside it)"


@dataclasses.dataclass
class Unpacked:
    archive: Path
    root: Path            # the archive's folder, unpacked
    info: dict            # archive.json
    lock: dict            # lock.json

    @property
    def run(self) -> Path:
        """The run's files at their paths in the run (results/<study>/...)."""
        return self.root / RUN

    @property
    def prefix(self) -> str:
        return self.info.get("prefix") or ""

    def enabled(self) -> list[dict]:
        return [s for s in self.info["studies"] if s["enabled"]]


def _members(tar: tarfile.TarFile, archive: Path) -> tuple[str, dict[str, tarfile.TarInfo]]:
    """(the top folder, its regular files by path inside it); anything else is refused."""
    files, tops = {}, set()
    for member in tar.getmembers():
        name = member.name
        parts = name.split("/")
        if name.startswith("/") or ".." in parts or posixpath.normpath(name) != name:
            raise UserError(f"{archive}: member {name!r} points outside the archive's folder; this is not an archive "
                            f"`linbandits archive` wrote")
        if not (member.isfile() or member.isdir()):
            raise UserError(f"{archive}: member {name!r} is not a plain file; this is not an archive "
                            f"`linbandits archive` wrote")
        tops.add(parts[0])
        if member.isfile() and len(parts) > 1:
            files["/".join(parts[1:])] = member
    if len(tops) != 1:
        raise UserError(f"{archive}: holds {len(tops)} top folders, not one; this is not an archive "
                        f"`linbandits archive` wrote")
    return tops.pop(), files


def _manifest(text: str, archive: Path) -> dict[str, str]:
    out = {}
    for line in text.splitlines():
        digest, sep, name = line.partition("  ")
        if not sep or len(digest) != 64:
            raise UserError(f"{archive}: its {MANIFEST} has a line that is not '<sha256>  <path>' ({line[:60]!r}); {AGAIN}")
        out[name] = digest
    return out


def unpack(archive, into) -> Unpacked:
    """Extract `archive` into the directory `into` (the caller's temporary one), checking every file
    against the manifest as it goes, then the format, the version and the package files."""
    archive, into = Path(archive), Path(into)
    if not archive.is_file():
        raise UserError(f"archive {archive} does not exist; give the .tar.gz that `linbandits archive` wrote")
    try:
        tar = tarfile.open(archive, mode="r:gz")
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise UserError(f"{archive} is not a linbandits archive (not a readable .tar.gz: {exc}); {AGAIN}") from None
    with tar:
        try:
            top, files = _members(tar, archive)
            if MANIFEST not in files:
                raise UserError(f"{archive} has no {MANIFEST}; it is not an archive `linbandits archive` wrote")
            manifest = _manifest(tar.extractfile(files[MANIFEST]).read().decode("utf-8", "replace"), archive)
            missing = sorted(set(manifest) - set(files))
            if missing:
                raise UserError(f"{archive}: {missing[0]} is listed in its manifest but missing from the archive"
                                f"{f' (and {len(missing) - 1} more)' if len(missing) > 1 else ''}; {AGAIN}")
            extra = sorted(set(files) - set(manifest) - {MANIFEST})
            if extra:
                raise UserError(f"{archive}: {extra[0]} is not in its manifest (a file added after archiving); {AGAIN}")
            root = into / top
            for name in sorted(manifest):
                target = root / name
                target.parent.mkdir(parents=True, exist_ok=True)
                digest = hashlib.sha256()
                with tar.extractfile(files[name]) as source, open(target, "wb") as sink:
                    for block in iter(lambda: source.read(1 << 20), b""):
                        digest.update(block)
                        sink.write(block)
                if digest.hexdigest() != manifest[name]:
                    raise UserError(f"{archive}: {name} does not match its SHA-256 in the manifest (the file was "
                                    f"changed after archiving); {AGAIN}")
        except (tarfile.TarError, EOFError, OSError) as exc:   # a truncated or corrupt stream
            if isinstance(exc, OSError) and exc.filename:      # a write into `into` failed: not the archive's fault
                raise
            raise UserError(f"{archive} cannot be read to its end ({exc}); {AGAIN}") from None
    info = json.loads((root / INFO).read_text(encoding="utf-8"))
    check_compatible(archive, info, root)
    return Unpacked(archive, root, info, json.loads((root / LOCK).read_text(encoding="utf-8")))


def check_compatible(archive: Path, info: dict, root: Path) -> None:
    """The archive's format and version are this package's, and so are the package files its products
    read (its claims tables and published numbers) and the published numbers held in code: else the
    products would not be the run's."""
    made_by = f"linbandits {info.get('linbandits')} (commit {info.get('commit', 'unknown')})"
    if info.get("format") != FORMAT:
        raise UserError(f"{archive} is archive format {info.get('format')}, made by {made_by}; this linbandits "
                        f"{linbandits.__version__} reads format {FORMAT}: install the version that made it")
    if info.get("linbandits") != linbandits.__version__:
        raise UserError(f"{archive} was made by {made_by}; this is linbandits {linbandits.__version__}: install "
                        f"{info.get('linbandits')} (pip install linbandits=={info.get('linbandits')}, or check out its "
                        f"commit) to rebuild or verify it")
    for archived in sorted(p for p in (root / PACKAGE).rglob("*") if p.is_file()):
        name = archived.relative_to(root / PACKAGE).as_posix()
        here = PACKAGE_DIR / name
        if not here.is_file() or sha256_file(here) != sha256_file(archived):
            raise UserError(f"{archive}: this linbandits's {name} differs from the archive's ({PACKAGE}/{name}), so "
                            f"its products would not be the run's; check out the commit that made it "
                            f"({info.get('commit', 'unknown')})")
    for path in sorted((root / PUBLISHED).glob("*/*.json")):
        study, attr = path.parent.name, path.stem
        table = published_in_code(study).get(attr)
        if table is None or json_bytes(table) != path.read_bytes():
            raise UserError(f"{archive}: this linbandits's published {attr} of study {study} differs from the "
                            f"archive's ({PUBLISHED}/{study}/{path.name}), so its products would not be the run's; "
                            f"check out the commit that made it ({info.get('commit', 'unknown')})")
