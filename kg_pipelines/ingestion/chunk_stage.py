"""One per-chunk LLM stage over a set of documents: pick the chunks that need work, run them on
the worker pool with retries, write their rows and ``chunk_state`` in one transaction.

Extraction and question generation are both such stages; they differ only in the work done for a
chunk and the tables it fills.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Callable, Sequence

from kg_pipelines.ingestion.chunk_jobs import RetryPolicy, run_chunk_jobs
from kg_pipelines.ingestion.chunk_state import load_chunks, pending_chunks, refresh_document_status, state_row, write_states
from kg_pipelines.stores.warehouse import insert_rows, transaction


@dataclass
class ChunkStageReport:
    chunks: int = 0
    chunks_processed: int = 0
    chunks_failed: int = 0
    rows: dict[str, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)  # error kind -> failed chunks


def run_chunk_stage(
    conn,
    stage: str,
    document_ids: Sequence[str],
    work: Callable[[dict], dict[str, list[dict]]],
    tables: Sequence[str],
    policy: RetryPolicy,
    workers: int,
    now: datetime,
    progress: Callable[[int], Callable[[int], None]] | None = None,
    before_commit: Callable[[list[dict], dict[str, list[dict]]], None] | None = None,
) -> ChunkStageReport:
    """``work(chunk) -> {table: rows}`` for every chunk that needs ``stage``.

    ``before_commit(processed_chunks, rows)`` runs before the DuckDB transaction (for vector
    writes). The ``chunk_state.output_count`` of a chunk is the number of rows of ``tables[0]``.
    ``progress(total)`` starts progress reporting for the chunks to process and returns the
    function to call as each one finishes.
    """
    chunks = load_chunks(conn, document_ids)
    pending = pending_chunks(conn, stage, chunks)
    by_id = {c["chunk_id"]: c for c in pending}
    tick = progress(len(pending)) if progress else None
    outcomes = run_chunk_jobs(
        [(c["chunk_id"], (lambda c=c: work(c))) for c in pending],
        policy,
        workers,
        (lambda _o: tick(1)) if tick else None,
    )
    rows: dict[str, list[dict]] = {t: [] for t in tables}
    states = []
    report = ChunkStageReport(chunks=len(chunks), chunks_processed=len(pending))
    for chunk_id, outcome in outcomes.items():
        chunk = by_id[chunk_id]
        count = None
        if outcome.ok:
            for table in tables:
                rows[table] += outcome.value.get(table, [])
            count = len(outcome.value.get(tables[0], []))
        else:
            report.chunks_failed += 1
            report.errors[outcome.error_kind] = report.errors.get(outcome.error_kind, 0) + 1
        states.append(state_row(outcome, chunk["document_id"], stage, chunk["text_hash"], count, now))
    report.rows = {t: len(r) for t, r in rows.items()}
    if before_commit:
        before_commit(pending, rows)
    with transaction(conn):
        for table in tables:
            conn.execute(f"DELETE FROM {table} WHERE chunk_id IN (SELECT unnest(?::VARCHAR[]))", [list(by_id)])
            insert_rows(conn, table, rows[table])
        write_states(conn, stage, states)
        refresh_document_status(conn, list(document_ids), now)
    return report
