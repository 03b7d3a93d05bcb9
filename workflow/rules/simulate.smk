# One simulate job per (experiment, algorithm, run range): it runs that
# algorithm on every setting of the experiment, in one process, and writes one
# CSV (+ JSON sidecar, + curves for studies whose figures are curves over
# rounds) per setting. Paths stay per cell:
#   results/<study>/raw/<experiment>/<setting>/<algorithm>/chunk<a>-<b>.csv
# The run range is named in the file, so a different chunk_size makes different
# files but the same per-run outcomes (run i depends only on the seed and i).
# One rule per experiment (its outputs are the experiment's settings), named
# simulate_<experiment>.
#
# A preview (or `bundle_algorithms: true`) bundles every algorithm of an
# experiment's run range into one job: `linbandits batch` runs the same
# simulate-cells commands one after the other in one process, so the same
# files with the same numbers, for one start-up instead of one per algorithm.
# jobs.simulate_job gives both layouts' outputs and commands. A preview goes
# further: one job per study, simulate_<study>, for every experiment the default
# target builds (jobs.study_simulate_jobs); opt-in experiments (`opt_in:` in
# the config, and switch runs with `robustness: false`) keep their own jobs.

_STUDY_JOBS = jobs.study_simulate_jobs(config, list(EXPERIMENTS.values()))

for _study, _exps in _STUDY_JOBS.items():
    _outputs, _commands = jobs.study_simulate_job(
        config, _exps, _study in CURVE_STUDIES
    )
    _priority = max(e.priority for e in _exps)

    # The job's commands in a file (jobs.study_simulate_job says why).
    rule:
        name:
            f"{_study}_simulate_plan"
        input:
            workflow.source_path("../templates/text.j2"),
        output:
            paths.simulate_plan(config, _study),
        log:
            f"{PREFIX}logs/{_study}/simulate/plan.log",
        # Its simulate job's: Snakemake does not pass a priority on to the jobs a job waits for,
        # and a plan written late starts the study's one simulate job late (the run's tail).
        priority: _priority
        resources:
            mem_mb=100,
            runtime=1,
        params:
            text=lambda w, c=_commands: "\n".join(c) + "\n",
        template_engine:
            "jinja2"

    rule:
        name:
            f"simulate_{_study}"
        input:
            plan=paths.simulate_plan(config, _study),
            npz=sorted({f for e in _exps for f in paths.instance_inputs(config, e)}),
        output:
            csv=_outputs["csv"],
            meta=_outputs["json"],
            curves=_outputs.get("curves.npz", []),
        log:
            f"{PREFIX}logs/{_study}/simulate/all.log",
        benchmark:
            f"{PREFIX}logs/{_study}/benchmarks/simulate/all/all/all.tsv"
        priority: _priority
        conda:
            ENV
        threads: 1
        resources:
            mem_mb=1000,
            runtime=30
            + 10 * sum(len(e.setting_ids()) * len(e.algorithms) for e in _exps),
        params:
            fail=(
                "LINBANDITS_FAIL_FOR_TESTING=1 "
                if config.get("fail_rule_for_testing")
                else ""
            ),
        shell:
            f"{{params.fail}}{LB} batch --file {{input.plan}} 2> {{log}}"


_IN_STUDY_JOBS = {e.name for exps in _STUDY_JOBS.values() for e in exps}

# An experiment with `settings_per_job` has one rule per group of settings (experiments.setting_groups),
# simulate_<experiment>__part<g>: the same files, in smaller jobs.
for _exp, _part, _settings in [
    (e, p, g)
    for e in EXPERIMENTS.values()
    if e.name not in _IN_STUDY_JOBS
    for p, g in enumerate(experiments.setting_groups(e))
]:
    _outputs, _job, _command = jobs.simulate_job(
        config, _exp, _exp.study in CURVE_STUDIES, _settings
    )
    _whole = len(_settings) == len(_exp.setting_ids())
    _part_name = "" if _whole else f"__part{_part}"
    _constraints = {"chunk": "|".join(experiments.chunk_names(config, _exp))}
    if _job == "{algorithm}":
        _constraints["algorithm"] = "|".join(re.escape(a) for a in _exp.algorithms)

    rule:
        name:
            f"simulate_{_exp.name}{_part_name}"
        input:
            npz=paths.instance_inputs(config, _exp, settings=_settings),
        output:
            csv=_outputs["csv"],
            meta=_outputs["json"],
            curves=_outputs.get("curves.npz", []),
        log:
            f"{PREFIX}logs/{_exp.study}/simulate/{_exp.name}/{_job}/chunk{{chunk}}{_part_name}.log",
        benchmark:
            # Wall and CPU time of the job's processes (benchmarks/bench_pipeline.py reads them).
            f"{PREFIX}logs/{_exp.study}/benchmarks/simulate/{_exp.name}/{_job}/chunk{{chunk}}{_part_name}.tsv"
        wildcard_constraints:
            **_constraints,
        priority: _exp.priority
        conda:
            ENV
        threads: 1
        resources:
            mem_mb=1000,
            runtime=30
            + 10 * len(_settings) * (len(_exp.algorithms) if _job == "all" else 1),
        params:
            command=_command,
            fail=(
                "LINBANDITS_FAIL_FOR_TESTING=1 "
                if config.get("fail_rule_for_testing")
                else ""
            ),
        shell:
            f"{{params.fail}}{LB} {{params.command}} 2> {{log}}"
