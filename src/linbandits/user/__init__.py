"""A user's own algorithm beside the paper's, in one place (issue 48):

    algorithms   declared (`extra_algorithms`, the --user-algorithm flag, entry points), loaded, and run
                 with its output checked, so that its failure is one line and stays in its own jobs
    checks       checked against its study before any job runs (part of the config's validation)
    comparison   judged against the paper's algorithms: the claims report's generated sections and
                 results/<study>/comparison.json
"""
