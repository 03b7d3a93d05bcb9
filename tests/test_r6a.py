"""Yahoo! R6A: parser counts, PCA, ridge, arm set, synthetic round trip, and the data-file errors."""
import gzip
import json

import numpy as np
import pytest

from linbandits.errors import UserError
from linbandits.problems import load_instance_file
from linbandits.r6a import cli, reader as r6a, synthetic
from linbandits.studies.p1rage import yahoo as features

USER = "|user 2:0.000012 3:0.000000 4:0.000006 5:0.000023 6:0.999958 1:1.000000"
A498 = "|109498 2:0.306008 3:0.000450 4:0.077048 5:0.230439 6:0.386055 1:1.000000"
A513 = "|109513 2:0.211406 3:0.000011 4:0.002456 5:0.767734 6:0.018393 1:1.000000"
A509 = "|109509 2:0.421669 3:0.000011 4:0.010902 5:0.309585 6:0.257833 1:1.000000"
VALID = f"1241160900 109513 0 {USER} {A498} {A513} {A509}"

# (line, reason or None for kept): every kind of line written out by hand, with the
# reason the published reading (spec E amended) gives it.
LINES = [
    (VALID, None),
    (f"1241160901 109498 1 {USER} {A498} {A513} {A509}\r", None),                      # CRLF
    ("1241160902 109509 0 |user 1:1.000000 6:0.5 5:0.5 4:0 3:0 2:0 " + f"{A498} {A509}", None),  # any order
    (f"1241160903 109513 0 {USER} {A498.replace('3:', '9:')} {A513} {A509}", None),   # other block bad: not read
    (f"1241160920 109513 0 {USER} 3:0.5 {A498} {A513} {A509}", None),                 # 7th token: not read
    (f"1241160921 109513 0 {USER.replace('3:0.000000', '2:0.5')} {A498} {A513} {A509}", None),  # slot 3 stays 0
    ("1241160922 109513 0 |user 1:1.0 2:0.5 7:0.1 4:0.2 |109513 1:1.0 2:0.25 3:0.5 4:0 5:0 6:0.25 "
     + A509, None),                                                                    # stop at 7; slots 3..6 stay 0
    (f"1241160923 109513 0 {USER} {A498} {A513} |109509 2:0.421669 3:0.00", None),    # cut after the displayed block
    ("", "blank"),
    ("   \t", "blank"),
    ("\r", "blank"),
    ("1241160904 1095", "truncated"),
    (f"1241160905 109509 0 {USER} {A498} {A513} |109509 2:0.421669 3:0.00", "truncated"),
    (f"1241160906 109509 0 {USER} {A498} {A513} |109509 2:0.421669 3:", "truncated"),
    ("1241160907 109513 0 |user 2:0.000012 3:", "truncated"),
    (f"1241160908 109513 2 {USER} {A498} {A513} {A509}", "bad_header"),
    (f"1241160909 109513 0 0 {USER} {A498} {A513} {A509}", "bad_header"),
    (f"12411609x9 109513 0 {USER} {A498} {A513} {A509}", "non_numeric"),
    (f"1241160910 109513 0 {USER.replace('3:0.000000', '3:abc')} {A498} {A513} {A509}", "non_numeric"),
    (f"1241160911 109513 0 {USER} {A498} {A513.replace('4:0.002456', '4:nan')} {A509}", "non_numeric"),
    (f"1241160925 109513 0 {USER.replace('4:0.000006', '4:inf')} {A498} {A513} {A509}", "non_numeric"),
    (f"1241160912 109513 0 {USER.replace('6:', '8:')} {A498} {A513} {A509}", "index_out_of_range"),
    (f"1241160913 109513 0 {USER} {A498} {A513.replace('2:', '9:')} {A509}", "index_out_of_range"),
    (f"1241160914 109513 0 {USER.replace('6:', '7:')} {A498} {A513} {A509}", "no_constant_feature"),  # 1: after the stop
    (f"1241160915 109513 0 {USER.replace('5:0.000023 ', '')} {A498} {A513} {A509}", "not_key_value"),
    (f"1241160917 109513 0 {USER} {A498} {A513.replace(' 1:1.000000', '')} {A509}", "not_key_value"),
    (f"1241160924 109513 0 {USER} {A498} {A513.replace('4:0.002456', '4=0.002456')} {A509}", "not_key_value"),
    (f"1241160916 109513 0 {A498} {A513} {A509}", "missing_user_block"),
    (f"1241160918 109999 0 {USER} {A498} {A513} {A509}", "displayed_not_in_candidates"),
    (f"1241160919 109513 0 {USER.replace('1:1.000000', '1:0.000000')} {A498} {A513} {A509}",
     "no_constant_feature"),
]
N_KEPT = sum(why is None for _, why in LINES)


