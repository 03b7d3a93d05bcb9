"""Yahoo! R6A click logs, shared by the studies that use them (P1-RAGE, LinGapE):
file checks, the line reader, per-day feature files, and a synthetic stand-in corpus
in the exact R6A line format for machines without the licensed data."""
