# Study opkb: Hong, Li, Tewari (2023), ADA-OPKB. Its runs, tables, figures and claims are the generic
# rules of study.smk (linbandits.studies.opkb.products lists them). This file holds the study's own
# jobs only: the grid points of the opt-in tuning (`snakemake --cores 2 opkb_tuning`, spec C), one job
# per point, each running every instance seed of the tuning experiment with that experiment's own job
# seeds. The tuning table and the claims judged with it are products of the `opkb_tuning` target.

_OPKB_TUNING = config["studies"]["opkb"].get("tuning") or {}
if _OPKB_TUNING:
    from linbandits.studies.opkb.tuning import grid_points as _opkb_grid_points

    _OPKB_TUNE_EXP = EXPERIMENTS[_OPKB_TUNING["experiment"]]
    _OPKB_TUNE_POINTS = _opkb_grid_points(_OPKB_TUNING, _OPKB_TUNE_EXP.options)
    _OPKB_TUNE_RUNS = " ".join(
        f"{paths.instance_path(config, _OPKB_TUNE_EXP, s)}:{experiments.job_seed(config, _OPKB_TUNE_EXP.name, s)}"
        for s in _OPKB_TUNE_EXP.setting_ids()
    )

    rule opkb_tune_point:
        input:
            [
                paths.instance_path(config, _OPKB_TUNE_EXP, s)
                for s in _OPKB_TUNE_EXP.setting_ids()
            ],
        output:
            f"{PREFIX}results/opkb/tuning/{{algorithm}}/point{{index}}.json",
        log:
            f"{PREFIX}logs/opkb/tuning/{{algorithm}}/point{{index}}.log",
        benchmark:
            f"{PREFIX}logs/opkb/benchmarks/tuning/{{algorithm}}/point{{index}}.tsv"
        wildcard_constraints:
            index=r"\d{4}",
        conda:
            ENV
        resources:
            mem_mb=1000,
            runtime=60,
        params:
            options=lambda w: jobs.option_args(
                _OPKB_TUNE_POINTS[w.algorithm][int(w.index)]
            ),
            runs=_OPKB_TUNE_RUNS,
        shell:
            f"{LB} opkb-tune --algorithm {{wildcards.algorithm}} --runs {{params.runs}} {{params.options}} "
            f"--out {{output}} > {{log}} 2>&1"
