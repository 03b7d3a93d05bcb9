"""linbandits.compile_log: with LINBANDITS_COMPILE_LOG set, a process appends one JSON line per numba
compilation at exit, a callee compiled inside its caller's compilation marked nested; without it, nothing is
written. summary() totals per kernel compiled outermost, counting its processes, costliest first. Planted
bugs: the listener marking nothing nested (the module's source with one snippet changed), a summary that
sums nested lines too."""
import inspect
import json
import os
import subprocess
import sys

from linbandits import compile_log

# A caller and its callee, both compiled afresh (no cache); PLANT replaces one snippet of the module first.
PROGRAM = r'''
import os, sys, types
import linbandits.compile_log as compile_log
old, new = os.environ.get("PLANT_OLD"), os.environ.get("PLANT_NEW")
if old:
    planted = types.ModuleType("planted_compile_log")
    exec(compile(sys.argv[1].replace(old, new), "planted", "exec"), planted.__dict__)
    compile_log = planted
compile_log.install_if_asked()
from numba import njit

@njit
def callee(x):
    return x + 1

@njit
def caller(x):
    return callee(x) * 2

assert caller(3) == 8
'''


def compile_in_a_process(log, old="", new=""):
    env = {k: v for k, v in os.environ.items() if k != compile_log.ENV}
    if log is not None:
        env[compile_log.ENV] = str(log)
    env.update(PLANT_OLD=old, PLANT_NEW=new)
    run = subprocess.run([sys.executable, "-c", PROGRAM, inspect.getsource(compile_log)], env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    return [json.loads(line) for line in log.read_text().splitlines()] if log is not None and log.exists() else []


def nested_by_kernel(records):
    return {r["kernel"].rsplit(".", 1)[-1]: r["nested"] for r in records}


def test_a_process_logs_its_compilations_with_the_callee_nested(tmp_path):
    log = tmp_path / "compile.jsonl"
    records = compile_in_a_process(log)
    assert nested_by_kernel(records) == {"callee": True, "caller": False}
    assert {r["pid"] for r in records} != {os.getpid()} and all(r["seconds"] > 0 for r in records)
    assert len(compile_in_a_process(log)) == 4          # a second process appends its own lines
    planted = compile_in_a_process(tmp_path / "planted.jsonl", '"nested": bool(open_starts)', '"nested": False')
    assert nested_by_kernel(planted) != {"callee": True, "caller": False}


def test_without_the_variable_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert compile_in_a_process(None) == [] and list(tmp_path.iterdir()) == []


LINES = [
    {"kernel": "m.inner", "seconds": 0.5, "nested": True, "pid": 1},
    {"kernel": "m.outer", "seconds": 2.0, "nested": False, "pid": 1},
    {"kernel": "m.outer", "seconds": 1.5, "nested": False, "pid": 2},
    {"kernel": "m.inner", "seconds": 0.25, "nested": True, "pid": 2},
    {"kernel": "m.alone", "seconds": 1.0, "nested": False, "pid": 2},
    {"kernel": "m.alone", "seconds": 4.0, "nested": True, "pid": 3},
]


def test_the_summary_totals_outermost_compilations_costliest_first(tmp_path, monkeypatch):
    """inner was only ever compiled inside outer: outer's seconds hold it, and it gets no row; alone's nested
    compilation counts its process but not its seconds."""
    log = tmp_path / "compile.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in LINES))
    expected = [{"kernel": "m.outer", "processes": 2, "seconds": 3.5},
                {"kernel": "m.alone", "processes": 2, "seconds": 1.0}]
    assert compile_log.summary(log) == expected

    class EveryLineOutermost:
        @staticmethod
        def loads(line):
            return {**json.loads(line), "nested": False}

    monkeypatch.setattr(compile_log, "json", EveryLineOutermost)
    assert compile_log.summary(log) != expected
