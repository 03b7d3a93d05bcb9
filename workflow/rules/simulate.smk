# One job per (experiment, setting, algorithm, chunk of trials). The chunk
# is named by its trial range, so a different chunk_size makes different
# files but the same per-trial outcomes (trial i depends only on the seed).


def simulate_params(w):
    exp = experiment(w.experiment)
    first, n = pipeline.chunk_bounds(w.chunk)
    return {
        "first": first,
        "n": n,
        "seed": pipeline.job_seed(config, w.experiment, w.setting),
        "options": pipeline.option_args(exp.options.get(w.algorithm, {})),
    }


rule simulate:
    input:
        npz="data/instances/{experiment}/{setting}.npz",
    output:
        csv="results/raw/{experiment}/{setting}/{algorithm}/chunk{chunk}.csv",
        meta="results/raw/{experiment}/{setting}/{algorithm}/chunk{chunk}.json",
    params:
        job=simulate_params,
        fail="LINBANDITS_FAIL_FOR_TESTING=1 " if config.get("fail_rule_for_testing") else "",
    log:
        "logs/simulate/{experiment}/{setting}/{algorithm}/chunk{chunk}.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    shell:
        "{params.fail}linbandits simulate --instance-file {input.npz} "
        "--algorithm {wildcards.algorithm} --trials {params.job[n]} "
        "--first-trial {params.job[first]} --seed {params.job[seed]} {params.job[options]} "
        "--out {output.csv} 2> {log}"
