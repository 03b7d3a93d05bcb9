"""What a run prints on the terminal: progress, one line per failed job carrying its error, and the
overview line last (workflow/rules/common.smk installs it on Snakemake's terminal handler).

Snakemake's own terminal output lists every job with its inputs and outputs (lines of up to 75,000
characters in a preview) and a failed job as a block naming only its log. The log file under
.snakemake/log/ keeps all of it: only the terminal is cut. A dry run, `--verbose` and
`--printshellcmds` keep Snakemake's own output (common.smk does not install this then).
"""

import logging
import os

LONGEST = 300  # characters of a terminal line; the log file has the rest

# Snakemake's log events (snakemake_interface_logger_plugins.common.LogEvent values) the terminal
# leaves out: each job's block, its command, its start and its end (the progress line stays).
SILENT_EVENTS = {
    "workflow_started",
    "job_info",
    "group_info",
    "shellcmd",
    "job_started",
    "job_finished",
    "resources_info",
}
# Snakemake's messages without an event that repeat once per scheduling round or come after the
# overview line.
SILENT_MESSAGES = ("Select jobs to execute...", "Elapsed time: ")
LOG_HINT = "Complete log(s): "
# The traceback of a failed shell command: the failed job's own line says it better.
SHELL_FAILURE = "RuleException:\nCalledProcessError in file"


def event_name(record: logging.LogRecord) -> str | None:
    event = getattr(record, "event", None)
    return getattr(event, "value", event)


def shorten(text: str, longest: int = LONGEST) -> str:
    """Every line of `text` cut to `longest` characters, saying where the rest is."""
    tail = " ... (cut: the full line is in the log under .snakemake/log/)"
    return "\n".join(
        line if len(line) <= longest else line[: longest - len(tail)] + tail
        for line in text.splitlines()
    )


def last_line(path: str) -> str:
    """The last non-empty line of a log file ('' if there is none): a failed command's error."""
    try:
        with open(path, "rb") as fh:
            fh.seek(max(0, os.path.getsize(path) - 4096))
            lines = [l.strip() for l in fh.read().decode(errors="replace").splitlines()]
    except OSError:
        return ""
    return next((l for l in reversed(lines) if l), "")


def job_error_line(fields: dict) -> str:
    """One line for a failed job: the last line of its log (the command's own error) first, then its
    rule and its log."""
    logs = list(fields.get("log") or [])
    error = last_line(logs[0]) if logs else ""
    rule = fields.get("rule_name")
    where = f"rule {rule}, log: {', '.join(logs)}" if logs else f"rule {rule}: --verbose shows the job"
    return shorten(f"{error} [{where}]" if error else f"Error in {where}")


def job_stats_line(text: str) -> str:
    """Snakemake's job stats table (a line per rule: hundreds here) as one line; other text as it is."""
    totals = [l.split()[-1] for l in text.splitlines() if l.startswith("total ")]
    if not text.startswith("Job stats:") or not totals:
        return text
    return f"Jobs to run: {totals[0]} (per rule: the log under .snakemake/log/, or --verbose)"


class TerminalFilter(logging.Filter):
    """Leaves out each job's block, command, start and end, and the scheduler's rounds; after a
    run without errors, also the log hint, so that the overview line is the last line."""

    def __init__(self):
        super().__init__()
        self.saw_error = False

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.ERROR:
            self.saw_error = True
        if event_name(record) in SILENT_EVENTS:
            return False
        message = record.msg if isinstance(record.msg, str) else ""
        if event_name(record) is None and message.startswith(SILENT_MESSAGES):
            return False
        if message.startswith(SHELL_FAILURE):
            return False
        if message.startswith(LOG_HINT) and not self.saw_error:
            return False
        return True


class TerminalFormatter(logging.Formatter):
    """Snakemake's own formatter, with a failed job in one line and every line cut to LONGEST."""

    def __init__(self, inner: logging.Formatter):
        super().__init__()
        self.inner = inner

    def format(self, record: logging.LogRecord) -> str:
        if event_name(record) == "job_error":
            return job_error_line(record.__dict__)
        if event_name(record) == "run_info" and isinstance(record.msg, str):
            return shorten(job_stats_line(record.msg))
        return shorten(self.inner.format(record))


def dry_run(argv: list[str]) -> bool:
    """Whether Snakemake's command line asks for a dry run (-n, --dry-run, --dryrun, or -n among short
    flags such as -np): the workflow cannot ask Snakemake, whose executor is not chosen yet when the
    Snakefile is read (workflow.dryrun is then False even for -n)."""
    for arg in argv[1:]:
        if arg in ("--dry-run", "--dryrun", "--just-print"):
            return True
        if arg.startswith("-") and not arg.startswith("--") and arg[1:].isalpha() and "n" in arg[1:]:
            return True
    return False


def install(logger: logging.Logger) -> bool:
    """Puts the filter and formatter on the logger's terminal handler (Snakemake names it
    DefaultStreamHandler); the log file's handler keeps everything. True if it found the handler."""
    for handler in logger.handlers:
        if handler.name == "DefaultStreamHandler" and not isinstance(
            handler.formatter, TerminalFormatter
        ):
            handler.addFilter(TerminalFilter())
            handler.setFormatter(TerminalFormatter(handler.formatter))
            return True
    return False
