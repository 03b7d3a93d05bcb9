"""A YAML file read with one line of error: what the file is, and what is wrong with it.

Its own module so that the products (linbandits.products, which judge the claims) and the claims
engine (linbandits.claims.load, which reads the claims tables) can both import it at the top
without importing each other.
"""
from __future__ import annotations

from pathlib import Path

import yaml

from linbandits.errors import UserError


def read_yaml(path, what: str):
    """A YAML file's content, or one UserError naming the file, what is wrong and what to do."""
    remedy = f"give the path of the {what} file itself" + (" (results/<study>/config.yaml)" if what == "config" else "")
    try:
        return yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"{what} {path} does not exist") from None
    except UnicodeDecodeError:
        raise UserError(f"{what} {path} is not a text (UTF-8) file; {remedy}") from None
    except OSError as exc:   # a directory, no permission
        raise UserError(f"{what} {path} cannot be read: {exc.strerror}; {remedy}") from None
    except yaml.YAMLError as exc:
        mark, problem = getattr(exc, "problem_mark", None), getattr(exc, "problem", None)
        where = (f"line {mark.line + 1}, column {mark.column + 1}: {problem}" if mark and problem
                 else " ".join(str(exc).split()))
        raise UserError(f"{what} {path} is not valid YAML ({where}); fix it there") from None
