# Per experiment: the nine-column error-probability table as CSV, Markdown
# and LaTeX (linbandits.tables does the counting and the intervals).


def table_rows(w):
    exp = experiment(w.experiment)
    rows = []
    for setting in exp.setting_ids():
        for algo in exp.algorithms:
            rows.append({
                "algorithm": algo,
                "x": exp.value_of(setting),
                "chunks": pipeline.raw_chunk_paths(config, exp, setting, algo),
                "summary": f"data/instances/{exp.name}/{setting}.json",
                "n_trials": exp.trials,
            })
    return rows


def table_inputs(w):
    rows = table_rows(w)
    return [p for r in rows for p in r["chunks"]] + sorted({r["summary"] for r in rows})


rule table:
    input:
        table_inputs,
    output:
        csv=report(
            "results/tables/{experiment}.csv",
            caption="../report/table.rst",
            category="Tables",
            labels={"experiment": "{experiment}"},
        ),
        md="results/tables/{experiment}.md",
        tex="results/tables/{experiment}.tex",
    params:
        rows=table_rows,
    log:
        "logs/tables/{experiment}.log",
    resources:
        mem_mb=1000,
        runtime=5,
    run:
        from linbandits.tables import TableRow, aggregate, write_table

        rows = [TableRow(experiment=wildcards.experiment, algorithm=r["algorithm"], x=r["x"],
                         chunks=tuple(r["chunks"]), summary=r["summary"], n_trials=r["n_trials"])
                for r in params.rows]
        write_table(aggregate(rows), output.csv, output.md, output.tex)
