# One job per (study, experiment, setting, algorithm, chunk of runs). The chunk
# is named by its run range, so a different chunk_size makes different files
# but the same per-run outcomes (run i depends only on the seed and i).
# Studies whose figures are curves over rounds (Study.curves) also write the
# runs' curves beside each chunk.


def simulate_params(w):
    study_of(w)
    exp = experiment(w.experiment)
    first, n = pipeline.chunk_bounds(w.chunk)
    return {
        "first": first,
        "n": n,
        "seed": pipeline.job_seed(config, w.experiment, w.setting),
        "options": pipeline.option_args(exp.options.get(w.algorithm, {})),
    }


SIMULATE = (
    "{params.fail}linbandits simulate --instance-file {input.npz} "
    "--algorithm {wildcards.algorithm} --trials {params.job[n]} "
    "--first-trial {params.job[first]} --seed {params.job[seed]} {params.job[options]} "
)


rule simulate:
    input:
        npz=PREFIX + "results/{study}/instances/{experiment}/{setting}.npz",
    output:
        csv=PREFIX + "results/{study}/raw/{experiment}/{setting}/{algorithm}/chunk{chunk}.csv",
        meta=PREFIX + "results/{study}/raw/{experiment}/{setting}/{algorithm}/chunk{chunk}.json",
    wildcard_constraints:
        study="|".join(s for s in STUDIES if s not in CURVE_STUDIES) or "none",
    params:
        job=simulate_params,
        fail="LINBANDITS_FAIL_FOR_TESTING=1 " if config.get("fail_rule_for_testing") else "",
    log:
        PREFIX + "logs/{study}/simulate/{experiment}/{setting}/{algorithm}/chunk{chunk}.log",
    benchmark:
        # Wall and CPU time of the job's processes (benchmarks/bench_pipeline.py reads them).
        PREFIX + "logs/{study}/benchmarks/simulate/{experiment}/{setting}/{algorithm}/chunk{chunk}.tsv"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    shell:
        SIMULATE + "--out {output.csv} 2> {log}"


rule simulate_curves:
    input:
        npz=PREFIX + "results/{study}/instances/{experiment}/{setting}.npz",
    output:
        csv=PREFIX + "results/{study}/raw/{experiment}/{setting}/{algorithm}/chunk{chunk}.csv",
        meta=PREFIX + "results/{study}/raw/{experiment}/{setting}/{algorithm}/chunk{chunk}.json",
        curves=PREFIX + "results/{study}/raw/{experiment}/{setting}/{algorithm}/chunk{chunk}.curves.npz",
    wildcard_constraints:
        study="|".join(CURVE_STUDIES) or "none",
    params:
        job=simulate_params,
        fail="LINBANDITS_FAIL_FOR_TESTING=1 " if config.get("fail_rule_for_testing") else "",
    log:
        PREFIX + "logs/{study}/simulate/{experiment}/{setting}/{algorithm}/chunk{chunk}.log",
    benchmark:
        # Wall and CPU time of the job's processes (benchmarks/bench_pipeline.py reads them).
        PREFIX + "logs/{study}/benchmarks/simulate/{experiment}/{setting}/{algorithm}/chunk{chunk}.tsv"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    shell:
        SIMULATE + "--out {output.csv} --curves {output.curves} 2> {log}"
