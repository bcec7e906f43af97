"""Materialization metadata that makes each table readable in the Dagster UI: row counts, the
column schema, and a preview of the rows this run wrote."""

from __future__ import annotations

from typing import Sequence

from dagster import MetadataValue, TableColumn, TableSchema

from kg_pipelines.stores.warehouse import SCHEMA, column_types


def column_schema(table: str) -> TableSchema:
    """The declared schema (used as definition metadata, visible before the first run)."""
    columns = []
    for part in SCHEMA[table].split(","):
        words = part.split()
        if not words or words[0].upper() == "PRIMARY" or words[0].startswith("("):
            continue
        columns.append(TableColumn(name=words[0], type=words[1].lower()))
    return TableSchema(columns=columns)


def definition_metadata(table: str) -> dict:
    return {"dagster/column_schema": column_schema(table), "dagster/table_name": table}


def table_metadata(
    conn,
    table: str,
    document_ids: Sequence[str] | None = None,
    preview_columns: Sequence[str] | None = None,
    preview_rows: int = 8,
) -> dict:
    total = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    where, params = "", []
    if document_ids is not None:
        where, params = "WHERE document_id IN (SELECT unnest(?::VARCHAR[]))", [list(document_ids)]
    in_run = conn.execute(f"SELECT count(*) FROM {table} {where}", params).fetchone()[0]
    schema = TableSchema(columns=[TableColumn(name=n, type=t.lower()) for n, t in column_types(conn, table)])
    cols = list(preview_columns or [c.name for c in schema.columns])
    cursor = conn.execute(f"SELECT {', '.join(cols)} FROM {table} {where} LIMIT {preview_rows}", params)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in cursor.fetchall():
        lines.append("| " + " | ".join(_cell(v) for v in row) + " |")
    return {
        "dagster/row_count": total,
        "dagster/partition_row_count": in_run,
        "dagster/column_schema": schema,
        "dagster/table_name": table,
        "preview": MetadataValue.md("\n".join(lines)),
    }


def _cell(value: object, width: int = 80) -> str:
    text = "" if value is None else str(value)
    text = text.replace("\n", " ").replace("|", "\\|")
    return text if len(text) <= width else text[: width - 1] + "…"
