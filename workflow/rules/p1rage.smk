# Study p1rage: Xiong et al. (P1-RAGE), fixed-budget BAI. Its tables, figures and claims are products
# (linbandits.studies.p1rage.products, rules in study.smk); this file builds what only this study has:
# its Yahoo! R6A instances (Fig. 2b).
from linbandits.studies.p1rage import yahoo as _p1_yahoo

for _name in [
    n
    for n, e in experiments.study_experiments(config, "p1rage").items()
    if e.instance == "yahoo" and experiments.own_instance_settings(e)
]:

    rule:
        name:
            f"p1rage_yahoo_instances_{_name}"
        input:
            days=expand("data/processed/r6a/day{day}.npz", day=R6A_DAYS),
            qc="data/processed/r6a_qc.json",
        output:
            npz=paths.instance_outputs(config, EXPERIMENTS[_name], "npz"),
            summary=paths.instance_outputs(config, EXPERIMENTS[_name], "json"),
        log:
            f"{PREFIX}logs/p1rage/instances/yahoo_{_name}.log",
        priority: 50
        conda:
            ENV
        resources:
            mem_mb=2000,
            runtime=10,
        params:
            command=_p1_yahoo.instance_command(config, EXPERIMENTS[_name]),
        shell:
            f"{LB} {{params.command}} > {{log}} 2>&1"


if any(
    e.instance == "yahoo"
    for e in experiments.study_experiments(config, "p1rage").values()
):
    STUDY_TARGETS["p1rage"].append("data/processed/r6a_qc.json")
