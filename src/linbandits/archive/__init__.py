"""A run in one file that others can rebuild and verify (issue 52).

    linbandits archive [--preview]                  (or `snakemake --cores 2 archive`)
    linbandits rebuild ARCHIVE --out DIR            every product again, without a simulation
    linbandits verify ARCHIVE [--sample N]          N run ranges simulated again and compared

The archive, `archive/linbandits-<version>-<config hash>.tar.gz` (under preview/ for a preview), holds
one folder of the same name:

    MANIFEST.sha256      the SHA-256 of every other file (`sha256sum -c MANIFEST.sha256` reads it)
    archive.json         format, package version and commit, the studies in config order, the SHA-256
                         of every product the run made (what a rebuild is compared with)
    lock.json            the software lock (linbandits.archive.lock): packages, CPU, BLAS, OS
    metadata.json        a data repository's record: title, creators and licence from CITATION.cff
    run/                 the run's files that the products read, at their paths in the run: each
                         enabled study's config snapshot, runs files, instance summaries and the
                         instance files its products read; what `verify` needs besides: every
                         setting's instance summary and the instance files built from data (the
                         Yahoo! arm sets, from the synthetic stand-in only); a user's algorithm file
    package/             the package files the products read (each study's claims table, P1-RAGE's
                         published numbers), at their paths under src/linbandits/
    published/<study>/   published numbers a study holds in code (the PUBLISHED* tables of its
                         `published` module, e.g. LinGapE's Table 1), as JSON

Raw chunk files are left out: every product reads runs files and instance files only. So are the
instance files of the built-in families that no product reads (1.5 GB for the default target, most of
them OPKB's reward tables): `verify` builds those it replays from the config, as the run did.
"""
# The archive's layout version: `rebuild` and `verify` read this format only.
FORMAT = 1
MANIFEST = "MANIFEST.sha256"
INFO = "archive.json"
LOCK = "lock.json"
METADATA = "metadata.json"
RUN = "run"
PACKAGE = "package"
PUBLISHED = "published"
