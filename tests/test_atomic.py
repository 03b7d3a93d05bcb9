"""linbandits.atomic: every output is written whole or not at all, and one that cannot be written is
refused early, in one line (issue 38, the first hour's errors): every output that cannot be written, and
every bad argument or input a new user tries, is one line on stderr (`error: cannot write PATH: REASON; FIX` for a write),
exit 2, no traceback, and no temporary or half-written file left behind.

The conditions are planted for real where root allows it (tests run as root, whom permission bits do
not stop): a path under /proc or /sys, a regular file where a directory must be, a name longer than the
file system takes, a directory or a pipe as the output, and a file-size limit (`ulimit -f`) that stops
a write halfway. A full disk and a read-only file system cannot be made without mounting one; they
are faked inside the CLI's own process by making the system's calls fail with ENOSPC or EROFS.
Planted bugs (the writer as it was, which let OSError escape; one that leaves its temporary file; the
CLI without its early check) must make these checks fail.
"""
import errno
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from linbandits import atomic, jobs
from linbandits.errors import UserError

INSTANCE = ["instance", "--instance", "malicious", "--setting", "T=50"]
SIMULATE = ["simulate", "--instance", "malicious", "--setting", "T=50", "--algorithm", "G-BAI",
            "--trials", "1", "--seed", "1"]

# Runs the CLI's main after an optional fault (LB_FAULT=create:ERRNO refuses to make a temporary
# file; LB_FAULT=write:ERRNO lets half of each write to one land, then fails) and an optional
# planted bug (LB_PLANT=escape: the writer and main as they were, OSError escapes as a traceback;
# escape-in-main: that writer under today's main; leak: the temporary file stays; late: no early check).
BOOT = r'''
import builtins, contextlib, errno, io, os, sys, tempfile
from pathlib import Path

def is_temp(path):
    name = os.path.basename(os.fspath(path))
    return name.startswith(".") and name.endswith(".tmp")

fault, plant = os.environ.get("LB_FAULT", ""), os.environ.get("LB_PLANT", "")
if fault:
    where, code = fault.split(":")
    code = getattr(errno, code)
    if where == "create":
        real_os_open = os.open
        def refusing_open(path, flags, *args, **kwargs):
            if flags & os.O_CREAT and is_temp(path):
                raise OSError(code, os.strerror(code), os.fspath(path))
            return real_os_open(path, flags, *args, **kwargs)
        os.open = refusing_open
    else:
        real_io_open = io.open
        class Filling:
            def __init__(self, f):
                self._f = f
            def write(self, data):
                self._f.write(data[: len(data) // 2])
                self._f.flush()
                raise OSError(code, os.strerror(code))
            def __getattr__(self, name):
                return getattr(self._f, name)
            def __enter__(self):
                return self
            def __exit__(self, *exc):
                self._f.close()
        def filling_open(file, mode="r", *args, **kwargs):
            f = real_io_open(file, mode, *args, **kwargs)
            return Filling(f) if isinstance(file, (str, os.PathLike)) and is_temp(file) and set(mode) & set("wax+") else f
        io.open = builtins.open = filling_open

if plant:
    import linbandits.atomic as atomic, linbandits.cells as cells, linbandits.cli as cli, linbandits.npzfile as npzfile
    # every plant: no refusal before the computation (the CLI's own outputs and a cell's, in cells.py)
    cli.check_writable = cells.check_writable = lambda path: None
    @contextlib.contextmanager
    def planted_output(path):
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        os.close(fd)
        if plant.startswith("escape"):   # the writer before issue 38
            try:
                yield Path(tmp)
                os.replace(tmp, path)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
        else:                   # one line, but the temporary file stays
            try:
                yield Path(tmp)
                os.replace(tmp, path)
            except OSError as exc:
                raise atomic.cannot_write(path, exc) from None
    if plant != "late":
        atomic.atomic_output = npzfile.atomic_output = planted_output
    if plant == "escape":   # main before issue 38: UserError only
        try:
            sys.exit(cli.dispatch(sys.argv[1:]))
        except cli.UserError as exc:
            print(f"error: {exc}", file=sys.stderr)
            sys.exit(2)

from linbandits.cli import main
sys.exit(main(sys.argv[1:]))
'''


