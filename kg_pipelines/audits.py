"""Audits of the warehouse: each a query for rows that break a rule, reported as an ``AuditFinding``.

The Dagster asset checks run these; so can tests, the CLI and the API. A finding passes when no
row breaks the rule; it carries the count and a few examples to look at.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import duckdb

from kg_pipelines.ingestion.chunk_state import expected_input_sql
from kg_pipelines.ingestion.context import SyncScope
from kg_pipelines.ingestion.extraction import entity_node_id


@dataclass
class AuditFinding:
    rule: str
    violations: int
    examples: list = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.violations == 0

    @property
    def summary(self) -> str:
        return f"{self.rule}: ok" if self.passed else f"{self.rule}: {self.violations} violation(s)"


def _finding(conn: duckdb.DuckDBPyConnection, rule: str, sql: str, params: list | None = None) -> AuditFinding:
    rows = conn.execute(sql, params or []).fetchall()
    return AuditFinding(rule, len(rows), [list(map(str, r)) for r in rows[:10]])


def dangling_edges(conn: duckdb.DuckDBPyConnection) -> AuditFinding:
    return _finding(
        conn,
        "edges whose source or target is not a node",
        """SELECT edge_id, source_id, target_id FROM kg_edges
        WHERE source_id NOT IN (SELECT node_id FROM kg_nodes) OR target_id NOT IN (SELECT node_id FROM kg_nodes)""",
    )


def _in(collection: str | None, alias: str = "") -> tuple[str, list]:
    """The rows of ``collection`` (all rows when None), as a WHERE fragment and its parameters."""
    return SyncScope(collection).sql_filter(alias) if collection else ("true", [])


def chunks_without_extraction(
    conn: duckdb.DuckDBPyConnection, collection: str | None, fingerprint: str
) -> AuditFinding:
    """Chunks the extraction stage left unprocessed: no state for their current input (text and
    LLM settings). A recorded failure counts as processed: it is visible, retried and quarantined."""
    where, params = _in(collection, "c")
    return _finding(
        conn,
        "chunks without an extraction result for their current text and LLM settings",
        f"""SELECT c.chunk_id FROM chunks c
        LEFT JOIN chunk_state s ON s.chunk_id = c.chunk_id AND s.stage = 'extract'
            AND s.input_hash = {expected_input_sql("c")}
        WHERE {where} AND s.chunk_id IS NULL""",
        [fingerprint, *params],
    )


def invalid_entities(
    conn: duckdb.DuckDBPyConnection, entity_types: tuple[str, ...], collection: str | None = None
) -> AuditFinding:
    where, params = _in(collection)
    rows = conn.execute(
        f"SELECT entity_id, name, entity_type, description, node_id FROM entities WHERE {where}", params
    ).fetchall()
    bad = [
        [entity_id, name, entity_type]
        for entity_id, name, entity_type, description, node_id in rows
        if entity_type not in entity_types
        or not name.strip()
        or not description.strip()
        or node_id != entity_node_id(name, entity_type)
    ]
    return AuditFinding("entities outside the schema contract", len(bad), bad[:10])


def invalid_relationships(conn: duckdb.DuckDBPyConnection, collection: str | None = None) -> AuditFinding:
    where, params = _in(collection, "r")
    return _finding(
        conn,
        "relationships outside the schema contract",
        f"""SELECT r.relationship_id, r.source_name, r.target_name FROM relationships r
        WHERE {where} AND (trim(r.description) = '' OR len(r.tags) = 0 OR r.source_node_id = r.target_node_id
           OR NOT EXISTS (SELECT 1 FROM entities e WHERE e.chunk_id = r.chunk_id AND e.node_id = r.source_node_id)
           OR NOT EXISTS (SELECT 1 FROM entities e WHERE e.chunk_id = r.chunk_id AND e.node_id = r.target_node_id))""",
        params,
    )


def question_counts_out_of_range(
    conn: duckdb.DuckDBPyConnection, low: int, high: int, collection: str | None = None
) -> AuditFinding:
    where, params = _in(collection, "s")
    return _finding(
        conn,
        f"chunks whose question count is outside [{low}, {high}]",
        f"""SELECT s.chunk_id, count(DISTINCT lower(trim(q.question))) FILTER (WHERE trim(q.question) <> '') AS n
        FROM chunk_state s LEFT JOIN atomic_questions q ON q.chunk_id = s.chunk_id
        WHERE {where} AND s.stage = 'questions' AND s.status = 'done'
        GROUP BY s.chunk_id HAVING n < ? OR n > ?""",
        [*params, low, high],
    )


def quarantined_chunks(conn: duckdb.DuckDBPyConnection, collection: str | None = None) -> AuditFinding:
    where, params = _in(collection)
    return _finding(
        conn,
        "quarantined chunks (failed every retry round; `kg-pipelines retry` re-queues them)",
        f"""SELECT chunk_id, stage, rounds, error_kind, last_error FROM chunk_state
        WHERE {where} AND status = 'quarantined' ORDER BY chunk_id, stage""",
        params,
    )
