# Stage 2, simulate: the runs of every algorithm on every setting, as raw chunks
#   results/<study>/raw/<experiment>/<setting>/<algorithm>/chunk<a>-<b>.csv (+ .json sidecar, + .curves.npz)
# A simulate job runs cells (an algorithm's run range on one setting) and reads which from its plan
# file, .linbandits/plans/<study>/<job>.json: the cells, each algorithm with its options, the run ranges.
# How many cells a job holds is the config's `job_size` (algorithm, run_range, study: linbandits.jobs
# says what each means); a user's algorithm always has jobs of its own. The rules:
#   simulate_<experiment>            one job per algorithm and run range (or per run range)
#   simulate_<study>                 job_size study (the preview): the study in one job
#   ...__part<g>                     one group of an experiment's `settings_per_job` settings
#   ...__<algorithm>                 a user's algorithm
# A study's own jobs (Study.jobs, e.g. OPKB's tuning grid: opkb_tune_<algorithm>_<point>) read their
# plan files too and are written by the same loop.

for _rule in [r for s in STUDIES for r in PLANNED[s]]:

    rule:
        """simulate: the cells of one job's plan file (each algorithm, its options, run range, settings)"""
        name:
            _rule.rule
        input:
            # Written when the workflow is read (common.smk), only where its text changed: a changed
            # plan is newer than the job's outputs, so Snakemake reruns the job; an unchanged one nothing.
            plan=lambda w, r=_rule: r.plan_path(dict(w.items())),
            data=list(_rule.inputs),
        output:
            **_rule.outputs,
        log:
            _rule.log,
        benchmark:
            # Wall and CPU time of the job's processes (benchmarks/bench_pipeline.py reads them).
            _rule.benchmark
        wildcard_constraints:
            **_rule.constraints,
        priority: _rule.priority
        group:
            "simulate"
        conda:
            ENV
        threads: 1
        resources:
            mem_mb=1000,
            runtime=_rule.runtime,
        params:
            fail=(
                "LINBANDITS_FAIL_FOR_TESTING=1 "
                if config.get("fail_rule_for_testing")
                else ""
            ),
        shell:
            f"{{params.fail}}{LB} run-job {{input.plan}} 2> {{log}}"
