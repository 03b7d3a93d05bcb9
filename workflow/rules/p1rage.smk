# Study: Xiong et al. (P1-RAGE). Its experiments and figures are the
# `studies: p1rage:` section of the config; this file draws the figures.
# A new study is a file like this one plus its config section.

from shlex import quote as shlex_quote

STUDY = "p1rage"


def uses_synthetic_data(exp_name):
    return EXPERIMENTS[exp_name].instance == "yahoo" and config["yahoo"]["source"] == "synthetic"


def panel_subtitle(exp_name):
    return "synthetic stand-in for R6A" if uses_synthetic_data(exp_name) else None


for _fig, _spec in pipeline.figures(config).items():
    if _spec["study"] != STUDY:
        continue

    rule:
        name:
            f"figure_{_fig}"
        input:
            tables=[f"results/tables/{p['experiment']}.csv" for p in _spec["panels"]],
        output:
            pdf=f"figures/{_fig}.pdf",
            png=report(
                f"figures/{_fig}.png",
                caption=f"../report/{_spec.get('caption', 'figure.rst')}",
                category="Figures",
                labels={"figure": _fig},
            ),
        params:
            kind=_spec["kind"],
            titles=[p.get("title", EXPERIMENTS[p["experiment"]].title) for p in _spec["panels"]],
            xlabels=[p.get("xlabel", "") for p in _spec["panels"]],
            subtitles=[panel_subtitle(p["experiment"]) for p in _spec["panels"]],
            logx=any(p.get("logx", False) for p in _spec["panels"]),
            stem=f"figures/{_fig}",
        log:
            f"logs/figures/{_fig}.log",
        resources:
            mem_mb=1000,
            runtime=5,
        run:
            from linbandits.plotting import write_figure
            from linbandits.tables import read_table

            write_figure(params.kind, [read_table(t) for t in input.tables], params.titles,
                         params.stem, params.xlabels, params.subtitles, params.logx)


# Fidelity: every claim of the paper judged on the reproduced tables, and
# what each ablation changes (linbandits.fidelity states each test).
CLAIMS_TABLE = f"{workflow.basedir}/src/linbandits/studies/p1rage/claims.yaml"
STUDY_EXPERIMENTS = [n for n, e in EXPERIMENTS.items() if e.study == STUDY]


PUBLISHED = [n for n in STUDY_EXPERIMENTS if not EXPERIMENTS[n].ablation_of]
ABLATIONS = [n for n in STUDY_EXPERIMENTS if EXPERIMENTS[n].ablation_of]


def claims_command(names, with_ablations):
    tables = " ".join(f"--table {n}=results/tables/{n}.csv" for n in names)
    tables += "".join(f" --synthetic {n}" for n in names if uses_synthetic_data(n))
    if not with_ablations:
        return tables
    return tables + " " + " ".join(
        "--ablation " + shlex_quote(f"{n}={EXPERIMENTS[n].ablation_of}={EXPERIMENTS[n].changes}") for n in ABLATIONS
    )


rule claims:
    input:
        claims=CLAIMS_TABLE,
        tables=[f"results/tables/{n}.csv" for n in PUBLISHED],
    output:
        md=report("results/fidelity/claims.md", caption="../report/claims.rst", category="Fidelity"),
        json="results/fidelity/claims.json",
    params:
        args=claims_command(PUBLISHED, False),
        alpha=config.get("fidelity", {}).get("alpha", 0.01),
    log:
        "logs/fidelity/claims.log",
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "linbandits claims --claims {input.claims} {params.args} "
        "--alpha {params.alpha} --out-md {output.md} --out-json {output.json} > {log} 2>&1"


rule ablation_report:
    input:
        claims=CLAIMS_TABLE,
        tables=[f"results/tables/{n}.csv" for n in STUDY_EXPERIMENTS],
    output:
        md=report("results/fidelity/ablations.md", caption="../report/claims.rst", category="Fidelity"),
        json="results/fidelity/ablations.json",
    params:
        args=claims_command(STUDY_EXPERIMENTS, True),
        alpha=config.get("fidelity", {}).get("alpha", 0.01),
    log:
        "logs/fidelity/ablations.log",
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "linbandits claims --claims {input.claims} {params.args} "
        "--alpha {params.alpha} --out-md {output.md} --out-json {output.json} > {log} 2>&1"


rule theorem1_figure:
    input:
        table="results/tables/soare_sto.csv",
        summaries=lambda w: [f"data/instances/soare_sto/{s}.json" for s in EXPERIMENTS["soare_sto"].setting_ids()],
    output:
        pdf="figures/thm1_gbai_bound.pdf",
        png=report("figures/thm1_gbai_bound.png", caption="../report/thm1.rst", category="Fidelity"),
    log:
        "logs/figures/thm1_gbai_bound.log",
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "linbandits theorem1 --table {input.table} --out-stem figures/thm1_gbai_bound "
        "{input.summaries} > {log} 2>&1"


# `snakemake --cores 2 ablations`: every ablation's table and figure, and
# the claims re-judged on each (results/fidelity/ablations.md).
rule ablations:
    input:
        pipeline.ablation_targets(config),
        "results/fidelity/ablations.md",


EXTRA_TARGETS.extend(["results/fidelity/claims.md", "results/fidelity/claims.json"])
if "soare_sto" in EXPERIMENTS:
    EXTRA_TARGETS.append("figures/thm1_gbai_bound.pdf")
