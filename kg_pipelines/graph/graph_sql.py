"""The SQL models of ``dbt_like_sql/``: one file = one model, named by its file stem.

A model is one SELECT. A model named like a warehouse table (``SCHEMA``) fills that table (its
rows replaced in one transaction); any other model is a view of the same name. Models read
DuckDB variables (``getvariable('prune_threshold')``, ...) for their parameters, set by
``set_variables``. The tables a model reads (its inputs) are parsed from the SQL with sqlglot, so
the Dagster asset factory can draw the lineage and the views are created in dependency order.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from functools import cache
from graphlib import TopologicalSorter
from pathlib import Path

import duckdb
import sqlglot
from sqlglot import exp

from kg_pipelines.stores.warehouse import SCHEMA

SQL_DIR = Path(__file__).resolve().parents[2] / "dbt_like_sql"


def model_names() -> list[str]:
    return sorted(p.stem for p in SQL_DIR.glob("*.sql"))


def model_sql(name: str) -> str:
    return (SQL_DIR / f"{name}.sql").read_text(encoding="utf-8")


def model_hash(name: str) -> str:
    return hashlib.sha256(model_sql(name).encode("utf-8")).hexdigest()[:16]


@cache
def _inputs(name: str, digest: str) -> tuple[str, ...]:
    tree = sqlglot.parse_one(model_sql(name), read="duckdb")
    ctes = {cte.alias_or_name for cte in tree.find_all(exp.CTE)}
    return tuple(sorted({t.name for t in tree.find_all(exp.Table) if t.name and t.name not in ctes}))


def model_inputs(name: str) -> list[str]:
    """The tables and views the model reads (CTE names left out)."""
    return list(_inputs(name, model_hash(name)))


def is_table_model(name: str) -> bool:
    return name in SCHEMA


def set_variables(conn: duckdb.DuckDBPyConnection, values: dict[str, object]) -> None:
    for key, value in values.items():
        if isinstance(value, datetime):
            conn.execute(f"SET VARIABLE {key} = ?::TIMESTAMPTZ", [value])
        elif isinstance(value, list):
            conn.execute(f"SET VARIABLE {key} = ?::VARCHAR[]", [value])
        else:
            conn.execute(f"SET VARIABLE {key} = ?", [value])


def model_variables(settings, now: datetime, decay_half_life_days: float | None = None) -> dict[str, object]:
    """The variables the models read, from ``ConsolidationSettings`` (and an override of the half-life)."""
    half_life = settings.decay_half_life_days if decay_half_life_days is None else decay_half_life_days
    return {
        "consolidation_now": now,
        "prune_threshold": float(settings.prune_threshold),
        "min_inactive_days": float(settings.min_inactive_days),
        "decay_half_life_days": float(half_life),
        "cluster_min_size": int(settings.cluster_min_size),
        "structural_edge_types": [str(t) for t in settings.structural_edge_types],
    }


def view_order() -> list[str]:
    """View models, each after the views it reads."""
    views = [n for n in model_names() if not is_table_model(n)]
    graph = {n: [i for i in model_inputs(n) if i in views] for n in views}
    return list(TopologicalSorter(graph).static_order())


def create_views(conn: duckdb.DuckDBPyConnection) -> None:
    """Keep the view models in step with their files: each view carries its file's hash as its
    comment, and when any differs (or is missing) every view is recreated in dependency order.
    Unchanged files cost one catalog query, not a sqlglot parse of every model."""
    views = [n for n in model_names() if not is_table_model(n)]
    stored = dict(conn.execute("SELECT view_name, comment FROM duckdb_views() WHERE NOT internal").fetchall())
    if all(stored.get(name) == model_hash(name) for name in views):
        return
    for name in view_order():
        conn.execute(f"CREATE OR REPLACE VIEW {name} AS {model_sql(name)}")
        conn.execute(f"COMMENT ON VIEW {name} IS '{model_hash(name)}'")


def refresh_table_model(conn: duckdb.DuckDBPyConnection, name: str) -> int:
    """Replace the rows of a table model by what its SELECT gives now (the caller holds the
    transaction); the number of rows."""
    conn.execute(f"DELETE FROM {name}")
    conn.execute(f"INSERT INTO {name} BY NAME {model_sql(name)}")
    return conn.execute(f"SELECT count(*) FROM {name}").fetchall()[0][0]