def cli(*args, cwd, fault="", plant="", preexec_fn=None):
    env = {**os.environ, "LB_FAULT": fault, "LB_PLANT": plant}
    command = [sys.executable, "-c", BOOT] if fault or plant else [sys.executable, "-m", "linbandits"]
    return subprocess.run([*command, *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300, preexec_fn=preexec_fn, check=False)


def leftovers(*dirs) -> list:
    """Temporary files and probe directories the writer may make."""
    return [p for d in dirs if Path(d).is_dir() for p in Path(d).rglob(".*")
            if p.name.endswith(".tmp") or p.name.startswith(".linbandits-probe.")]


def one_line(run) -> str:
    """The one line of a refusal; AssertionError (with the evidence) for anything else."""
    assert "Traceback" not in run.stderr, run.stderr[-3000:]
    assert run.returncode == 2, (run.returncode, run.stderr[-2000:])
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), run.stderr[-3000:]
    return lines[0]


def refused_write(run, path, *dirs) -> str:
    """One line `error: cannot write PATH: ...` and nothing temporary left in `dirs`."""
    line = one_line(run)
    assert line.startswith(f"error: cannot write {path}: "), line
    assert leftovers(*dirs) == [], leftovers(*dirs)
    return line


def reason_and_fix(line: str, path) -> tuple[str, str]:
    reason, _, fix = line[len(f"error: cannot write {path}: "):].partition("; ")
    assert fix, f"no fix after the reason: {line}"
    return reason, fix


# ------------------------------------------------------------------ conditions planted for real

def test_an_output_under_proc_is_refused_before_the_runs(tmp_path):
    """The issue's example: `simulate ... --out /proc/x.csv` (no runs made, so no progress line)."""
    run = cli(*SIMULATE, "--out", "/proc/x.csv", cwd=tmp_path)
    reason, fix = reason_and_fix(refused_write(run, "/proc/x.csv", tmp_path), "/proc/x.csv")
    # root: /proc takes no new entry (ENOENT); anyone else: no permission on /proc
    assert reason in (os.strerror(errno.ENOENT), os.strerror(errno.EACCES)), reason
    assert "choose another path" in fix or "a directory you may write to" in fix, fix
    assert list(tmp_path.iterdir()) == []


def test_an_output_under_sys_is_refused(tmp_path):
    run = cli(*INSTANCE, "--out", tmp_path / "i.npz", "--summary", "/sys/i.json", cwd=tmp_path)
    reason, fix = reason_and_fix(refused_write(run, "/sys/i.json", tmp_path), "/sys/i.json")
    assert (reason, fix) in [
        (os.strerror(errno.EACCES), "choose a directory you may write to, or give yourself write permission on /sys"),
        (os.strerror(errno.EROFS), "/sys is on a read-only file system; write to a directory on a writable disk")]
    assert list(tmp_path.iterdir()) == [], "the instance file was written although its summary cannot be"


@pytest.mark.parametrize("below", ["i.npz", "sub/dir/i.npz"])
def test_a_regular_file_where_a_directory_must_be(tmp_path, below):
    (tmp_path / "results").write_text("a file, not a directory\n")
    out = tmp_path / "results" / below
    line = refused_write(cli(*INSTANCE, "--out", out, "--summary", tmp_path / "i.json", cwd=tmp_path), out, tmp_path)
    assert reason_and_fix(line, out) == (
        os.strerror(errno.ENOTDIR),
        f"{tmp_path / 'results'} is a file, not a directory: move it away or choose another output path")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results"]


@pytest.mark.parametrize("where", ["file", "directory"])
def test_a_name_longer_than_the_file_system_takes(tmp_path, where):
    limit = os.pathconf(tmp_path, "PC_NAME_MAX")
    long = "n" * (limit + 1)
    out = tmp_path / (f"{long}.npz" if where == "file" else f"{long}/i.npz")
    line = refused_write(cli(*INSTANCE, "--out", out, "--summary", tmp_path / "i.json", cwd=tmp_path), out, tmp_path)
    reason, fix = reason_and_fix(line, out)
    assert reason == os.strerror(errno.ENAMETOOLONG)
    what = "the file name" if where == "file" else f"the directory name {long[:20]}..."
    assert fix == f"shorten {what} to at most {limit} bytes (it has {len(out.parts[-1 if where == 'file' else -2])})"
    assert list(tmp_path.iterdir()) == []


