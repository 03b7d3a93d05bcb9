"""linbandits.jobs: which cells each simulate job runs, and the plan it reads.

- At every job_size, in a full run and a preview, every raw file of every experiment is written by
  exactly one job, which runs that cell: its setting's instance file and seed, its algorithm's options,
  its run range; and the rule's outputs are the plan's cells. Planted: a lost group of settings, a seed
  that ignores the setting.
- A user's algorithm never shares a job with the paper's algorithms (nor another user's), and the
  paper's plans are the same with and without it. Planted: a user's algorithm counted as the paper's.
- A job's plan changes when what it computes changes, and only then. Planted: a plan carrying every
  algorithm's options of its experiment.
- A plan file is rewritten only when its text changes (Snakemake reruns what reads a newer file).
"""
import copy
import dataclasses
import os
import shlex
from pathlib import Path

import pytest

from linbandits import catalogue, experiments, jobs, paths
from linbandits.errors import UserError
from linbandits.runs import parse_chunk_path

REPO = Path(__file__).resolve().parents[1]
SIZES = ("algorithm", "run_range", "study")
USER = {"p1rage": {"Uniform": str(REPO / "examples" / "p1rage_uniform" / "uniform.py") + ":Uniform"}}


def every_job(config):
    """(rule, wildcards, plan) of every simulate job of the config."""
    exps = list(experiments.experiments(config).values())
    return [(r, w, r.plan(w)) for r in jobs.simulate_rules(config, exps) for w in r.wildcards]


def coverage_problems(config) -> list[str]:
    """What is wrong with the config's simulate jobs: a raw file no job or two jobs write, a cell run on
    another setting's instance or seed, with other options or another run range, a rule whose outputs
    are not its plan's cells."""
    exps = experiments.experiments(config)
    problems, written = [], []
    for rule, w, plan in every_job(config):
        outs = [c["out"] for t in plan["tasks"] for c in t["cells"]]
        if sorted(f.format(**w) for f in rule.outputs["csv"]) != sorted(outs):
            problems.append(f"{rule.rule} {w}: outputs are not its cells")
        written += outs
        for t in plan["tasks"]:
            for c in t["cells"]:
                exp = exps[Path(c["out"]).parts[-4]]
                setting, algorithm = parse_chunk_path(c["out"])
                chunk = Path(c["out"]).stem.removeprefix("chunk")
                if (c["instance"], c["seed"]) != (paths.instance_path(config, exp, setting),
                                                   experiments.seed_of(config, exp, setting)):
                    problems.append(f"{c['out']}: another setting's instance or seed")
                if t["algorithm"] != algorithm or (t["first_trial"], t["trials"]) != experiments.chunk_bounds(chunk):
                    problems.append(f"{c['out']}: another algorithm or run range")
                if t["options"] != {k: str(v) for k, v in exp.options.get(algorithm, {}).items()}:
                    problems.append(f"{c['out']}: other options")
    expected = [p for e in exps.values() for p in paths.raw_inputs(config, e)]
    if sorted(written) != sorted(expected):
        problems.append(f"{len(set(expected) - set(written))} raw files no job writes, "
                        f"{len(written) - len(set(written))} written twice")
    return problems


@pytest.mark.parametrize("preview", [False, True])
@pytest.mark.parametrize("size", SIZES)
def test_every_raw_file_is_written_by_one_job_that_runs_its_cell(config, size, preview):
    config.update(job_size=size, preview=preview)
    assert coverage_problems(config) == []


def test_a_setting_group_of_its_own_is_a_job_of_its_own(config):
    """`settings_per_job` splits an experiment's jobs by settings (the width-2048 switch: one seed a job)."""
    rules = {r.rule: r for r in jobs.simulate_rules(config, list(experiments.experiments(config).values()))}
    w2048 = experiments.experiments(config)["opkb_env1_neural__w2048"]
    parts = [n for n in rules if n.startswith("simulate_opkb_env1_neural__w2048__part")]
    assert len(parts) == len(w2048.setting_ids()) and all(len(rules[n].outputs["csv"]) == 1 for n in parts)


