# Study toy: one table, one claim. A rules file of a study needs only the shared
# rules (instance, simulate) and pipeline's paths.

TOY_EXP = EXPERIMENTS["toy_accuracy"]
TOY_CHUNKS = [p for s in TOY_EXP.setting_ids() for a in TOY_EXP.algorithms
              for p in pipeline.raw_chunk_paths(config, TOY_EXP, s, a)]


rule toy_table:
    input:
        TOY_CHUNKS,
    output:
        csv=report(PREFIX + "results/toy/tables/accuracy.csv", category="toy", subcategory="Tables"),
        md=PREFIX + "results/toy/tables/accuracy.md",
        tex=PREFIX + "results/toy/tables/accuracy.tex",
        claims=PREFIX + "results/toy/claims.md",
        claims_json=PREFIX + "results/toy/claims.json",
    params:
        n=TOY_EXP.trials,
    log:
        "logs/toy/table.log",
    shell:
        "linbandits toy-table --chunks {input} --n {params.n} --out-stem {PREFIX}results/toy/tables/accuracy "
        "--claims-stem {PREFIX}results/toy/claims > {log} 2>&1"


STUDY_TARGETS["toy"] += [PREFIX + "results/toy/tables/accuracy.csv", PREFIX + "results/toy/claims.json"]


rule toy:
    input:
        STUDY_TARGETS["toy"],
