"""Materialization metadata that makes each table readable in the Dagster UI: row counts, the
column schema (with each column's description from ``stores/table_docs.py``), and a preview of
the rows this run wrote."""

from __future__ import annotations

import re
from collections.abc import Sequence

from dagster import MetadataValue, TableColumn, TableSchema

from kg_pipelines.ingestion.activity import ACTIVITY_ROWS, RunActivity
from kg_pipelines.stores.table_docs import column_description
from kg_pipelines.stores.warehouse import SCHEMA, column_types

_CONSTRAINTS = {"PRIMARY", "UNIQUE", "FOREIGN", "CHECK", "CONSTRAINT"}
_COLUMN = re.compile(
    r"(?P<name>\w+)\s+(?P<type>.+?)"
    r"(?:\s+(?:USING\s+COMPRESSION|NOT\s+NULL|NULL|DEFAULT|PRIMARY\s+KEY|UNIQUE|CHECK|REFERENCES)\b.*)?",
    re.IGNORECASE | re.DOTALL,
)


def declared_columns(table: str) -> list[tuple[str, str]]:
    """(name, type) of each column of ``SCHEMA[table]``, table constraints such as a composite
    ``PRIMARY KEY (a, b)`` skipped (commas inside parentheses do not separate columns)."""
    parts, depth, start = [], 0, 0
    text = SCHEMA[table]
    for i, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    found = []
    for part in parts:
        part = part.strip()
        match = _COLUMN.fullmatch(part)
        if not part or part.split()[0].upper() in _CONSTRAINTS or match is None:
            continue
        found.append((match["name"], match["type"]))
    return found


def column_schema(table: str) -> TableSchema:
    """The declared schema (used as definition metadata, visible before the first run)."""
    return TableSchema(columns=[_column(table, name, type_) for name, type_ in declared_columns(table)])


def _column(table: str, name: str, type_: str) -> TableColumn:
    return TableColumn(name=name, type=type_.lower(), description=column_description(table, name))


def definition_metadata(table: str) -> dict:
    return {"dagster/column_schema": column_schema(table), "dagster/table_name": table}


def table_metadata(conn, table: str, scope=None, preview_columns: Sequence[str] | None = None) -> dict:
    """Row counts (whole table, and the partition's collection), schema and a preview of the partition."""
    where, params = scope.sql_filter() if scope is not None else ("true", [])
    return preview_table(conn, table, where, params, preview_columns, partition_where=(where, params))


def preview_table(
    conn,
    table: str,
    where: str,
    params: list,
    preview_columns: Sequence[str] | None = None,
    partition_where: tuple[str, list] | None = None,
    preview_rows: int = 8,
) -> dict:
    """``dagster/row_count`` (the table), ``dagster/partition_row_count`` (rows matching
    ``partition_where``), the column schema, and a preview of the rows matching ``where``."""
    total = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    part_sql, part_params = partition_where or ("true", [])
    in_partition = conn.execute(f"SELECT count(*) FROM {table} WHERE {part_sql}", part_params).fetchone()[0]
    schema = TableSchema(columns=[_column(table, n, t) for n, t in column_types(conn, table)])
    cols = list(preview_columns or [c.name for c in schema.columns])
    cursor = conn.execute(f"SELECT {', '.join(cols)} FROM {table} WHERE {where} LIMIT {preview_rows}", params)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in cursor.fetchall():
        lines.append("| " + " | ".join(_cell(v) for v in row) + " |")
    return {
        "dagster/row_count": total,
        "dagster/partition_row_count": in_partition,
        "dagster/column_schema": schema,
        "dagster/table_name": table,
        "preview": MetadataValue.md("\n".join(lines)),
    }


def activity_table(
    activity: RunActivity | dict[str, dict], columns: Sequence[str], cap: int = ACTIVITY_ROWS, total: int | None = None
) -> MetadataValue:
    """What a run did per document, as a Markdown table of at most ``cap`` rows and a count of the
    rest (``total``: the documents of the run when ``activity`` holds only the first ones; a
    ``RunActivity`` knows it)."""
    if isinstance(activity, RunActivity):
        activity, total = activity.rows, activity.documents
    total = len(activity) if total is None else total
    if not activity:
        return MetadataValue.md("nothing to do: every document of the collection was up to date")
    lines = ["| document_id | " + " | ".join(columns) + " |", "|" + "---|" * (len(columns) + 1)]
    for document_id in sorted(activity)[:cap]:
        done = activity[document_id]
        lines.append(f"| {_cell(document_id)} | " + " | ".join(_cell(done.get(c)) for c in columns) + " |")
    if total > min(cap, len(activity)):
        lines.append(f"\n… and {total - min(cap, len(activity))} more document(s)")
    return MetadataValue.md("\n".join(lines))


def _cell(value: object, width: int = 80) -> str:
    text = "" if value is None else str(value)
    text = text.replace("\n", " ").replace("|", "\\|")
    return text if len(text) <= width else text[: width - 1] + "…"
