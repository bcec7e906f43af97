"""``chunk_state``: per chunk and stage, the input it was built from, attempts, status and why.

Every per-chunk LLM stage (summarize, extract, questions) decides from it what to do. A chunk's
stage runs again only when
- it has no state yet, or its ``input_hash`` differs from the current one: the hash covers the
  chunk text and the LLM fingerprint of the stage (provider, model, prompt, entity types, the
  stage's settings), so switching provider or model re-processes exactly the affected chunks;
- it ``failed`` and its ``next_run_at`` has come (the retry sensor launches that run);
- its document is re-processed on purpose (``SyncScope.only``).
A failed run of a chunk is one *round* (itself up to ``max_chunk_retries`` attempts with backoff);
rounds are spaced by growing delays, and after ``max_retry_rounds`` rounds the chunk is
``quarantined``: left alone until its input changes or ``kg-pipelines retry`` re-queues it.
A document's status is derived from these rows (the ``document_status`` view), never stored.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timedelta

import duckdb

from kg_pipelines.ingestion.chunk_jobs import ChunkOutcome
from kg_pipelines.stores.warehouse import fetch_dicts, insert_rows


def expected_input_sql(alias: str = "c") -> str:
    """The current input hash of a chunk's stage, in SQL (parameter: the stage fingerprint)."""
    return f"md5({alias}.text_hash || ':' || ?)"


def pending_chunks(conn: duckdb.DuckDBPyConnection, stage: str, scope, fingerprint: str, now: datetime) -> list[dict]:
    """The scope's chunks whose ``stage`` must run, with their current ``input_hash``."""
    where, params = scope.sql_filter("c")
    forced = sorted(scope.only) if scope.only is not None else []
    return fetch_dicts(
        conn,
        f"""SELECT c.chunk_id, c.document_id, c.collection, c.seq, c.text, c.text_hash, c.summary,
               {expected_input_sql()} AS input_hash
        FROM chunks c
        LEFT JOIN chunk_state s ON s.chunk_id = c.chunk_id AND s.stage = ?
        WHERE {where} AND (
            s.chunk_id IS NULL
            OR s.input_hash IS DISTINCT FROM {expected_input_sql()}
            OR (s.status = 'failed' AND coalesce(s.next_run_at, ?) <= ?)
            OR c.document_id IN (SELECT unnest(?::VARCHAR[])))
        ORDER BY c.document_id, c.seq""",
        [fingerprint, stage, *params, fingerprint, now, now, forced],
    )


def previous_states(conn: duckdb.DuckDBPyConnection, stage: str, chunk_ids: Sequence[str]) -> dict[str, dict]:
    rows = fetch_dicts(
        conn,
        "SELECT chunk_id, input_hash, rounds, status FROM chunk_state "
        "WHERE stage = ? AND chunk_id IN (SELECT unnest(?::VARCHAR[]))",
        [stage, list(chunk_ids)],
    )
    return {r["chunk_id"]: r for r in rows}


def state_row(
    outcome: ChunkOutcome,
    chunk: dict,
    stage: str,
    input_hash: str,
    output_count: int | None,
    now: datetime,
    previous: dict | None,
    jobs,
    dropped: dict | None = None,
) -> dict:
    """The new state of a chunk's stage after one round. ``jobs``: the ``chunk_jobs`` settings."""
    same_input = previous is not None and previous["input_hash"] == input_hash
    rounds = 0 if outcome.ok else (previous["rounds"] if same_input else 0) + 1
    if outcome.ok:
        status, next_run_at = "done", None
    elif rounds >= jobs.max_retry_rounds:
        status, next_run_at = "quarantined", None
    else:
        status, next_run_at = "failed", now + timedelta(seconds=jobs.round_delay(rounds))
    return {
        "chunk_id": outcome.chunk_id,
        "document_id": chunk["document_id"],
        "collection": chunk["collection"],
        "stage": stage,
        "attempts": outcome.attempts,
        "status": status,
        "error_kind": outcome.error_kind if not outcome.ok else None,
        "last_error": outcome.last_error if not outcome.ok else None,
        "input_hash": input_hash,
        "output_count": output_count,
        "dropped": json.dumps(dropped) if dropped else None,
        "rounds": rounds,
        "updated_at": now,
        "next_run_at": next_run_at,
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


def orphaned_chunk_ids(conn: duckdb.DuckDBPyConnection, stage: str, scope) -> list[str]:
    """Chunks the ``stage`` has state for that no longer exist (document removed or re-chunked)."""
    where, params = scope.sql_filter("s")
    rows = conn.execute(
        f"SELECT s.chunk_id FROM chunk_state s WHERE s.stage = ? AND {where} "
        "AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.chunk_id = s.chunk_id)",
        [stage, *params],
    ).fetchall()
    return [r[0] for r in rows]


def delete_chunk_rows(
    conn: duckdb.DuckDBPyConnection, stage: str, tables: Sequence[str], chunk_ids: Sequence[str]
) -> None:
    """Delete a stage's own rows (its tables and its state) for ``chunk_ids`` (inside a transaction)."""
    if not chunk_ids:
        return
    ids = list(chunk_ids)
    for table in tables:
        conn.execute(f"DELETE FROM {table} WHERE chunk_id IN (SELECT unnest(?::VARCHAR[]))", [ids])
    conn.execute("DELETE FROM chunk_state WHERE stage = ? AND chunk_id IN (SELECT unnest(?::VARCHAR[]))", [stage, ids])


def next_retry_at(conn: duckdb.DuckDBPyConnection, collection: str) -> datetime | None:
    """When the collection's earliest failed chunk may be tried again (None: nothing waits)."""
    return conn.execute(
        "SELECT min(next_run_at) FROM chunk_state WHERE collection = ? AND status = 'failed'", [collection]
    ).fetchone()[0]


def requeue_quarantined(conn: duckdb.DuckDBPyConnection, collection: str | None, now: datetime) -> dict[str, int]:
    """Make quarantined chunks due again with a fresh round count; returns counts per collection."""
    where = "status = 'quarantined'" + (" AND collection = ?" if collection else "")
    params = [collection] if collection else []
    counts = dict(
        conn.execute(f"SELECT collection, count(*) FROM chunk_state WHERE {where} GROUP BY 1", params).fetchall()
    )
    conn.execute(f"UPDATE chunk_state SET status = 'failed', rounds = 0, next_run_at = ? WHERE {where}", [now, *params])
    return counts
