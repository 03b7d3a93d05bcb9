# Stage 6, archive (on request, `snakemake --cores 2 archive`): the finished default target in one
# file that a reader rebuilds and verifies (`linbandits rebuild`, `linbandits verify`;
# linbandits.archive): the runs files, config snapshots, published data, environment lock and
# SHA-256 manifest.
from linbandits.archive.record import archive_name

# named by the package version and the hash of the enabled studies' snapshots (what `archive` writes)
ARCHIVE_NAME = archive_name(
    [(s, study_config_text(s).encode()) for s in ENABLED_STUDIES]
)


rule archive:
    """archive: archive/<name>.tar.gz, the finished run in one file to rebuild and verify"""
    input:
        snapshots=[study_snapshot(s) for s in ENABLED_STUDIES],
        products=all_inputs,
    output:
        f"{PREFIX}archive/{ARCHIVE_NAME}.tar.gz",
    log:
        f"{PREFIX}logs/archive.log",
    conda:
        ENV
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        # every study in config order: an enabled one by its snapshot, a disabled one by name
        studies=" ".join(
            (
                f"--study {study_snapshot(s)}"
                if s in ENABLED_STUDIES
                else f"--disabled {s}"
            )
            for s in STUDIES
        ),
    shell:
        # the last line (where the archive is, its size and SHA-256) goes to the terminal too
        f"{LB} archive {{params.studies}} --out {{output}} 2>&1 | tee {{log}}; exit ${{{{PIPESTATUS[0]}}}}"
