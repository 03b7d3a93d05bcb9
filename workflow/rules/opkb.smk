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
# Experiments running only the neural variants: built by the opt-in `opkb_neural` target.
OPKB_NEURAL_ALGORITHMS = {"OPNN", "OPNN0", "ADA-OPNN"}
OPKB_NEURAL = [n for n, e in OPKB_EXPERIMENTS.items() if set(e.algorithms) <= OPKB_NEURAL_ALGORITHMS]
OPKB_KERNEL = [n for n in OPKB_EXPERIMENTS if n not in OPKB_NEURAL]
# Stated on every panel once the neural runs are drawn: their width against the paper's 2048.
_OPKB_WIDTHS = sorted({str(OPKB_EXPERIMENTS[n].options.get(a, {}).get("width", 512))
                       for n in OPKB_NEURAL for a in OPKB_EXPERIMENTS[n].algorithms})
OPKB_NEURAL_NOTE = _opkb_quote(f"neural variants at width {'/'.join(_OPKB_WIDTHS)} (paper: 2048), "
                               "eta x width = 2.048e-5")
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
OPKB_NEURAL_SUMMARIES = [OPKB_RESULTS + f"/summaries/{n}.json" for n in OPKB_NEURAL]
OPKB_FIGURE_JSON = _opkb_quote(_opkb_json.dumps({n: {"title": s.get("title", ""), "panels": s["panels"]}
                                                 for n, s in OPKB_FIGURE_SPECS.items()}))
OPKB_LABEL_JSON = _opkb_quote(_opkb_json.dumps(OPKB_LABELS))
OPKB_REPORT = (
    "linbandits opkb-report --summaries {input.summaries} {params.tuning} --figures {params.figures} --labels {params.labels} "
    "--figure-dir {params.figure_dir} --table-stem {params.table} --claims-stem {params.claims} {params.neural} "
    "--neural-note {params.neural_note} --preview {params.preview} "
    "> {log} 2>&1"
)


def opkb_report_inputs(w):
    """The kernel experiments' summaries, and the neural ones once `opkb_neural` has made them."""
    from pathlib import Path as _Path

    kernel = [OPKB_RESULTS + f"/summaries/{n}.json" for n in OPKB_KERNEL]
    return kernel + [p for p in OPKB_NEURAL_SUMMARIES if _Path(p).exists()]


def opkb_tuning_input(w):
    """The tuning result (claim C8) once `opkb_tuning` has made it."""
    from pathlib import Path as _Path

    path = OPKB_RESULTS + "/tuning/tuning.json"
    return [path] if _Path(path).exists() else []


rule opkb_report:
    input:
        summaries=opkb_report_inputs,
        tuning=opkb_tuning_input,
    output:
        table=report(OPKB_TABLE + ".csv", caption="../report/opkb_table.rst", category=OPKB, subcategory="Tables"),
        md=OPKB_TABLE + ".md",
        tex=OPKB_TABLE + ".tex",
        figures=[report(p, caption="../report/opkb_figure.rst", category=OPKB, subcategory="Figures")
                 if p.endswith(".pdf") else p for p in OPKB_FIGURE_FILES],
        claims=report(OPKB_CLAIMS + ".md", caption="../report/opkb_claims.rst", category=OPKB, subcategory="Claims"),
        claims_json=OPKB_CLAIMS + ".json",
    params:
        figures=OPKB_FIGURE_JSON,
        labels=OPKB_LABEL_JSON,
        figure_dir=OPKB_FIGURES,
        table=OPKB_TABLE,
        claims=OPKB_CLAIMS,
        neural=lambda w, input: "--neural-run" if any(p in OPKB_NEURAL_SUMMARIES for p in input.summaries) else "",
        neural_note=OPKB_NEURAL_NOTE,
        preview=_opkb_quote(preview_note()),
        tuning=lambda w, input: f"--tuning {input.tuning[0]}" if input.tuning else "",
    log:
        f"{PREFIX}logs/{OPKB}/report.log",
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        OPKB_REPORT


# The opt-in neural target: its runs, then the whole report with the neural curves and claims in
# results/opkb/neural/ and figures/opkb/neural/ (the default report picks them up on its next run).
OPKB_NEURAL_DIR = OPKB_RESULTS + "/neural"
OPKB_NEURAL_FIGURES = [p.replace(f"figures/{OPKB}/", f"figures/{OPKB}/neural/") for p in OPKB_FIGURE_FILES]


