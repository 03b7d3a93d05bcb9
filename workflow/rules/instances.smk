# One instance file (+ JSON summary: best arm, gaps, minimum gap) per
# (experiment, setting) of a built-in instance family.


rule instance:
    output:
        npz="data/instances/{experiment}/{setting}.npz",
        summary="data/instances/{experiment}/{setting}.json",
    wildcard_constraints:
        experiment="|".join(BUILTIN) or "none",
    params:
        family=lambda w: experiment(w.experiment).instance,
        settings=lambda w: pipeline.setting_args(experiment(w.experiment).instance_settings(w.setting)),
    log:
        "logs/instances/{experiment}/{setting}.log",
    resources:
        mem_mb=500,
        runtime=5,
    shell:
        "linbandits instance --instance {params.family} "
        "{params.settings} --out {output.npz} --summary {output.summary} > {log} 2>&1"
