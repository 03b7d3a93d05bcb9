"""A YAML file read with one line of error: what the file is, and what is wrong with it.

Its own module so that the products (linbandits.products, which judge the claims) and the claims
engine (linbandits.claims.report, which reads the claims tables) can both import it at the top
without importing each other.
"""
from __future__ import annotations

from pathlib import Path

import yaml

from linbandits.errors import UserError


def read_yaml(path, what: str):
    """A YAML file's content, or one UserError naming the file and what is wrong."""
    try:
        return yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"{what} {path} does not exist") from None
    except yaml.YAMLError as exc:
        raise UserError(f"{what} {path} is not valid YAML: {exc}") from None