def planted_settings_per_job(config, monkeypatch, plant):
    section = config["studies"]["opkb"]["experiments"]["opkb_env1_neural"]
    section["settings_per_job"] = 7
    monkeypatch.setattr(jobs, *plant)
    return coverage_problems(config)


def test_planted_lost_group_of_settings_is_caught(config, monkeypatch):
    original = experiments.setting_groups
    assert planted_settings_per_job(config, monkeypatch, ("setting_groups", lambda e: original(e))) == []
    assert planted_settings_per_job(config, monkeypatch, ("setting_groups", lambda e: original(e)[:-1])) != []


def test_planted_seed_of_another_setting_is_caught(config, monkeypatch):
    monkeypatch.setattr(jobs, "seed_of", lambda config, exp, setting: experiments.seed_of(config, exp,
                                                                                           exp.setting_ids()[0]))
    assert any("seed" in p for p in coverage_problems(config))


# ---------------------------------------------------------------- a user's algorithm

def algorithms_a_job(config) -> list[set]:
    return [{t["algorithm"] for t in plan["tasks"]} for _, _, plan in every_job(config)]


def sharing(config) -> list[set]:
    """The jobs that hold a user's algorithm beside another algorithm."""
    from linbandits.user import algorithms as user_algorithms

    return [a for a in algorithms_a_job(config) if len(a) > 1 and any(user_algorithms.is_user_algorithm(x) for x in a)]


@pytest.mark.parametrize("preview", [False, True])
@pytest.mark.parametrize("size", SIZES)
def test_a_user_algorithm_never_shares_a_job(config, size, preview):
    config.update(job_size=size, preview=preview, extra_algorithms=USER)
    assert any(a == {"Uniform"} for a in algorithms_a_job(config))
    assert sharing(config) == []
    assert coverage_problems(config) == []


def test_planted_user_algorithm_in_the_papers_job_is_caught(config, monkeypatch):
    config.update(job_size="study", extra_algorithms=USER)
    monkeypatch.setattr(jobs, "paper_and_user_algorithms", lambda exp: (list(exp.algorithms), []))
    assert sharing(config) != []


@pytest.mark.parametrize("size", SIZES)
def test_the_papers_plans_are_the_same_with_a_user_algorithm(config, size):
    from linbandits.user import algorithms as user_algorithms

    def papers(cfg):
        return {(r.rule, tuple(sorted(w.items()))): plan for r, w, plan in every_job(cfg)
                if not any(user_algorithms.is_user_algorithm(t["algorithm"]) for t in plan["tasks"])}

    plain = papers({**config, "job_size": size})
    assert plain and papers({**config, "job_size": size, "extra_algorithms": USER}) == plain


def test_a_user_algorithms_plan_names_its_class(config):
    config.update(extra_algorithms=USER)
    tasks = [t for _, _, plan in every_job(config) for t in plan["tasks"] if t["algorithm"] == "Uniform"]
    assert tasks and all(t["user_class"] == USER["p1rage"]["Uniform"] and t["study"] == "p1rage" for t in tasks)


# ---------------------------------------------------------------- a plan changes with what its job computes

def plan_of(config, experiment="soare_sto", algorithm="P1-RAGE"):
    """The plan of the experiment's first job of one algorithm (job_size algorithm)."""
    exp = experiments.experiments(config)[experiment]
    rule = next(r for r in jobs.simulate_rules(config, [exp]) if r.rule == f"simulate_{experiment}")
    return rule.plan({"algorithm": algorithm, "chunk": experiments.chunk_names(config, exp)[0]})


UNRELATED = [
    lambda c: c["studies"]["p1rage"]["experiments"]["soare_sto"].update(title="another title"),
    lambda c: c["studies"]["p1rage"]["figures"]["fig4_malicious"].update(title="another title"),
    lambda c: c["studies"]["p1rage"]["experiments"]["soare_sto"].setdefault("options", {}).update(
        {"Peace": {"fw_iterations": 500}}),
    lambda c: c["studies"]["p1rage"]["experiments"]["malicious"].update(trials=7),
    lambda c: c["studies"]["oam"].update(enabled=False),
    lambda c: c.update(robustness=False),
]
RELATED = [
    lambda c: c["studies"]["p1rage"]["experiments"]["soare_sto"].setdefault("options", {}).update(
        {"P1-RAGE": {"m": 9}}),
    lambda c: c.update(seed=c["seed"] + 1),
    lambda c: c["studies"]["p1rage"]["experiments"]["soare_sto"].update(values=[10, 20]),
]


