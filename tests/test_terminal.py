"""The terminal of a run (linbandits.terminal, installed by workflow/rules/common.smk): progress, one
line per failed job carrying its error, the overview line last, no line longer than LONGEST; the
log file and --printshellcmds keep Snakemake's own detail. Real Snakemake on .test."""
import logging
import shutil
import subprocess
import sys
from pathlib import Path

from linbandits import terminal

REPO = Path(__file__).resolve().parents[1]
FAIL_LINE = "error: simulate failed on purpose (LINBANDITS_FAIL_FOR_TESTING is set)"
MOST_LINES = 30  # the failing table's run: 10 jobs, a line each at most, and Snakemake's few own


def record(msg="", event=None, level=logging.INFO, **fields):
    rec = logging.LogRecord("snakemake.logging", level, __file__, 0, msg, None, None)
    rec.__dict__.update(fields)
    if event is not None:
        rec.event = event
    return rec


def readable(text: str) -> list[str]:
    """The terminal's problems: lines over LONGEST characters, or more than MOST_LINES lines."""
    lines = text.splitlines()
    problems = [f"{len(l)} characters: {l[:80]}..." for l in lines if len(l) > terminal.LONGEST]
    return problems + ([f"{len(lines)} lines"] if len(lines) > MOST_LINES else [])


def test_each_job_block_is_left_out_and_progress_kept():
    keep = terminal.TerminalFilter()
    assert not keep.filter(record("rule x:", event="job_info"))
    assert not keep.filter(record("Select jobs to execute..."))
    assert not keep.filter(record("python3 -m linbandits ...", event="shellcmd"))
    assert keep.filter(record("", event="progress"))
    # a run without errors: the log hint goes, so that the overview line is last; after an error it stays
    assert not keep.filter(record("Complete log(s): .snakemake/log/x.log"))
    assert keep.filter(record("Exiting because a job execution failed.", level=logging.ERROR))
    assert keep.filter(record("Complete log(s): .snakemake/log/x.log"))


def test_a_failed_job_is_one_line_with_its_error(tmp_path):
    log = tmp_path / "chunk0-19.log"
    log.write_text("progress 10%\nerror: user algorithm X failed in malicious[T=60]: ZeroDivisionError\n\n")
    fmt = terminal.TerminalFormatter(logging.Formatter())
    line = fmt.format(record(event="job_error", rule_name="simulate_malicious", log=[str(log)]))
    assert line == f"error: user algorithm X failed in malicious[T=60]: ZeroDivisionError [rule simulate_malicious, log: {log}]"
    assert fmt.format(record(event="job_error", rule_name="r", log=[])) == "Error in rule r: --verbose shows the job"


def test_long_lines_are_cut_and_the_job_table_is_one_line():
    fmt = terminal.TerminalFormatter(logging.Formatter())
    cut = fmt.format(record("input: " + ", ".join(f"results/x/chunk{i}.csv" for i in range(5000))))
    assert len(cut) == terminal.LONGEST and cut.endswith("is in the log under .snakemake/log/)")
    table = "Job stats:\njob  count\n---  -----\nsimulate_a  3\nruns_a  1\ntotal  4\n"
    assert fmt.format(record(table, event="run_info")).startswith("Jobs to run: 4 (")


def test_a_failing_run_reads_in_a_few_lines_with_its_error(tmp_path, make_workdir, snakemake):
    work = make_workdir(tmp_path / "failing", fail_rule_for_testing=True)
    target = "results/p1rage/tables/malicious.csv"
    out = snakemake(work, "--cores", "2", target, check=False)
    terminal_text = out.stdout + out.stderr
    assert out.returncode != 0
    errors = [l for l in terminal_text.splitlines() if l.startswith(FAIL_LINE)]
    assert errors and all("[rule simulate_malicious, log: logs/p1rage/simulate/" in l for l in errors), terminal_text
    assert readable(terminal_text) == [], terminal_text
    # the detail is in Snakemake's log file
    (log,) = (work / ".snakemake" / "log").glob("*.snakemake.log")
    assert "Error in rule simulate_malicious:" in log.read_text() and "input:" in log.read_text()
    # planted: Snakemake's own terminal (--printshellcmds keeps it) fails the same check
    shutil.rmtree(work / ".snakemake" / "log")
    detail = snakemake(work, "--cores", "2", "--printshellcmds", target, check=False)
    assert detail.returncode != 0 and readable(detail.stdout + detail.stderr) != []
    assert FAIL_LINE in detail.stdout + detail.stderr  # show-failed-logs: the error is there too


def test_a_run_ends_with_the_overview_line(full_run, tmp_path):
    work = tmp_path / "again"
    shutil.copytree(full_run, work, symlinks=True)
    # one stream, as on a terminal
    out = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(REPO / "workflow" / "Snakefile"),
                          "--directory", str(work), "--cores", "2", "--forcerun", "overview"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600, check=True)
    lines = [l for l in out.stdout.splitlines() if l.strip()]
    assert readable(out.stdout) == [], out.stdout
    assert lines[-1].startswith("Overview: results/overview.md ("), lines[-3:]
    assert any(l.endswith("steps (100%) done") for l in lines), lines


def test_a_dry_run_keeps_snakemakes_own_table():
    """Snakemake's executor is not chosen when the Snakefile is read, so workflow.dryrun is False even
    for -n: the workflow reads the command line. Planted: that property alone (never a dry run)."""
    from linbandits.terminal import dry_run

    asked = [["snakemake", "-n"], ["snakemake", "--cores", "1", "-np"], ["snakemake", "--dry-run"],
             ["snakemake", "--dryrun", "all"]]
    not_asked = [["snakemake", "--cores", "2"], ["snakemake", "--config", "preview=true"],
                 ["snakemake", "--notemp"], ["snakemake", "-c", "2", "results/n.csv"]]
    assert all(dry_run(a) for a in asked) and not any(dry_run(a) for a in not_asked)
    planted = lambda argv: False      # noqa: E731  (workflow.dryrun at parse time)
    assert not all(planted(a) for a in asked)
