# One job per experiment of an instance family (any study): it writes the
# instance file (+ JSON summary) of every setting,
#   results/<study>/instances/<experiment>/<setting>.npz
# in one process. One rule per experiment, named instances_<experiment>.

for _name in BUILTIN:
    _exp = EXPERIMENTS[_name]

    rule:
        name:
            f"instances_{_name}"
        output:
            npz=pipeline.instance_outputs(config, _exp, "npz"),
            summary=pipeline.instance_outputs(config, _exp, "json"),
        params:
            family=_exp.instance,
            cells=pipeline.instance_cell_args(config, _exp),
        log:
            f"{PREFIX}logs/{_exp.study}/instances/{_name}.log",
        resources:
            mem_mb=500,
            runtime=5 + len(_exp.setting_ids()),
        shell:
            "linbandits instance-cells --instance {params.family} {params.cells} > {log} 2>&1"
