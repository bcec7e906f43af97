"""The one reader of the dedup rules' data files in ``kg_pipelines/graph/data`` (one entry a line,
``#`` starts a comment, blank lines skipped); the modules that use them keep the rules."""

from __future__ import annotations

from pathlib import Path

DATA_DIR = Path(__file__).with_name("data")


def data_lines(name: str) -> list[str]:
    """The entries of ``data/<name>``, comments and surrounding white space removed, in file order."""
    lines = []
    for raw in (DATA_DIR / name).read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            lines.append(line)
    return lines
