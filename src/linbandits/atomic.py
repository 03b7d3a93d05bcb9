"""Outputs are written to a temporary name beside the target and renamed:
a crash never leaves a half-written file that a pipeline would take for done.

A write the operating system refuses (no permission, a read-only or full disk, a directory that
takes no files such as /proc, a parent that is a file, a name too long) is one UserError,
`cannot write PATH: REASON; FIX`, and the temporary file is removed.
"""
from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import tempfile
from pathlib import Path

import numpy as np

from linbandits.errors import UserError

# The temporary name is ".{name}.XXXXXXXX.tmp"; the name part is cut so that any name the file
# system takes for the output also fits in the temporary name.
TEMP_NAME_CHARS = 40


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _is_dir(path: Path) -> bool:
    """Path.is_dir, False too where the path cannot even be looked up (a name too long)."""
    try:
        return path.is_dir()
    except OSError:
        return False


def _nearest_dir(path: Path) -> Path:
    """`path` or its nearest ancestor that is an existing directory."""
    return next((d for d in (path, *path.parents) if _is_dir(d)), Path("."))


def _name_max(directory: Path) -> int:
    """The longest file name (bytes) the file system of `directory` (or its nearest existing parent) takes."""
    try:
        return os.pathconf(_nearest_dir(directory), "PC_NAME_MAX")
    except OSError:
        return 255


def _file_in_the_way(path: Path) -> Path | None:
    """The first ancestor of `path` that exists and is not a directory (so nothing can be made under it)."""
    for d in reversed(path.parents):
        with contextlib.suppress(OSError):
            if d.exists() and not d.is_dir():
                return d
    return None


def write_fix(path: Path, code: int | None) -> str:
    """What to do about a write of `path` refused with errno `code`."""
    if code in (errno.EACCES, errno.EPERM):
        return f"choose a directory you may write to, or give yourself write permission on {path.parent}"
    if code == errno.EROFS:
        return f"{path.parent} is on a read-only file system; write to a directory on a writable disk"
    if code in (errno.ENOSPC, errno.EDQUOT):
        return "free space on that disk (or within your quota), or write to another disk, and run again"
    if code == errno.EFBIG:
        return "the file would pass the file-size limit set for this process (`ulimit -f`); raise it and run again"
    if code in (errno.ENOTDIR, errno.EEXIST):
        blocker = _file_in_the_way(path)
        if blocker is not None:
            return f"{blocker} is a file, not a directory: move it away or choose another output path"
    if code == errno.EISDIR:
        return f"{path} is a directory: give a file name inside it, e.g. {path / 'out.csv'}"
    if code == errno.ENAMETOOLONG:
        limit = _name_max(path.parent)
        longest = max(path.parts, key=lambda part: len(os.fsencode(part)))
        length = len(os.fsencode(longest))
        if length > limit:
            what = "the file name" if longest == path.name else f"the directory name {longest[:20]}..."
            return f"shorten {what} to at most {limit} bytes (it has {length})"
        return "shorten the path (it is longer than the system allows)"
    if code == errno.ENOENT:   # the directory exists (or was made) yet refuses the new entry
        return (f"{_nearest_dir(path.parent)} takes no new files or directories (a virtual file system such as "
                "/proc or /sys?); choose another path")
    return "check the path, and write to an ordinary directory you may write to"


def cannot_write(path, exc: OSError) -> UserError:
    """One UserError for a refused write of `path`: `cannot write PATH: REASON; FIX`."""
    path = Path(path)
    code = exc.errno
    if code == errno.EEXIST and _file_in_the_way(path) is not None:
        code = errno.ENOTDIR   # mkdir's word for a file where a directory must be made
    reason = os.strerror(code) if code else (exc.strerror or str(exc))
    return UserError(f"cannot write {path}: {reason}; {write_fix(path, code)}")


def _concerns(exc: OSError, *paths) -> bool:
    """Whether an OSError raised while writing is about the file being written (not, say, an input read)."""
    return exc.filename is None or any(os.fspath(exc.filename) == os.fspath(p) for p in paths)


def _refuse_non_file(path: Path) -> None:
    """A directory, device, pipe or socket at `path` would be replaced by a regular file (os.replace
    does that to a device even as root): refuse it instead."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return   # nothing there yet (or not reachable: the write itself says why)
    if stat.S_ISDIR(mode):
        raise UserError(f"cannot write {path}: it is a directory; give a file name inside it, e.g. "
                        f"{path / 'out.csv'}")
    if not stat.S_ISREG(mode):
        raise UserError(f"cannot write {path}: it is a device, pipe or socket, not a regular file, and writing "
                        "replaces the file whole; give the path of a regular file")


def _make_temp(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:TEMP_NAME_CHARS]}.", suffix=".tmp")
    os.close(fd)
    return Path(tmp)


def check_writable(path) -> None:
    """Refuse early, before a long computation, an output path that cannot be written, and leave nothing
    behind: no file in the way of its directories, every name within the file system's limit, and its
    directory (or, if missing, the nearest existing one, where the write would make it) takes a new
    entry. A full disk shows only at the write itself."""
    path = Path(path)
    _refuse_non_file(path)
    try:
        limit = _name_max(path.parent)
        if any(len(os.fsencode(part)) > limit for part in path.parts):
            raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG), str(path))
        if _file_in_the_way(path) is not None:
            raise OSError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(path))
        if _is_dir(path.parent):
            _make_temp(path).unlink()
        else:
            os.rmdir(tempfile.mkdtemp(dir=_nearest_dir(path.parent), prefix=".linbandits-probe."))
    except OSError as exc:
        raise cannot_write(path, exc) from None


@contextlib.contextmanager
def atomic_output(path):
    """Yield a temporary path beside `path`; rename it onto `path` only on success.

    A crash never leaves a half-written output that a pipeline would take for done; a refused write
    is one UserError naming `path` (see cannot_write), with the temporary file removed.
    """
    path = Path(path)
    _refuse_non_file(path)
    tmp = None
    try:
        tmp = _make_temp(path)
        yield tmp
        # mkstemp makes the file private (0600); give it the usual umask-based mode.
        os.chmod(tmp, 0o666 & ~_current_umask())
        os.replace(tmp, path)
    except OSError as exc:
        if tmp is not None and not _concerns(exc, tmp, path):
            raise
        raise cannot_write(path, exc) from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                tmp.unlink()


def write_text_atomic(path, text: str) -> None:
    with atomic_output(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def jsonable(obj):
    """numpy scalars and arrays as JSON values (json.dumps' `default`)."""
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON serialisable: {type(obj)}")


def write_json_atomic(path, data, indent: int = 2, sort_keys: bool = False) -> None:
    write_text_atomic(path, json.dumps(data, indent=indent, sort_keys=sort_keys, default=jsonable) + "\n")
