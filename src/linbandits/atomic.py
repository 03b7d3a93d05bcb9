"""Outputs are written to a temporary name beside the target and renamed:
a crash never leaves a half-written file that a pipeline would take for done."""
from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path

import numpy as np


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_output(path):
    """Yield a temporary path beside `path`; rename it onto `path` only on success.

    A crash never leaves a half-written output that a pipeline would take for done.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        yield Path(tmp)
        # mkstemp makes the file private (0600); give it the usual umask-based mode.
        os.chmod(tmp, 0o666 & ~_current_umask())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


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
