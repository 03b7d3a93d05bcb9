# Study lingape: Xu, Honda, Sugiyama (AISTATS 2018), LinGapE against the XY allocations,
# fixed-confidence BAI. Its tables, figures and claims are made by the generic rules of
# study.smk from linbandits.studies.lingape.products; this file holds only the study's own
# instance rule: Exp. 3's arm sets, drawn from the parsed R6A day of May 1, one job per experiment.
from linbandits.studies.lingape import yahoo as _lg_yahoo

for _name in [
    n
    for n, e in experiments.study_experiments(config, "lingape").items()
    if e.instance == "lingape_yahoo"
]:

    rule:
        name:
            f"lingape_yahoo_instances_{_name}"
        input:
            day=_lg_yahoo.EXP3_DAY,
        output:
            npz=paths.instance_outputs(config, EXPERIMENTS[_name], "npz"),
            summary=paths.instance_outputs(config, EXPERIMENTS[_name], "json"),
        log:
            f"{PREFIX}logs/lingape/instances/{_name}.log",
        priority: 50
        conda:
            ENV
        resources:
            mem_mb=2000,
            runtime=10,
        params:
            command=_lg_yahoo.instance_command(config, EXPERIMENTS[_name]),
        shell:
            f"{LB} {{params.command}} > {{log}} 2>&1"
