# Every study's config snapshot, runs files and products (tables, figures, claims), written from
# linbandits.products: a study lists its products; nothing here is study-specific.
#   results/<study>/config.yaml           the study's config as this run saw it
#   results/<study>/runs/<experiment>.*   every run of an experiment (linbandits.runs)
#   results/<study>/tables/, figures/<study>/, results/<study>/claims.*   its products

SUBCATEGORY = {"table": "Tables", "figure": "Figures", "claims": "Claims"}


for _study in PRODUCT_STUDIES:

    rule:
        name:
            f"{_study}_config"
        input:
            workflow.source_path("../templates/study_config.yaml.j2"),
        output:
            study_snapshot(_study),
        log:
            f"{PREFIX}logs/{_study}/config.log",
        resources:
            mem_mb=100,
            runtime=1,
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
        log:
            f"{PREFIX}logs/{_exp.study}/runs/{_exp.name}.log",
        benchmark:
            f"{PREFIX}logs/{_exp.study}/benchmarks/runs/{_exp.name}.tsv"
        conda:
            ENV
        resources:
            mem_mb=2000,
            runtime=5,
        params:
            curves="--curves" if _exp.study in CURVE_STUDIES else "",
            stem=lambda w, output: output.npz[: -len(".npz")],
            study=_exp.study,
            experiment=_exp.name,
            trials=_exp.trials,
        shell:
            f"{LB} collect-runs --study {{params.study}} --experiment {{params.experiment}} --trials {{params.trials}} "
            f"{{params.curves}} --out-stem {{params.stem}} {{input.chunks}} > {{log}} 2>&1"


for _study in PRODUCT_STUDIES:
    for _p in products.study_products(config, _study):

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
                    subcategory=SUBCATEGORY[_p.kind],
                    labels={"name": _p.name},
                ),
                _p.outputs[1:],
            log:
                f"{PREFIX}logs/{_study}/{_p.kind}/{_p.name}.log",
            benchmark:
                f"{PREFIX}logs/{_study}/benchmarks/{_p.kind}/{_p.name}.tsv"
            conda:
                ENV
            resources:
                mem_mb=2000,
                runtime=10,
            params:
                # Functions binding this iteration's values: a shell command is formatted when the
                # job runs, after the loop has moved on.
                study=lambda w, s=_study: s,
                kind=lambda w, k=_p.kind: k,
                name=lambda w, n=_p.name: n,
            shell:
                f"{LB} products --study {{params.study}} --kind {{params.kind}} --only {{params.name}} "
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
