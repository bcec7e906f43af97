"""Every column of every warehouse table is described, and the Dagster column schemas carry it.

When a column is added to (or removed from) ``SCHEMA`` in kg_pipelines/stores/warehouse.py, the
first test says which description to add to (or drop from) kg_pipelines/stores/table_docs.py.
"""

from __future__ import annotations

import duckdb
import pytest

from kg_pipelines.dagster_shell.metadata import column_schema, definition_metadata, table_metadata
from kg_pipelines.stores.table_docs import COLUMN_DESCRIPTIONS, column_description
from kg_pipelines.stores.warehouse import SCHEMA, column_types, ensure_schema


@pytest.fixture(scope="module")
def conn():
    connection = duckdb.connect()
    ensure_schema(connection)
    yield connection
    connection.close()


@pytest.fixture(scope="module")
def columns(conn) -> dict[str, list[str]]:
    """The columns DuckDB actually creates for each table of ``SCHEMA``."""
    return {table: [name for name, _ in column_types(conn, table)] for table in SCHEMA}


def test_every_column_is_described_and_no_description_is_stale(columns):
    missing = [f"{t}.{c}" for t, cols in columns.items() for c in cols if not COLUMN_DESCRIPTIONS.get(t, {}).get(c)]
    stale = [
        f"{t}.{c}" for t, described in COLUMN_DESCRIPTIONS.items() for c in described if c not in columns.get(t, [])
    ]
    problems = []
    if missing:
        problems.append(f"columns without a description (add a line for each): {missing}")
    if stale:
        problems.append(f"descriptions of columns that do not exist (remove, or fix the name): {stale}")
    assert not problems, "COLUMN_DESCRIPTIONS in kg_pipelines/stores/table_docs.py: " + "; ".join(problems)


def test_descriptions_are_single_non_blank_lines():
    for table, described in COLUMN_DESCRIPTIONS.items():
        for column, text in described.items():
            assert isinstance(text, str) and text.strip(), f"{table}.{column}: empty description"
            assert "\n" not in text and text == text.strip(), f"{table}.{column}: keep it to one line"


# the two below test the plumbing only; completeness is the first test's job


@pytest.mark.parametrize("table", sorted(SCHEMA))
def test_definition_schema_carries_the_descriptions(table, columns):
    schema = column_schema(table)
    assert [c.name for c in schema.columns] == columns[table]
    for column in schema.columns:
        assert column.description == column_description(table, column.name)
    assert definition_metadata(table)["dagster/column_schema"] == schema


def test_a_described_column_shows_its_description():
    schema = {c.name: c for c in column_schema("kg_edges").columns}
    assert schema["strength"].description == COLUMN_DESCRIPTIONS["kg_edges"]["strength"]
    assert "0.5" in schema["strength"].description
    assert column_description("kg_edges", "no_such_column") is None
    assert column_description("no_such_table", "strength") is None


@pytest.mark.parametrize("table", sorted(SCHEMA))
def test_materialization_schema_carries_the_descriptions(table, conn, columns):
    schema = table_metadata(conn, table)["dagster/column_schema"]
    assert [c.name for c in schema.columns] == columns[table]
    for column in schema.columns:
        assert column.description == column_description(table, column.name)
