# Data, before stage 1: the Yahoo! R6A click logs, shared by the studies whose instances read them
# (P1-RAGE's and LinGapE's Yahoo! experiments): check the day files, parse each day once, count what
# was skipped. `r6a: source: synthetic` writes a stand-in corpus in the R6A line format first
# (r6a_synthetic, r6a_dir: common.smk).


rule yahoo_synthetic_corpus:
    """data: a synthetic stand-in corpus in the R6A line format (r6a: source: synthetic)"""
    output:
        marker="data/synthetic_r6a/SYNTHETIC.json",
    log:
        "logs/r6a/synthetic_corpus.log",
    # First when ready: the R6A chain gates the Yahoo! experiments, the longest simulate jobs.
    priority: 50
    group:
        "instances"
    conda:
        ENV
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        lines=R6A.get("synthetic_lines_per_day", 40000),
        seed=R6A.get("synthetic_seed", 7),
    shell:
        f"{LB} yahoo-synthetic --out-dir data/synthetic_r6a "
        f"--lines-per-day {{params.lines}} --seed {{params.seed}} > {{log}} 2>&1"


rule yahoo_check:
    """data: the seven R6A day files checked"""
    input:
        ["data/synthetic_r6a/SYNTHETIC.json"] if r6a_synthetic() else [],
    output:
        touch("data/processed/r6a_checked.flag"),
    log:
        "logs/r6a/check.log",
    # First when ready: the R6A chain gates the Yahoo! experiments, the longest simulate jobs.
    priority: 50
    group:
        "instances"
    conda:
        ENV
    resources:
        mem_mb=500,
        runtime=10,
    params:
        src=lambda w, input: os.path.dirname(input[0]) if r6a_synthetic() else r6a_dir(),
    shell:
        # The message goes to the terminal as well as the log: it tells the
        # user where to get R6A and where to put it.
        f"{LB} yahoo-check --r6a-dir {{params.src:q}} 2>&1 | tee {{log}}; exit ${{{{PIPESTATUS[0]}}}}"


rule yahoo_parse_day:
    """data: one R6A day parsed into features, with its quality counts"""
    input:
        "data/processed/r6a_checked.flag",
    output:
        npz="data/processed/r6a/day{day}.npz",
        qc="data/processed/r6a/day{day}_qc.json",
    log:
        "logs/r6a/parse_{day}.log",
    wildcard_constraints:
        day=r"200905\d\d",
    # First when ready: the R6A chain gates the Yahoo! experiments, the longest simulate jobs.
    priority: 50
    group:
        "instances"
    conda:
        ENV
    resources:
        mem_mb=2500,
        runtime=15,
    params:
        src=r6a_dir(),
    shell:
        f"{LB} yahoo-parse --r6a-dir {{params.src:q}} --day {{wildcards.day}} "
        f"--out {{output.npz}} --qc {{output.qc}} > {{log}} 2>&1"


rule yahoo_qc:
    """data: the R6A quality counts of every day in one file"""
    input:
        expand("data/processed/r6a/day{day}_qc.json", day=R6A_DAYS),
    output:
        report(
            "data/processed/r6a_qc.json",
            caption="../report/r6a_qc.rst",
            category="Data",
        ),
    log:
        "logs/r6a/qc.log",
    # The Yahoo! instances read the QC counts: part of the chain that goes first.
    priority: 50
    group:
        "instances"
    conda:
        ENV
    resources:
        mem_mb=500,
        runtime=5,
    shell:
        f"{LB} yahoo-qc --out {{output}} {{input}} > {{log}} 2>&1"
