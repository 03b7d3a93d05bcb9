# Study p1rage: Xiong et al. (P1-RAGE), fixed-budget BAI. Its experiments and
# figures are the `studies: p1rage:` section of the config; this file makes its
# error-probability tables, its figures, its Yahoo! instance, its claims check,
# the Theorem 1 figure and the ablations. Everything under results/p1rage/,
# figures/p1rage/ and logs/p1rage/.

import json as _p1_json
from shlex import quote as shlex_quote

P1 = "p1rage"
P1_CONFIG = config["studies"][P1]
P1_YAHOO = P1_CONFIG.get("yahoo", {})
P1_RESULTS = f"{PREFIX}results/{P1}"
P1_FIGURES = f"{PREFIX}figures/{P1}"
P1_EXPERIMENTS = pipeline.study_experiments(config, P1)
P1_PUBLISHED = [n for n, e in P1_EXPERIMENTS.items() if not e.ablation_of]
P1_ABLATIONS = [n for n, e in P1_EXPERIMENTS.items() if e.ablation_of]
P1_CLAIMS_TABLE = f"{workflow.basedir}/src/linbandits/studies/p1rage/claims.yaml"
P1_PUBLISHED_CSV = f"{workflow.basedir}/src/linbandits/studies/p1rage/p1rage_published.csv"
P1_COMPARISON = P1_RESULTS + "/published_vs_reproduced"


def p1_uses_synthetic_data(exp_name):
    return EXPERIMENTS[exp_name].instance == "yahoo" and r6a_synthetic()


def p1_panel_subtitle(exp_name):
    notes = [n for n in (preview_note(), "synthetic stand-in for R6A" if p1_uses_synthetic_data(exp_name) else "")
             if n]
    return "; ".join(notes) or None


# ------------------------------------------------------------- tables


def p1_table_rows(w):
    exp = experiment(w.experiment)
    rows = []
    for setting in exp.setting_ids():
        for algo in exp.algorithms:
            rows.append({
                "algorithm": algo,
                "x": exp.value_of(setting),
                "chunks": pipeline.raw_chunk_paths(config, exp, setting, algo),
                "summary": pipeline.instance_path(config, exp, setting, "json"),
                "n_trials": exp.trials,
            })
    return rows


def p1_table_inputs(w):
    rows = p1_table_rows(w)
    return [p for r in rows for p in r["chunks"]] + sorted({r["summary"] for r in rows})


rule p1rage_table:
    input:
        p1_table_inputs,
    output:
        csv=report(
            P1_RESULTS + "/tables/{experiment}.csv",
            caption="../report/p1rage_table.rst",
            category=P1,
            subcategory="Tables",
            labels={"experiment": "{experiment}"},
        ),
        md=P1_RESULTS + "/tables/{experiment}.md",
        tex=P1_RESULTS + "/tables/{experiment}.tex",
    wildcard_constraints:
        experiment="|".join(P1_EXPERIMENTS) or "none",
    params:
        # Inline JSON: a `shell` job is one plain process; a `run` job would re-read the workflow.
        rows=lambda w: shlex_quote(_p1_json.dumps(p1_table_rows(w))),
    log:
        f"{PREFIX}logs/{P1}/tables/{{experiment}}.log",
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "linbandits p1rage-table --experiment {wildcards.experiment} --rows {params.rows} "
        "--out-csv {output.csv} --out-md {output.md} --out-tex {output.tex} > {log} 2>&1"


# ------------------------------------------------------------- Yahoo! instance (Fig. 2b)


def p1_yahoo_instance_command(exp):
    """Every L of a Yahoo! experiment in one process: the PCA and ridge fits (the same for every L) once."""
    # An experiment may override the configured PCA variant (the shared-basis ablation).
    pca = exp.settings.get("pca", P1_YAHOO.get("pca", "per_day"))
    days = " ".join(f"data/processed/r6a/day{d}.npz" for d in R6A_DAYS)
    return pipeline.setting_instance_command(config, exp, lambda s: (
        f"p1rage-yahoo-instance --days {days} --pca {pca} --pca-signs {P1_YAHOO.get('pca_signs', 'numpy')} "
        f"--L {exp.value_of(s)} --T {P1_YAHOO.get('T', 21000)} --seed {P1_YAHOO.get('arm_seed', 0)}"))