def test_hand_written_lines_give_exact_counts():
    day = r6a.parse_lines(ln + "\n" for ln, _ in LINES)
    expected = {r: sum(1 for _, why in LINES if why == r) for r in r6a.REASONS}
    assert day.qc["skipped_by_reason"] == expected
    assert day.qc["lines_read"] == len(LINES)
    assert day.qc["lines_kept"] == N_KEPT == 8 and day.z.shape == (8, 36)
    assert day.qc["kept_with_unfilled_slot"] == 2
    np.testing.assert_array_equal(day.clicks, [0, 1, 0, 0, 0, 0, 0, 0])
    for line, why in LINES:   # the reference classifier agrees line by line
        assert r6a.classify_line(line.encode())[0] == why, line
    # In any order (so the fast path has seen each candidate section or not), the counts
    # and the features hold.
    order = np.random.default_rng(0).permutation(3 * len(LINES))
    again = r6a.parse_lines([(LINES * 3)[i][0] for i in order])
    assert again.qc["skipped_by_reason"] == {r: 3 * n for r, n in expected.items()}
    assert again.qc["lines_kept"] == 3 * N_KEPT and again.qc["kept_with_unfilled_slot"] == 6
    kept_order = [i % len(LINES) for i in order if LINES[i % len(LINES)][1] is None]
    first = {i: row for i, row in zip([i for i, (_, w) in enumerate(LINES) if w is None], day.z)}
    np.testing.assert_array_equal(again.z, [first[i] for i in kept_order])


U_VALID = [1.0, 0.000012, 0.0, 0.000006, 0.000023, 0.999958]    # indices 1..6
A_513 = [1.0, 0.211406, 0.000011, 0.002456, 0.767734, 0.018393]


@pytest.mark.parametrize("line, u, a", [
    # a 7th token after the six is not read
    (LINES[4][0], U_VALID, A_513),
    # a repeated index: the later value wins, the slot no token gives stays 0
    (LINES[5][0], [1.0, 0.5, 0.0, 0.000006, 0.000023, 0.999958], A_513),
    # index 7 stops the reading; the displayed block is the first '|109513' block
    (LINES[6][0], [1.0, 0.5, 0, 0, 0, 0], [1.0, 0.25, 0.5, 0, 0, 0.25]),
    # the line is cut after the displayed block: the reading is complete
    (LINES[7][0], U_VALID, A_513),
])
def test_published_reading_fills_slots_by_index(line, u, a):
    reason, rec = r6a.classify_line(line.encode())
    assert reason is None
    assert rec[2] == tuple(u) and rec[3] == tuple(a)
    z = r6a.parse_lines([line]).z
    np.testing.assert_array_equal(z, np.outer(u, a).reshape(1, 36).astype(np.float32))


def test_fast_path_and_reference_agree_on_every_injected_fault():
    """Each line alone (slow path), and after lines that prime the fast path with its candidate
    section: a copy of it, and a copy that displays another article of the same section."""
    for line, why in LINES:
        head = line.split(" ")
        other = " ".join([head[0], "109509" if head[1] != "109509" else "109498", *head[2:]]) if len(head) > 3 else ""
        for primer in ([], [VALID, line.replace("1241160", "1241161", 1), other]):
            day = r6a.parse_lines(primer + [line])
            ref = [r6a.classify_line(ln.encode()) for ln in primer + [line]]
            kept = [rec for reason, rec in ref if reason is None]
            assert day.qc["skipped_by_reason"] == {r: sum(x == r for x, _ in ref) for r in r6a.REASONS}, line
            want = np.array([np.outer(k[2], k[3]).ravel() for k in kept], np.float32).reshape(-1, 36)
            np.testing.assert_array_equal(day.z, want)


