# Study lingape: Xu, Honda, Sugiyama (AISTATS 2018), LinGapE against the XY
# allocations, fixed-confidence BAI. Its experiments are the `studies: lingape:`
# section of the config; this file makes the stopping-time tables, Table 1 beside
# the published one, Figs. 1-3 and the claims check, through `linbandits lingape-*`.
# Everything under results/lingape/, figures/lingape/ and logs/lingape/.

from shlex import quote as shlex_quote

LG = "lingape"
LG_CONFIG = config["studies"][LG]
LG_RESULTS = f"{PREFIX}results/{LG}"
LG_FIGURES = f"{PREFIX}figures/{LG}"
LG_EXPERIMENTS = pipeline.study_experiments(config, LG)
LG_TABLE1 = LG_CONFIG.get("table1", {})
LG_CLAIMS_TABLE = f"{workflow.basedir}/src/linbandits/studies/lingape/claims.yaml"


def lg_rows(name):
    exp = EXPERIMENTS[name]
    return [(algo, exp.value_of(s), pipeline.raw_chunk_paths(config, exp, s, algo))
            for s in exp.setting_ids() for algo in exp.algorithms]


def lg_table_args(w):
    exp = EXPERIMENTS[w.experiment]
    return " ".join(f"--row {shlex_quote(a)} {x} {exp.trials} {' '.join(chunks)}" for a, x, chunks in
                    lg_rows(w.experiment))


rule lingape_table:
    input:
        lambda w: [p for _, _, chunks in lg_rows(w.experiment) for p in chunks],
    output:
        csv=report(LG_RESULTS + "/tables/{experiment}.csv", caption="../report/lingape_table.rst", category=LG,
                   subcategory="Tables", labels={"experiment": "{experiment}"}),
        md=LG_RESULTS + "/tables/{experiment}.md",
        tex=LG_RESULTS + "/tables/{experiment}.tex",
    wildcard_constraints:
        experiment="|".join(LG_EXPERIMENTS) or "none",
    params:
        rows=lg_table_args,
    log:
        f"{PREFIX}logs/{LG}/tables/{{experiment}}.log",
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "linbandits lingape-table {params.rows} --out {output.csv} {output.md} {output.tex} > {log} 2>&1"


LG_YAHOO = [n for n, e in LG_EXPERIMENTS.items() if e.instance == "lingape_yahoo"]


# Exp. 3: the arm sets of every run, drawn from the parsed R6A day of May 1 (shared yahoo_* rules). One job
# per experiment: its K values in one process.
def lg_yahoo_instance_command(exp):
    return pipeline.setting_instance_command(config, exp, lambda s: (
        f"lingape-yahoo-instance --day data/processed/r6a/day20090501.npz --K {exp.value_of(s)} --runs {exp.trials}"))


for _name in LG_YAHOO:

    rule:
        name:
            f"lingape_yahoo_instances_{_name}"
        priority: 50
        input:
            day="data/processed/r6a/day20090501.npz",
        output:
            npz=pipeline.instance_outputs(config, EXPERIMENTS[_name], "npz"),
            summary=pipeline.instance_outputs(config, EXPERIMENTS[_name], "json"),
        params:
            command=lg_yahoo_instance_command(EXPERIMENTS[_name]),
        log:
            f"{PREFIX}logs/{LG}/instances/{_name}.log",
        resources:
            mem_mb=2000,
            runtime=10,
        shell:
            "linbandits {params.command} > {log} 2>&1"


def lg_table1_columns():
    """(label, n runs, chunks) of Table 1: config `table1: columns: {label: [experiment, algorithm]}`."""
    setting = LG_TABLE1.get("setting", "d5")
    cols = []
    for label, (name, algo) in LG_TABLE1.get("columns", {}).items():
        exp = EXPERIMENTS[name]
        cols.append((label, exp.trials, pipeline.raw_chunk_paths(config, exp, setting, algo)))
    return cols


rule lingape_table1:
    input:
        [p for _, _, chunks in lg_table1_columns() for p in chunks],
    output:
        csv=report(LG_RESULTS + "/table1_arm_pulls_d5.csv", caption="../report/lingape_table1.rst", category=LG,
                   subcategory="Tables"),
        md=LG_RESULTS + "/table1_arm_pulls_d5.md",
        tex=LG_RESULTS + "/table1_arm_pulls_d5.tex",
    params:
        cols=" ".join(f"--column {shlex_quote(label)} {n} {' '.join(chunks)}" for label, n, chunks in
                      lg_table1_columns()),
    log:
        f"{PREFIX}logs/{LG}/tables/table1.log",
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "linbandits lingape-table1 {params.cols} --out {output.csv} {output.md} {output.tex} > {log} 2>&1"


def lg_uses_synthetic_data(name):
    return EXPERIMENTS[name].instance == "lingape_yahoo" and r6a_synthetic()


