"""Instance files of every kind: which kind a file is, reading it, writing it.

A kind is a class (see linbandits.study for its contract). Kinds used by
more than one study live in this package (listed in catalogue.SHARED_KINDS); a study's own kinds
are declared by its STUDY. A file names its kind by a `kind` entry or, if it
has none, by its arrays: the kind whose required arrays it holds.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from linbandits.errors import UserError
from linbandits.npzfile import read_npz, write_npz

# Entries every instance file may carry besides its kind's arrays.
BOOKKEEPING = ("kind", "meta")


def detect_kind(arrays: dict, path, kinds: dict) -> str:
    """The kind of an instance file's arrays; kinds maps kind name -> class."""
    if "kind" in arrays:
        kind = str(arrays["kind"])
        if kind not in kinds:
            raise UserError(f"instance file {path} declares kind {kind!r}, which no study reads; "
                            f"known kinds are: {', '.join(sorted(kinds))}")
        return kind
    present = set(arrays) - set(BOOKKEEPING)
    matches = [k for k, cls in kinds.items() if set(cls.required) <= present]
    if len(matches) > 1:   # the most specific declaration wins; a tie is ambiguous
        most = max(len(kinds[k].required) for k in matches)
        matches = [k for k in matches if len(kinds[k].required) == most]
    if len(matches) == 1:
        return matches[0]
    wanted = "; ".join(f"{k}: {', '.join(cls.required)}" for k, cls in sorted(kinds.items()))
    if not matches:
        overlap = {k: len(set(cls.required) & present) for k, cls in kinds.items()}
        closest = [k for k, n in overlap.items() if n and n == max(overlap.values())]
        if len(closest) == 1:
            cls = kinds[closest[0]]
            missing = [a for a in cls.required if a not in present]
            raise UserError(f"instance file {path} lacks {', '.join(missing)}; a {closest[0]} instance needs "
                            f"{', '.join(cls.required)} (found: {', '.join(sorted(present)) or 'nothing'})")
        if len(closest) > 1:   # e.g. X and noise_sd: a linear file without thetas or a bai file without theta
            options = " or ".join(
                f"{', '.join(a for a in kinds[k].required if a not in present)} (a {k} instance needs "
                f"{', '.join(kinds[k].required)})" for k in sorted(closest))
            raise UserError(f"instance file {path} lacks {options}; found: {', '.join(sorted(present))}")
        raise UserError(f"instance file {path} holds {', '.join(sorted(present)) or 'no arrays'}, which is no "
                        f"known kind of instance; an instance file needs the arrays of one kind ({wanted})")
    raise UserError(f"instance file {path} matches several kinds ({', '.join(matches)}); "
                    "add a 'kind' entry naming one")


def load_instance_file(path, settings: dict | None = None, kind: str | None = None):
    """Read an instance file of any kind; every problem is one UserError.

    settings: --setting values a kind accepts with a file (its file_settings).
    """
    from linbandits.catalogue import instance_kinds, kind_targets, resolve

    path = Path(path)
    settings = dict(settings or {})
    arrays = read_npz(path, "instance file", regenerate_hint(path))
    declared = kind or (str(arrays["kind"]) if "kind" in arrays else None)
    targets = kind_targets()
    if declared in targets:
        # Only the declared kind's module is imported (another study's may pull in numba or scipy).
        kind, cls = declared, resolve(targets[declared])
    else:
        kinds = instance_kinds()
        kind = kind or detect_kind(arrays, path, kinds)
        cls = kinds[kind]
    missing = [a for a in cls.required if a not in arrays]
    if missing:
        raise UserError(f"instance file {path} lacks {', '.join(missing)}; a {kind} instance needs "
                        f"{', '.join(cls.required)} (found: {', '.join(sorted(arrays)) or 'nothing'})")
    unknown = sorted(set(settings) - set(cls.file_settings))
    if unknown:
        allowed = ", ".join(cls.file_settings) or "none"
        raise UserError(f"--setting {', '.join(unknown)} does not apply to a {kind} instance file; "
                        f"settings allowed with --instance-file: {allowed}")
    meta = read_meta(arrays)
    return cls.from_arrays(arrays, name=meta.get("name", path.stem), meta=meta, settings=settings,
                           where=f"instance file {path}")


def regenerate_hint(path: Path) -> str:
    """How to get a good instance file in place of a broken one."""
    return (f"regenerate it: delete it and rerun snakemake (the experiment's instance job writes it again), or "
            f"write it with `linbandits instance --instance FAMILY --setting K=V,... --out {path} "
            f"--summary {path.with_suffix('.json')}`")


def read_meta(arrays: dict) -> dict:
    if "meta" not in arrays:
        return {}
    try:
        meta = json.loads(str(arrays["meta"]))
    except ValueError:
        return {}
    return meta if isinstance(meta, dict) else {}


def save_instance(path, instance) -> None:
    """Write an instance of any kind (its arrays, its kind and its metadata), byte-reproducibly."""
    meta = instance.file_meta() if hasattr(instance, "file_meta") else {**instance.meta, "name": instance.name}
    arrays = {**instance.to_arrays(), "kind": np.array(instance.kind),
              "meta": np.array(json.dumps(meta, sort_keys=True))}
    write_npz(path, arrays)