def test_features_are_the_user_major_outer_product():
    z = r6a.parse_lines([VALID]).z[0]
    u = [1.0, 0.000012, 0.0, 0.000006, 0.000023, 0.999958]    # indices 1..6
    a = [1.0, 0.211406, 0.000011, 0.002456, 0.767734, 0.018393]
    np.testing.assert_allclose(z, np.outer(u, a).ravel(), rtol=1e-6)
    assert z[0] == 1.0
    np.testing.assert_allclose(z, features.outer_features(np.array([u]), np.array([a]))[0], rtol=1e-6)


# --- PCA, ridge, arms ------------------------------------------------------------

def random_day(rng, n=500):
    U = np.column_stack([np.ones(n), rng.dirichlet(np.full(5, 0.3), n)])
    A = np.column_stack([np.ones(n), rng.dirichlet(np.full(5, 0.5), n)])
    z = features.outer_features(U, A)
    return z, (rng.random(n) < 0.1).astype(float)


def test_pca_is_the_svd_of_the_centred_matrix_applied_to_uncentred_z():
    z, y = random_day(np.random.default_rng(0))
    V, explained = features.pca_basis(features.day_stats(z, y, chunk=77))
    assert V.shape == (24, 36) and 0.99 < explained <= 1
    _, s, Vt = np.linalg.svd(z - z.mean(axis=0), full_matrices=False)
    ref = Vt[:24] * np.sign(Vt[:24][np.arange(24), np.abs(Vt[:24]).argmax(axis=1)])[:, None]
    np.testing.assert_allclose(V, ref, atol=1e-8)
    Zp = z @ V.T                               # projection of the uncentred rows
    assert np.abs(Zp.mean(axis=0)).max() > 1e-3   # not centred: the mean is not subtracted
    np.testing.assert_allclose(Zp.mean(axis=0), z.mean(axis=0) @ V.T)