for _name in [n for n, e in P1_EXPERIMENTS.items() if e.instance == "yahoo"]:

    rule:
        name:
            f"p1rage_yahoo_instances_{_name}"
        priority: 50
        input:
            days=expand("data/processed/r6a/day{day}.npz", day=R6A_DAYS),
            qc="data/processed/r6a_qc.json",
        output:
            npz=pipeline.instance_outputs(config, EXPERIMENTS[_name], "npz"),
            summary=pipeline.instance_outputs(config, EXPERIMENTS[_name], "json"),
        params:
            command=p1_yahoo_instance_command(EXPERIMENTS[_name]),
        log:
            f"{PREFIX}logs/{P1}/instances/yahoo_{_name}.log",
        resources:
            mem_mb=2000,
            runtime=10,
        shell:
            "linbandits {params.command} > {log} 2>&1"


# ------------------------------------------------------------- figures

for _fig, _spec in pipeline.figures(config).items():
    if _spec["study"] != P1:
        continue

    rule:
        name:
            f"p1rage_figure_{_fig}"
        input:
            tables=[pipeline.table_paths(config, EXPERIMENTS[p["experiment"]])[0] for p in _spec["panels"]],
            published=P1_PUBLISHED_CSV,
        output:
            pdf=f"{P1_FIGURES}/{_fig}.pdf",
            png=report(
                f"{P1_FIGURES}/{_fig}.png",
                caption=f"../report/{_spec.get('caption', 'p1rage_figure.rst')}",
                category=P1,
                subcategory="Figures",
                labels={"figure": _fig},
            ),
        params:
            kind=_spec["kind"],
            titles=" ".join("--title " + shlex_quote(p.get("title", EXPERIMENTS[p["experiment"]].title))
                            for p in _spec["panels"]),
            xlabels=" ".join("--xlabel " + shlex_quote(p.get("xlabel", "")) for p in _spec["panels"]),
            subtitles=" ".join("--subtitle " + shlex_quote(p1_panel_subtitle(p["experiment"]) or "")
                               for p in _spec["panels"]),
            logx="--logx" if any(p.get("logx", False) for p in _spec["panels"]) else "",
            stem=f"{P1_FIGURES}/{_fig}",
            # The published curve is drawn dashed beside each panel, except
            # Yahoo! on the synthetic stand-in (the authors ran real R6A).
            overlay=" ".join("--overlay " + ("-" if p1_uses_synthetic_data(p["experiment"]) else p["experiment"])
                             for p in _spec["panels"]),
            tables=lambda w, input: " ".join(f"--table {t}" for t in input.tables),
        log:
            f"{PREFIX}logs/{P1}/figures/{_fig}.log",
        resources:
            mem_mb=1000,
            runtime=5,
        shell:
            "linbandits p1rage-figure --kind {params.kind} {params.tables} {params.titles} {params.xlabels} "
            "{params.subtitles} {params.logx} --published {input.published} {params.overlay} "
            "--out-stem {params.stem} > {log} 2>&1"


# ------------------------------------------------------------- claims and ablations


def p1_claims_command(names, with_ablations):
    tables = " ".join(f"--table {n}={pipeline.table_paths(config, EXPERIMENTS[n])[0]}" for n in names)
    tables += "".join(f" --synthetic {n}" for n in names if p1_uses_synthetic_data(n))
    if not with_ablations:
        return tables
    return tables + " " + " ".join(
        "--ablation " + shlex_quote(f"{n}={EXPERIMENTS[n].ablation_of}={EXPERIMENTS[n].changes}")
        for n in P1_ABLATIONS
    )


rule p1rage_published_vs_reproduced:
    input:
        published=P1_PUBLISHED_CSV,
        tables=[pipeline.table_paths(config, EXPERIMENTS[n])[0] for n in P1_PUBLISHED],
    output:
        csv=report(P1_COMPARISON + ".csv", caption="../report/p1rage_published.rst", category=P1,
                   subcategory="Tables", labels={"experiment": "published vs reproduced"}),
        md=P1_COMPARISON + ".md",
        tex=P1_COMPARISON + ".tex",
    params:
        source="synthetic" if r6a_synthetic() else "r6a",
        tables=lambda w, input: " ".join(f"--table {t}" for t in input.tables),
    log:
        f"{PREFIX}logs/{P1}/published_vs_reproduced.log",
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "linbandits p1rage-published {params.tables} --published {input.published} "
        "--yahoo-source {params.source} --out-csv {output.csv} --out-md {output.md} --out-tex {output.tex} "
        "> {log} 2>&1"


