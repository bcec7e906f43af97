"""Which file is behind each document: the source registry (a small SQLite file in the data dir).

The sensor and the CLI register files here when they request a run; the ``documents`` asset reads
it to find a partition's file. SQLite, not DuckDB, because a sensor must never open the DuckDB
warehouse (one writer per file) and SQLite takes short writes from several processes.

Each source keeps a ``generation``, bumped whenever it is registered with new content or after it
was removed, so run keys built from it never repeat for a new version, and the sensor ``tick``
that last wrote it, so a tick whose result was lost (cursor not saved) can be recognised and redone.
Removed sources stay as tombstones (``removed = 1``) to keep their generation.

It also holds each collection's retry schedule (``collection_retries``): when its earliest failed
chunk may be tried again and how many chunks are quarantined. The ingestion stages publish it;
the retry sensor reads it, because a sensor must not open DuckDB.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

_COLUMNS = "document_id, collection, path, content_hash, mtime, generation, tick, removed"


@dataclass(frozen=True)
class Source:
    document_id: str
    collection: str
    path: str
    content_hash: str | None
    mtime: float | None
    generation: int = 0
    tick: int = 0
    removed: bool = False


class SourceRegistry:
    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with closing(self._connect()) as conn, conn:
            conn.execute(
                """CREATE TABLE IF NOT EXISTS sources (
                    document_id TEXT PRIMARY KEY, collection TEXT NOT NULL, path TEXT NOT NULL,
                    content_hash TEXT, mtime REAL, generation INTEGER NOT NULL DEFAULT 1,
                    tick INTEGER NOT NULL DEFAULT 0, removed INTEGER NOT NULL DEFAULT 0,
                    registered_at TEXT NOT NULL)"""
            )
            conn.execute(
                """CREATE TABLE IF NOT EXISTS collection_retries (
                    collection TEXT PRIMARY KEY, next_retry_at REAL, quarantined INTEGER NOT NULL DEFAULT 0,
                    updated_at TEXT NOT NULL)"""
            )

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")
        return conn

    def _select(self, where: str = "", params: Sequence = ()) -> list[Source]:
        with closing(self._connect()) as conn:
            rows = conn.execute(f"SELECT {_COLUMNS} FROM sources {where} ORDER BY document_id", params).fetchall()
        return [Source(*row[:7], bool(row[7])) for row in rows]

    def register(self, sources: Iterable[Source], tick: int = 0) -> dict[str, int]:
        """Upsert sources; returns each one's generation (bumped for new content or after removal)."""
        sources = list(sources)
        now = datetime.now(UTC).isoformat()
        with closing(self._connect()) as conn, conn:
            conn.executemany(
                """INSERT INTO sources VALUES (?, ?, ?, ?, ?, 1, ?, 0, ?)
                ON CONFLICT (document_id) DO UPDATE SET
                    generation = sources.generation + (sources.removed = 1
                                 OR sources.content_hash IS NOT excluded.content_hash),
                    collection = excluded.collection, path = excluded.path,
                    content_hash = excluded.content_hash, mtime = excluded.mtime, tick = excluded.tick,
                    removed = 0, registered_at = excluded.registered_at""",
                [(s.document_id, s.collection, s.path, s.content_hash, s.mtime, tick, now) for s in sources],
            )
        found = self.lookup([s.document_id for s in sources])
        return {document_id: source.generation for document_id, source in found.items()}

    def lookup(self, document_ids: Sequence[str]) -> dict[str, Source]:
        """Active (not removed) sources by document id."""
        found: dict[str, Source] = {}
        for i in range(0, len(document_ids), 500):
            part = list(document_ids[i : i + 500])
            marks = ",".join("?" * len(part))
            for source in self._select(f"WHERE removed = 0 AND document_id IN ({marks})", part):
                found[source.document_id] = source
        return found

    def all(self, include_removed: bool = False) -> list[Source]:
        return self._select("" if include_removed else "WHERE removed = 0")

    def forget(self, document_ids: Sequence[str], tick: int = 0) -> None:
        """Mark sources removed (tombstones keep the generation)."""
        with closing(self._connect()) as conn, conn:
            conn.executemany(
                "UPDATE sources SET removed = 1, tick = ? WHERE document_id = ?", [(tick, d) for d in document_ids]
            )

    def for_collection(self, collection: str) -> list[Source]:
        """The collection's active sources."""
        return self._select("WHERE removed = 0 AND collection = ?", [collection])

    def collections(self) -> list[str]:
        """Every collection that has (or had) a source."""
        with closing(self._connect()) as conn:
            return [r[0] for r in conn.execute("SELECT DISTINCT collection FROM sources ORDER BY 1").fetchall()]

    # -- the retry schedule -------------------------------------------------------------------
    def publish_retries(self, collection: str, next_retry_at: datetime | None, quarantined: int) -> None:
        with closing(self._connect()) as conn, conn:
            conn.execute(
                """INSERT INTO collection_retries VALUES (?, ?, ?, ?) ON CONFLICT (collection) DO UPDATE SET
                next_retry_at = excluded.next_retry_at, quarantined = excluded.quarantined,
                updated_at = excluded.updated_at""",
                [
                    collection,
                    next_retry_at.timestamp() if next_retry_at else None,
                    quarantined,
                    datetime.now(UTC).isoformat(),
                ],
            )

    def due_retries(self, now: datetime) -> list[tuple[str, datetime]]:
        """Collections whose earliest failed chunk may be tried again now, with that time."""
        with closing(self._connect()) as conn:
            rows = conn.execute(
                "SELECT collection, next_retry_at FROM collection_retries WHERE next_retry_at <= ? ORDER BY 1",
                [now.timestamp()],
            ).fetchall()
        return [(c, datetime.fromtimestamp(t, UTC)) for c, t in rows]
