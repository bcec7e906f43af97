"""Collection names: one rule, checked wherever a name enters (settings, CLI, inbox folders).

A collection name becomes part of LanceDB table names (``chunks__<collection>``), of document ids
and Dagster partition keys (``<collection>/<path>``). Only names that every one of those can hold
as they are are accepted, so a name maps to its tables one-to-one: ``my-coll`` is refused instead
of quietly sharing ``chunks__my_coll`` with ``my_coll``.
"""

from __future__ import annotations

import re

MAX_COLLECTION_NAME_LENGTH = 64
COLLECTION_NAME_RULE = (
    "a collection name is 1 to 64 ASCII letters, digits and underscores, starting with a letter or digit"
)
# \Z, not $: "$" would accept a trailing newline
_VALID = re.compile(rf"[A-Za-z0-9][A-Za-z0-9_]{{0,{MAX_COLLECTION_NAME_LENGTH - 1}}}\Z", re.ASCII)


def validate_collection_name(name: str) -> str:
    """``name`` unchanged when it follows ``COLLECTION_NAME_RULE``, else ``ValueError`` saying why."""
    if not isinstance(name, str):
        raise ValueError(f"collection name must be a string, got {type(name).__name__}: {COLLECTION_NAME_RULE}")
    if _VALID.match(name):
        return name
    raise ValueError(f"invalid collection name {name!r}: {_problem(name)}; {COLLECTION_NAME_RULE}")


def _problem(name: str) -> str:
    if not name:
        return "it is empty"
    if len(name) > MAX_COLLECTION_NAME_LENGTH:
        return f"it is {len(name)} characters long"
    bad = sorted({c for c in name if not (c.isascii() and (c.isalnum() or c == "_"))})
    if bad:
        return "it contains " + ", ".join(_describe(c) for c in bad)
    return "it starts with an underscore"


def _describe(char: str) -> str:
    names = {" ": "a space", "-": "a hyphen", ".": "a dot", "/": "a slash", "\\": "a backslash"}
    if char in names:
        return names[char]
    if not char.isprintable() or char.isspace():
        return f"the character {char!r}"
    return f"{char!r}" + (" (not ASCII)" if not char.isascii() else "")