def unchanged_by(config, edits) -> list[int]:
    """The edits (by index) after which soare_sto's P1-RAGE job plans the same runs."""
    before = plan_of(config)
    out = []
    for i, edit in enumerate(edits):
        edited = copy.deepcopy(config)
        edit(edited)
        if plan_of(edited) == before:
            out.append(i)
    return out


def test_a_plan_changes_with_what_its_job_computes_and_only_then(config):
    assert unchanged_by(config, UNRELATED) == list(range(len(UNRELATED)))
    assert unchanged_by(config, RELATED) == []


def test_planted_plan_carrying_its_experiments_options_is_caught(config, monkeypatch):
    real = jobs.simulate_plan

    def leaky(config, cells, curves):
        return {**real(config, cells, curves), "options": {a: {k: str(v) for k, v in o.items()}
                                                           for a, o in cells[0].experiment.options.items()}}

    monkeypatch.setattr(jobs, "simulate_plan", leaky)
    assert unchanged_by(config, UNRELATED) != list(range(len(UNRELATED)))


def test_a_plan_file_is_rewritten_only_when_its_text_changes(tmp_path):
    path = str(tmp_path / "plans" / "job.json")
    plan = {"runner": jobs.SIMULATE, "tasks": [{"algorithm": "G-BAI", "trials": 3}]}
    assert jobs.write_plan(path, plan) == path
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    jobs.write_plan(path, copy.deepcopy(plan))
    assert os.stat(path).st_mtime_ns == 1_000_000_000          # the same plan: the file as it was
    jobs.write_plan(path, {**plan, "tasks": [{"algorithm": "G-BAI", "trials": 4}]})
    assert os.stat(path).st_mtime_ns > 1_000_000_000           # another plan: a newer file
    assert '"trials": 4' in Path(path).read_text()


# ---------------------------------------------------------------- job sizes, names, priorities

def test_job_size_defaults_to_one_algorithm_and_to_the_study_in_a_preview(config):
    assert jobs.job_size(config) == "algorithm" and not jobs.bundles_steps(config)
    assert jobs.job_size({**config, "preview": True}) == "study"
    assert jobs.job_size({**config, "preview": True, "job_size": "run_range"}) == "run_range"
    with pytest.raises(UserError, match="job_size = 'huge'; choose one of algorithm, run_range, study"):
        jobs.simulate_rules({**config, "job_size": "huge"}, [])


def test_a_study_job_holds_the_default_targets_experiments_and_opt_in_ones_keep_their_own(config):
    config.update(preview=True)
    exps = experiments.experiments(config)
    rules = jobs.simulate_rules(config, list(exps.values()))
    for study in config["studies"]:
        (whole,) = [r for r in rules if r.rule == f"simulate_{study}"]
        held = {Path(f).parts[-4] for f in whole.outputs["csv"]}
        assert held == {n for n, e in exps.items() if e.study == study and not e.opt_in}
    opt_in = [n for n, e in exps.items() if e.opt_in]
    assert opt_in and all(any(r.rule == f"simulate_{n}" for r in rules) for n in opt_in)


def test_two_jobs_of_one_name_are_refused_in_one_line(config):
    rules = jobs.simulate_rules(config, list(experiments.experiments(config).values()))
    jobs.check_unique(rules)
    with pytest.raises(UserError, match=f"two jobs of the workflow are named {rules[0].rule}"):
        jobs.check_unique([*rules, dataclasses.replace(rules[1], rule=rules[0].rule)])