rule p1rage_claims:
    input:
        claims=P1_CLAIMS_TABLE,
        comparison=P1_COMPARISON + ".csv",
        tables=[pipeline.table_paths(config, EXPERIMENTS[n])[0] for n in P1_PUBLISHED],
    output:
        md=report(P1_RESULTS + "/claims.md", caption="../report/p1rage_claims.rst", category=P1,
                  subcategory="Claims"),
        json=P1_RESULTS + "/claims.json",
    params:
        args=p1_claims_command(P1_PUBLISHED, False),
        alpha=config.get("fidelity", {}).get("alpha", 0.01),
    log:
        f"{PREFIX}logs/{P1}/claims.log",
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "linbandits p1rage-claims --claims {input.claims} {params.args} --published-comparison {input.comparison} "
        "--alpha {params.alpha} --out-md {output.md} --out-json {output.json} > {log} 2>&1"


rule p1rage_ablation_report:
    input:
        claims=P1_CLAIMS_TABLE,
        tables=[pipeline.table_paths(config, EXPERIMENTS[n])[0] for n in P1_EXPERIMENTS],
    output:
        md=report(P1_RESULTS + "/ablations.md", caption="../report/p1rage_claims.rst", category=P1,
                  subcategory="Claims"),
        json=P1_RESULTS + "/ablations.json",
    params:
        args=p1_claims_command(list(P1_EXPERIMENTS), True),
        alpha=config.get("fidelity", {}).get("alpha", 0.01),
    log:
        f"{PREFIX}logs/{P1}/ablations.log",
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "linbandits p1rage-claims --claims {input.claims} {params.args} "
        "--alpha {params.alpha} --out-md {output.md} --out-json {output.json} > {log} 2>&1"


rule p1rage_theorem1_figure:
    input:
        table=P1_RESULTS + "/tables/soare_sto.csv",
        summaries=lambda w: [pipeline.instance_path(config, EXPERIMENTS["soare_sto"], s, "json")
                             for s in EXPERIMENTS["soare_sto"].setting_ids()],
    output:
        pdf=P1_FIGURES + "/thm1_gbai_bound.pdf",
        png=report(P1_FIGURES + "/thm1_gbai_bound.png", caption="../report/p1rage_thm1.rst", category=P1,
                   subcategory="Figures"),
    params:
        stem=P1_FIGURES + "/thm1_gbai_bound",
    log:
        f"{PREFIX}logs/{P1}/figures/thm1_gbai_bound.log",
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "linbandits p1rage-theorem1 --table {input.table} --out-stem {params.stem} "
        "{input.summaries} > {log} 2>&1"


# `snakemake --cores 2 ablations`: every ablation's table and figure, and
# the claims re-judged on each (results/p1rage/ablations.md).
rule ablations:
    input:
        pipeline.ablation_targets(config, P1),
        P1_RESULTS + "/ablations.md",


STUDY_TARGETS[P1] += [p for n in P1_PUBLISHED for p in pipeline.table_paths(config, EXPERIMENTS[n])]
STUDY_TARGETS[P1] += [p for n in pipeline.study_figures(config, P1) for p in pipeline.figure_paths(config, P1, n)]
STUDY_TARGETS[P1] += [P1_RESULTS + "/claims.md", P1_RESULTS + "/claims.json"]
STUDY_TARGETS[P1] += [P1_COMPARISON + ext for ext in (".csv", ".md", ".tex")]
if any(e.instance == "yahoo" for e in P1_EXPERIMENTS.values()):
    STUDY_TARGETS[P1].append("data/processed/r6a_qc.json")
if "soare_sto" in P1_EXPERIMENTS:
    STUDY_TARGETS[P1].append(P1_FIGURES + "/thm1_gbai_bound.pdf")


# `snakemake --cores 2 p1rage`: this study alone.
rule p1rage:
    input:
        STUDY_TARGETS[P1],
