# One instance file (+ JSON summary) per (experiment, setting) of an instance
# family of any study.


rule instance:
    output:
        npz=PREFIX + "results/{study}/instances/{experiment}/{setting}.npz",
        summary=PREFIX + "results/{study}/instances/{experiment}/{setting}.json",
    wildcard_constraints:
        experiment="|".join(BUILTIN) or "none",
    params:
        study=study_of,
        family=lambda w: experiment(w.experiment).instance,
        settings=lambda w: pipeline.setting_args(experiment(w.experiment).instance_settings(w.setting)),
    log:
        PREFIX + "logs/{study}/instances/{experiment}/{setting}.log",
    resources:
        mem_mb=500,
        runtime=5,
    shell:
        "linbandits instance --instance {params.family} "
        "{params.settings} --out {output.npz} --summary {output.summary} > {log} 2>&1"
