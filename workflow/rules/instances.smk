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