def test_ridge_equals_closed_form_and_lstsq():
    z, y = random_day(np.random.default_rng(1))
    stats = features.day_stats(z, y, chunk=64)
    V, _ = features.pca_basis(stats)
    theta = features.ridge_theta(V, stats)
    Z = z @ V.T
    closed = np.linalg.solve(Z.T @ Z + 0.01 * np.eye(24), Z.T @ y)
    aug = np.linalg.lstsq(np.vstack([Z, np.sqrt(0.01) * np.eye(24)]), np.concatenate([y, np.zeros(24)]),
                          rcond=None)[0]
    np.testing.assert_allclose(theta, closed, rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(theta, aug, rtol=1e-6, atol=1e-9)


def test_per_day_and_shared_pca_variants():
    rng = np.random.default_rng(2)
    days = [random_day(rng, 300 + 40 * k) for k in range(7)]
    stats = [features.day_stats(z, y) for z, y in days]
    bases, thetas, _ = features.fit_day_thetas(stats, "per_day")
    assert thetas.shape == (7, 24) and len(bases) == 7
    assert not np.allclose(bases[0], bases[1])
    shared, thetas_s, _ = features.fit_day_thetas(stats, "shared")
    pooled = np.vstack([z for z, _ in days])
    V_all, _ = features.pca_basis(features.day_stats(pooled, np.zeros(len(pooled))))
    for V in shared:
        np.testing.assert_allclose(V, V_all, atol=1e-8)
    Z2 = days[2][0] @ V_all.T
    np.testing.assert_allclose(thetas_s[2], np.linalg.solve(Z2.T @ Z2 + 0.01 * np.eye(24), Z2.T @ days[2][1]),
                               rtol=1e-6, atol=1e-9)
    with pytest.raises(UserError, match="per_day, shared"):
        features.fit_day_thetas(stats, "first_day")


def test_arm_set_gap_and_rank_conditions_with_redraws():
    rng = np.random.default_rng(3)
    rows = rng.normal(size=(2000, 24))
    rewards = rows @ rng.normal(size=24) * 0.2
    calls = []

    def project(idx):   # the first two draws are made rank-deficient to force redraws
        calls.append(idx)
        X = rows[idx].copy()
        if len(calls) <= 2:
            X[5] = X[4]
        return X

    idx, note = features.select_arm_rows(rewards, project, np.random.default_rng(9))
    assert note["draws_until_full_rank"] == 3 and len(idx) == 24 and len(set(idx)) == 24
    top = rewards.max()
    assert rewards[idx[0]] == top
    assert np.all((rewards[idx[1:]] > top - 1.0) & (rewards[idx[1:]] < top - 0.05))
    assert np.linalg.matrix_rank(rows[idx]) == 24
    again, _ = features.select_arm_rows(rewards, lambda i: rows[i], np.random.default_rng(9))
    np.testing.assert_array_equal(again, features.select_arm_rows(rewards, lambda i: rows[i],
                                                                  np.random.default_rng(9))[0])
    with pytest.raises(UserError, match="only 1 day-1 rows"):
        features.select_arm_rows(np.array([1.5, 0.5, 2.0, 1.0]), lambda i: rows[i], rng)


def test_theta_schedule_cycles_the_week_and_truncates():
    day_thetas = np.arange(7)[:, None] * np.ones((7, 24))
    sched = features.cycle_thetas(day_thetas, L=100, T=21000)
    assert sched.shape == (21000, 24)
    np.testing.assert_array_equal(sched[::100, 0], np.tile(np.arange(7), 30))
    short = features.cycle_thetas(day_thetas, L=1000, T=10500)   # a week and a half
    assert short.shape == (10500, 24) and short[-1, 0] == 3 and short[7000, 0] == 0


# --- synthetic corpus through the CLI -----------------------------------------------

def run(argv):
    """A subcommand through the main CLI, as the pipeline calls it."""
    from linbandits.cli import main

    return main([str(a) for a in argv])


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """A synthetic corpus (600 lines a day) parsed day by day through the CLI."""
    d = tmp_path_factory.mktemp("r6a")
    assert run(["yahoo-synthetic", "--out-dir", d / "syn", "--lines-per-day", 600, "--seed", 4]) == 0
    for day in r6a.PUBLISHED_DAYS:
        assert run(["yahoo-parse", "--r6a-dir", d / "syn", "--day", day, "--out", d / f"{day}.npz",
                    "--qc", d / f"{day}.qc.json"]) == 0
    return d


def test_synthetic_corpus_round_trips_with_the_injected_counts(corpus):
    syn = corpus / "syn"
    marker = json.loads((syn / "SYNTHETIC.json").read_text())
    assert marker["source"] == "synthetic stand-in for R6A"
    report = r6a.check_r6a_dir(syn)
    assert report["synthetic"] and [f["lines"] for f in report["files"]] == [600] * 7
    for day in r6a.PUBLISHED_DAYS:
        qc = json.loads((corpus / f"{day}.qc.json").read_text())
        expected = marker["days"][day]["expected_qc"]
        assert qc["skipped_by_reason"] == expected["skipped_by_reason"]
        assert all(v >= 1 for v in qc["skipped_by_reason"].values())   # every malformed kind occurs
        assert qc["lines_kept"] == expected["lines_kept"] and qc["matches_generator_counts"]
        assert qc["source"] == "synthetic stand-in for R6A"
        z, clicks, meta = r6a.load_day_npz(corpus / f"{day}.npz")
        assert z.shape == (qc["lines_kept"], 36) and z.dtype == np.float32 and np.all(z[:, 0] > 0)
        assert clicks.sum() == qc["clicks"] and meta["source"] == "synthetic stand-in for R6A"
    qcs = [corpus / f"{day}.qc.json" for day in r6a.PUBLISHED_DAYS]
    assert run(["yahoo-qc", "--out", corpus / "r6a_qc.json", *qcs]) == 0
    merged = json.loads((corpus / "r6a_qc.json").read_text())
    assert merged["totals"]["lines_read"] == 4200 and merged["source"] == "synthetic stand-in for R6A"
    assert merged["totals"]["lines_kept"] == sum(m["expected_qc"]["lines_kept"] for m in marker["days"].values())


def test_fast_path_agrees_with_the_reference_classifier(corpus):
    path = corpus / "syn" / r6a.day_file_name("20090503")
    lines = gzip.decompress(path.read_bytes()).split(b"\n")[:-1]
    fast = r6a.parse_lines(lines)
    reasons = [r6a.classify_line(ln)[0] for ln in lines]
    assert fast.qc["skipped_by_reason"] == {r: reasons.count(r) for r in r6a.REASONS}
    kept = [r6a.classify_line(ln)[1] for ln in lines if r6a.classify_line(ln)[0] is None]
    U = np.array([k[2] for k in kept])
    A = np.array([k[3] for k in kept])
    np.testing.assert_array_equal(fast.z, features.outer_features(U, A).astype(np.float32))


@pytest.mark.parametrize("pca", ["per_day", "shared"])
def test_instance_from_the_synthetic_corpus(corpus, pca):
    days = [corpus / f"{d}.npz" for d in r6a.PUBLISHED_DAYS]
    out, summ = corpus / f"inst_{pca}.npz", corpus / f"sum_{pca}.json"
    assert run(["p1rage-yahoo-instance", "--days", *reversed(days), "--pca", pca, "--L", 200, "--T", 21000,
                "--seed", 11, "--out", out, "--summary", summ]) == 0
    inst = load_instance_file(out)
    s = json.loads(summ.read_text())
    assert inst.X.shape == (24, 24) and inst.thetas.shape == (21000, 24) and inst.noise_sd == 1.0
    assert inst.meta["source"] == s["source"] == "synthetic stand-in for R6A" and s["synthetic"]
    assert (s["seed"], s["pca"], s["best_arm"]) == (11, pca, inst.best_arm)
    thetas = np.array(s["theta_by_day"])
    np.testing.assert_allclose(inst.thetas[:200], np.tile(thetas[0], (200, 1)))
    np.testing.assert_allclose(inst.thetas[1400 + 600], thetas[3])
    rewards = inst.X @ thetas.mean(axis=0)
    assert np.all((rewards[1:] > rewards[0] - 1.0) & (rewards[1:] < rewards[0] - 0.05))
    assert s["min_gap"] == pytest.approx(inst.min_gap) and s["min_gap"] > 0.05
    again = corpus / f"again_{pca}.npz"
    run(["p1rage-yahoo-instance", "--days", *days, "--pca", pca, "--L", 200, "--seed", 11, "--out", again,
         "--summary", corpus / "again.json"])
    np.testing.assert_array_equal(load_instance_file(again).X, inst.X)   # the seed fixes the arm set


def test_a_batch_of_L_values_equals_each_built_alone(corpus, tmp_path):
    """The pipeline builds every L of an experiment in one `batch` process, which fits the days once
    (yahoo._FITS); each file must equal the one a fresh process would write."""
    days = " ".join(str(corpus / f"{d}.npz") for d in r6a.PUBLISHED_DAYS)

    def command(L, stem):
        return (f"p1rage-yahoo-instance --days {days} --pca per_day --L {L} --T 3000 --seed 5 "
                f"--out {tmp_path / stem}.npz --summary {tmp_path / stem}.json")

    features._FITS.clear()
    assert run(["batch", command(100, "b100"), command(500, "b500")]) == 0
    for L in (100, 500):
        features._FITS.clear()
        assert run(command(L, f"a{L}").split()) == 0
        batched, alone = load_instance_file(tmp_path / f"b{L}.npz"), load_instance_file(tmp_path / f"a{L}.npz")
        np.testing.assert_array_equal(batched.X, alone.X)
        np.testing.assert_array_equal(batched.thetas, alone.thetas)
        assert (tmp_path / f"b{L}.json").read_text() == (tmp_path / f"a{L}.json").read_text()
    assert json.loads((tmp_path / "b100.json").read_text())["L"] == 100


def test_synthetic_files_are_recognised_without_their_marker(tmp_path):
    d = make_dir(tmp_path)
    (d / "SYNTHETIC.json").unlink()
    assert r6a.check_r6a_dir(d, full=False)["source"] == "synthetic stand-in for R6A"


def test_mixing_real_and_synthetic_days_is_refused(corpus, tmp_path):
    parser = r6a.DayParser()
    parser.feed([VALID.encode()] * 30)
    r6a.write_day_npz(tmp_path / "real.npz", parser, {"day": "20090508", "synthetic": False})
    with pytest.raises(UserError, match="mix"):
        features.load_days([corpus / "20090501.npz", tmp_path / "real.npz"])


# --- errors: each names the file and the problem ---------------------------------------

def make_dir(tmp_path):
    d = tmp_path / "r6a"
    synthetic.write_synthetic_corpus(d, 100, seed=0)
    return d


def expect_error(d, *words):
    with pytest.raises(UserError) as err:
        r6a.check_r6a_dir(d)
    msg = str(err.value)
    for w in words:
        assert w in msg, msg
    assert "webscope.sandbox.yahoo.com" in msg and "R6A" in msg
    return msg


def test_missing_directory_and_missing_file(tmp_path):
    expect_error(tmp_path / "nowhere", "does not exist", str(tmp_path / "nowhere"))
    (tmp_path / "afile").write_text("x")
    expect_error(tmp_path / "afile", "is not a directory")
    d = make_dir(tmp_path)
    (d / r6a.day_file_name("20090504")).unlink()
    expect_error(d, "ydata-fp-td-clicks-v1_0.20090504.gz", "lacks 1 of the 7")


@pytest.mark.parametrize("damage, words", [
    (lambda p: p.write_bytes(b""), ["empty (0 bytes)"]),
    (lambda p: p.write_text("<!DOCTYPE html><html><body>Sign in to Yahoo</body></html>"), ["HTML page"]),
    (lambda p: p.write_bytes(gzip.compress(b"<html><head></head><body>login</body></html>\n" * 50)),
     ["HTML", "not in the R6A line format"]),
    (lambda p: p.write_bytes(p.read_bytes()[:len(p.read_bytes()) // 2]), ["truncated"]),
    (lambda p: p.write_bytes(gzip.compress(b"")), ["holds no data"]),
    (lambda p: p.write_bytes(gzip.decompress(p.read_bytes())), ["uncompressed text"]),
])
def test_wrong_files_are_named_with_the_problem(tmp_path, damage, words):
    d = make_dir(tmp_path)
    path = d / r6a.day_file_name("20090503")
    damage(path)
    expect_error(d, path.name, *words)


def test_cli_reports_one_message_and_exit_2(tmp_path, capsys):
    code = cli.main(["yahoo-check", "--r6a-dir", str(tmp_path / "none")])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: R6A directory") and "Traceback" not in err
    d = make_dir(tmp_path)
    path = d / r6a.day_file_name("20090501")
    path.write_bytes(path.read_bytes()[:-40])   # lose the gzip trailer: only a full read notices
    code = cli.main(["yahoo-parse", "--r6a-dir", str(d), "--day", "20090501", "--out", str(tmp_path / "o.npz"),
                     "--qc", str(tmp_path / "o.json")])
    assert code == 2 and "truncated" in capsys.readouterr().err and not (tmp_path / "o.npz").exists()
    assert cli.main(["yahoo-parse", "--r6a-dir", str(d), "--day", "20090531", "--out", "x", "--qc", "y"]) == 2
    assert "20090510" in capsys.readouterr().err
