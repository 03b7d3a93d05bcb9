"""A user's own algorithm beside the paper's, in one place (issue 48):

    algorithms   declared (`extra_algorithms`, the --user-algorithm flag, entry points), loaded, and run
                 with its output checked, so that its failure is one line and stays in its own jobs
    checks       checked against its study before any job runs (part of the config's validation)
    comparison   judged against the paper's algorithms, setting by setting (paired, Holm, duplicates once)
    summary      judged over each experiment's sweep (geometric-mean ratios, mean paired differences)
    report       the claims report's sections, the leaderboard and results/<study>/comparison.json
    scorecard    results/scorecard.{md,json} and its figure, across studies
"""
