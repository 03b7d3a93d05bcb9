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
            workflow.source_path("../templates/text.j2"),
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


# One runs job per experiment; in a preview (or with `bundle_algorithms: true`) one per study.
for _name, _exps in jobs.experiment_jobs(
    config, [e for e in EXPERIMENTS.values() if e.study in PRODUCT_STUDIES]
).items():
    _priority = jobs.upstream_priority(config, _exps, list(EXPERIMENTS.values()))

    rule:
        name:
            f"runs_{_name}"
        input:
            chunks=[p for e in _exps for p in paths.raw_inputs(config, e)],
        output:
            npz=[f"{paths.runs_stem(config, e)}.npz" for e in _exps],
            json=[f"{paths.runs_stem(config, e)}.json" for e in _exps],
        log:
            f"{PREFIX}logs/{_exps[0].study}/runs/{_name}.log",
        benchmark:
            f"{PREFIX}logs/{_exps[0].study}/benchmarks/runs/{_name}.tsv"
        priority: _priority
        conda:
            ENV
        resources:
            mem_mb=2000,
            runtime=5 * len(_exps),
        params:
            command=jobs.collect_command(
                config, _exps, lambda e: e.study in CURVE_STUDIES
            ),
        shell:
            f"{LB} {{params.command}} > {{log}} 2>&1"


# A preview (or `bundle_algorithms: true`) makes a study's default products in one job.
BUNDLE_PRODUCTS = jobs.bundles_algorithms(config)

for _study in PRODUCT_STUDIES if BUNDLE_PRODUCTS else []:
    _ps = [p for p in products.study_products(config, _study) if not p.target]
    _priority = jobs.upstream_priority(
        config,
        [e for e in EXPERIMENTS.values() if e.study == _study],
        list(EXPERIMENTS.values()),
    )

    rule:
        name:
            f"{_study}_products"
        input:
            config=study_snapshot(_study),
            data=sorted(
                {f for p in _ps for f in p.inputs}
                - {f for p in _ps for f in p.outputs}
            ),
        output:
            [
                report(
                    p.outputs[0],
                    caption=p.caption_file,
                    category=_study,
                    subcategory=SUBCATEGORY[p.kind],
                    labels={"name": p.name},
                )
                for p in _ps
            ],
            [f for p in _ps for f in p.outputs[1:]],
        log:
            f"{PREFIX}logs/{_study}/products.log",
        benchmark:
            f"{PREFIX}logs/{_study}/benchmarks/products/all.tsv"
        priority: _priority
        conda:
            ENV
        resources:
            mem_mb=2000,
            runtime=10 + len(_ps),
        params:
            study=lambda w, s=_study: s,
        shell:
            f"{LB} products --study {{params.study}} --kind all --config {{input.config}} > {{log}} 2>&1"

    STUDY_TARGETS[_study] += [f for p in _ps for f in p.outputs]


for _study in PRODUCT_STUDIES:
    for _p in [
        p
        for p in products.study_products(config, _study)
        if not (BUNDLE_PRODUCTS and not p.target)
    ]:

        rule:
            name:
                f"{_study}_{_p.name}"
            input:
                config=study_snapshot(_study),
                data=_p.inputs,
            output:
                report(
                    _p.outputs[0],
                    caption=_p.caption_file,
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
            # an opt-in target, like the default one, builds only what the enabled studies name
            OPT_IN_TARGETS.setdefault(_p.target, []).extend(
                _p.outputs if _study in ENABLED_STUDIES else []
            )
        else:
            STUDY_TARGETS[_study] += _p.outputs


for _study in PRODUCT_STUDIES:

    # `snakemake --cores 2 <study>`: this study alone.
    rule:
        name:
            _study
        input:
            STUDY_TARGETS[_study],
