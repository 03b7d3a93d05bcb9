# Study p1rage: Xiong et al. (P1-RAGE), fixed-budget BAI. Its tables, figures and claims are products
# (linbandits.studies.p1rage.products, rules in study.smk); this file builds what only this study has:
# its Yahoo! R6A instances (Fig. 2b), and the `ablations` target.

P1 = "p1rage"
P1_CONFIG = config["studies"][P1]
P1_YAHOO = P1_CONFIG.get("yahoo", {})
P1_EXPERIMENTS = experiments.study_experiments(config, P1)


# ------------------------------------------------------------- Yahoo! instance (Fig. 2b)


def p1_yahoo_instance_command(exp):
    """Every L of a Yahoo! experiment in one process: the PCA and ridge fits (the same for every L) once."""
    # A switch run may override the configured PCA variant (choice `pca`: one shared basis).
    pca = exp.settings.get("pca", P1_YAHOO.get("pca", "per_day"))
    days = " ".join(f"data/processed/r6a/day{d}.npz" for d in R6A_DAYS)
    return jobs.setting_instance_command(config, exp, lambda s: (
        f"p1rage-yahoo-instance --days {days} --pca {pca} --pca-signs {P1_YAHOO.get('pca_signs', 'numpy')} "
        f"--L {exp.value_of(s)} --T {P1_YAHOO.get('T', 21000)} --seed {P1_YAHOO.get('arm_seed', 0)}"))


for _name in [n for n, e in P1_EXPERIMENTS.items() if e.instance == "yahoo" and experiments.own_instance_settings(e)]:

    rule:
        name:
            f"p1rage_yahoo_instances_{_name}"
        priority: 50
        input:
            days=expand("data/processed/r6a/day{day}.npz", day=R6A_DAYS),
            qc="data/processed/r6a_qc.json",
        output:
            npz=paths.instance_outputs(config, EXPERIMENTS[_name], "npz"),
            summary=paths.instance_outputs(config, EXPERIMENTS[_name], "json"),
        params:
            command=p1_yahoo_instance_command(EXPERIMENTS[_name]),
        log:
            f"{PREFIX}logs/{P1}/instances/yahoo_{_name}.log",
        resources:
            mem_mb=2000,
            runtime=10,
        shell:
            "linbandits {params.command} > {log} 2>&1"


if any(e.instance == "yahoo" for e in P1_EXPERIMENTS.values()):
    STUDY_TARGETS[P1].append("data/processed/r6a_qc.json")


# `snakemake --cores 2 ablations`: the study's switch runs (its `switches:` table, the former
# ablations), their tables and figures, and the claims judged under each switch run: the robustness
# column and sections of results/p1rage/claims.md, or, with `robustness: false` (the default target
# then builds no switch run), results/p1rage/robustness.md.
P1_SWITCH_RUNS = {n for n, e in P1_EXPERIMENTS.items() if e.switch_of}


def p1_reads_switch_runs(product):
    if product.name in ("claims", "robustness") or product.name in P1_SWITCH_RUNS:
        return True
    panels = (P1_CONFIG.get("figures") or {}).get(product.name, {}).get("panels", [])
    return product.kind == "figure" and any(p["experiment"] in P1_SWITCH_RUNS for p in panels)


rule ablations:
    input:
        [f for p in _products.study_products(config, P1) if p1_reads_switch_runs(p) for f in p.outputs],
