# Stage 4, products: each study's tables, figures and claims, from its runs files (linbandits.products:
# a study lists its products; nothing here is study-specific).
#   results/<study>/config.yaml           the study's config as this run saw it (rule study_config)
#   results/<study>/tables/, figures/<study>/, results/<study>/claims.*   its products
# <study>_<product> makes one product; with a job_size other than `algorithm` (the preview)
# <study>_products makes a study's default products in one process. `snakemake --cores 2 <study>`
# builds one study.

SUBCATEGORY = {"table": "Tables", "figure": "Figures", "claims": "Claims"}


rule study_config:
    """products: a study's config as this run saw it, which its products read"""
    input:
        template=workflow.source_path("../templates/text.j2"),
        text=lambda w: study_config_copy(w.study),
    output:
        f"{PREFIX}results/{{study}}/config.yaml",
    log:
        f"{PREFIX}logs/{{study}}/config.log",
    group:
        "products"
    resources:
        mem_mb=100,
        runtime=1,
    params:
        # A function: Snakemake would read braces in a string param as wildcards.
        text=lambda w: study_config_text(w.study),
    template_engine:
        "jinja2"


BUNDLE_PRODUCTS = jobs.bundles_steps(config)

for _study in PRODUCT_STUDIES if BUNDLE_PRODUCTS else []:
    _ps = [p for p in products.study_products(config, _study) if not p.target]
    _priority = jobs.upstream_priority(
        config,
        [e for e in EXPERIMENTS.values() if e.study == _study],
        list(EXPERIMENTS.values()),
    )

    rule:
        """products: every table, figure and claims file of a study in one job"""
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
        group:
            "products"
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
            """products: one table, figure or claims file of a study, from its runs files"""
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
            group:
                "products"
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
                f"--config {{input.config}} > {{log}} 2>&1"

        if _p.target:
            # an opt-in target, like the default one, builds only what the enabled studies name
            OPT_IN_TARGETS.setdefault(_p.target, []).extend(
                _p.outputs if _study in ENABLED_STUDIES else []
            )
        else:
            STUDY_TARGETS[_study] += _p.outputs


for _study in PRODUCT_STUDIES:

    rule:
        """target: one study's figures, tables and claims (`snakemake --cores 2 <study>`)"""
        name:
            _study
        input:
            STUDY_TARGETS[_study],
