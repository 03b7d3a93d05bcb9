# Study opkb: Hong, Li, Tewari (2023), ADA-OPKB. Its runs, tables, figures and claims are the generic
# rules of study.smk (linbandits.studies.opkb.products lists them). This file holds the study's own
# jobs only: the grid points of the opt-in tuning (`snakemake --cores 2 opkb_tuning`, spec C), several
# points a job, each point running every instance seed of the tuning experiment with that experiment's own job
# seeds. The tuning table and the claims judged with it are products of the `opkb_tuning` target.

_OPKB_TUNING = config["studies"]["opkb"].get("tuning") or {}
if _OPKB_TUNING:
    from linbandits.studies.opkb.tuning import grid_points as _opkb_grid_points
    from linbandits.studies.opkb.tuning import point_batches as _opkb_point_batches
    from linbandits.studies.opkb.tuning import point_file as _opkb_point_file

    _OPKB_TUNE_EXP = EXPERIMENTS[_OPKB_TUNING["experiment"]]
    _OPKB_TUNE_POINTS = _opkb_grid_points(_OPKB_TUNING, _OPKB_TUNE_EXP.options)
    _OPKB_TUNE_RUNS = " ".join(
        f"{paths.instance_path(config, _OPKB_TUNE_EXP, s)}:{experiments.job_seed(config, _OPKB_TUNE_EXP.name, s)}"
        for s in _OPKB_TUNE_EXP.setting_ids()
    )

    # One job per batch of `points_per_job` points of one algorithm (tuning.point_batches), named
    # opkb_tune_<algorithm>_<first point>: one process start-up and one Snakemake job for several
    # points (Snakemake's own bookkeeping cost ~3 CPU-s a job with ~1,000 pending), the same files.
    for _algorithm, _first, _indices in _opkb_point_batches(
        _OPKB_TUNE_POINTS, int(_OPKB_TUNING.get("points_per_job", 10))
    ):
        _files = [
            f"{PREFIX}results/opkb/{_opkb_point_file(_algorithm, i)}" for i in _indices
        ]

        rule:
            name:
                f"opkb_tune_{_algorithm.replace('-', '_')}_{_first:04d}"
            input:
                [
                    paths.instance_path(config, _OPKB_TUNE_EXP, s)
                    for s in _OPKB_TUNE_EXP.setting_ids()
                ],
            output:
                _files,
            log:
                f"{PREFIX}logs/opkb/tuning/{_algorithm}/points{_first:04d}.log",
            benchmark:
                f"{PREFIX}logs/opkb/benchmarks/tuning/{_algorithm}/points{_first:04d}.tsv"
            conda:
                ENV
            resources:
                mem_mb=1000,
                runtime=60 * len(_indices),
            params:
                command=jobs.batch_command(
                    [
                        f"opkb-tune --algorithm {_algorithm} --runs {_OPKB_TUNE_RUNS} "
                        f"{jobs.option_args(_OPKB_TUNE_POINTS[_algorithm][i])} --out {f}"
                        for i, f in zip(_indices, _files)
                    ]
                ),
            shell:
                f"{LB} {{params.command}} > {{log}} 2>&1"
