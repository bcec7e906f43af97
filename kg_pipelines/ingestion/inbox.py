"""Finding documents: the inbox (``<inbox>/<collection>/...``) or any folder given to the CLI.

``scan_inbox`` lists candidate files with their modification times; ``plan_inbox_changes`` turns a
listing, the source registry and a watermark into what to ingest and what to remove. The watermark
is the (mtime, path) of the newest file already handed to a run, so a tick only hashes files that
are newer, or that the registry does not know; removals are the registered inbox files that are
gone. The sensor and ``kg-pipelines ingest`` share this code.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from kg_pipelines.ingestion.documents import SUPPORTED_SUFFIXES, document_key, file_content_hash
from kg_pipelines.stores.source_registry import Source


@dataclass(frozen=True)
class InboxFile:
    collection: str
    path: Path
    relative_path: str
    mtime: float

    @property
    def document_id(self) -> str:
        return document_key(self.collection, self.relative_path)

    def to_source(self) -> Source:
        return Source(self.document_id, self.collection, str(self.path), file_content_hash(self.path), self.mtime)


def scan_directory(root: Path, collection: str) -> list[InboxFile]:
    """Supported files under ``root`` (recursively; hidden files and folders skipped)."""
    found: list[InboxFile] = []
    root = Path(root).resolve()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.startswith(".") or not name.lower().endswith(SUPPORTED_SUFFIXES):
                continue
            path = Path(dirpath) / name
            try:
                mtime = path.stat().st_mtime
            except FileNotFoundError:
                continue  # deleted while we looked
            found.append(InboxFile(collection, path, path.relative_to(root).as_posix(), mtime))
    return found


# inbox sub-folders that are not knowledge collections: <inbox>/pages/ holds page bundles for the
# knowledge merger (its own sensor watches it)
RESERVED_FOLDERS = frozenset({"pages"})


def scan_inbox(inbox: Path) -> list[InboxFile]:
    """Every supported file of every collection folder of the inbox (reserved folders skipped)."""
    inbox = Path(inbox)
    if not inbox.is_dir():
        return []
    files: list[InboxFile] = []
    for entry in sorted(inbox.iterdir()):
        if entry.is_dir() and not entry.name.startswith(".") and entry.name not in RESERVED_FOLDERS:
            files.extend(scan_directory(entry, entry.name))
    return files


@dataclass
class InboxChanges:
    to_ingest: list[Source]
    to_remove: list[str]  # document ids
    watermark: tuple[float, str]
    more_waiting: int  # files past the per-tick cap, left for the next tick


def plan_inbox_changes(
    files: list[InboxFile],
    registered: list[Source],
    watermark: tuple[float, str],
    max_files: int,
    inbox: Path,
    saved_tick: int = 0,
) -> InboxChanges:
    """What a sensor tick must request.

    ``registered`` includes removed sources (tombstones). ``saved_tick`` is the tick number of the
    last cursor the daemon saved: a registry write from a later tick belongs to a tick whose result
    was lost, so what it decided is decided again (same generation, hence the same run key).
    """
    known = {s.document_id: s for s in registered if not s.removed}
    candidates = sorted(
        (f for f in files if (f.mtime, str(f.path)) > watermark or f.document_id not in known),
        key=lambda f: (f.mtime, str(f.path)),
    )
    picked, to_ingest = candidates[:max_files], []
    for f in picked:
        try:
            source = f.to_source()
        except FileNotFoundError:
            continue  # deleted between listing and hashing: the next tick sees it gone
        previous = known.get(f.document_id)
        lost = previous is not None and previous.tick > saved_tick
        if previous is None or previous.content_hash != source.content_hash or lost:
            to_ingest.append(source)  # new, edited or lost; a touched file with the same content is not
    new_mark = max([watermark] + [(f.mtime, str(f.path)) for f in picked])
    present = {f.document_id for f in files}
    inbox_root = str(Path(inbox).resolve())
    to_remove = [
        s.document_id
        for s in registered
        if s.document_id not in present
        and (not s.removed or s.tick > saved_tick)
        and os.path.commonpath([inbox_root, s.path]) == inbox_root
    ]
    return InboxChanges(to_ingest, to_remove, new_mark, len(candidates) - len(picked))
