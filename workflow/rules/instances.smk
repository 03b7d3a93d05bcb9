# The instance files of the experiments with a built-in instance family (any study): every
# setting's instance file (+ JSON summary), results/<study>/instances/<experiment>/<setting>.npz.
# One rule per experiment, named instances_<experiment>; in a preview (or with
# `bundle_algorithms: true`) one per study, instances_<study>, that runs the same instance-cells
# commands in one process (`linbandits batch`).

for _name, _exps in jobs.instance_jobs(
    config, [EXPERIMENTS[n] for n in BUILTIN]
).items():
    _priority = jobs.upstream_priority(config, _exps, list(EXPERIMENTS.values()))

    rule:
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
        conda:
            ENV
        resources:
            mem_mb=500,
            runtime=5 + sum(len(e.setting_ids()) for e in _exps),
        params:
            command=jobs.instance_command(config, _exps),
        shell:
            f"{LB} {{params.command}} > {{log}} 2>&1"


# The instances a study's own command builds from data (its Study.external_instances: the Yahoo!
# arm sets of P1-RAGE and LinGapE): one job per experiment that names one, every setting in one
# process, named instances_<experiment> like a family's.
for _study in STUDIES:
    _external = catalogue.studies()[_study].external_instances
    for _name, _exp in EXPERIMENTS.items():
        if _exp.study != _study or _exp.instance not in _external:
            continue
        _made = _external[_exp.instance]

        rule:
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
