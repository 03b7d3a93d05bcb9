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


def read_npz(path, what: str = "file", remedy: str = "") -> dict:
    """Every array of an .npz, or one UserError naming the file, what is wrong with it and how to get a good
    one (remedy; by default: write it again)."""
    path = Path(path)
    if not path.exists():
        raise UserError(f"{what} {path} does not exist")
    remedy = remedy or "delete it and rerun the command or Snakemake rule that writes it"
    if not zipfile.is_zipfile(path):
        raise UserError(f"{path} is not a valid {what}: it is not an .npz (zip) archive, perhaps truncated or "
                        f"overwritten; {remedy}")
    try:
        with np.load(path, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except Exception as exc:  # zipfile, format and object-array errors alike
        text = " ".join(str(exc).split())
        reason = ("one of its arrays holds Python objects, which a file this package writes never does"
                  if "pickle" in text.lower() else f"an array in it cannot be read ({text})")
        raise UserError(f"{path} is not a valid {what}: {reason}; {remedy}") from None
