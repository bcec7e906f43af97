"""``chunk_state``: per chunk and stage, how many attempts, done or failed, and why.

Stages that call the LLM per chunk (summarize, extract, questions) use it to decide what to do:
a chunk is processed again only if it has no state yet, it failed, or its input changed. After a
stage writes, ``refresh_document_status`` derives each document's status from its chunks' states:
Done when every stage is done for every chunk, PartiallyFailed when any chunk failed, Pending while
a stage has not run yet. (Failed is set by the documents stage for files that cannot be read.)
"""

from __future__ import annotations

from datetime import datetime
from typing import Sequence

import duckdb

from kg_pipelines.ingestion.chunk_jobs import ChunkOutcome
from kg_pipelines.stores.warehouse import delete_where_in, fetch_dicts, insert_rows

STAGES = ("summarize", "extract", "questions")


def load_chunks(conn: duckdb.DuckDBPyConnection, document_ids: Sequence[str]) -> list[dict]:
    return fetch_dicts(
        conn,
        "SELECT chunk_id, document_id, collection, seq, text, text_hash, summary FROM chunks "
        "WHERE document_id IN (SELECT unnest(?::VARCHAR[])) ORDER BY document_id, seq",
        [list(document_ids)],
    )


def pending_chunks(conn: duckdb.DuckDBPyConnection, stage: str, chunks: list[dict]) -> list[dict]:
    """The chunks whose ``stage`` must run: no state, failed, or input (text hash) changed."""
    done = {
        row[0]: row[1]
        for row in conn.execute(
            "SELECT chunk_id, input_hash FROM chunk_state WHERE stage = ? AND status = 'done' "
            "AND chunk_id IN (SELECT unnest(?::VARCHAR[]))",
            [stage, [c["chunk_id"] for c in chunks]],
        ).fetchall()
    }
    return [c for c in chunks if done.get(c["chunk_id"]) != c["text_hash"]]


def state_row(
    outcome: ChunkOutcome, document_id: str, stage: str, input_hash: str, output_count: int | None, now: datetime
) -> dict:
    return {
        "chunk_id": outcome.chunk_id,
        "document_id": document_id,
        "stage": stage,
        "attempts": outcome.attempts,
        "status": "done" if outcome.ok else "failed",
        "error_kind": outcome.error_kind,
        "last_error": outcome.last_error,
        "input_hash": input_hash,
        "output_count": output_count,
        "updated_at": now,
        "next_run_at": outcome.next_run_at,
    }


def write_states(conn: duckdb.DuckDBPyConnection, stage: str, rows: list[dict]) -> None:
    """Replace the ``stage`` state of the given chunks (call inside the stage's transaction)."""
    if not rows:
        return
    conn.execute(
        "DELETE FROM chunk_state WHERE stage = ? AND chunk_id IN (SELECT unnest(?::VARCHAR[]))",
        [stage, [r["chunk_id"] for r in rows]],
    )
    insert_rows(conn, "chunk_state", rows)


def delete_stale(conn: duckdb.DuckDBPyConnection, tables: Sequence[str], document_ids: Sequence[str]) -> None:
    """Drop rows of chunks that no longer exist (a re-chunked document got fewer chunks)."""
    if not document_ids:
        return
    for table in tables:
        conn.execute(
            f"DELETE FROM {table} WHERE document_id IN (SELECT unnest(?::VARCHAR[])) "
            "AND chunk_id NOT IN (SELECT chunk_id FROM chunks)",
            [list(document_ids)],
        )


def refresh_document_status(conn: duckdb.DuckDBPyConnection, document_ids: Sequence[str], now: datetime) -> None:
    if not document_ids:
        return
    conn.execute(
        """
        UPDATE documents SET status = s.status, updated_at = ?
        FROM (
            SELECT c.document_id,
                CASE
                    WHEN count(*) FILTER (WHERE st.status = 'failed') > 0 THEN 'PartiallyFailed'
                    WHEN count(*) FILTER (WHERE st.status = 'done') = count(DISTINCT c.chunk_id) * ? THEN 'Done'
                    ELSE 'Pending'
                END AS status
            FROM chunks c
            LEFT JOIN chunk_state st ON st.chunk_id = c.chunk_id
            WHERE c.document_id IN (SELECT unnest(?::VARCHAR[]))
            GROUP BY c.document_id
        ) s
        WHERE documents.document_id = s.document_id AND documents.status <> 'Failed'
        """,
        [now, len(STAGES), list(document_ids)],
    )


def clear_document_state(conn: duckdb.DuckDBPyConnection, document_ids: Sequence[str]) -> None:
    delete_where_in(conn, "chunk_state", "document_id", document_ids)
