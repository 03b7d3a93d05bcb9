# Study opkb: Hong, Li, Tewari (2023), ADA-OPKB. Its experiments and figures are the
# `studies: opkb:` section of the config. The shared `simulate_curves` rule runs every
# (instance seed, algorithm); this file summarises each experiment's runs into mean and
# s.e. curves, then draws Figs. 1-2 and writes the final-regret table and the claims.
# Everything under results/opkb/, figures/opkb/ and logs/opkb/.

import json as _opkb_json
from shlex import quote as _opkb_quote

OPKB = "opkb"
OPKB_CONFIG = config["studies"][OPKB]
OPKB_RESULTS = f"{PREFIX}results/{OPKB}"
OPKB_FIGURES = f"{PREFIX}figures/{OPKB}"
OPKB_EXPERIMENTS = pipeline.study_experiments(config, OPKB)
OPKB_FIGURE_SPECS = pipeline.study_figures(config, OPKB)
# A series drawn in another experiment's panel carries that experiment's `series_label`.
OPKB_LABELS = {f"{name}/{algo}": body["series_label"]
               for name, body in (OPKB_CONFIG.get("experiments") or {}).items() if body.get("series_label")
               for algo in OPKB_EXPERIMENTS[name].algorithms}


def opkb_chunks(exp, algorithm, ext="csv"):
    return [p for s in exp.setting_ids() for p in pipeline.raw_chunk_paths(config, exp, s, algorithm, ext)]


def opkb_summary_inputs(w):
    exp = OPKB_EXPERIMENTS[w.experiment]
    return [p for a in exp.algorithms for ext in ("csv", "curves.npz") for p in opkb_chunks(exp, a, ext)]


def opkb_summary_args(w):
    exp = OPKB_EXPERIMENTS[w.experiment]
    return " ".join(f"--chunks {_opkb_quote(a)} " + " ".join(opkb_chunks(exp, a)) for a in exp.algorithms)


rule opkb_summary:
    input:
        opkb_summary_inputs,
    output:
        OPKB_RESULTS + "/summaries/{experiment}.json",
    wildcard_constraints:
        experiment="|".join(OPKB_EXPERIMENTS) or "none",
    params:
        args=opkb_summary_args,
        n=lambda w: OPKB_EXPERIMENTS[w.experiment].trials * len(OPKB_EXPERIMENTS[w.experiment].setting_ids()),
        title=lambda w: _opkb_quote(OPKB_EXPERIMENTS[w.experiment].title),
    log:
        f"{PREFIX}logs/{OPKB}/summaries/{{experiment}}.log",
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "linbandits opkb-summarise --experiment {wildcards.experiment} --title {params.title} {params.args} "
        "--n {params.n} --out {output} > {log} 2>&1"


OPKB_FIGURE_FILES = [p for name in OPKB_FIGURE_SPECS for p in pipeline.figure_paths(config, OPKB, name)]
OPKB_TABLE = OPKB_RESULTS + "/tables/final_regret"
OPKB_CLAIMS = OPKB_RESULTS + "/claims"


rule opkb_report:
    input:
        expand(OPKB_RESULTS + "/summaries/{experiment}.json", experiment=list(OPKB_EXPERIMENTS)),
    output:
        table=report(OPKB_TABLE + ".csv", caption="../report/opkb_table.rst", category=OPKB, subcategory="Tables"),
        md=OPKB_TABLE + ".md",
        tex=OPKB_TABLE + ".tex",
        figures=[report(p, caption="../report/opkb_figure.rst", category=OPKB, subcategory="Figures")
                 if p.endswith(".pdf") else p for p in OPKB_FIGURE_FILES],
        claims=report(OPKB_CLAIMS + ".md", caption="../report/opkb_claims.rst", category=OPKB, subcategory="Claims"),
        claims_json=OPKB_CLAIMS + ".json",
    params:
        figures=_opkb_quote(_opkb_json.dumps({n: {"title": s.get("title", ""), "panels": s["panels"]}
                                              for n, s in OPKB_FIGURE_SPECS.items()})),
        labels=_opkb_quote(_opkb_json.dumps(OPKB_LABELS)),
    log:
        f"{PREFIX}logs/{OPKB}/report.log",
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "linbandits opkb-report --summaries {input} --figures {params.figures} --labels {params.labels} "
        "--figure-dir {OPKB_FIGURES} --table-stem {OPKB_TABLE} --claims-stem {OPKB_CLAIMS} > {log} 2>&1"


STUDY_TARGETS[OPKB] += [OPKB_TABLE + ".csv", OPKB_CLAIMS + ".json", *OPKB_FIGURE_FILES]


rule opkb:
    input:
        STUDY_TARGETS[OPKB],
