"""Runs you can hand on (issue 52), end to end on the .test run: archive -> unpack in a fresh directory ->
rebuild -> the run's own bytes, and verify by replay; bad archives refused in one line.

The .test run is the session's `full_run` (conftest.py), archived once here and never written to;
each test that changes an archive changes a copy. Planted defects the suite applies itself: a
tampered runs file, a missing file, an archive of another version or format, a changed claims table,
a runs file changed and signed again (rebuild must see that its products are not the run's), and a
changed algorithm in the replaying process (verify must fail: a one-ulp change bit for bit, a shifted
column by distribution).
"""
import gzip
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import numpy as np
import pytest
import yaml

from linbandits import catalogue, cli, products
from linbandits.archive import lock

REPO = Path(__file__).resolve().parents[1]


def lb(*args, cwd=None, env=None):
    """`linbandits ARGS` as a reader runs it, in its own process."""
    return subprocess.run([sys.executable, "-m", "linbandits", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env={**os.environ, **(env or {})}, timeout=1200)


def one_line_error(run) -> str:
    """The refusal: exit 2, one line on stderr, no traceback."""
    assert run.returncode == 2, (run.returncode, run.stdout[-2000:], run.stderr[-2000:])
    assert "Traceback" not in run.stderr and run.stderr.count("\n") == 1, run.stderr[-3000:]
    return run.stderr


@pytest.fixture(scope="module")
def archived(finished_run, tmp_path_factory):
    """The .test run's archive, copied alone into a fresh directory (what a reader downloads)."""
    full_run = finished_run[0]
    out = tmp_path_factory.mktemp("archived") / "made"
    run = lb("archive", "--directory", full_run, "--out", out / "run.tar.gz")
    assert run.returncode == 0, run.stderr
    fresh = tmp_path_factory.mktemp("reader")
    shutil.copy(out / "run.tar.gz", fresh / "run.tar.gz")
    return fresh / "run.tar.gz"


def members(archive) -> dict[str, bytes]:
    with tarfile.open(archive, "r:gz") as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


def write_archive(path, files: dict[str, bytes], sign=False) -> Path:
    """An archive of `files` (member name -> bytes), its manifest made again over them with `sign`."""
    if sign:
        top = next(iter(files)).split("/")[0]
        body = {n: d for n, d in files.items() if n != f"{top}/MANIFEST.sha256"}
        files = {**body, f"{top}/MANIFEST.sha256": "".join(
            f"{hashlib.sha256(d).hexdigest()}  {n.split('/', 1)[1]}\n" for n, d in sorted(body.items())).encode()}
    with gzip.open(path, "wb") as raw, tarfile.open(fileobj=raw, mode="w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return Path(path)


def member(files, suffix: str) -> str:
    return next(n for n in sorted(files) if n.endswith(suffix))


def test_archive_holds_what_the_products_read_and_no_raw_chunk(archived, full_run, tmp_path):
    files = members(archived)
    top = {n.split("/")[0] for n in files}
    (name,) = top
    inside = {n.split("/", 1)[1] for n in files}
    info = json.loads(files[f"{name}/archive.json"])
    assert name == info["name"] and name.startswith("linbandits-0.1.0-")
    # every product's inputs from the run, nothing raw
    config = products.load_config(full_run / "config" / "config.yaml")
    for study in config["studies"]:
        snapshot = products.load_config(full_run / f"results/{study}/config.yaml", study)
        made = [p for p in products.study_products(snapshot, study) if not p.target]
        outputs = {f for p in made for f in p.outputs}
        for f in {f for p in made for f in p.inputs} - outputs:
            if not Path(f).is_absolute():
                assert f"run/{f}" in inside, f
        for f in outputs:        # a product is recorded by its SHA-256, not held
            assert f"run/{f}" not in inside and info["products"][f] == \
                hashlib.sha256((full_run / f).read_bytes()).hexdigest()
    assert not [n for n in inside if "/raw/" in n]
    assert "package/studies/p1rage/p1rage_published.csv" in inside                   # P1-RAGE's published cells
    assert json.loads(files[f"{name}/published/lingape/PUBLISHED_TABLE1.json"])["LinGapE"][1] == 428889   # Table 1
    # the manifest lists every other file with its SHA-256, as sha256sum -c reads it
    manifest = dict(reversed(line.split("  ", 1)) for line in files[f"{name}/MANIFEST.sha256"].decode().splitlines())
    assert set(manifest) == inside - {"MANIFEST.sha256"}
    assert all(hashlib.sha256(files[f"{name}/{n}"]).hexdigest() == d for n, d in manifest.items())
    # the environment lock and a data repository's record
    env = json.loads(files[f"{name}/lock.json"])
    assert env["packages"]["numpy"] == np.__version__ and lock.platform_differences(env, lock.current()) == []
    meta = json.loads(files[f"{name}/metadata.json"])
    assert meta["license"] == "MIT" and meta["creators"] == ["the linbandits developers"] and meta["title"]
    assert info["commit"] != "" and info["runs"]["runs"] > 0
    # the same run archived again is the same bytes
    again = lb("archive", "--directory", full_run, "--out", tmp_path / "again.tar.gz")
    assert again.returncode == 0 and (tmp_path / "again.tar.gz").read_bytes() == archived.read_bytes()


@pytest.fixture(scope="module")
def rebuilt(archived, tmp_path_factory):
    """The archive rebuilt by a reader in a fresh directory, any simulation refused meanwhile (the
    process's LINBANDITS_FAIL_FOR_TESTING makes linbandits.cli fail every simulate command)."""
    where = tmp_path_factory.mktemp("rebuilt")
    run = lb("rebuild", archived, "--out", where / "run", cwd=where, env={"LINBANDITS_FAIL_FOR_TESTING": "1"})
    return where, run


def test_rebuild_makes_the_runs_own_products_without_a_simulation(archived, rebuilt, full_run):
    where, run = rebuilt
    assert run.returncode == 0, run.stderr
    files = members(archived)
    recorded = json.loads(files[member(files, "/archive.json")])["products"]
    kinds = {Path(p).suffix for p in recorded}
    assert {".csv", ".md", ".tex", ".json", ".png", ".pdf"} <= kinds and "results/overview.md" in recorded
    for path in recorded:      # tables, claims, the overview and the figures: the run's own bytes
        assert (where / "run" / path).read_bytes() == (full_run / path).read_bytes(), path
    assert f"{len(recorded) - sum(p.endswith(('.png', '.pdf')) for p in recorded)} of " in run.stdout
    assert "| **no** |" not in (where / "run" / "rebuild.md").read_text()
    assert sorted(p.name for p in where.iterdir()) == ["run"]          # no scratch left beside it


def test_rebuild_replaces_an_earlier_rebuild_and_says_when_products_are_not_the_runs(archived, rebuilt, tmp_path):
    """Planted: a runs file changed and the manifest signed again. The archive opens, the products are
    made, and the rebuild says (exit 1) that they are not the run's; it replaces an earlier rebuild."""
    files = members(archived)
    runs = member(files, "results/swucb/runs/swucb_fig1.npz")
    arrays = dict(np.load(io.BytesIO(files[runs])))
    key = next(k for k in arrays if k.endswith("/regret"))
    arrays[key] = arrays[key] * 2
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    changed = write_archive(tmp_path / "changed.tar.gz", {**files, runs: buffer.getvalue()}, sign=True)
    earlier = tmp_path / "earlier"
    shutil.copytree(rebuilt[0] / "run", earlier)
    run = lb("rebuild", changed, "--out", earlier)
    assert run.returncode == 1 and "differ from the run's" in run.stderr, run.stderr
    report = (earlier / "rebuild.md").read_text()
    assert "changed.tar.gz" in report and "| `results/swucb/tables/regret.csv` | table or claims | **no** |" in report
    assert "| `results/p1rage/claims.json` | table or claims | yes |" in report


def planted_archives(archived, tmp_path) -> dict:
    """name -> (archive, words its one-line refusal must hold)."""
    files = members(archived)
    runs = member(files, "results/oam/runs/oam_random_theta.npz")
    info_name = member(files, "/archive.json")
    info = json.loads(files[info_name])
    tampered = bytearray(files[runs])
    tampered[len(tampered) // 2] ^= 1
    other_version = {**info, "linbandits": "0.0.1"}
    other_format = {**info, "format": 99}
    claims = member(files, "package/studies/oam/claims.yaml")
    table1 = member(files, "published/lingape/PUBLISHED_TABLE1.json")
    table1_edited = files[table1].replace(b"428889", b"428890")
    return {
        "tampered": (write_archive(tmp_path / "tampered.tar.gz", {**files, runs: bytes(tampered)}),
                     "does not match its SHA-256"),
        "missing": (write_archive(tmp_path / "missing.tar.gz", {n: d for n, d in files.items() if n != runs}),
                    "missing from the archive"),
        "added": (write_archive(tmp_path / "added.tar.gz", {**files, runs.replace(".npz", "2.npz"): b"x"}),
                  "is not in its manifest"),
        "version": (write_archive(tmp_path / "version.tar.gz",
                                  {**files, info_name: json.dumps(other_version).encode()}, sign=True),
                    "was made by linbandits 0.0.1"),
        "format": (write_archive(tmp_path / "format.tar.gz",
                                 {**files, info_name: json.dumps(other_format).encode()}, sign=True),
                   "is archive format 99"),
        "claims table": (write_archive(tmp_path / "claims.tar.gz", {**files, claims: files[claims] + b"\n# edited\n"},
                                       sign=True), "claims.yaml differs from the archive's"),
        "published table": (write_archive(tmp_path / "table1.tar.gz", {**files, table1: table1_edited}, sign=True),
                            "published PUBLISHED_TABLE1 of study lingape differs"),
        "not an archive": (tmp_path / "plain.tar.gz", "is not a linbandits archive"),
    }


def test_bad_archives_are_refused_in_one_line_and_write_nothing(archived, tmp_path):
    planted = planted_archives(archived, tmp_path)
    (tmp_path / "plain.tar.gz").write_text("not a tarball\n")
    assert len(planted) == 8
    for name, (archive, words) in planted.items():
        out = tmp_path / f"out-{name.replace(' ', '-')}"
        assert words in one_line_error(lb("rebuild", archive, "--out", out)), name
        assert not out.exists(), name
        assert not [p for p in tmp_path.iterdir() if p.name.startswith(f".{out.name}.")], name
        assert words in one_line_error(lb("verify", archive, "--sample", "1")), name
    # an existing directory that is not an earlier rebuild is left alone
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "mine.txt").write_text("keep")
    assert "neither empty nor an earlier rebuild" in one_line_error(lb("rebuild", archived, "--out", busy))
    assert [p.name for p in busy.iterdir()] == ["mine.txt"]


VERIFY_SEED = 3


def verify_in_process(archived, capsys, *args) -> tuple[int, str]:
    code = cli.main(["verify", str(archived), "--sample", "5", "--seed", str(VERIFY_SEED), *args])
    out = capsys.readouterr()
    return code, out.out + out.err


def table_rows(text: str) -> list[list[str]]:
    return [[c.strip() for c in line.strip("|").split("|")] for line in text.splitlines()
            if line.startswith("| ") and line.split("|")[1].strip().isdigit()]


def planted_change(monkeypatch, algorithm: str, change) -> None:
    """The algorithm `algorithm`, changed in this process (the replaying one): `change(records)` after its runs."""
    cls = catalogue.algorithm_class(algorithm)
    original = cls.simulate

    def changed(self, seed, trials, progress=None):
        records = original(self, seed, trials, progress=progress)
        change(records)
        return records

    monkeypatch.setattr(cls, "simulate", changed)


def nudge_first_run(records) -> None:
    """One run's first column one step away: an ulp for a float, 1 for an integer."""
    column = next(iter(records.columns))
    values = np.array(records.columns[column])
    values[0] = np.nextafter(values[0], np.inf) if values.dtype.kind == "f" else values[0] + 1
    records.columns[column] = values


def test_verify_replays_and_catches_a_changed_algorithm(archived, capsys, monkeypatch):
    code, text = verify_in_process(archived, capsys)
    rows = table_rows(text)
    assert code == 0 and len(rows) == 5, text
    assert {r[1] for r in rows} == set(catalogue.studies())          # one range of every study
    for row in rows:       # every run of every range the same bits
        first, last = map(int, row[5].split("-"))
        assert row[-1] == "yes" and row[6] == f"{last - first + 1}/{last - first + 1}", text
    assert "bit for bit" in text
    # planted: the first drawn range's algorithm changed by one ulp (or one) in one run
    planted_change(monkeypatch, rows[0][4], nudge_first_run)
    code, text = verify_in_process(archived, capsys)
    changed = table_rows(text)
    assert code == 1 and "disagree" in text, text
    assert [r[:6] for r in changed] == [r[:6] for r in rows]        # the same draw
    assert all((r[-1] == "**no**") == (r[4] == rows[0][4]) for r in changed), text


def test_verify_by_distribution_accepts_the_honest_replay_and_refuses_a_shift(archived, capsys, monkeypatch):
    """Across CPUs verify compares distributions: a replay under other BLAS kernels (OPENBLAS_CORETYPE,
    whose bits may differ) agrees; so does the honest replay here with --mode distribution, and a P1-RAGE
    algorithm whose recommendation is shifted by one arm is refused."""
    across = lb("verify", archived, "--sample", "5", "--seed", VERIFY_SEED, env={"OPENBLAS_CORETYPE": "Prescott"})
    assert across.returncode == 0 and "not the archive's platform" in across.stdout, across.stdout + across.stderr
    assert "Kolmogorov-Smirnov" in across.stdout and len(table_rows(across.stdout)) == 5
    code, text = verify_in_process(archived, capsys, "--mode", "distribution")
    rows = table_rows(text)
    assert code == 0 and "Kolmogorov-Smirnov" in text, text
    p1rage = next(r for r in rows if r[1] == "p1rage")

    def shift(records):
        records.columns["recommended"] = np.asarray(records.columns["recommended"]) + 1

    planted_change(monkeypatch, p1rage[4], shift)
    code, text = verify_in_process(archived, capsys, "--mode", "distribution")
    row = next(r for r in table_rows(text) if r[1] == "p1rage")
    assert code == 1 and row[-1] == "**no**", text


def test_snakemake_archive_rule_archives_the_finished_run(full_run, archived, tmp_path, snakemake, planned_jobs):
    """`snakemake --cores N archive` on a finished run plans the archive job alone and writes the file
    the command writes, under the name the command gives it (its config hash from the snapshots)."""
    work = tmp_path / "run"
    shutil.copytree(full_run, work, symlinks=True, ignore=shutil.ignore_patterns("archive"))
    assert planned_jobs(work, "archive") == {"archive": 1}
    snakemake(work, "--cores", "1", "archive")
    (made,) = (work / "archive").iterdir()
    ours = members(archived)
    assert made.name == f"{next(iter(ours)).split('/')[0]}.tar.gz"
    theirs = members(made)
    # the same files; the lock alone may differ (Snakemake gives its jobs thread-count variables)
    assert set(theirs) == set(ours)
    assert [n for n in ours if ours[n] != theirs[n] and not n.endswith(("lock.json", "MANIFEST.sha256"))] == []


@pytest.fixture(scope="module")
def user_run(tmp_path_factory, snakemake):
    """A P1-RAGE-only run (the others disabled) with two user algorithms: `Uniform` in a file beside the
    run (archived with it) and `Elsewhere` in a file outside it (not archived), archived by the rule."""
    from linbandits.study_config import read_config

    work = tmp_path_factory.mktemp("user_run")
    example = REPO / "examples" / "p1rage_uniform" / "uniform.py"
    shutil.copy(example, work / "uniform.py")
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "twin.py"
    shutil.copy(example, elsewhere)
    test_config = REPO / ".test" / "config" / "config.yaml"
    config = yaml.safe_load(test_config.read_text())
    p1rage = read_config(test_config)["studies"]["p1rage"]
    experiments = {k: None for k in p1rage["experiments"]}
    experiments["soare_sto"] = {"values": [10], "trials": 40}
    config["studies"] = {"p1rage": {"experiments": experiments, "published": {"r6a": None}, "switches": [],
                                    "figures": {k: None for k in p1rage["figures"] if k != "fig2a_soare_sto"}},
                         **{s: {"enabled": False} for s in catalogue.studies() if s != "p1rage"}}
    config["extra_algorithms"] = {"p1rage": {"Uniform": "uniform.py:Uniform", "Elsewhere": f"{elsewhere}:Uniform"}}
    (work / "config").mkdir()
    (work / "config" / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    snakemake(work, "--cores", "2", "archive")
    return work, elsewhere


def test_user_algorithms_are_replayed_when_their_code_is_archived_and_named_when_not(user_run, tmp_path):
    work, elsewhere = user_run
    (archive,) = (work / "archive").iterdir()
    inside = {n.split("/", 1)[1] for n in members(archive)}
    assert "run/uniform.py" in inside and not [n for n in inside if n.endswith("twin.py")]
    elsewhere.rename(elsewhere.with_suffix(".moved"))          # the reader has not got it
    try:
        run = lb("verify", archive, "--sample", "100", cwd=tmp_path)      # every range: 8 algorithms x 2 run ranges
        rebuilt = lb("rebuild", archive, "--out", tmp_path / "rebuilt", cwd=tmp_path)
    finally:
        elsewhere.with_suffix(".moved").rename(elsewhere)
    rows = table_rows(run.stdout)
    assert run.returncode == 0 and len(rows) == 14 and all(r[-1] == "yes" for r in rows), run.stdout + run.stderr
    assert sum(r[4] == "Uniform" for r in rows) == 2 and not [r for r in rows if r[4] == "Elsewhere"]
    assert "not verified: Elsewhere, a user's algorithm whose code does not load here" in run.stdout
    # the products (the comparison sections too) are made without the user's code
    assert rebuilt.returncode == 0, rebuilt.stderr
    comparison = "results/p1rage/comparison.json"
    assert (tmp_path / "rebuilt" / comparison).read_bytes() == (work / comparison).read_bytes()
    assert "| **no** |" not in (tmp_path / "rebuilt" / "rebuild.md").read_text()
