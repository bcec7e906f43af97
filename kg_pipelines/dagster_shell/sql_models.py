"""The asset factory for ``dbt_like_sql/``: one asset per SQL file, named by its stem.

Its dependencies are the tables the SQL reads (parsed with sqlglot), its ``code_version`` the
file's hash, its description the file's leading comment. A view model is (re)created as a view;
a table model (a name in the warehouse ``SCHEMA``) has its rows replaced in one transaction. The
variables the models read are set from the consolidation settings. Not partitioned, pool duckdb.
"""

from dagster import AssetExecutionContext, AssetKey, AssetsDefinition, MaterializeResult, asset

from kg_pipelines.graph import graph_sql
from kg_pipelines.stores.warehouse import transaction

from .metadata import definition_metadata, preview_table
from .resources import KGResource, _mark_run_process

GROUP = "graph_health"


def _description(name: str) -> str:
    lines = []
    for line in graph_sql.model_sql(name).splitlines():
        if not line.startswith("--"):
            break
        lines.append(line[2:].strip())
    return " ".join(lines) or f"SQL model {name}"


def sql_model_asset(name: str) -> AssetsDefinition:
    table_model = graph_sql.is_table_model(name)

    @asset(
        name=name,
        group_name=GROUP,
        kinds={"duckdb", "sql"},
        deps=[AssetKey(t) for t in graph_sql.model_inputs(name)],
        code_version=graph_sql.model_hash(name),
        description=_description(name) + f" (dbt_like_sql/{name}.sql)",
        metadata={**(definition_metadata(name) if table_model else {}), "sql_file": f"dbt_like_sql/{name}.sql"},
        pool="duckdb",
    )
    def _model(context: AssetExecutionContext, kg: KGResource) -> MaterializeResult:
        _mark_run_process(context)
        with kg.warehouse() as conn:
            now = kg.now()
            with transaction(conn):
                graph_sql.create_views(conn)
                graph_sql.set_variables(conn, graph_sql.model_variables(kg.settings.consolidation, now))
                if table_model:
                    graph_sql.refresh_table_model(conn, name)
            meta = preview_table(conn, name, "true", [])
            meta.pop("dagster/partition_row_count", None)
            return MaterializeResult(metadata={**meta, "kind": "table" if table_model else "view"})

    return _model


def sql_model_assets() -> list[AssetsDefinition]:
    return [sql_model_asset(name) for name in graph_sql.model_names()]
