# Stage 1, instances: the instance file (+ JSON summary) of every setting of every experiment,
#   results/<study>/instances/<experiment>/<setting>.npz
# instances_<experiment> writes an experiment's settings that no earlier experiment has (a setting
# equal to an earlier one's reads that file); with a job_size other than `algorithm` (the preview)
# instances_<study> writes a study's in one process (`linbandits batch`). The instances a study's own
# command builds from data (its Study.external_instances: the Yahoo! arm sets) have one job per
# experiment, instances_<experiment> too.

for _name, _exps in jobs.instance_jobs(
    config, [EXPERIMENTS[n] for n in BUILTIN]
).items():
    _priority = jobs.upstream_priority(config, _exps, list(EXPERIMENTS.values()))

    rule:
        """instances: an experiment's instance files (a study's, bundled), from its family and settings"""
        name:
            f"instances_{_name}"
        output:
            npz=[f for e in _exps for f in paths.instance_outputs(config, e, "npz")],
            summary=[
                f for e in _exps for f in paths.instance_outputs(config, e, "json")
            ],
        log:
            f"{PREFIX}logs/{_exps[0].study}/instances/{_name}.log",
        benchmark:
            f"{PREFIX}logs/{_exps[0].study}/benchmarks/instances/{_name}.tsv"
        # Its simulate jobs' priority: a preview's long chains (P1-RAGE's) start first.
        priority: _priority
        group:
            "instances"
        conda:
            ENV
        resources:
            mem_mb=500,
            runtime=5 + sum(len(e.setting_ids()) for e in _exps),
        params:
            command=jobs.instance_command(config, _exps),
        shell:
            f"{LB} {{params.command}} > {{log}} 2>&1"


for _study in STUDIES:
    _external = catalogue.studies()[_study].external_instances
    for _name, _exp in EXPERIMENTS.items():
        if _exp.study != _study or _exp.instance not in _external:
            continue
        _made = _external[_exp.instance]

        rule:
            """instances: an experiment's instance files, built from data by its study's own command"""
            name:
                f"instances_{_name}"
            input:
                **catalogue.resolve(_made.inputs)(config),
            output:
                npz=paths.instance_outputs(config, _exp, "npz"),
                summary=paths.instance_outputs(config, _exp, "json"),
            log:
                f"{PREFIX}logs/{_study}/instances/{_exp.instance}_{_name}.log",
            priority: 50
            group:
                "instances"
            conda:
                ENV
            resources:
                mem_mb=2000,
                runtime=10,
            params:
                command=catalogue.resolve(_made.command)(config, _exp),
            shell:
                f"{LB} {{params.command}} > {{log}} 2>&1"

        STUDY_TARGETS[_study] += [
            f for f in _made.also_builds if f not in STUDY_TARGETS[_study]
        ]
