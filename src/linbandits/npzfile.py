"""Byte-reproducible .npz files.

np.savez stamps every member with the current time; fixed stamps make the
same arrays the same bytes on every run. Written through linbandits.atomic,
so a half-written file never looks complete.
"""
from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np

from linbandits.atomic import atomic_output
from linbandits.errors import UserError

FIXED_DATE = (1980, 1, 1, 0, 0, 0)


def write_npz(path, arrays: dict) -> None:
    with atomic_output(Path(path)) as tmp, zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_STORED) as zf:
        for name, arr in arrays.items():
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.asanyarray(arr), allow_pickle=False)
            zf.writestr(zipfile.ZipInfo(f"{name}.npy", date_time=FIXED_DATE), buf.getvalue())


def read_npz(path, what: str = "file") -> dict:
    """Every array of an .npz, or one UserError saying why it cannot be read."""
    path = Path(path)
    if not path.exists():
        raise UserError(f"{what} {path} does not exist")
    try:
        with np.load(path, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except Exception as exc:  # zipfile, pickle and format errors alike
        raise UserError(f"{what} {path} is not a readable .npz archive ({exc})") from None
