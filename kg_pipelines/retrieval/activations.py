"""Usage feeds the graph: the edges a search path or an answer used are reinforced.

Readers (API, CLI) must never wait for DuckDB's one writer, so they do not write the graph. They
append what they used to a queue, and the unpartitioned ``edge_activations`` asset (pool
``duckdb``) applies the queue in short transactions:

- **queue**: ``<data_dir>/activations.sqlite``, table ``activation_queue`` (id, edge_id, used_by,
  used_at), append-only from readers; SQLite in WAL mode makes each append atomic and durable, and
  many reader processes may append at once.
- **apply** (``apply_activations``): read up to ``batch`` queued rows, and in **one DuckDB
  transaction** insert them into the ``edge_activations`` table (the log of what was applied, keyed
  by the queue id) *and* update ``kg_edges`` for the rows the log did not hold yet:
  ``activation_count += uses``, ``last_activated_at = latest use``, and
  ``strength <- 1 - (1 - strength) * (1 - reinforcement) ** uses``.
  Only after that commit are the rows deleted from the queue. A crash between the two leaves rows
  in the queue that the log already holds: the next run skips them (anti-join on the id) and then
  deletes them, so no activation is ever applied twice, and none is lost.
- A queued edge id that an edge merge (consolidation) or a type re-key (graph building) replaced
  since it was queued is applied to the edge that carries it now (``edge_aliases``).
- The consolidation schedules later keep what is used (recent ``last_activated_at``, high
  ``activation_count``) and let the rest decay.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterable
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pyarrow as pa

from kg_pipelines.stores.warehouse import transaction

log = logging.getLogger(__name__)
QUEUE_FILE = "activations.sqlite"
_CREATE = """CREATE TABLE IF NOT EXISTS activation_queue (
    id INTEGER PRIMARY KEY AUTOINCREMENT, edge_id TEXT NOT NULL, used_by TEXT NOT NULL, used_at TEXT NOT NULL)"""


def queue_path(settings) -> Path:
    return Path(settings.data_dir) / QUEUE_FILE


def _open(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), timeout=30.0, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute(_CREATE)
    return conn


def record_activations(settings, edge_ids: Iterable[str], used_by: str, now: datetime | None = None) -> int:
    """Queue one use of each edge (``used_by``: 'search' or 'qa'); returns how many were queued."""
    if not settings.activations.enabled:
        return 0
    edges = sorted({e for e in edge_ids if e})
    if not edges:
        return 0
    used_at = (now or datetime.now(UTC)).isoformat()
    try:
        with closing(_open(queue_path(settings))) as conn:
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany(
                "INSERT INTO activation_queue (edge_id, used_by, used_at) VALUES (?, ?, ?)",
                [(edge, used_by, used_at) for edge in edges],
            )
            conn.execute("COMMIT")
    except (sqlite3.Error, OSError) as exc:
        # bookkeeping must never fail the search or answer that used the edges
        log.warning("could not queue %d edge activation(s) in %s: %s", len(edges), queue_path(settings), exc)
        return 0
    return len(edges)


def pending_activations(settings) -> int:
    """How many uses wait in the queue (the sensor's question; never touches DuckDB)."""
    path = queue_path(settings)
    if not path.exists():
        return 0
    with closing(_open(path)) as conn:
        return conn.execute("SELECT count(*) FROM activation_queue").fetchone()[0]


def last_queued_id(settings) -> int:
    path = queue_path(settings)
    if not path.exists():
        return 0
    with closing(_open(path)) as conn:
        return conn.execute("SELECT coalesce(max(id), 0) FROM activation_queue").fetchone()[0]


@dataclass
class ActivationReport:
    applied: int  # queued uses applied now
    skipped: int  # queued uses an earlier, interrupted run had applied already
    edges_updated: int
    missing_edges: int  # uses of edges the graph no longer has (logged, nothing to update)
    batches: int


def apply_activations(
    conn: duckdb.DuckDBPyConnection, settings, now: datetime | None = None, crash_after_commit=None
) -> ActivationReport:
    """Apply the queue to ``kg_edges`` in batches, each one DuckDB transaction (see the module doc).
    ``crash_after_commit`` is for tests: called between the DuckDB commit and the queue delete."""
    report = ActivationReport(0, 0, 0, 0, 0)
    path = queue_path(settings)
    if not path.exists():
        return report
    now = now or datetime.now(UTC)
    factor = 1.0 - settings.activations.reinforcement
    with closing(_open(path)) as queue:
        while True:
            rows = queue.execute(
                "SELECT id, edge_id, used_by, used_at FROM activation_queue ORDER BY id LIMIT ?",
                [settings.activations.batch],
            ).fetchall()
            if not rows:
                return report
            staged = pa.table(
                {
                    "activation_id": pa.array([r[0] for r in rows], pa.int64()),
                    "edge_id": [r[1] for r in rows],
                    "used_by": [r[2] for r in rows],
                    "used_at": pa.array([datetime.fromisoformat(r[3]) for r in rows], pa.timestamp("us", tz="UTC")),
                }
            )
            conn.register("_queued_activations", staged)
            try:
                with transaction(conn):
                    conn.execute(
                        """CREATE OR REPLACE TEMP TABLE _new_activations AS
                        SELECT q.activation_id, coalesce(a.edge_id, q.edge_id) AS edge_id, q.used_by, q.used_at
                        FROM _queued_activations q
                        LEFT JOIN edge_aliases a
                          ON a.absorbed_edge_id = q.edge_id AND a.edge_id IN (SELECT edge_id FROM kg_edges)
                        WHERE q.activation_id NOT IN (SELECT activation_id FROM edge_activations)"""
                    )
                    new = conn.execute("SELECT count(*) FROM _new_activations").fetchone()[0]
                    missing = conn.execute(
                        "SELECT count(*) FROM _new_activations WHERE edge_id NOT IN (SELECT edge_id FROM kg_edges)"
                    ).fetchone()[0]
                    updated = conn.execute(
                        """UPDATE kg_edges SET activation_count = activation_count + u.uses,
                               last_activated_at = greatest(coalesce(last_activated_at, u.last_use), u.last_use),
                               strength = 1 - (1 - strength) * pow(?, u.uses)
                        FROM (SELECT edge_id, count(*)::INTEGER AS uses, max(used_at) AS last_use
                              FROM _new_activations GROUP BY edge_id) u
                        WHERE kg_edges.edge_id = u.edge_id""",
                        [factor],
                    ).fetchone()[0]
                    conn.execute(
                        """INSERT INTO edge_activations (activation_id, edge_id, used_by, used_at, applied_at,
                               edge_found)
                        SELECT activation_id, edge_id, used_by, used_at, ?,
                               edge_id IN (SELECT edge_id FROM kg_edges)
                        FROM _new_activations""",
                        [now],
                    )
                    conn.execute("DROP TABLE IF EXISTS _new_activations")
            finally:
                conn.unregister("_queued_activations")
            if crash_after_commit is not None:
                crash_after_commit()
            queue.execute("BEGIN IMMEDIATE")
            queue.execute("DELETE FROM activation_queue WHERE id <= ?", [rows[-1][0]])
            queue.execute("COMMIT")
            report.applied += new
            report.skipped += len(rows) - new
            report.edges_updated += updated
            report.missing_edges += missing
            report.batches += 1