def test_jobs_a_simulate_job_waits_for_carry_its_priority(config):
    """Instances and runs jobs take the priority of the simulate jobs they feed; where one simulate job
    serves a study (job_size study), the study's highest (else P1-RAGE's Yahoo! chain starts last)."""
    exps = list(experiments.experiments(config).values())
    p1 = [e for e in exps if e.study == "p1rage"]
    urgent = max(e.priority for e in p1)
    plain = [e for e in p1 if e.priority < urgent]
    assert urgent > 0 and plain
    assert jobs.upstream_priority(config, plain[:1], exps) == plain[0].priority
    config["job_size"] = "study"
    assert jobs.upstream_priority(config, plain[:1], exps) == urgent


# ---------------------------------------------------------------- instance jobs

def test_an_instance_job_writes_every_own_setting_with_its_settings(config):
    for exp in experiments.experiments(config).values():
        words = shlex.split(jobs.instance_cell_args(config, exp))
        own = [words[i + 1] for i, w in enumerate(words) if w == "--cell"]
        assert own == ["" if exp.sweep is None else f"{exp.sweep}={exp.value_of(s)}"
                       for s in experiments.own_instance_settings(exp)]
        fixed = [words[i + 1] for i, w in enumerate(words) if w == "--setting"]
        assert fixed == [f"{k}={v}" for k, v in exp.settings.items()]


def test_bundled_instance_jobs_run_the_same_commands_and_write_the_same_files(config):
    exps = [e for e in experiments.experiments(config).values()
            if e.instance in catalogue.family_names() and experiments.own_instance_settings(e)]
    single = jobs.instance_jobs(config, exps)
    assert [g for g in single.values() if len(g) != 1] == []
    commands = {e.name: jobs.instance_command(config, [e]) for e in exps}
    assert all(c.startswith("instance-cells --instance ") for c in commands.values())
    config["job_size"] = "run_range"
    bundled = jobs.instance_jobs(config, exps)
    assert set(bundled) == {e.study for e in exps if not e.opt_in} | {e.name for e in exps if e.opt_in}
    assert sorted(e.name for g in bundled.values() for e in g) == sorted(single)
    for group in bundled.values():
        words = shlex.split(jobs.instance_command(config, group))
        expected = [commands[e.name] for e in group]
        assert (words[1:] == expected and words[0] == "batch") if len(group) > 1 else \
            jobs.instance_command(config, group) == expected[0]


# ---------------------------------------------------------------- one figure costs its own inputs

ONE_FIGURE = "preview/figures/p1rage/fig4_malicious.pdf"


def one_figure_problems(planned: dict) -> list[str]:
    """What a dry run of one P1-RAGE preview figure plans beyond the figure's own inputs (Fig. 4 draws the
    `malicious` experiment alone): a job of the whole study, another experiment's simulate job, another
    product."""
    out = [f"{rule}: a job of the whole study" for rule in planned if rule in ("simulate_p1rage", "p1rage_products")]
    out += [f"{rule}: another experiment's runs" for rule in planned
            if rule.startswith("simulate_") and rule not in ("simulate_malicious", "simulate_p1rage")]
    out += [f"{rule}: another product" for rule in planned
            if rule.startswith("p1rage_") and rule not in ("p1rage_fig4_malicious", "p1rage_products")]
    return out


def test_one_preview_figure_with_job_size_algorithm_plans_its_own_inputs_alone(tmp_path, planned_jobs):
    """The README's one-figure preview (issue 50 item 5): with `job_size=algorithm` it plans the figure's job
    and the runs it draws, nothing of the rest of its study. Planted: the preview's own job_size (study),
    whose one simulate job and one products job serve the whole study."""
    config = ["--configfile", str(REPO / "config" / "config.yaml")]
    planned = planned_jobs(tmp_path, ONE_FIGURE, *config, "--config", "preview=true", "job_size=algorithm")
    assert "p1rage_fig4_malicious" in planned and "simulate_malicious" in planned
    assert one_figure_problems(planned) == []
    bundled = planned_jobs(tmp_path, ONE_FIGURE, *config, "--config", "preview=true")
    assert "a job of the whole study" in " ".join(one_figure_problems(bundled))
