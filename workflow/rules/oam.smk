# Study oam: Hao, Lattimore, Szepesvari (AISTATS 2020), OAM. Its experiments, switches and
# figures are the `studies: oam:` section of the config. The shared rules make the instances
# and the runs (one simulate job per experiment x algorithm); this file aggregates them
# (one job), draws every figure (one job), writes the final-regret table and the claims.
# Everything under results/oam/, figures/oam/ and logs/oam/.

import json

OAM = "oam"
OAM_EXPERIMENTS = pipeline.study_experiments(config, OAM)
OAM_FIGURES = pipeline.study_figures(config, OAM, published_only=False)
OAM_CURVES = f"{PREFIX}results/{OAM}/curves"
OAM_AGGREGATES = [f"{OAM_CURVES}/{name}" for name in OAM_EXPERIMENTS]


def oam_chunks(exp, algo):
    return pipeline.raw_chunk_paths(config, exp, "single", algo)


def oam_manifest():
    out = {}
    for name, exp in OAM_EXPERIMENTS.items():
        row = config["studies"][OAM]["experiments"][name]
        out[name] = {
            "title": exp.title, "trials": exp.trials, "seed": pipeline.job_seed(config, name, "single"),
            "summary": pipeline.instance_path(config, exp, "single", "json"),
            "instance": pipeline.instance_path(config, exp, "single"),
            "series": {a: oam_chunks(exp, a) for a in exp.algorithms},
            "switch_of": row.get("switch_of"), "switch": row.get("switch"), "changes": exp.changes,
        }
    return json.dumps(out, sort_keys=True)


def oam_figure_manifest():
    out = {}
    for fig, spec in OAM_FIGURES.items():
        out[fig] = {
            "stem": f"{PREFIX}figures/{OAM}/{fig}", "note": preview_note(),
            "panels": [{"aggregate": f"{OAM_CURVES}/{p['experiment']}", "title": p.get("title", ""),
                        "overlay": [f"{OAM_CURVES}/{o}" for o in p.get("overlay", [])]} for p in spec["panels"]],
        }
    return json.dumps(out, sort_keys=True)


rule oam_aggregate:
    input:
        chunks=[c for e in OAM_EXPERIMENTS.values() for a in e.algorithms for c in oam_chunks(e, a)],
        summaries=[pipeline.instance_path(config, e, "single", "json") for e in OAM_EXPERIMENTS.values()],
    output:
        npz=[f"{s}.npz" for s in OAM_AGGREGATES],
        json=[f"{s}.json" for s in OAM_AGGREGATES],
    params:
        manifest=oam_manifest(),
    log:
        f"{PREFIX}logs/{OAM}/aggregate.log",
    shell:
        "linbandits oam-aggregate --manifest {params.manifest:q} --out-dir {OAM_CURVES} > {log} 2>&1"


rule oam_figures:
    input:
        rules.oam_aggregate.output,
    output:
        pdf=[f"{PREFIX}figures/{OAM}/{fig}.pdf" for fig in OAM_FIGURES],
        png=[
            report(
                f"{PREFIX}figures/{OAM}/{fig}.png",
                caption=f"../report/{spec.get('caption', 'oam_figure.rst')}",
                category=OAM,
                subcategory="Figures",
                labels={"figure": fig},
            )
            for fig, spec in OAM_FIGURES.items()
        ],
    params:
        manifest=oam_figure_manifest(),
    log:
        f"{PREFIX}logs/{OAM}/figures.log",
    shell:
        "linbandits oam-figures --manifest {params.manifest:q} > {log} 2>&1"


rule oam_table:
    input:
        rules.oam_aggregate.output,
    output:
        csv=report(PREFIX + "results/oam/tables/final_regret.csv", caption="../report/oam_table.rst",
                   category=OAM, subcategory="Tables"),
        md=PREFIX + "results/oam/tables/final_regret.md",
        tex=PREFIX + "results/oam/tables/final_regret.tex",
    log:
        f"{PREFIX}logs/{OAM}/table.log",
    shell:
        "linbandits oam-table --aggregates {OAM_AGGREGATES} --out-stem {PREFIX}results/oam/tables/final_regret "
        "> {log} 2>&1"


rule oam_claims:
    input:
        rules.oam_aggregate.output,
    output:
        md=report(PREFIX + "results/oam/claims.md", caption="../report/oam_claims.rst",
                  category=OAM, subcategory="Claims"),
        json=PREFIX + "results/oam/claims.json",
    log:
        f"{PREFIX}logs/{OAM}/claims.log",
    shell:
        "linbandits oam-claims --aggregates {OAM_AGGREGATES} --out-stem {PREFIX}results/oam/claims > {log} 2>&1"


STUDY_TARGETS[OAM] += [
    *rules.oam_figures.output,
    *rules.oam_table.output,
    *rules.oam_claims.output,
]


rule oam:
    input:
        STUDY_TARGETS[OAM],
