"""Versions of what has no model name: the offline provider's heuristics."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent  # kg_pipelines/
# offline modules that only answer questions at query time: ingestion never runs them, so a change
# to them must not make every cached chunk look stale
QUERY_TIME_ONLY = frozenset({"rationale.py"})


def source_digest(root: Path, files: list[Path]) -> str:
    """A hash of the files' paths (relative to ``root``) and contents, in path order."""
    digest = hashlib.sha256()
    for path in sorted(files, key=lambda p: p.relative_to(root).as_posix()):
        digest.update(path.relative_to(root).as_posix().encode("utf-8") + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


@lru_cache(maxsize=1)
def offline_version() -> str:
    """``offline-<hash>`` of the source of ``kg_pipelines/offline/`` and ``llm/offline_provider.py``.

    Any change to the offline heuristics (the gazetteer, a recogniser, a question template) gives a
    new version, so cached offline results are not reused after it. Computed once per process.
    """
    files = [
        p
        for p in (_PACKAGE / "offline").rglob("*.py")
        if "__pycache__" not in p.parts and p.name not in QUERY_TIME_ONLY
    ]
    files.append(_PACKAGE / "llm" / "offline_provider.py")
    return "offline-" + source_digest(_PACKAGE, files)[:12]
