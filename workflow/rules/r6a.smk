# The Yahoo! R6A instance of Fig. 2b: check the day files, parse each day,
# fit PCA and per-day ridge, draw the arm set, write one instance per L.
# source: synthetic writes a stand-in corpus in the R6A line format first.

YAHOO = config.get("yahoo", {})
R6A_DAYS = [f"200905{d:02d}" for d in range(1, 8)]


def r6a_dir():
    if YAHOO.get("source", "synthetic") == "r6a":
        return YAHOO.get("r6a_dir") or "R6A_DIR_NOT_SET"
    return "data/synthetic_r6a"


rule yahoo_synthetic_corpus:
    output:
        marker="data/synthetic_r6a/SYNTHETIC.json",
    params:
        lines=YAHOO.get("synthetic_lines_per_day", 40000),
        seed=YAHOO.get("synthetic_seed", 7),
    log:
        "logs/yahoo/synthetic_corpus.log",
    resources:
        mem_mb=1000,
        runtime=10,
    shell:
        "linbandits yahoo-synthetic --out-dir data/synthetic_r6a "
        "--lines-per-day {params.lines} --seed {params.seed} > {log} 2>&1"


rule yahoo_check:
    input:
        ["data/synthetic_r6a/SYNTHETIC.json"] if YAHOO.get("source", "synthetic") == "synthetic" else [],
    output:
        touch("data/processed/r6a_checked.flag"),
    params:
        src=r6a_dir(),
        source=YAHOO.get("source", "synthetic"),
    log:
        "logs/yahoo/check.log",
    resources:
        mem_mb=500,
        runtime=10,
    shell:
        # The message goes to the terminal as well as the log: it tells the
        # user where to get R6A and where to put it.
        "linbandits yahoo-check --r6a-dir {params.src:q} 2>&1 | tee {log}; exit ${{PIPESTATUS[0]}}"


rule yahoo_parse_day:
    input:
        "data/processed/r6a_checked.flag",
    output:
        npz="data/processed/r6a/day{day}.npz",
        qc="data/processed/r6a/day{day}_qc.json",
    wildcard_constraints:
        day=r"200905\d\d",
    params:
        src=r6a_dir(),
        source=YAHOO.get("source", "synthetic"),
    log:
        "logs/yahoo/parse_{day}.log",
    resources:
        mem_mb=2500,
        runtime=15,
    shell:
        "linbandits yahoo-parse --r6a-dir {params.src:q} --day {wildcards.day} "
        "--out {output.npz} --qc {output.qc} > {log} 2>&1"


rule yahoo_qc:
    input:
        expand("data/processed/r6a/day{day}_qc.json", day=R6A_DAYS),
    output:
        report("data/processed/r6a_qc.json", caption="../report/r6a_qc.rst", category="Data"),
    log:
        "logs/yahoo/qc.log",
    resources:
        mem_mb=500,
        runtime=5,
    shell:
        "linbandits yahoo-qc --out {output} {input} > {log} 2>&1"


rule yahoo_instance:
    input:
        days=expand("data/processed/r6a/day{day}.npz", day=R6A_DAYS),
        qc="data/processed/r6a_qc.json",
    output:
        npz="data/instances/{experiment}/L{L}.npz",
        summary="data/instances/{experiment}/L{L}.json",
    wildcard_constraints:
        experiment="|".join(n for n, e in EXPERIMENTS.items() if e.instance == "yahoo") or "none",
        L=r"\d+",
    params:
        # An experiment may override the configured PCA variant (the shared-basis ablation).
        pca=lambda w: EXPERIMENTS[w.experiment].settings.get("pca", YAHOO.get("pca", "per_day")),
        T=YAHOO.get("T", 21000),
        seed=YAHOO.get("arm_seed", 0),
    log:
        "logs/yahoo/instance_{experiment}_L{L}.log",
    resources:
        mem_mb=2000,
        runtime=10,
    shell:
        "linbandits yahoo-instance --days {input.days} --pca {params.pca} --L {wildcards.L} "
        "--T {params.T} --seed {params.seed} --out {output.npz} --summary {output.summary} > {log} 2>&1"


EXTRA_TARGETS.append("data/processed/r6a_qc.json")
