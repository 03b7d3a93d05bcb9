# Study lingape: Xu, Honda, Sugiyama (AISTATS 2018), LinGapE against the XY allocations,
# fixed-confidence BAI. Its tables, figures and claims are made by the generic rules of
# workflow/rules/study.smk from linbandits.studies.lingape.products; this file holds only the
# study's own instance rule: Exp. 3's arm sets, drawn from the parsed R6A day of May 1.

LG = "lingape"
LG_YAHOO = [n for n, e in experiments.study_experiments(config, LG).items() if e.instance == "lingape_yahoo"]


# Exp. 3: the arm sets of every run, drawn from the parsed R6A day of May 1 (shared yahoo_* rules). One job
# per experiment: its K values in one process.
def lg_yahoo_instance_command(exp):
    return jobs.setting_instance_command(config, exp, lambda s: (
        f"lingape-yahoo-instance --day data/processed/r6a/day20090501.npz --K {exp.value_of(s)} --runs {exp.trials}"))


for _name in LG_YAHOO:

    rule:
        name:
            f"lingape_yahoo_instances_{_name}"
        priority: 50
        input:
            day="data/processed/r6a/day20090501.npz",
        output:
            npz=paths.instance_outputs(config, EXPERIMENTS[_name], "npz"),
            summary=paths.instance_outputs(config, EXPERIMENTS[_name], "json"),
        params:
            command=lg_yahoo_instance_command(EXPERIMENTS[_name]),
        log:
            f"{PREFIX}logs/{LG}/instances/{_name}.log",
        resources:
            mem_mb=2000,
            runtime=10,
        shell:
            "linbandits {params.command} > {log} 2>&1"
