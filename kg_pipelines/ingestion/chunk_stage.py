"""One per-chunk LLM stage, synced over a collection: drop the rows of chunks that are gone, pick
the chunks that need work (``chunk_state.pending_chunks``), run them on the worker pool with
retries, and write their rows and states batch by batch, one transaction per batch, so a crash
loses at most the batch in flight and the next run resumes where this one stopped.

Extraction and question generation are both such stages; they differ only in the work done for a
chunk and the tables they own. A stage writes only its own tables and its own ``chunk_state`` rows.

Every chunk done gets a line (seed 003's per-chunk metrics: chunk id, the rows of each table, e.g.
entity and relationship counts, the seconds spent in the model call, the attempts), logged at DEBUG
on ``kg_pipelines.ingestion.chunk_stage`` as one record per batch (``chunk_jobs.commit_every``
chunks): Dagster records what the ``kg_pipelines`` loggers say during a step in the run's log
(``python_logs`` in ``dagster.yaml``), and each record costs the event log a write (about 30 ms
measured in SQLite on 2 busy cores), so a record per chunk would cost a 10,000-chunk run minutes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from kg_pipelines.ingestion.activity import RunActivity
from kg_pipelines.ingestion.batches import write_in_batches
from kg_pipelines.ingestion.chunk_jobs import run_chunk_jobs
from kg_pipelines.ingestion.chunk_state import (
    delete_chunk_rows,
    orphaned_chunk_ids,
    pending_chunks,
    previous_states,
    state_row,
    write_states,
)
from kg_pipelines.stores.warehouse import insert_rows, transaction

log = logging.getLogger(__name__)


@dataclass
class ChunkStageReport:
    chunks: int = 0  # chunks of the scope
    chunks_processed: int = 0
    chunks_failed: int = 0
    chunks_quarantined: int = 0
    chunks_removed: int = 0  # chunks that no longer exist, whose rows this run deleted
    rows: dict[str, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)  # error kind -> failed chunks
    dropped: dict[str, int] = field(default_factory=dict)  # what post-processing left out, by reason
    activity: RunActivity = field(default_factory=RunActivity)  # what this run did, first documents by id

    def stats(self) -> dict:
        return {
            "chunks": self.chunks,
            "chunks_processed": self.chunks_processed,
            "chunks_failed": self.chunks_failed,
            "chunks_quarantined": self.chunks_quarantined,
            "chunks_removed": self.chunks_removed,
            **{f"dropped_{k}": v for k, v in self.dropped.items()},
        }


def run_chunk_stage(
    ctx,
    scope,
    stage: str,
    fingerprint: str,
    work: Callable[[dict], dict],
    tables: Sequence[str],
    write_vectors: Callable[[list[dict], dict[str, list[dict]]], None] | None = None,
    delete_vectors: Callable[[list[str]], None] | None = None,
) -> ChunkStageReport:
    """``work(chunk) -> {table: rows, "dropped": {...}}`` for every chunk of ``scope`` that needs ``stage``.

    ``write_vectors(chunks, rows)`` runs before each batch's DuckDB transaction (vectors first: if
    the DuckDB write fails, the next run rewrites both); ``delete_vectors(chunk_ids)`` removes the
    vectors of chunks that are gone. ``chunk_state.output_count`` is the number of rows of ``tables[0]``.
    """
    conn = ctx.conn
    report = ChunkStageReport(rows={t: 0 for t in tables})
    gone = orphaned_chunk_ids(conn, stage, scope)
    if gone:
        if delete_vectors:
            delete_vectors(gone)
        with transaction(conn):
            delete_chunk_rows(conn, stage, tables, gone)
        report.chunks_removed = len(gone)
    where, params = scope.sql_filter()
    report.chunks = conn.execute(f"SELECT count(*) FROM chunks WHERE {where}", params).fetchone()[0]
    pending = pending_chunks(conn, stage, scope, fingerprint, ctx.now())
    report.chunks_processed = len(pending)
    tick = ctx.progress(f"{stage} (chunks)", len(pending))
    batches = (pending[i : i + ctx.batch_size] for i in range(0, len(pending), ctx.batch_size))

    def prepare(batch: list[dict]) -> _Prepared:
        return _prepare_batch(ctx, stage, batch, work, tables, tick, report)

    def vectors(prepared: _Prepared) -> None:
        write_vectors(prepared.replaced_chunks, prepared.rows)

    def commit(prepared: _Prepared) -> None:
        with transaction(conn):
            for table in tables:
                conn.execute(
                    f"DELETE FROM {table} WHERE chunk_id IN (SELECT unnest(?::VARCHAR[]))", [prepared.replaced]
                )
                report.rows[table] += insert_rows(conn, table, prepared.rows[table])
            write_states(conn, stage, prepared.states)

    write_in_batches(batches, prepare, vectors if write_vectors else None, commit)
    report.activity.done()
    return report


@dataclass
class _Prepared:
    rows: dict[str, list[dict]]
    states: list[dict]
    replaced: list[str]  # chunk ids whose rows this batch replaces
    replaced_chunks: list[dict]


def _prepare_batch(ctx, stage, batch, work, tables, tick, report: ChunkStageReport) -> _Prepared:
    """The LLM work of a batch, its rows and its chunk states (nothing written yet)."""
    previous = previous_states(ctx.conn, stage, [c["chunk_id"] for c in batch])
    outcomes = run_chunk_jobs(
        [(c["chunk_id"], (lambda c=c: work(c))) for c in batch], ctx.retry_policy, ctx.workers, lambda _o: tick(1)
    )
    now = ctx.now()
    rows: dict[str, list[dict]] = {t: [] for t in tables}
    states, replaced = [], []
    for chunk in batch:
        outcome, before = outcomes[chunk["chunk_id"]], previous.get(chunk["chunk_id"])
        done = {"chunks": 1, "failed": 0, **{t: 0 for t in tables}}  # summed into the document's record
        error = None
        count, dropped = None, None
        if outcome.ok:
            for table in tables:
                found = outcome.value.get(table, [])
                rows[table] += found
                done[table] = len(found)
            count = len(outcome.value.get(tables[0], []))
            dropped = outcome.value.get("dropped")
            for reason, n in (dropped or {}).items():
                report.dropped[reason] = report.dropped.get(reason, 0) + n
            replaced.append(chunk["chunk_id"])
        else:
            report.chunks_failed += 1
            report.errors[outcome.error_kind] = report.errors.get(outcome.error_kind, 0) + 1
            done["failed"] = 1
            error = f"{outcome.error_kind}: {outcome.last_error}"
            if before is None or before["input_hash"] != chunk["input_hash"]:
                replaced.append(chunk["chunk_id"])  # rows built from an older input are stale
        state = state_row(
            outcome, chunk, stage, chunk["input_hash"], count, now, before, ctx.settings.chunk_jobs, dropped
        )
        report.chunks_quarantined += state["status"] == "quarantined"
        states.append(state)
        report.activity.add(chunk["document_id"], done, error=error)  # chunks come in document order
    log_chunks(stage, [outcomes[c["chunk_id"]] for c in batch], tables)
    replaced_set = set(replaced)
    return _Prepared(rows, states, replaced, [c for c in batch if c["chunk_id"] in replaced_set])


def chunk_line(stage: str, outcome, tables: Sequence[str]) -> str:
    """``extract chunk <id>: 4 entities, 3 relationships; model 0.012 s, 1 attempt(s)``."""
    if outcome.ok:
        what = ", ".join(f"{len(outcome.value.get(t, []))} {t}" for t in tables)
    else:
        what = f"failed ({outcome.error_kind}: {outcome.last_error})"
    return f"{stage} chunk {outcome.chunk_id}: {what}; model {outcome.model_s:.3f} s, {outcome.attempts} attempt(s)"


def log_chunks(stage: str, outcomes: Sequence, tables: Sequence[str]) -> None:
    """One DEBUG record for a batch: a line per chunk (see the module doc)."""
    if outcomes and log.isEnabledFor(logging.DEBUG):
        failed = sum(not o.ok for o in outcomes)
        model_s = sum(o.model_s for o in outcomes)
        lines = "\n".join(chunk_line(stage, o, tables) for o in outcomes)
        log.debug(
            "%s: %d chunk(s) done, %d failed, model %.3f s in all; per chunk:\n%s",
            stage,
            len(outcomes),
            failed,
            model_s,
            lines,
        )
