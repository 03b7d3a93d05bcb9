# Yahoo! R6A click logs, shared by the studies that read them: check the day
# files, parse each day once, count what was skipped. `r6a: source: synthetic`
# writes a stand-in corpus in the R6A line format first.

R6A = config.get("r6a", {})
R6A_DAYS = [f"200905{d:02d}" for d in range(1, 8)]


def r6a_synthetic():
    return R6A.get("source", "synthetic") == "synthetic"


def r6a_dir():
    if not r6a_synthetic():
        return R6A.get("r6a_dir") or "R6A_DIR_NOT_SET"
    return "data/synthetic_r6a"


rule yahoo_synthetic_corpus:
    # First when ready: the R6A chain gates the Yahoo! experiments, the longest simulate jobs.
    priority: 50
    output:
        marker="data/synthetic_r6a/SYNTHETIC.json",
    params:
        lines=R6A.get("synthetic_lines_per_day", 40000),
        seed=R6A.get("synthetic_seed", 7),
    log:
        "logs/r6a/synthetic_corpus.log",
    resources:
        mem_mb=1000,
        runtime=10,
    shell:
        "linbandits yahoo-synthetic --out-dir data/synthetic_r6a "
        "--lines-per-day {params.lines} --seed {params.seed} > {log} 2>&1"


rule yahoo_check:
    # First when ready: the R6A chain gates the Yahoo! experiments, the longest simulate jobs.
    priority: 50
    input:
        ["data/synthetic_r6a/SYNTHETIC.json"] if r6a_synthetic() else [],
    output:
        touch("data/processed/r6a_checked.flag"),
    params:
        src=r6a_dir(),
    log:
        "logs/r6a/check.log",
    resources:
        mem_mb=500,
        runtime=10,
    shell:
        # The message goes to the terminal as well as the log: it tells the
        # user where to get R6A and where to put it.
        "linbandits yahoo-check --r6a-dir {params.src:q} 2>&1 | tee {log}; exit ${{PIPESTATUS[0]}}"


rule yahoo_parse_day:
    # First when ready: the R6A chain gates the Yahoo! experiments, the longest simulate jobs.
    priority: 50
    input:
        "data/processed/r6a_checked.flag",
    output:
        npz="data/processed/r6a/day{day}.npz",
        qc="data/processed/r6a/day{day}_qc.json",
    wildcard_constraints:
        day=r"200905\d\d",
    params:
        src=r6a_dir(),
    log:
        "logs/r6a/parse_{day}.log",
    resources:
        mem_mb=2500,
        runtime=15,
    shell:
        "linbandits yahoo-parse --r6a-dir {params.src:q} --day {wildcards.day} "
        "--out {output.npz} --qc {output.qc} > {log} 2>&1"


rule yahoo_qc:
    # The Yahoo! instances read the QC counts: part of the chain that goes first.
    priority: 50
    input:
        expand("data/processed/r6a/day{day}_qc.json", day=R6A_DAYS),
    output:
        report("data/processed/r6a_qc.json", caption="../report/r6a_qc.rst", category="Data"),
    log:
        "logs/r6a/qc.log",
    resources:
        mem_mb=500,
        runtime=5,
    shell:
        "linbandits yahoo-qc --out {output} {input} > {log} 2>&1"
