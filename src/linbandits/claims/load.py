"""A study's claims table (claims.yaml), read and checked."""
from __future__ import annotations

from linbandits.errors import UserError
from linbandits.yamlfile import read_yaml

CLAIM_KEYS = {"id", "figure", "quote", "parts", "combine", "pairs", "choices", "scope", "cause", "note", "data"}


def load_claims(path, choices=None) -> list[dict]:
    """A study's claims table: every entry has an id (unique), a quote and parts; the choices it
    names must be in the study's `choices:` table."""
    claims = read_yaml(path, "claims table")
    if not isinstance(claims, list):
        raise UserError(f"claims table {path} must be a list of claims")
    seen = set()
    for entry in claims:
        if not isinstance(entry, dict) or not {"id", "quote", "parts"} <= set(entry):
            raise UserError(f"claims table {path}: every claim needs an 'id', a 'quote' and 'parts', got {entry!r}")
        unknown = set(entry) - CLAIM_KEYS
        if unknown:
            raise UserError(f"claims table {path}, claim {entry['id']}: unknown key(s) {', '.join(sorted(unknown))}; "
                            f"allowed: {', '.join(sorted(CLAIM_KEYS))}")
        if entry["id"] in seen:
            raise UserError(f"claims table {path}: claim id {entry['id']!r} is used twice")
        seen.add(entry["id"])
        if choices is not None:
            bad = [c for c in entry.get("choices", []) if c not in choices]
            if bad:
                raise UserError(f"claims table {path}, claim {entry['id']}: choice(s) {', '.join(bad)} are not in the "
                                f"study's `choices:` table ({', '.join(choices) or 'empty'})")
    return claims
