"""Files the pipeline writes beside the warehouse (reports, pictures, graph stats)."""

from __future__ import annotations

import os
from pathlib import Path


def write_text_atomically(path: Path, text: str) -> Path:
    """Write ``text`` as it is (UTF-8, line endings untranslated) to ``path`` through a temporary file
    in the same folder (created if needed) and a rename: a reader, or a run killed in the middle, sees
    the old file or the new one, never half."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8", newline="")
    tmp.replace(path)
    return path
