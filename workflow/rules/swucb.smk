# Study swucb: Cheung, Simchi-Levi, Zhu (AISTATS 2019), SW-UCB / BOB / EXP3.S.
# Its experiments and figures are the `studies: swucb:` section of the config;
# this file makes its tables (regret, slopes, ratios, variation), its log-log
# figures and its claims check. Everything under results/swucb/, figures/swucb/
# and logs/swucb/.

from shlex import quote as shlex_quote

SW = "swucb"
SW_EXPERIMENTS = pipeline.study_experiments(config, SW, published_only=True)
SW_RESULTS = f"{PREFIX}results/{SW}"
SW_FIGURES = f"{PREFIX}figures/{SW}"
SW_TABLE_NAMES = ("regret", "slopes", "ratios", "variation")
SW_TABLES = {n: [f"{SW_RESULTS}/tables/{n}.{ext}" for ext in ("csv", "md", "tex")] for n in SW_TABLE_NAMES}
SW_CLAIMS_TABLE = f"{workflow.basedir}/src/linbandits/studies/swucb/claims.yaml"


def sw_series_rows():
    """(experiment, algorithm, T, runs, chunk paths) of every series at every T."""
    rows = []
    for name, exp in SW_EXPERIMENTS.items():
        for setting in exp.setting_ids():
            for algo in exp.algorithms:
                rows.append((name, algo, exp.value_of(setting), exp.trials,
                             pipeline.raw_chunk_paths(config, exp, setting, algo)))
    return rows


def sw_instances():
    return [(name, exp.value_of(s), pipeline.instance_path(config, exp, s))
            for name, exp in SW_EXPERIMENTS.items() for s in exp.setting_ids()]


def sw_table_args():
    rows = " ".join(f"--row {e} {a} {T} {n} {','.join(chunks)}" for e, a, T, n, chunks in sw_series_rows())
    return rows + " " + " ".join(f"--instance {e} {T} {path}" for e, T, path in sw_instances())


rule swucb_tables:
    input:
        chunks=[p for row in sw_series_rows() for p in row[4]],
        instances=[row[2] for row in sw_instances()],
    output:
        regret=report(SW_TABLES["regret"][0], caption="../report/swucb_tables.rst", category=SW,
                      subcategory="Tables", labels={"table": "regret"}),
        slopes=report(SW_TABLES["slopes"][0], caption="../report/swucb_tables.rst", category=SW,
                      subcategory="Tables", labels={"table": "slopes"}),
        ratios=SW_TABLES["ratios"][0],
        variation=report(SW_TABLES["variation"][0], caption="../report/swucb_tables.rst", category=SW,
                         subcategory="Tables", labels={"table": "variation"}),
        rest=[p for n in SW_TABLE_NAMES for p in SW_TABLES[n][1:]],
    params:
        args=sw_table_args(),
        out_dir=f"{SW_RESULTS}/tables",
    log:
        f"{PREFIX}logs/{SW}/tables.log",
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "linbandits swucb-tables {params.args} --out-dir {params.out_dir} > {log} 2>&1"


for _fig, _spec in pipeline.study_figures(config, SW).items():

    rule:
        name:
            f"swucb_figure_{_fig}"
        input:
            regret=SW_TABLES["regret"][0],
            slopes=SW_TABLES["slopes"][0],
        output:
            pdf=f"{SW_FIGURES}/{_fig}.pdf",
            png=report(f"{SW_FIGURES}/{_fig}.png", caption=f"../report/{_spec.get('caption', 'swucb_fig1.rst')}",
                       category=SW, subcategory="Figures", labels={"figure": _fig}),
        params:
            panels=" ".join("--panel " + ",".join([p["experiment"], *p.get("also", [])]) for p in _spec["panels"]),
            titles=" ".join("--title " + shlex_quote(p.get("title", EXPERIMENTS[p["experiment"]].title))
                            for p in _spec["panels"]),
            subtitle=("--subtitle " + shlex_quote(preview_note())) if preview_note() else "",
            stem=f"{SW_FIGURES}/{_fig}",
        log:
            f"{PREFIX}logs/{SW}/figures/{_fig}.log",
        resources:
            mem_mb=1000,
            runtime=5,
        shell:
            "linbandits swucb-figure --regret {input.regret} --slopes {input.slopes} {params.panels} "
            "{params.titles} {params.subtitle} --out-stem {params.stem} > {log} 2>&1"


rule swucb_claims:
    input:
        claims=SW_CLAIMS_TABLE,
        tables=[SW_TABLES[n][0] for n in ("slopes", "ratios", "variation")],
    output:
        md=report(SW_RESULTS + "/claims.md", caption="../report/swucb_claims.rst", category=SW,
                  subcategory="Claims"),
        json=SW_RESULTS + "/claims.json",
    params:
        tables_dir=f"{SW_RESULTS}/tables",
        preview="--preview" if config.get("preview") else "",
    log:
        f"{PREFIX}logs/{SW}/claims.log",
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "linbandits swucb-claims --claims {input.claims} --tables-dir {params.tables_dir} {params.preview} "
        "--out-md {output.md} --out-json {output.json} > {log} 2>&1"


STUDY_TARGETS[SW] += [p for n in SW_TABLE_NAMES for p in SW_TABLES[n]]
STUDY_TARGETS[SW] += [p for n in pipeline.study_figures(config, SW) for p in pipeline.figure_paths(config, SW, n)]
STUDY_TARGETS[SW] += [SW_RESULTS + "/claims.md", SW_RESULTS + "/claims.json"]


# `snakemake --cores 2 swucb`: this study alone.
rule swucb:
    input:
        STUDY_TARGETS[SW],