def test_a_name_as_long_as_the_file_system_takes_is_written(tmp_path):
    """Control for the above: the temporary name is cut, so the longest name the file system takes works."""
    limit = os.pathconf(tmp_path, "PC_NAME_MAX")
    out = tmp_path / ("n" * (limit - 4) + ".npz")
    run = cli(*INSTANCE, "--out", out, "--summary", tmp_path / "i.json", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert out.is_file() and leftovers(tmp_path) == []


def test_a_simulate_job_checks_every_output_before_its_first_cell(tmp_path, files):
    """The pipeline's simulate job (its plan): a bad output of its last cell stops it before its first cell runs."""
    cells = [{"instance": str(files / "good.npz"), "seed": 1, "out": str(tmp_path / "first.csv")},
             {"instance": str(files / "good.npz"), "seed": 2, "out": "/proc/second.csv"}]
    plan = jobs.write_plan(str(tmp_path.parent / f"{tmp_path.name}.plan.json"), {"runner": jobs.SIMULATE, "tasks": [
        {"algorithm": "G-BAI", "options": {}, "first_trial": 0, "trials": 1, "curves": True, "cells": cells}]})
    run = cli("run-job", plan, cwd=tmp_path)
    refused_write(run, "/proc/second.csv", tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_directory_as_the_output(tmp_path):
    (tmp_path / "runs").mkdir()
    line = refused_write(cli(*SIMULATE, "--out", tmp_path / "runs", cwd=tmp_path), tmp_path / "runs", tmp_path)
    assert line.endswith(f"it is a directory; give a file name inside it, e.g. {tmp_path / 'runs' / 'out.csv'}")
    assert list((tmp_path / "runs").iterdir()) == []


def test_a_pipe_as_the_output_is_refused_not_replaced(tmp_path):
    """A device, pipe or socket would be replaced by a regular file (as root, /dev/null itself)."""
    fifo = tmp_path / "i.npz"
    os.mkfifo(fifo)
    line = refused_write(cli(*INSTANCE, "--out", fifo, "--summary", tmp_path / "i.json", cwd=tmp_path), fifo, tmp_path)
    assert "not a regular file" in line and line.endswith("give the path of a regular file")
    assert fifo.is_fifo() and sorted(p.name for p in tmp_path.iterdir()) == ["i.npz"]


def limit_file_size(limit):
    def preexec():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # the write fails with EFBIG instead of a kill
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return preexec


def test_a_write_stopped_halfway_by_the_file_size_limit_leaves_nothing(tmp_path):
    """A real mid-write failure: the instance file (6.5 kB) passes a 2 kB limit halfway."""
    control = cli(*INSTANCE, "--out", tmp_path / "c.npz", "--summary", tmp_path / "c.json", cwd=tmp_path)
    assert control.returncode == 0 and (tmp_path / "c.npz").stat().st_size > 4000, control.stderr
    out = tmp_path / "i.npz"
    run = cli(*INSTANCE, "--out", out, "--summary", tmp_path / "i.json", cwd=tmp_path, preexec_fn=limit_file_size(2000))
    assert reason_and_fix(refused_write(run, out, tmp_path), out) == (
        os.strerror(errno.EFBIG),
        "the file would pass the file-size limit set for this process (`ulimit -f`); raise it and run again")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.json", "c.npz"]


# ------------------------------------------------------------------ a full disk, a read-only disk (faked)

def test_a_full_disk_halfway_through_the_write(tmp_path):
    """ENOSPC after half of the first write: the temporary file goes, an older output stays as it was."""
    out = tmp_path / "i.npz"
    out.write_bytes(b"an older instance file\n")
    run = cli(*INSTANCE, "--out", out, "--summary", tmp_path / "i.json", cwd=tmp_path, fault="write:ENOSPC")
    assert reason_and_fix(refused_write(run, out, tmp_path), out) == (
        os.strerror(errno.ENOSPC),
        "free space on that disk (or within your quota), or write to another disk, and run again")
    assert out.read_bytes() == b"an older instance file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["i.npz"]


def test_a_full_disk_at_the_simulate_sidecar(tmp_path):
    """simulate's runs are made, then its first write fails: one line after the progress line."""
    out = tmp_path / "x.csv"
    run = cli(*SIMULATE, "--out", out, cwd=tmp_path, fault="write:ENOSPC")
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr[-3000:]
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 2 and "1/1 trials" in lines[0], run.stderr
    assert lines[1].startswith(f"error: cannot write {tmp_path / 'x.json'}: {os.strerror(errno.ENOSPC)}; free space")
    assert list(tmp_path.iterdir()) == []


def test_a_read_only_file_system_is_refused_before_the_runs(tmp_path):
    out = tmp_path / "x.csv"
    line = refused_write(cli(*SIMULATE, "--out", out, cwd=tmp_path, fault="create:EROFS"), out, tmp_path)
    assert reason_and_fix(line, out) == (
        os.strerror(errno.EROFS), f"{tmp_path} is on a read-only file system; write to a directory on a writable disk")


# ------------------------------------------------------------------ planted bugs the checks above must catch

@pytest.mark.parametrize("plant, args, fault, caught", [
    ("escape", [*INSTANCE, "--out", "/proc/i.npz", "--summary", "{tmp}/i.json"], "", "Traceback"),
    ("escape", [*INSTANCE, "--out", "{tmp}/i.npz", "--summary", "{tmp}/i.json"], "write:ENOSPC", "Traceback"),
    ("escape-in-main", [*INSTANCE, "--out", "/proc/i.npz", "--summary", "{tmp}/i.json"], "", "temporary name"),
    ("leak", [*INSTANCE, "--out", "{tmp}/i.npz", "--summary", "{tmp}/i.json"], "write:ENOSPC", "leftovers"),
    ("late", [*SIMULATE, "--out", "/proc/x.csv"], "", "two lines"),
])
def test_planted_bugs_fail_the_checks(tmp_path, plant, args, fault, caught):
    """The writer and main as they were (OSError escapes as a traceback), that writer under today's main
    (one line, but naming the temporary file and no fix), a writer that leaves its temporary file, and the
    CLI without its early check (the runs are made before the refusal): each fails `refused_write`."""
    args = [str(a).format(tmp=tmp_path) for a in args]
    path = args[args.index("--out") + 1]
    run = cli(*args, cwd=tmp_path, fault=fault, plant=plant)
    with pytest.raises(AssertionError):
        refused_write(run, path, tmp_path)
    # and for the reason planted:
    if caught == "Traceback":
        assert "Traceback" in run.stderr and "Error: [Errno" in run.stderr, run.stderr[-2000:]
    elif caught == "temporary name":
        assert run.stderr.startswith("error: /proc/.i.npz.") and "cannot write" not in run.stderr, run.stderr
    elif caught == "leftovers":
        assert [p.name[:7] for p in leftovers(tmp_path)] == [".i.npz."], run.stderr
    else:   # refused by the writer, but after the runs (their progress line first)
        lines = run.stderr.strip().splitlines()
        assert len(lines) == 2 and "1/1 trials" in lines[0] and lines[1].startswith("error: cannot write /proc/x."), lines


# ------------------------------------------------------------------ every writer, in process

def fill_the_disk(monkeypatch, code=errno.ENOSPC):
    """Half of each write to a temporary file lands, then it fails with `code` (as in BOOT)."""
    import builtins
    import io

    real_open = io.open

    class Filling:
        def __init__(self, f):
            self._f = f

        def write(self, data):
            self._f.write(data[: len(data) // 2])
            self._f.flush()
            raise OSError(code, os.strerror(code))

        def __getattr__(self, name):
            return getattr(self._f, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self._f.close()

    def filling_open(file, mode="r", *args, **kwargs):
        f = real_open(file, mode, *args, **kwargs)
        temp = isinstance(file, (str, os.PathLike)) and Path(file).name.startswith(".") and str(file).endswith(".tmp")
        return Filling(f) if temp and set(mode) & set("wax+") else f

    monkeypatch.setattr(io, "open", filling_open)
    monkeypatch.setattr(builtins, "open", filling_open)


def write_text(path):
    atomic.write_text_atomic(path, "x" * 10000)


def write_json(path):
    atomic.write_json_atomic(path, {"x": np.arange(1000)})


def write_npz(path):
    from linbandits.npzfile import write_npz as write

    write(path, {"x": np.arange(1000.0)})


def write_table(path):
    import pandas as pd

    from linbandits.tables import write_table as write

    write(pd.DataFrame({"x": range(300), "y": np.linspace(0, 1, 300)}), path)


def write_figure(path):
    """save_figure writes stem.pdf first (the PNG after it: see the test below)."""
    from matplotlib.figure import Figure

    from linbandits.plotting import save_figure

    fig = Figure()
    fig.add_subplot().plot(range(100))
    save_figure(fig, Path(path).with_suffix(""))


WRITERS = {"text": (write_text, "out.txt"), "json": (write_json, "out.json"), "npz": (write_npz, "out.npz"),
           "table": (write_table, "out.csv"), "figure": (write_figure, "out.pdf")}


def check_refused(write, path, code=errno.ENOSPC) -> str:
    """`write(path)` on a full disk: one UserError naming path, the older file intact, nothing left over."""
    path.write_bytes(b"older\n")
    try:
        write(path)
    except UserError as exc:
        message = str(exc)
    except Exception as exc:   # noqa: BLE001 - any other exception is the failure this check reports
        raise AssertionError(f"{type(exc).__name__} escaped the writer: {exc}") from None
    else:
        raise AssertionError("the write did not fail")
    assert message.startswith(f"cannot write {path}: {os.strerror(code)}; ") and "\n" not in message, message
    assert path.read_bytes() == b"older\n", "the older file was changed"
    assert leftovers(path.parent) == [], leftovers(path.parent)
    return message


@pytest.mark.parametrize("writer", WRITERS)
def test_every_writer_refuses_a_full_disk_in_one_line(tmp_path, monkeypatch, writer):
    write, name = WRITERS[writer]
    write(tmp_path / f"control-{name}")   # control: the same write on a disk with room
    assert (tmp_path / f"control-{name}").stat().st_size > 100
    fill_the_disk(monkeypatch)
    check_refused(write, tmp_path / name)


def test_a_figure_whose_png_cannot_be_written(tmp_path, monkeypatch):
    """save_figure writes the PDF, then the PNG; a full disk at the PNG names the PNG."""
    from matplotlib.figure import Figure

    from linbandits.plotting import save_figure

    fig = Figure()
    fig.add_subplot().plot(range(100))
    real_replace = os.replace

    def full_at_png(src, dst):
        if str(dst).endswith(".png"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(src), None, str(dst))
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", full_at_png)
    with pytest.raises(UserError, match=f"^cannot write {tmp_path / 'f.png'}: No space left on device; free space"):
        save_figure(fig, tmp_path / "f")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.pdf"]


def test_an_input_error_inside_a_write_is_not_called_a_write_error(tmp_path):
    """An OSError about another file (an input read while writing) is passed on as it is."""
    with pytest.raises(FileNotFoundError), atomic.atomic_output(tmp_path / "out.txt") as tmp:
        tmp.write_text("partial")
        (tmp_path / "missing-input").read_text()
    assert list(tmp_path.iterdir()) == []


def old_atomic_output(path):
    """The writer before issue 38 (OSError escapes), for the planted-bug test below."""
    import contextlib
    import tempfile

    @contextlib.contextmanager
    def writer():
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        os.close(fd)
        try:
            yield Path(tmp)
            os.replace(tmp, target)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    return writer()


@pytest.mark.parametrize("writer", ["text", "npz"])
def test_planted_bug_a_writer_letting_oserror_escape_fails_the_check(tmp_path, monkeypatch, writer):
    import linbandits.npzfile

    write, name = WRITERS[writer]
    fill_the_disk(monkeypatch)
    monkeypatch.setattr(atomic, "atomic_output", old_atomic_output)
    monkeypatch.setattr(linbandits.npzfile, "atomic_output", old_atomic_output)
    with pytest.raises(AssertionError, match="OSError escaped the writer"):
        check_refused(write, tmp_path / name)


# ------------------------------------------------------------------ the rest of a new user's first hour

@pytest.fixture(scope="module")
def files(tmp_path_factory):
    where = tmp_path_factory.mktemp("inputs")
    run = cli(*INSTANCE, "--out", where / "good.npz", "--summary", where / "good.json", cwd=where)
    assert run.returncode == 0, run.stderr
    (where / "corrupt.npz").write_bytes((where / "good.npz").read_bytes()[:500])
    (where / "config-dir").mkdir()
    (where / "binary.yaml").write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
    (where / "broken.yaml").write_text("studies: [p1rage\n")
    return where


# (arguments, words the one line must hold: the problem and the fix)
BAD_INPUTS = {
    "missing instance file": (["simulate", "--instance-file", "{d}/nope.npz", "--algorithm", "G-BAI", "--trials", 1,
                               "--seed", 1, "--out", "x.csv"], ["instance file {d}/nope.npz does not exist"]),
    "corrupt instance file": (["simulate", "--instance-file", "{d}/corrupt.npz", "--algorithm", "G-BAI", "--trials", 1,
                               "--seed", 1, "--out", "x.csv"],
                              ["{d}/corrupt.npz is not a valid instance file", "regenerate it"]),
    "unknown algorithm": ([*SIMULATE[:5], "--algorithm", "G-BIA", "--trials", 1, "--seed", 1, "--out", "x.csv"],
                          ["unknown algorithm 'G-BIA'", "valid algorithms are: ", "G-BAI"]),
    "unknown instance": (["instance", "--instance", "malicous", "--out", "i.npz", "--summary", "i.json"],
                         ["unknown instance 'malicous'", "valid instances are: ", "malicious"]),
    "--setting without =": ([*INSTANCE[:3], "--setting", "T50", "--out", "i.npz", "--summary", "i.json"],
                            ["--setting 'T50' is not of the form KEY=VALUE"]),
    "--setting of the wrong type": ([*INSTANCE[:3], "--setting", "T=5O", "--out", "i.npz", "--summary", "i.json"],
                                    ["setting T='5O' is not a valid int", "e.g. the default T=10000"]),
    "negative --trials": ([*SIMULATE[:7], "--trials", -3, "--seed", 1, "--out", "x.csv"],
                          ["--trials must be at least 1, got -3"]),
    "--trials not a number": ([*SIMULATE[:7], "--trials", "ten", "--seed", 1, "--out", "x.csv"],
                              ["linbandits simulate: argument --trials: invalid int value: 'ten'",
                               "see `linbandits simulate --help`"]),
    "a required argument left out": ([*SIMULATE[:7], "--trials", 1, "--out", "x.csv"],
                                     ["linbandits simulate: the following arguments are required: --seed",
                                      "see `linbandits simulate --help`"]),
    "unknown command": (["simualte"], ["invalid choice: 'simualte'", "see `linbandits --help`"]),
    "config that is a directory": (["products", "--study", "p1rage", "--kind", "table", "--config", "{d}/config-dir"],
                                   ["config {d}/config-dir cannot be read: Is a directory",
                                    "give the path of the config file itself (results/<study>/config.yaml)"]),
    "config that is not text": (["products", "--study", "p1rage", "--kind", "table", "--config", "{d}/binary.yaml"],
                                ["config {d}/binary.yaml is not a text (UTF-8) file"]),
    "config that is not YAML": (["overview", "--study", "{d}/broken.yaml", "--out", "o.md"],
                                ["config {d}/broken.yaml is not valid YAML (line 2, column 1: expected ',' or ']'",
                                 "fix it there"]),
    "unknown study": (["products", "--study", "p1rag", "--kind", "table", "--config", "{d}/broken.yaml"],
                      ["unknown study 'p1rag'; the studies are: ", "p1rage"]),
    "a directory read as a file": (["yahoo-qc", "--out", "qc.json", "{d}/config-dir"],
                                   ["QC file {d}/config-dir is not a yahoo-parse QC JSON"]),
}


@pytest.mark.parametrize("case", BAD_INPUTS)
def test_a_bad_input_is_one_line_naming_the_problem_and_the_fix(case, files, tmp_path):
    args, words = BAD_INPUTS[case]
    line = one_line(cli(*[str(a).format(d=files) for a in args], cwd=tmp_path))
    for w in words:
        assert w.format(d=files) in line, (w, line)
    assert list(tmp_path.iterdir()) == []


def test_an_oserror_no_check_foresaw_is_one_line_too(files, tmp_path):
    """The last resort: a path no check of this package looks at (yahoo-synthetic's output directory,
    made before any file is written) still gives one line naming the path."""
    line = one_line(cli("yahoo-synthetic", "--out-dir", files / "good.npz" / "corpus", "--lines-per-day", 100,
                        "--seed", 1, cwd=tmp_path))
    assert line.startswith(f"error: {files / 'good.npz' / 'corpus'}: Not a directory; check the path"), line
