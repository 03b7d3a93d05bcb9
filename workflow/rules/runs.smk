# Stage 3, runs: an experiment's raw chunks checked (every run of every setting and algorithm once)
# and collected into its runs file, results/<study>/runs/<experiment>.{npz,json}, which every table,
# figure and claim reads (linbandits.runs). runs_<experiment>, one job per experiment; with a job_size
# other than `algorithm` (the preview) runs_<study>, a study's in one process.
# The default target's runs files are among its own inputs: a runs file deleted after a failed
# collect job (Snakemake removes a failed job's outputs) is rebuilt by the same command, though the
# products made from it before still look up to date.

for _name, _exps in jobs.experiment_jobs(
    config, [e for e in EXPERIMENTS.values() if e.study in PRODUCT_STUDIES]
).items():
    _priority = jobs.upstream_priority(config, _exps, list(EXPERIMENTS.values()))

    rule:
        """runs: an experiment's raw chunks checked and collected into its runs file (a study's, bundled)"""
        name:
            f"runs_{_name}"
        input:
            chunks=[p for e in _exps for p in paths.raw_inputs(config, e)],
        output:
            npz=[f"{paths.runs_stem(config, e)}.npz" for e in _exps],
            json=[f"{paths.runs_stem(config, e)}.json" for e in _exps],
        log:
            f"{PREFIX}logs/{_exps[0].study}/runs/{_name}.log",
        benchmark:
            f"{PREFIX}logs/{_exps[0].study}/benchmarks/runs/{_name}.tsv"
        priority: _priority
        group:
            "products"
        conda:
            ENV
        resources:
            mem_mb=2000,
            runtime=5 * len(_exps),
        params:
            command=jobs.collect_command(config, _exps),
        shell:
            f"{LB} {{params.command}} > {{log}} 2>&1"

    STUDY_TARGETS[_exps[0].study] += [
        f"{paths.runs_stem(config, e)}{ext}"
        for e in _exps
        if e.opt_in is None
        for ext in (".npz", ".json")
    ]
