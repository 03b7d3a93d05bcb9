"""The lock of an archive (lock.json): what a reader needs to make the same bits again.

Every installed distribution's exact version, the Python and the operating system, and what the
last bits of a run depend on (README, "Reproducibility"): the CPU, the CPU that LLVM compiles the
numba kernels for, and the kernels OpenBLAS chose at run time (its "core", e.g. SkylakeX or
Haswell; OPENBLAS_CORETYPE overrides it). Two machines are the *same platform* when these three
agree; there `linbandits verify` asks for the same bits, elsewhere for the same distribution.

The lock describes the machine the archive is made on, which is the machine of the runs unless
they were made elsewhere (a cluster's nodes): the simulate jobs do not record their host.
"""
from __future__ import annotations

import ctypes
import importlib.metadata
import os
import platform
from pathlib import Path

# Environment variables that change which kernels run (recorded by name and value; no other
# variable is read, so nothing private ends up in an archive).
NUMERIC_ENV_PREFIXES = ("OPENBLAS_", "NUMBA_", "MKL_", "OMP_")
# Those of them that choose kernels, and so the bits (thread counts do not: README, "Reproducibility").
KERNEL_VARIABLES = ("OPENBLAS_CORETYPE", "NUMBA_OPT", "NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES", "MKL_CBWR",
                    "MKL_ENABLE_INSTRUCTIONS")
# OpenBLAS's own name for the kernels it picked, under the symbol names of its builds (numpy's and
# scipy's wheels prefix theirs with scipy_ and suffix a 64-bit-integer build with 64_).
CORENAME_SYMBOLS = ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename", "openblas_get_corename64_",
                    "openblas_get_corename")
CONFIG_SYMBOLS = ("scipy_openblas_get_config64_", "scipy_openblas_get_config", "openblas_get_config64_",
                  "openblas_get_config")
UNKNOWN = "unknown"


def packages() -> dict[str, str]:
    """name -> version of every installed distribution, sorted by name (case-insensitive)."""
    found = {}
    for dist in importlib.metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            found.setdefault(name, dist.version)
    return dict(sorted(found.items(), key=lambda item: item[0].lower()))


def cpu() -> dict:
    """The CPU model and flags (/proc/cpuinfo on Linux) and the CPU LLVM compiles the kernels for."""
    model, flags = platform.processor() or UNKNOWN, []
    info = Path("/proc/cpuinfo")
    if info.exists():
        for line in info.read_text(errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and model in (UNKNOWN, "", platform.machine()):
                model = value.strip()
            elif key.strip() == "flags" and not flags:
                flags = sorted(value.split())
    try:
        import llvmlite.binding as llvm

        llvm_cpu = llvm.get_host_cpu_name()
    except Exception:   # llvmlite absent or unable to say: the lock records that it does not know
        llvm_cpu = UNKNOWN
    return {"model": model, "machine": platform.machine(), "cores": os.cpu_count(), "llvm_cpu": llvm_cpu,
            "flags": flags}


def _symbol(library, names):
    for name in names:
        function = getattr(library, name, None)
        if function is not None:
            function.restype = ctypes.c_char_p
            value = function()
            return value.decode(errors="replace").strip() if value else UNKNOWN
    return None


def blas() -> dict:
    """numpy's BLAS as built (numpy.show_config) and every OpenBLAS loaded in this process with the kernels
    it picked at run time (numpy's and scipy's wheels each bring their own)."""
    import numpy as np
    import scipy.linalg  # noqa: F401  (loads scipy's own BLAS, which the studies use too)

    built = (np.show_config(mode="dicts") or {}).get("Build Dependencies", {})
    build = {part: {k: v.get(k) for k in ("name", "version", "openblas configuration") if v.get(k) is not None}
             for part, v in built.items() if isinstance(v, dict)}
    loaded = []
    maps = Path("/proc/self/maps")
    paths = sorted({line.split()[-1] for line in maps.read_text().splitlines()
                    if "openblas" in Path(line.split()[-1]).name.lower()}) if maps.exists() else []
    for path in paths:
        try:
            library = ctypes.CDLL(path)
        except OSError:
            continue
        core = _symbol(library, CORENAME_SYMBOLS)
        if core is not None:
            loaded.append({"library": Path(path).name, "core": core,
                           "config": _symbol(library, CONFIG_SYMBOLS) or UNKNOWN})
    return {"build": build, "runtime": loaded}


def current() -> dict:
    """The lock: packages, Python, operating system, CPU, BLAS and the variables that steer them."""
    import linbandits.jit  # noqa: F401  (sets the kernels' defaults, e.g. NUMBA_OPT, as every job sees them)

    uname = platform.uname()
    libc = " ".join(platform.libc_ver()).strip()
    os_release = {}
    release = Path("/etc/os-release")
    if release.exists():
        for line in release.read_text(errors="replace").splitlines():
            key, _, value = line.partition("=")
            if key in ("PRETTY_NAME", "ID", "VERSION_ID"):
                os_release[key] = value.strip().strip('"')
    return {
        "python": {"version": platform.python_version(), "implementation": platform.python_implementation()},
        "os": {"system": uname.system, "release": uname.release, "version": uname.version,
               "distribution": os_release.get("PRETTY_NAME", UNKNOWN), "libc": libc or UNKNOWN},
        "cpu": cpu(),
        "blas": blas(),
        "variables": {k: v for k, v in sorted(os.environ.items()) if k.startswith(NUMERIC_ENV_PREFIXES)},
        "packages": packages(),
    }


def platform_key(lock: dict) -> dict:
    """What decides the bits of a run besides the BLAS kernels: the CPU model, LLVM's target CPU and the
    variables that choose kernels (NUMBA_OPT, OPENBLAS_CORETYPE, ...)."""
    cpu_info = lock.get("cpu", {})
    return {"CPU model": cpu_info.get("model", UNKNOWN), "LLVM target CPU": cpu_info.get("llvm_cpu", UNKNOWN),
            "kernel variables": " ".join(f"{k}={v}" for k, v in lock.get("variables", {}).items()
                                         if k in KERNEL_VARIABLES) or "none"}


def blas_cores(lock: dict) -> dict[str, str]:
    """OpenBLAS library -> the kernels it picked."""
    return {b["library"]: b["core"] for b in lock.get("blas", {}).get("runtime", [])}


def platform_differences(archived: dict, here: dict) -> list[str]:
    """How this machine differs from the archive's where the bits depend on it ([] on the same platform;
    what either side does not know counts as a difference). The BLAS kernels are compared library by
    library over the libraries both processes loaded (numpy's and scipy's; a process that imported cvxpy
    also holds its solvers' own, which the studies do not compute with)."""
    a, h = platform_key(archived), platform_key(here)
    out = [f"{name}: archive {a[name]!r}, here {h[name]!r}" for name in a
           if a[name] != h[name] or UNKNOWN in (a[name], h[name])]
    blas_a, blas_h = blas_cores(archived), blas_cores(here)
    common = sorted(set(blas_a) & set(blas_h))
    if not common:
        out.append(f"BLAS: no OpenBLAS library in common (archive {', '.join(sorted(blas_a)) or 'none'}, here "
                   f"{', '.join(sorted(blas_h)) or 'none'})")
    out += [f"BLAS kernels of {lib}: archive {blas_a[lib]!r}, here {blas_h[lib]!r}" for lib in common
            if blas_a[lib] != blas_h[lib]]
    return out
