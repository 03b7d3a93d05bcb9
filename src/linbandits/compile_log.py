"""Numba compilations of one process, logged when LINBANDITS_COMPILE_LOG names a file (benchmarks only).

Numba fires the event "numba:compile" only when it compiles (a kernel loaded from its cache does not),
so the log says which kernels a process compiled and how long each took. Each compilation is one JSON
line appended at exit: {"kernel": "module.function", "seconds": s, "nested": bool, "pid": p}; a kernel
that calls another compiles the callee inside its own compilation (nested: true), so a total sums the
lines with nested false. One write per process, in append mode: jobs running together do not interleave.
"""
from __future__ import annotations

import atexit
import json
import os
import time

ENV = "LINBANDITS_COMPILE_LOG"


def install_if_asked() -> None:
    path = os.environ.get(ENV)
    if not path:
        return
    from numba.core import event

    records, open_starts = [], []

    class CompileTimes(event.Listener):
        def on_start(self, ev):
            open_starts.append(time.perf_counter())

        def on_end(self, ev):
            start = open_starts.pop()
            dispatcher = ev.data["dispatcher"]
            func = dispatcher.py_func
            records.append({"kernel": f"{func.__module__}.{func.__qualname__}",
                            "seconds": time.perf_counter() - start, "nested": bool(open_starts),
                            "pid": os.getpid()})

    event.register("numba:compile", CompileTimes())

    def write():
        if records:
            with open(path, "a", encoding="utf-8") as handle:
                handle.write("".join(json.dumps(r) + "\n" for r in records))

    atexit.register(write)


def summary(path) -> list[dict]:
    """Per kernel compiled outermost: the processes that compiled it and their summed seconds, costliest first."""
    by_kernel: dict[str, dict] = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            r = json.loads(line)
            k = by_kernel.setdefault(r["kernel"], {"kernel": r["kernel"], "pids": set(), "seconds": 0.0,
                                                   "nested_only": True})
            k["pids"].add(r["pid"])
            if not r["nested"]:
                k["seconds"] += r["seconds"]
                k["nested_only"] = False
    rows = [{"kernel": k["kernel"], "processes": len(k["pids"]), "seconds": k["seconds"]}
            for k in by_kernel.values() if not k["nested_only"]]
    return sorted(rows, key=lambda r: -r["seconds"])
