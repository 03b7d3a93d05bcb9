# One simulate job per (experiment, algorithm, run range): it runs that
# algorithm on every setting of the experiment, in one process, and writes one
# CSV (+ JSON sidecar, + curves for studies whose figures are curves over
# rounds) per setting. Paths stay per cell:
#   results/<study>/raw/<experiment>/<setting>/<algorithm>/chunk<a>-<b>.csv
# The run range is named in the file, so a different chunk_size makes different
# files but the same per-run outcomes (run i depends only on the seed and i).
# One rule per experiment (its outputs are the experiment's settings), named
# simulate_<experiment>.


def simulate_options(exp):
    return lambda w: pipeline.option_args(exp.options.get(w.algorithm, {}))


def simulate_cells(exp):
    return lambda w, output: pipeline.simulate_cell_args(config, exp, output.csv)


for _exp in EXPERIMENTS.values():
    _curves = _exp.study in CURVE_STUDIES

    rule:
        name:
            f"simulate_{_exp.name}"
        input:
            npz=pipeline.instance_inputs(config, _exp),
        output:
            csv=pipeline.simulate_outputs(config, _exp, "csv"),
            meta=pipeline.simulate_outputs(config, _exp, "json"),
            curves=pipeline.simulate_outputs(config, _exp, "curves.npz") if _curves else [],
        wildcard_constraints:
            algorithm="|".join(re.escape(a) for a in _exp.algorithms),
            chunk="|".join(pipeline.chunk_names(config, _exp)),
        params:
            first=lambda w: pipeline.chunk_bounds(w.chunk)[0],
            n=lambda w: pipeline.chunk_bounds(w.chunk)[1],
            cells=simulate_cells(_exp),
            options=simulate_options(_exp),
            curves="--curves" if _curves else "",
            fail="LINBANDITS_FAIL_FOR_TESTING=1 " if config.get("fail_rule_for_testing") else "",
        log:
            f"{PREFIX}logs/{_exp.study}/simulate/{_exp.name}/{{algorithm}}/chunk{{chunk}}.log",
        benchmark:
            # Wall and CPU time of the job's processes (benchmarks/bench_pipeline.py reads them).
            f"{PREFIX}logs/{_exp.study}/benchmarks/simulate/{_exp.name}/{{algorithm}}/chunk{{chunk}}.tsv"
        threads: 1
        priority: _exp.priority
        resources:
            mem_mb=1000,
            runtime=30 + 10 * len(_exp.setting_ids()),
        shell:
            "{params.fail}linbandits simulate-cells --algorithm {wildcards.algorithm} "
            "--first-trial {params.first} --trials {params.n} "
            "{params.options} {params.curves} {params.cells} 2> {log}"
