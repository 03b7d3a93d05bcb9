# Every study's config snapshot, runs files and products (tables, figures, claims), written
# from linbandits.products: a study lists its products; nothing here is study-specific.
#   results/<study>/config.yaml           the study's config as this run saw it
#   results/<study>/runs/<experiment>.*   every run of an experiment (linbandits.runs)
#   results/<study>/tables/, figures/<study>/, results/<study>/claims.*   its products
import yaml as _yaml

from linbandits import products as _products

PRODUCT_STUDIES = [s for s in STUDIES if catalogue.studies()[s].products]
# Opt-in targets (e.g. robustness, opkb_neural): target -> the outputs it builds.
OPT_IN_TARGETS = {}


def study_snapshot(study):
    return f"{PREFIX}results/{study}/config.yaml"


def study_config_text(study):
    """The config a study's products are made from: every top-level key and this study's section."""
    top = {k: v for k, v in config.items() if k != "studies"}
    return _yaml.safe_dump({**top, "studies": {study: config["studies"][study]}}, sort_keys=False)


for _study in PRODUCT_STUDIES:

    rule:
        name:
            f"{_study}_config"
        input:
            workflow.source_path("../templates/study_config.yaml.j2"),
        output:
            study_snapshot(_study),
        params:
            # A function: Snakemake would read braces in a string param as wildcards.
            text=lambda w, study=_study: study_config_text(study),
        template_engine:
            "jinja2"


for _exp in [e for e in EXPERIMENTS.values() if e.study in PRODUCT_STUDIES]:

    rule:
        name:
            f"runs_{_exp.name}"
        input:
            chunks=paths.raw_inputs(config, _exp),
        output:
            npz=f"{PREFIX}results/{_exp.study}/runs/{_exp.name}.npz",
            json=f"{PREFIX}results/{_exp.study}/runs/{_exp.name}.json",
        params:
            curves="--curves" if _exp.study in CURVE_STUDIES else "",
            stem=f"{PREFIX}results/{_exp.study}/runs/{_exp.name}",
            study=_exp.study,
            experiment=_exp.name,
            trials=_exp.trials,
        log:
            f"{PREFIX}logs/{_exp.study}/runs/{_exp.name}.log",
        benchmark:
            f"{PREFIX}logs/{_exp.study}/benchmarks/runs/{_exp.name}.tsv"
        resources:
            mem_mb=2000,
            runtime=5,
        shell:
            "linbandits collect-runs --study {params.study} --experiment {params.experiment} "
            "--trials {params.trials} {params.curves} --out-stem {params.stem} {input.chunks} > {log} 2>&1"


for _study in PRODUCT_STUDIES:
    for _p in _products.study_products(config, _study):

        rule:
            name:
                f"{_study}_{_p.name}"
            input:
                config=study_snapshot(_study),
                data=_p.inputs,
            output:
                report(
                    _p.outputs[0],
                    caption=f"../report/{_p.caption or _p.kind}.rst",
                    category=_study,
                    subcategory={"table": "Tables", "figure": "Figures", "claims": "Claims"}[_p.kind],
                    labels={"name": _p.name},
                ),
                _p.outputs[1:],
            params:
                study=_study,
                kind=_p.kind,
                name=_p.name,
            log:
                f"{PREFIX}logs/{_study}/{_p.kind}/{_p.name}.log",
            benchmark:
                f"{PREFIX}logs/{_study}/benchmarks/{_p.kind}/{_p.name}.tsv"
            resources:
                mem_mb=2000,
                runtime=10,
            shell:
                "linbandits products --study {params.study} --kind {params.kind} --only {params.name} "
                "--config {input.config} > {log} 2>&1"

        if _p.target:
            OPT_IN_TARGETS.setdefault(_p.target, []).extend(_p.outputs)
        else:
            STUDY_TARGETS[_study] += _p.outputs


for _study in PRODUCT_STUDIES:

    # `snakemake --cores 2 <study>`: this study alone.
    rule:
        name:
            _study
        input:
            STUDY_TARGETS[_study],
