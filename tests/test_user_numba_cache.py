"""A user file with `@numba.njit(cache=True)` works through the real loader (`linbandits simulate
--user-algorithm`, as a simulate job loads it) whether or not it was imported directly before, and a
direct import still works after the loader (issue 47). Numba names a cache entry by the file and, on
loading it, imports the module it was compiled in by name: the loader keeps its own cache
(user.algorithms.own_numba_cache). Planted: the old behaviour (the cache beside the file shared) fails
with ModuleNotFoundError, reported in one line that says what to do.
"""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

USER_CODE = textwrap.dedent('''
    import numba
    from linbandits.streams import generator
    from linbandits.study import Algorithm, Run


    @numba.njit(cache=True)
    def pick(u, k):
        return int(u * k)


    class Uni(Algorithm):
        kinds = ("linear",)

        def run(self, seed, trial):
            arm = pick(generator(seed, trial, 7).random(), self.instance.K)
            return Run(columns={"recommended": arm, "correct": int(arm == self.instance.best_arm)})
''')

# `linbandits simulate` as `python -m linbandits` runs it; PLANTED puts back the shared cache
LOADER = textwrap.dedent('''
    import contextlib, os, runpy, sys
    if os.environ.get("PLANTED"):
        from linbandits.user import algorithms
        algorithms.own_numba_cache = lambda file: contextlib.nullcontext()
    sys.argv = ["linbandits"] + sys.argv[1:]
    runpy.run_module("linbandits", run_name="__main__")
''')


@pytest.fixture
def user_dir(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "mine_nb.py").write_text(USER_CODE)
    return folder


def environment(tmp_path, **more) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    return {**env, "PYTHONPATH": str(REPO / "src"), "XDG_CACHE_HOME": str(tmp_path / "cache"), **more}


def import_directly(user_dir, env):
    return subprocess.run([sys.executable, "-c", "import mine_nb; print(mine_nb.pick(0.5, 4))"], cwd=user_dir,
                          env=env, capture_output=True, text=True)


def through_the_loader(user_dir, env):
    return subprocess.run([sys.executable, "-c", LOADER, "simulate", "--instance", "malicious", "--setting", "T=60",
                           "--algorithm", "Uni", "--user-algorithm", f"p1rage/Uni={user_dir / 'mine_nb.py'}:Uni",
                           "--trials", "3", "--seed", "5", "--out", str(user_dir / "cell.csv")],
                          env=env, capture_output=True, text=True)


def test_imported_directly_first_then_through_the_loader(user_dir, tmp_path):
    env = environment(tmp_path)
    assert import_directly(user_dir, env).stdout.strip() == "2"
    assert list((user_dir / "__pycache__").glob("mine_nb.pick-*.nbi"))      # numba's cache beside the file
    res = through_the_loader(user_dir, env)
    assert res.returncode == 0, res.stderr
    assert (user_dir / "cell.csv").read_text().splitlines()[0] == "trial,recommended,correct"
    assert list((tmp_path / "cache" / "linbandits" / "numba").rglob("mine_nb.pick-*.nbi"))


def test_through_the_loader_first_then_imported_directly(user_dir, tmp_path):
    env = environment(tmp_path)
    assert through_the_loader(user_dir, env).returncode == 0
    res = import_directly(user_dir, env)
    assert res.returncode == 0 and res.stdout.strip() == "2", res.stderr
    assert through_the_loader(user_dir, env).returncode == 0       # its own cache, loaded again


def test_planted_shared_cache_fails_in_one_line_saying_what_to_do(user_dir, tmp_path):
    env = environment(tmp_path, PLANTED="1")
    import_directly(user_dir, env)
    res = through_the_loader(user_dir, env)
    assert res.returncode != 0
    errors = [line for line in res.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "No module named 'mine_nb'" in errors[0], res.stderr
    assert "delete the __pycache__ folder beside the file that defines it" in errors[0]
    assert "Traceback" not in res.stderr
