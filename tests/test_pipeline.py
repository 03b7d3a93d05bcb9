"""The Snakemake pipeline end to end on the tiny .test configuration, for every study.

Real Snakemake, real jobs, in temporary working directories (fixtures in
conftest.py). Each study's own pipeline checks are in tests/<study>/.
"""
import json
import re
from pathlib import Path

import yaml

from linbandits import experiments, products
from linbandits.claims import VERDICTS, audit
from linbandits.study_config import read_config

# Rules every study shares; any other rule a study's target plans must carry its name, or be the
# shared simulate_<experiment> / instances_<experiment> / runs_<experiment> rule of one of its experiments
# (simulate_<study>, instances_<study> when bundled).
SHARED_RULES = {"yahoo_synthetic_corpus", "yahoo_check", "yahoo_parse_day", "yahoo_qc", "study_config"}


def rule_study(rule, config):
    """The study whose experiment a simulate_/instances_ rule runs, or whose experiments a bundled
    simulate_<study> / instances_<study> rule serves (None for any other rule)."""
    for head in ("simulate_", "instances_"):
        if rule.startswith(head) and rule[len(head):] in config["studies"]:
            return rule[len(head):]
    rule = re.sub(r"__part\d+$", "", rule)     # one of an experiment's simulate jobs split by settings
    for head in ("simulate_", "instances_", "runs_"):
        exp = experiments.experiments(config).get(rule[len(head):]) if rule.startswith(head) else None
        if exp is not None:
            return exp.study
    return None


def config_of(workdir):
    return read_config(workdir / "config" / "config.yaml")   # with the studies' defaults


def test_every_study_writes_its_figures_claims_and_logs(full_run):
    config = config_of(full_run)
    assert experiments.enabled_studies(config) == list(config["studies"])   # .test covers every study
    for study in config["studies"]:
        for product in products.study_products(config, study):
            if product.kind == "figure" and not product.target:
                for path in product.outputs:
                    assert (full_run / path).stat().st_size > 1000, path
        claims = json.loads((full_run / f"results/{study}/claims.json").read_text())
        assert claims["study"] == study and claims["claims"], study
        assert all(c["verdict"] in VERDICTS and c["quote"] and c["test"] for c in claims["claims"])
        # every part of every claim: the verdict agrees with the simultaneous interval printed beside it
        assert audit.disagreements(claims["claims"], claims["level"]) == [], study
        assert audit.post_hoc_problems(claims["claims"]) == [], study
        # every decided claim says where it would flip; every "does not hold" says why
        assert all(c["flip"] for c in claims["claims"] if c["verdict"] in ("holds", "does not hold")), study
        assert all(c["cause"] for c in claims["claims"] if c["verdict"] == "does not hold"), study
        assert (full_run / f"results/{study}/claims.md").read_text().startswith("# ")
        logs = list((full_run / "logs" / study / "simulate").rglob("*.log"))
        assert logs, f"no simulate logs under logs/{study}"
    # Nothing is written outside the per-study folders but the shared R6A data and the overview.
    assert {p.name for p in (full_run / "results").iterdir()} == {*config["studies"], "overview.md", "findings.md"}
    assert {p.name for p in (full_run / "figures").iterdir()} <= set(config["studies"]) | {
        f"contact_sheet{grey}.{ext}" for grey in ("", "_grey") for ext in ("pdf", "png")}


def test_overview_lists_every_study_with_its_verdicts(full_run):
    config = config_of(full_run)
    text = (full_run / "results/overview.md").read_text()
    for study in config["studies"]:
        claims = json.loads((full_run / f"results/{study}/claims.json").read_text())["claims"]
        row = next(line for line in text.splitlines() if line.startswith(f"| `{study}` |"))
        holds = sum(c["verdict"] == "holds" for c in claims)
        assert f"| {len(claims)} | {holds} |" in row, row
        for c in claims:
            assert f"`{c['id']}`" in text
    # the findings page, linked first, lists every finding the studies declare and every failing claim
    assert "[findings.md](findings.md)" in text.split("| study |")[0]
    findings = (full_run / "results/findings.md").read_text()
    for study in config["studies"]:
        claims = json.loads((full_run / f"results/{study}/claims.json").read_text())
        for f in claims.get("findings", []):
            assert f"`{study}`: {f['id']})" in findings


def test_each_study_target_plans_only_its_own_rules(tmp_path, make_workdir, planned_jobs):
    work = make_workdir(tmp_path / "targets")
    config = config_of(work)
    for study in config["studies"]:
        jobs = planned_jobs(work, study)
        assert jobs.get(study) == 1
        foreign = {r for r in jobs if r not in SHARED_RULES and r != study and not r.startswith(f"{study}_")
                   and rule_study(r, config) != study}
        assert any(rule_study(r, config) == study for r in jobs if r.startswith("simulate_")), study
        assert not foreign, f"target {study} plans rules of other studies: {foreign}"
        assert "overview" not in jobs


