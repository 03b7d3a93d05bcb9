"""A study's claims table (claims.yaml), read and checked.

A claim's `parts` are its primary reading: the natural reading of the paper's sentence, fixed without
looking at any data. A reading revised after data were seen stands beside it as `post_hoc`, with the
data seen (`seen`: `published`, the paper's own published data, and/or `reproduction`, this project's
runs), what prompted the revision (`prompted_by`) and why it is still worth reading (`reason`); it is
judged and printed second and never counted (linbandits.claims.judge). `unexamined` names open matters
of the protocol that no switch run examines (e.g. a grid the paper does not state), so that a cause
never says more than was examined.
"""
from __future__ import annotations

from linbandits.errors import UserError
from linbandits.yamlfile import read_yaml

CLAIM_KEYS = {"id", "figure", "quote", "parts", "combine", "pairs", "choices", "scope", "cause", "note", "data",
              "post_hoc", "unexamined"}
POST_HOC_KEYS = {"seen", "prompted_by", "reason", "parts", "combine", "pairs", "note"}
POST_HOC_REQUIRED = ("seen", "prompted_by", "reason", "parts")
SEEN = ("published", "reproduction")


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
        if "post_hoc" in entry:
            check_post_hoc(entry["post_hoc"], f"claims table {path}, claim {entry['id']}")
        unexamined = entry.get("unexamined", [])
        if not isinstance(unexamined, list) or not all(isinstance(u, str) and u.strip() for u in unexamined):
            raise UserError(f"claims table {path}, claim {entry['id']}: `unexamined` must be a list of sentences, "
                            f"each an open matter no switch run examines; got {unexamined!r}")
    return claims


def check_post_hoc(post_hoc, where: str) -> None:
    """A revised reading says what was seen, what prompted it and why it is worth reading, and has parts."""
    if not isinstance(post_hoc, dict):
        raise UserError(f"{where}: `post_hoc` must be a mapping (seen, prompted_by, reason, parts), got {post_hoc!r}")
    missing = [k for k in POST_HOC_REQUIRED if not post_hoc.get(k)]
    if missing:
        raise UserError(f"{where}: a post-hoc reading needs {', '.join(missing)} (a reading revised after seeing data "
                        "states what was seen, what prompted it and why it is still worth reading)")
    unknown = set(post_hoc) - POST_HOC_KEYS
    if unknown:
        raise UserError(f"{where}: unknown post_hoc key(s) {', '.join(sorted(unknown))}; allowed: "
                        f"{', '.join(sorted(POST_HOC_KEYS))}")
    bad = [s for s in post_hoc["seen"] if s not in SEEN] if isinstance(post_hoc["seen"], list) else [post_hoc["seen"]]
    if bad:
        raise UserError(f"{where}: post_hoc `seen` lists the data seen before the revision, from {', '.join(SEEN)}; "
                        f"got {post_hoc['seen']!r}")