rule opkb_report_neural:
    input:
        summaries=[OPKB_RESULTS + f"/summaries/{n}.json" for n in OPKB_KERNEL] + OPKB_NEURAL_SUMMARIES,
        tuning=opkb_tuning_input,
    output:
        table=OPKB_NEURAL_DIR + "/final_regret.csv",
        md=OPKB_NEURAL_DIR + "/final_regret.md",
        tex=OPKB_NEURAL_DIR + "/final_regret.tex",
        figures=OPKB_NEURAL_FIGURES,
        claims=OPKB_NEURAL_DIR + "/claims.md",
        claims_json=OPKB_NEURAL_DIR + "/claims.json",
    params:
        figures=OPKB_FIGURE_JSON,
        labels=OPKB_LABEL_JSON,
        figure_dir=OPKB_FIGURES + "/neural",
        table=OPKB_NEURAL_DIR + "/final_regret",
        claims=OPKB_NEURAL_DIR + "/claims",
        neural="--neural-run",
        neural_note=OPKB_NEURAL_NOTE,
        preview=_opkb_quote(preview_note()),
        tuning=lambda w, input: f"--tuning {input.tuning[0]}" if input.tuning else "",
    log:
        f"{PREFIX}logs/{OPKB}/report_neural.log",
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        OPKB_REPORT


rule opkb_neural:
    input:
        OPKB_NEURAL_DIR + "/claims.json",


STUDY_TARGETS[OPKB] += [OPKB_TABLE + ".csv", OPKB_CLAIMS + ".json", *OPKB_FIGURE_FILES]


rule opkb:
    input:
        STUDY_TARGETS[OPKB],


# ------------------------------------------------------------- tuning (opt-in: `snakemake opkb_tuning`)

OPKB_TUNING = OPKB_CONFIG.get("tuning") or {}
if OPKB_TUNING:
    from linbandits.studies.opkb.tuning import grid_points as _opkb_grid_points

    _OPKB_TUNE_EXP = OPKB_EXPERIMENTS[OPKB_TUNING["experiment"]]
    OPKB_TUNE_POINTS = _opkb_grid_points(OPKB_TUNING, _OPKB_TUNE_EXP.options)
    OPKB_TUNE_FILES = [OPKB_RESULTS + f"/tuning/{a}/point{i:04d}.json"
                       for a, points in OPKB_TUNE_POINTS.items() for i in range(len(points))]
    OPKB_TUNE_RUNS = " ".join(
        f"{pipeline.instance_path(config, _OPKB_TUNE_EXP, s)}:{pipeline.job_seed(config, _OPKB_TUNE_EXP.name, s)}"
        for s in _OPKB_TUNE_EXP.setting_ids())

    rule opkb_tune_point:
        input:
            [pipeline.instance_path(config, _OPKB_TUNE_EXP, s) for s in _OPKB_TUNE_EXP.setting_ids()],
        output:
            OPKB_RESULTS + "/tuning/{algorithm}/point{index}.json",
        wildcard_constraints:
            index=r"\d{4}",
        params:
            options=lambda w: pipeline.option_args(OPKB_TUNE_POINTS[w.algorithm][int(w.index)]),
        log:
            f"{PREFIX}logs/{OPKB}/tuning/{{algorithm}}/point{{index}}.log",
        resources:
            mem_mb=1000,
            runtime=60,
        shell:
            "linbandits opkb-tune --algorithm {wildcards.algorithm} --runs " + OPKB_TUNE_RUNS +
            " {params.options} --out {output} > {log} 2>&1"

    rule opkb_tuning_table:
        input:
            OPKB_TUNE_FILES,
        output:
            csv=OPKB_RESULTS + "/tuning/tuning.csv",
            md=OPKB_RESULTS + "/tuning/tuning.md",
            tex=OPKB_RESULTS + "/tuning/tuning.tex",
            best=OPKB_RESULTS + "/tuning/tuning.json",
        log:
            f"{PREFIX}logs/{OPKB}/tuning/table.log",
        shell:
            "linbandits opkb-tuning-table --points {input} --out-stem " + OPKB_RESULTS + "/tuning/tuning > {log} 2>&1"

    rule opkb_tuning:
        input:
            OPKB_RESULTS + "/tuning/tuning.json",
