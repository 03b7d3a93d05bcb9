"""`python -m linbandits ...`: the same as the `linbandits` command (what the workflow's rules run)."""
import sys

from linbandits.cli import main

sys.exit(main())
