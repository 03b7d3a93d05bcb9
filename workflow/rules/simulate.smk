# One simulate job per (experiment, algorithm, run range): it runs that
# algorithm on every setting of the experiment, in one process, and writes one
# CSV (+ JSON sidecar, + curves for studies whose figures are curves over
# rounds) per setting. Paths stay per cell:
#   results/<study>/raw/<experiment>/<setting>/<algorithm>/chunk<a>-<b>.csv
# The run range is named in the file, so a different chunk_size makes different
# files but the same per-run outcomes (run i depends only on the seed and i).
# One rule per experiment (its outputs are the experiment's settings), named
# simulate_<experiment>.
#
# A preview (or `bundle_algorithms: true`) bundles every algorithm of an
# experiment's run range into one job: `linbandits batch` runs the same
# simulate-cells commands one after the other in one process, so the same
# files with the same numbers, for one start-up instead of one per algorithm.

from shlex import quote as _simulate_quote


def simulate_fail_prefix():
    return "LINBANDITS_FAIL_FOR_TESTING=1 " if config.get("fail_rule_for_testing") else ""


def simulate_command(exp, curves):
    return lambda w: pipeline.simulate_command(config, exp, w.algorithm, w.chunk, curves)


def bundled_commands(exp, curves):
    return lambda w: " ".join(_simulate_quote(pipeline.simulate_command(config, exp, a, w.chunk, curves))
                              for a in exp.algorithms)


for _exp in EXPERIMENTS.values():
    _curves = _exp.study in CURVE_STUDIES

    if not pipeline.bundles_algorithms(config):

        rule:
            name:
                f"simulate_{_exp.name}"
            input:
                npz=pipeline.instance_inputs(config, _exp),
            output:
                csv=pipeline.simulate_outputs(config, _exp, "csv"),
                meta=pipeline.simulate_outputs(config, _exp, "json"),
                curves=pipeline.simulate_outputs(config, _exp, "curves.npz") if _curves else [],
            wildcard_constraints:
                algorithm="|".join(re.escape(a) for a in _exp.algorithms),
                chunk="|".join(pipeline.chunk_names(config, _exp)),
            params:
                command=simulate_command(_exp, _curves),
                fail=simulate_fail_prefix(),
            log:
                f"{PREFIX}logs/{_exp.study}/simulate/{_exp.name}/{{algorithm}}/chunk{{chunk}}.log",
            benchmark:
                # Wall and CPU time of the job's processes (benchmarks/bench_pipeline.py reads them).
                f"{PREFIX}logs/{_exp.study}/benchmarks/simulate/{_exp.name}/{{algorithm}}/chunk{{chunk}}.tsv"
            threads: 1
            priority: _exp.priority
            resources:
                mem_mb=1000,
                runtime=30 + 10 * len(_exp.setting_ids()),
            shell:
                "{params.fail}linbandits {params.command} 2> {log}"

    else:

        rule:
            name:
                f"simulate_{_exp.name}"
            input:
                npz=pipeline.instance_inputs(config, _exp),
            output:
                csv=pipeline.bundled_simulate_outputs(config, _exp, "csv"),
                meta=pipeline.bundled_simulate_outputs(config, _exp, "json"),
                curves=pipeline.bundled_simulate_outputs(config, _exp, "curves.npz") if _curves else [],
            wildcard_constraints:
                chunk="|".join(pipeline.chunk_names(config, _exp)),
            params:
                commands=bundled_commands(_exp, _curves),
                fail=simulate_fail_prefix(),
            log:
                f"{PREFIX}logs/{_exp.study}/simulate/{_exp.name}/all/chunk{{chunk}}.log",
            benchmark:
                f"{PREFIX}logs/{_exp.study}/benchmarks/simulate/{_exp.name}/all/chunk{{chunk}}.tsv"
            threads: 1
            priority: _exp.priority
            resources:
                mem_mb=1000,
                runtime=30 + 10 * len(_exp.setting_ids()) * len(_exp.algorithms),
            shell:
                "{params.fail}linbandits batch {params.commands} 2> {log}"
