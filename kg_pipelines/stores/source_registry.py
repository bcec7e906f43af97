"""Which file is behind each document: the source registry (a small SQLite file in the data dir).

The sensor and the CLI register files here when they request a run; the ``documents`` asset reads
it to find a partition's file. SQLite, not DuckDB, because a sensor must never open the DuckDB
warehouse (one writer per file) and SQLite takes short writes from several processes.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable, Sequence


@dataclass(frozen=True)
class Source:
    document_id: str
    collection: str
    path: str
    content_hash: str | None
    mtime: float | None


class SourceRegistry:
    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with closing(self._connect()) as conn, conn:
            conn.execute(
                """CREATE TABLE IF NOT EXISTS sources (
                    document_id TEXT PRIMARY KEY, collection TEXT NOT NULL, path TEXT NOT NULL,
                    content_hash TEXT, mtime REAL, registered_at TEXT NOT NULL)"""
            )

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")
        return conn

    def register(self, sources: Iterable[Source]) -> None:
        now = datetime.now(timezone.utc).isoformat()
        with closing(self._connect()) as conn, conn:
            conn.executemany(
                """INSERT INTO sources VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (document_id) DO UPDATE SET collection = excluded.collection, path = excluded.path,
                    content_hash = excluded.content_hash, mtime = excluded.mtime, registered_at = excluded.registered_at""",
                [(s.document_id, s.collection, s.path, s.content_hash, s.mtime, now) for s in sources],
            )

    def lookup(self, document_ids: Sequence[str]) -> dict[str, Source]:
        found: dict[str, Source] = {}
        with closing(self._connect()) as conn:
            for i in range(0, len(document_ids), 500):
                part = list(document_ids[i : i + 500])
                marks = ",".join("?" * len(part))
                for row in conn.execute(
                    f"SELECT document_id, collection, path, content_hash, mtime FROM sources WHERE document_id IN ({marks})",
                    part,
                ):
                    found[row[0]] = Source(*row)
        return found

    def all(self) -> list[Source]:
        with closing(self._connect()) as conn:
            rows = conn.execute("SELECT document_id, collection, path, content_hash, mtime FROM sources ORDER BY document_id")
            return [Source(*row) for row in rows]

    def by_path(self, path: str) -> Source | None:
        with closing(self._connect()) as conn:
            row = conn.execute(
                "SELECT document_id, collection, path, content_hash, mtime FROM sources WHERE path = ?", [path]
            ).fetchone()
        return Source(*row) if row else None

    def forget(self, document_ids: Sequence[str]) -> None:
        with closing(self._connect()) as conn, conn:
            conn.executemany("DELETE FROM sources WHERE document_id = ?", [(d,) for d in document_ids])
