"""Fresh figures for ``kg_nodes`` / ``kg_edges`` after a graph-health run changed them.

``kg_nodes`` and ``kg_edges`` are outputs of the collection-partitioned ``knowledge_graph``
multi-asset, while graph health (consolidation, dedup) is not partitioned. A graph-health step that
changes the graph therefore logs an ``AssetMaterialization`` (without a partition) for both keys in
the same run: the asset catalog and the asset pages read row counts and previews from the latest
materialization, so the UI shows the graph as it is now, not as the last ingestion left it. A
runtime materialization of a partitioned asset without a partition leaves the partitions' status as
it was (checked on dagster 1.13: it is recorded with ``partition=None``), and its metadata says
which step wrote it and why (``refreshed_by``).

Usage in an asset (the step must have written the graph in this run)::

    for event in graph_refresh_events(conn, "consolidation: prune", changed_since=now):
        context.log_event(event)
"""

from __future__ import annotations

from datetime import datetime

from dagster import AssetMaterialization, MetadataValue

from kg_pipelines.stores.warehouse import count_rows

from .metadata import preview_table

NODE_PREVIEW = ["node_id", "node_type", "name", "support_count", "created_by"]
EDGE_PREVIEW = ["edge_type", "source_id", "target_id", "strength", "created_by", "explanation"]


def _counts_by(conn, table: str, column: str) -> MetadataValue:
    rows = conn.execute(f"SELECT {column}, count(*) FROM {table} GROUP BY 1 ORDER BY 2 DESC").fetchall()
    return MetadataValue.json({str(k): v for k, v in rows})


def graph_figures(conn, changed_since: datetime | None = None) -> dict[str, dict]:
    """Metadata of ``kg_nodes`` and ``kg_edges`` as they are now: row counts, counts by type and a
    preview (the rows written since ``changed_since`` when given and any exist, else the first rows)."""
    figures = {}
    for table, preview, by, time_column in (
        ("kg_nodes", NODE_PREVIEW, "node_type", "updated_at"),
        ("kg_edges", EDGE_PREVIEW, "edge_type", "coalesce(last_reinforced_at, created_at)"),
    ):
        where, params = "true", []
        if changed_since is not None:
            recent = conn.execute(f"SELECT count(*) FROM {table} WHERE {time_column} >= ?", [changed_since]).fetchall()[
                0
            ]
            if recent[0]:
                where, params = f"{time_column} >= ?", [changed_since]
        meta = preview_table(conn, table, where, params, preview)
        meta.pop("dagster/partition_row_count", None)  # not a partition's figure: the whole graph
        meta[f"{table[3:]}_by_type"] = _counts_by(conn, table, by)
        figures[table] = meta
    return figures


def graph_refresh_events(
    conn, refreshed_by: str, changed_since: datetime | None = None, what_changed: dict | None = None
) -> list[AssetMaterialization]:
    """One ``AssetMaterialization`` each for ``kg_nodes`` and ``kg_edges`` with their current figures,
    ``refreshed_by`` (the step and operation) and ``what_changed`` (e.g. ``{"edges_pruned": 12}``)."""
    extra = {k: v for k, v in (what_changed or {}).items()}
    return [
        AssetMaterialization(
            asset_key=table,
            description=f"figures refreshed after {refreshed_by}",
            metadata={**meta, "refreshed_by": refreshed_by, **extra},
        )
        for table, meta in graph_figures(conn, changed_since).items()
    ]


def graph_totals(conn) -> dict[str, int]:
    return {"nodes": count_rows(conn, "kg_nodes"), "edges": count_rows(conn, "kg_edges")}