for _fig, _spec in pipeline.figures(config).items():
    if _spec["study"] != LG:
        continue

    rule:
        name:
            f"lingape_figure_{_fig}"
        input:
            tables=sorted({pipeline.table_paths(config, EXPERIMENTS[p["experiment"]])[0] for p in _spec["panels"]}),
        output:
            pdf=f"{LG_FIGURES}/{_fig}.pdf",
            png=report(f"{LG_FIGURES}/{_fig}.png", caption=f"../report/{_spec.get('caption', 'lingape_figure.rst')}",
                       category=LG, subcategory="Figures", labels={"figure": _fig}),
        params:
            series=" ".join(
                "--series " + shlex_quote(f"{p.get('label', p['algorithm'])}="
                                          f"{pipeline.table_paths(config, EXPERIMENTS[p['experiment']])[0]}:"
                                          f"{p['algorithm']}") for p in _spec["panels"]),
            xlabel=shlex_quote(_spec["panels"][0].get("xlabel", "")),
            title=shlex_quote(_spec.get("title", _fig)),
            subtitle=shlex_quote("; ".join(n for n in (
                "synthetic stand-in for R6A" if any(lg_uses_synthetic_data(p["experiment"]) for p in _spec["panels"])
                else "",) if n)),
            preview=shlex_quote(preview_note()),
            scale=("--logx " if _spec["panels"][0].get("logx") else "") + ("--logy" if _spec.get("logy") else ""),
            stem=f"{LG_FIGURES}/{_fig}",
        log:
            f"{PREFIX}logs/{LG}/figures/{_fig}.log",
        resources:
            mem_mb=1000,
            runtime=5,
        shell:
            "linbandits lingape-figure {params.series} --xlabel {params.xlabel} --title {params.title} "
            "--subtitle {params.subtitle} --preview {params.preview} {params.scale} "
            "--out-stem {params.stem} > {log} 2>&1"


def lg_sidecars(name, algorithm, settings=None):
    if name not in LG_EXPERIMENTS or algorithm not in EXPERIMENTS[name].algorithms:
        return []
    exp = EXPERIMENTS[name]
    return [p for s in (settings or exp.setting_ids())
            for p in pipeline.raw_chunk_paths(config, exp, s, algorithm, ext="json")]


def lg_claims_inputs():
    tables = {n: pipeline.table_paths(config, e)[0] for n, e in LG_EXPERIMENTS.items()}
    out = {"tables": list(tables.values()), "claims": LG_CLAIMS_TABLE,
           "adaptive": [p for n in LG_EXPERIMENTS if n.startswith("exp1_soare") for p in lg_sidecars(n, "XY-adaptive")],
           "lingape": lg_sidecars("exp1_soare", "LinGapE", [LG_TABLE1.get("setting", "d5")])}
    if LG_TABLE1:
        out["table1"] = LG_RESULTS + "/table1_arm_pulls_d5.csv"
    if LG_YAHOO:
        exp = EXPERIMENTS[LG_YAHOO[0]]
        out["yahoo"] = pipeline.instance_path(config, exp, exp.setting_ids()[0], "json")
    return tables, out


rule lingape_claims:
    input:
        **lg_claims_inputs()[1],
    output:
        md=report(LG_RESULTS + "/claims.md", caption="../report/lingape_claims.rst", category=LG,
                  subcategory="Claims"),
        json=LG_RESULTS + "/claims.json",
    params:
        tables=" ".join(f"--table {n}={p}" for n, p in lg_claims_inputs()[0].items()),
        table1=f"--table1 {LG_RESULTS}/table1_arm_pulls_d5.csv" if LG_TABLE1 else "",
        lingape=lambda w, input: f"--lingape-sidecar {input.lingape[0]}" if input.lingape else "",
        yahoo=lambda w, input: f"--yahoo-summary {input.yahoo}" if LG_YAHOO else "",
        synthetic="--synthetic" if any(lg_uses_synthetic_data(n) for n in LG_EXPERIMENTS) else "",
    log:
        f"{PREFIX}logs/{LG}/claims.log",
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "linbandits lingape-claims --claims {input.claims} {params.tables} {params.table1} {params.lingape} {params.yahoo} "
        "--adaptive-sidecars {input.adaptive} {params.synthetic} "
        "--out-md {output.md} --out-json {output.json} > {log} 2>&1"


STUDY_TARGETS[LG] += [p for e in LG_EXPERIMENTS.values() for p in pipeline.table_paths(config, e)]
if LG_TABLE1:
    STUDY_TARGETS[LG] += [LG_RESULTS + f"/table1_arm_pulls_d5.{x}" for x in ("csv", "md", "tex")]
STUDY_TARGETS[LG] += [p for n in pipeline.study_figures(config, LG) for p in pipeline.figure_paths(config, LG, n)]
STUDY_TARGETS[LG] += [LG_RESULTS + "/claims.md", LG_RESULTS + "/claims.json"]


# `snakemake --cores 2 lingape`: this study alone.
rule lingape:
    input:
        STUDY_TARGETS[LG],
