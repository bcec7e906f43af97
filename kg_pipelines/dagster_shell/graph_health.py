"""After a graph-health run changed ``kg_nodes`` / ``kg_edges``: what readers see, and fresh figures.

``publish_graph_change`` is the one place every write of the graph ends with (the ingestion graph
asset, the knowledge merger, prune, merge-edges, dedup merges, unmerge, ``import-graph``; dry runs
excepted): readers never open DuckDB, so
the LanceDB ``graph_nodes`` vectors are brought in step with ``kg_nodes`` (merged-away nodes lose
their vector, restored and imported nodes get one), ``graph_stats.json`` is rewritten for the
schedules, and a new graph snapshot is published (last, so a reader that sees it finds the vectors
already in step).

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

from dataclasses import dataclass
from datetime import datetime

import numpy as np
from dagster import AssetMaterialization, MetadataValue

from kg_pipelines.graph.graph_step import publish_graph
from kg_pipelines.stores.node_vectors import NodeVectors, NodeVectorSync
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


class _EmbedderOnDemand:
    """The node embedder, loaded only when a node needs (re-)embedding: a prune or an edge merge
    changes no node text, and loading a sentence-transformers model costs seconds."""

    def __init__(self, settings):
        self.model_name = settings.node_embedding_model
        self._llm = settings.llm

    def embed(self, texts: list[str]) -> np.ndarray:
        from kg_pipelines.embedding import embedder_for

        return embedder_for(self.model_name, self._llm).embed(texts)


@dataclass
class GraphPublication:
    snapshot: str  # the snapshot version readers now load
    stats: dict  # what graph_stats.json now says
    vectors: NodeVectorSync

    def metadata(self) -> dict:
        return {
            "graph_snapshot": self.snapshot,
            "node_vectors_embedded": self.vectors.embedded,
            "node_vectors_deleted": self.vectors.deleted,
        }


def publish_graph_change(conn, settings, now: datetime | None = None, embedder=None) -> GraphPublication:
    """Bring every reader's view in step with the graph just written (see the module doc); the
    caller's transaction is committed. ``embedder``: the node embedder (default: the settings'
    model, loaded only when a node needs a vector)."""
    store = NodeVectors.for_settings(settings)
    done = publish_graph(conn, settings, store, embedder or _EmbedderOnDemand(settings), now)
    return GraphPublication(done.snapshot, done.stats, done.vectors)
