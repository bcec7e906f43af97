"""Audits of the warehouse: each a query for rows that break a rule, reported as an ``AuditFinding``.

The Dagster asset checks run these; so can tests, the CLI and the API. A finding passes when no
row breaks the rule; it carries the count and a few examples to look at.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import duckdb

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


def done_chunks_without_extraction(conn: duckdb.DuckDBPyConnection) -> AuditFinding:
    return _finding(
        conn,
        "chunks of Done documents without a done extraction",
        """SELECT c.chunk_id FROM chunks c JOIN documents d USING (document_id)
        LEFT JOIN chunk_state s ON s.chunk_id = c.chunk_id AND s.stage = 'extract' AND s.status = 'done'
        WHERE d.status = 'Done' AND s.chunk_id IS NULL""",
    )


def invalid_entities(conn: duckdb.DuckDBPyConnection, entity_types: tuple[str, ...]) -> AuditFinding:
    rows = conn.execute("SELECT entity_id, name, entity_type, description, node_id FROM entities").fetchall()
    bad = [
        [entity_id, name, entity_type]
        for entity_id, name, entity_type, description, node_id in rows
        if entity_type not in entity_types
        or not name.strip()
        or not description.strip()
        or node_id != entity_node_id(name, entity_type)
    ]
    return AuditFinding("entities outside the schema contract", len(bad), bad[:10])


def invalid_relationships(conn: duckdb.DuckDBPyConnection) -> AuditFinding:
    return _finding(
        conn,
        "relationships outside the schema contract",
        """SELECT r.relationship_id, r.source_name, r.target_name FROM relationships r
        WHERE trim(r.description) = '' OR len(r.tags) = 0 OR r.source_node_id = r.target_node_id
           OR NOT EXISTS (SELECT 1 FROM entities e WHERE e.chunk_id = r.chunk_id AND e.node_id = r.source_node_id)
           OR NOT EXISTS (SELECT 1 FROM entities e WHERE e.chunk_id = r.chunk_id AND e.node_id = r.target_node_id)""",
    )


def question_counts_out_of_range(conn: duckdb.DuckDBPyConnection, low: int, high: int) -> AuditFinding:
    return _finding(
        conn,
        f"chunks whose question count is outside [{low}, {high}]",
        """SELECT s.chunk_id, count(DISTINCT lower(trim(q.question))) FILTER (WHERE trim(q.question) <> '') AS n
        FROM chunk_state s LEFT JOIN atomic_questions q ON q.chunk_id = s.chunk_id
        WHERE s.stage = 'questions' AND s.status = 'done'
        GROUP BY s.chunk_id HAVING n < ? OR n > ?""",
        [low, high],
    )
