"""Usage feeds the graph: the ``edge_activations`` asset, its job and the sensor that requests it.

Searches and answers queue the edges they used in SQLite (``retrieval/activations.py``); the asset
applies the queue to ``kg_edges`` in short transactions under the ``duckdb`` pool, then publishes a
fresh graph snapshot so readers rank with the reinforced strengths. The sensor only counts the
SQLite queue: it never opens DuckDB.
"""

from dagster import (
    AssetExecutionContext,
    AssetKey,
    DefaultSensorStatus,
    MaterializeResult,
    MetadataValue,
    RunRequest,
    SensorEvaluationContext,
    SkipReason,
    asset,
    define_asset_job,
    in_process_executor,
    sensor,
)

from kg_pipelines.retrieval.activations import apply_activations, last_queued_id, pending_activations
from kg_pipelines.stores.graph_snapshot import publish_graph_snapshot

from .metadata import definition_metadata, preview_table
from .resources import KGResource
from .sensors import SENSOR_INTERVAL_S


@asset(
    name="edge_activations",
    group_name="retrieval",
    kinds={"duckdb", "sqlite"},
    deps=[AssetKey("kg_edges")],
    pool="duckdb",
    description="Uses of edges by graph-search paths and answers, queued by the readers in activations.sqlite, "
    "applied to kg_edges (activation_count, last_activated_at, reinforced strength) exactly once; the log of "
    "applied uses. Publishes a new graph snapshot when it changed edges.",
    metadata=definition_metadata("edge_activations"),
)
def edge_activations(context: AssetExecutionContext, kg: KGResource) -> MaterializeResult:
    settings = kg.settings
    with kg.warehouse() as conn:
        now = kg.now()
        report = apply_activations(conn, settings, now)
        snapshot = publish_graph_snapshot(conn, settings) if report.edges_updated else None
        context.log.info(
            f"activations: {report.applied} applied to {report.edges_updated} edge(s), {report.skipped} "
            f"already applied, {report.missing_edges} for edges gone"
        )
        return MaterializeResult(
            metadata={
                **preview_table(
                    conn,
                    "edge_activations",
                    "applied_at = ?",
                    [now],
                    ["activation_id", "edge_id", "used_by", "used_at", "edge_found"],
                ),
                "applied": report.applied,
                "already_applied": report.skipped,
                "edges_updated": report.edges_updated,
                "edges_gone": report.missing_edges,
                "transactions": report.batches,
                "graph_snapshot": MetadataValue.text(snapshot.name if snapshot else "unchanged"),
            }
        )


apply_activations_job = define_asset_job(
    "apply_edge_activations",
    selection=[edge_activations],
    executor_def=in_process_executor,
    description="Apply the queued uses of edges (graph search, QA) to kg_edges.",
)


@sensor(
    job=apply_activations_job,
    minimum_interval_seconds=SENSOR_INTERVAL_S,
    default_status=DefaultSensorStatus.RUNNING,
    description="Requests edge_activations when searches or answers queued uses of edges (reads only SQLite).",
)
def activations_sensor(context: SensorEvaluationContext, kg: KGResource):
    waiting = pending_activations(kg.settings)
    if not waiting:
        return SkipReason("no queued edge activations")
    # one run per queue state: a re-evaluated tick repeats its key
    return RunRequest(run_key=f"activations-{last_queued_id(kg.settings)}", tags={"kg/reason": f"{waiting} queued"})