def test_disabled_study_is_left_out_of_the_default_target(tmp_path, make_workdir, planned_jobs):
    config = config_of(make_workdir(tmp_path / "probe"))
    studies = {s: {**body, "enabled": False} for s, body in config["studies"].items()}
    work = make_workdir(tmp_path / "disabled", studies=studies)
    assert planned_jobs(work) == {"overview": 1, "all": 1}


def test_disabled_study_is_left_out_of_the_opt_in_targets(tmp_path, make_workdir, planned_jobs):
    """`robustness` with only OPKB enabled plans OPKB's switch runs and no other study's jobs (the
    published sections: the tiny .test ones have no opt-in switch runs)."""
    studies = {s: {"enabled": s == "opkb"} for s in config_of(make_workdir(tmp_path / "probe"))["studies"]}
    work = make_workdir(tmp_path / "opkb_only", study_defaults="published", studies=studies)
    config = config_of(work)
    jobs = planned_jobs(work, "robustness")
    assert jobs.get("opkb_robustness") == 1
    foreign = {r for r in jobs if r not in SHARED_RULES and r != "robustness"
               and not r.startswith("opkb_") and rule_study(r, config) != "opkb"}
    assert not foreign, f"robustness with only opkb enabled plans other studies' rules: {foreign}"


def test_runs_files_do_not_depend_on_settings_per_job(full_run, tmp_path, make_workdir, snakemake, planned_jobs):
    """One setting a simulate job (`settings_per_job: 1`, as OPKB's width-2048 switch runs its instance
    seeds): one job per setting and algorithm, and the same runs file as the one job of every setting."""
    from linbandits import paths

    other = make_workdir(tmp_path / "per_setting")
    config_path = other / "config" / "config.yaml"
    raw = yaml.safe_load(config_path.read_text())
    raw["studies"]["lingape"]["experiments"]["exp1_soare_xy"]["settings_per_job"] = 1
    config_path.write_text(yaml.safe_dump(raw, sort_keys=False))
    config = config_of(other)
    exp = experiments.experiments(config)["exp1_soare_xy"]
    target = paths.runs_stem(config, exp) + ".npz"
    jobs = planned_jobs(other, target)
    parts = {r: n for r, n in jobs.items() if r.startswith("simulate_exp1_soare_xy__part")}
    assert len(parts) == len(exp.setting_ids()) > 1 and "simulate_exp1_soare_xy" not in jobs
    assert sum(parts.values()) == len(exp.setting_ids()) * len(exp.algorithms) * len(experiments.chunks(config, exp))
    snakemake(other, "--cores", "1", target)
    assert (other / target).read_bytes() == (full_run / target).read_bytes()


def test_config_typo_is_one_clear_message(tmp_path, make_workdir, snakemake):
    work = make_workdir(tmp_path / "typo")
    out = snakemake(work, "-n", "--cores", "1", "--config", "chunk_sise=5", check=False)
    assert out.returncode != 0
    text = out.stdout + out.stderr
    assert "unknown key 'chunk_sise'" in text
    assert "chunk_size" in text  # names the allowed keys
    assert "Traceback" not in text
    out = snakemake(work, "-n", "--cores", "1", "--config", "chunk_size=many", check=False)
    assert out.returncode != 0
    assert "chunk_size" in out.stdout + out.stderr and "integer" in out.stdout + out.stderr


def test_report_groups_every_study(full_run, snakemake):
    snakemake(full_run, "--report", "report.html")
    html = (full_run / "report.html").read_text(errors="replace")
    config = config_of(full_run)
    assert "Overview" in html
    for study in config["studies"]:
        assert study in html
        for product in products.study_products(config, study):
            if product.kind == "figure" and not product.target:
                assert product.name in html


def test_what_the_default_target_builds_is_what_a_preview_bundles(tmp_path, planned_jobs):
    """`opt_in:` marks the experiments the default target does not build; a preview's
    one simulate job per study leaves exactly those out. The published config's dry runs must agree."""
    repo = Path(__file__).resolve().parents[1]
    work = tmp_path / "w"
    (work / "config").mkdir(parents=True)
    (work / "config" / "config.yaml").write_text((repo / "config" / "config.yaml").read_text())
    config = config_of(work)
    exps = experiments.experiments(config)
    default = {r[len("simulate_"):] for r in planned_jobs(work) if r.startswith("simulate_")}
    assert default == {n for n, e in exps.items() if not experiments.on_request(e)}
    preview = {r for r in planned_jobs(work, "--config", "preview=true") if r.startswith("simulate_")}
    assert preview == {f"simulate_{s}" for s in config["studies"]}
