"""The graph assets: ``kg_nodes`` and ``kg_edges``, synced with the collection's stage tables."""

from dagster import AssetExecutionContext, AssetSpec, MaterializeResult, MetadataValue, multi_asset

from kg_pipelines.embedding import embedder_for
from kg_pipelines.graph.alias_merging import stated_alias_step
from kg_pipelines.graph.formation_dedup import formation_dedup
from kg_pipelines.graph.graph_building import sync_graph
from kg_pipelines.stores.node_vectors import NodeVectors, sync_node_vectors
from kg_pipelines.stores.warehouse import fetch_dicts

from .checks import GRAPH_CHECKS, graph_checks
from .graph_health import publish_graph_change
from .ingestion_assets import PARTITIONED
from .metadata import activity_table, definition_metadata, preview_table
from .resources import KGResource

GRAPH_INPUTS = ["chunks", "entities", "relationships", "atomic_questions"]
# a collection's part of the graph: what its documents support
NODES_OF_COLLECTION = "node_id IN (SELECT node_id FROM kg_node_support WHERE collection = ?)"
EDGES_OF_COLLECTION = "edge_id IN (SELECT edge_id FROM kg_edge_support WHERE collection = ?)"


def _counts_by(conn, table: str, column: str) -> MetadataValue:
    rows = conn.execute(f"SELECT {column}, count(*) FROM {table} GROUP BY 1 ORDER BY 2 DESC").fetchall()
    return MetadataValue.json({str(k): v for k, v in rows})


def _documents_done(conn, document_ids: list[str], removed: list[str]) -> dict[str, dict]:
    """What the run did per document, as the graph saw it at the end of the run."""
    rows = fetch_dicts(
        conn,
        """
        SELECT s.document_id, s.status, s.chunks, s.error,
               (SELECT count(*) FROM entities e WHERE e.document_id = s.document_id) AS entities,
               (SELECT count(*) FROM relationships r WHERE r.document_id = s.document_id) AS relationships,
               (SELECT count(*) FROM atomic_questions q WHERE q.document_id = s.document_id) AS questions,
               (SELECT string_agg(DISTINCT st.error_kind || ': ' || st.last_error, '; ') FROM chunk_state st
                WHERE st.document_id = s.document_id AND st.status <> 'done') AS chunk_errors
        FROM document_status s WHERE s.document_id IN (SELECT unnest(?::VARCHAR[])) ORDER BY 1""",
        [document_ids],
    )
    done = {r.pop("document_id"): {**r, "error": r.pop("chunk_errors") or r["error"]} for r in rows}
    for document_id in removed:
        done[document_id] = {
            "status": "removed",
            "chunks": 0,
            "entities": 0,
            "relationships": 0,
            "questions": 0,
            "error": None,
        }
    return done


@multi_asset(
    specs=[
        AssetSpec(
            "kg_nodes",
            group_name="graph",
            kinds={"duckdb"},
            deps=GRAPH_INPUTS,
            description="The one graph's nodes: entities (node_type = entity type, one node per normalized "
            "name and type across documents and collections), chunks and atomic questions, with provenance "
            "in kg_node_support.",
            metadata=definition_metadata("kg_nodes"),
        ),
        AssetSpec(
            "kg_edges",
            group_name="graph",
            kinds={"duckdb"},
            deps=GRAPH_INPUTS,
            description="RELATED (entity->entity), MENTIONS (chunk->entity) and ANSWERS_IN (question->chunk) "
            "edges with the consolidation fields (strength, activation_count, timestamps, created_by, "
            "protected, explanation, topic keys) and provenance in kg_edge_support.",
            metadata=definition_metadata("kg_edges"),
        ),
    ],
    check_specs=GRAPH_CHECKS,
    **PARTITIONED,
)
def knowledge_graph(context: AssetExecutionContext, kg: KGResource):
    with kg.stage(context) as (ctx, scope):
        conn, now = ctx.conn, ctx.now()
        report = sync_graph(conn, scope, now, progress=ctx.progress)
        context.log.info(
            f"graph: {report.documents} document(s) synced: +{report.nodes_created} nodes, +{report.edges_created} "
            f"edges, {report.edges_reinforced} reinforced, -{report.nodes_deleted} nodes, -{report.edges_deleted} edges"
        )
        settings = ctx.settings
        node_store = NodeVectors.for_settings(settings)
        embedder = embedder_for(settings.node_embedding_model, settings.llm)
        # formation-time dedup (seed 001 Strategy 2) compares the new nodes' vectors: embed them first
        embedded = sync_node_vectors(conn, node_store, embedder).embedded
        # aliases the text states ("long form (SHORT)", "X, also known as Y") join their nodes first
        stated = stated_alias_step(conn, node_store, settings, report.synced_documents, now)
        absorbed = formation_dedup(conn, node_store, settings, now)
        # readers never open DuckDB: vectors (absorbed nodes lose theirs), the schedules' stats and
        # the graph snapshot are brought in step, as after every other graph write
        published = publish_graph_change(conn, settings, now, embedder)
        removed = set(report.removed_documents)
        synced = [d for d in report.synced_documents if d not in removed]
        per_document = activity_table(
            _documents_done(conn, synced, report.removed_documents),
            ["status", "chunks", "entities", "relationships", "questions", "error"],
        )
        yield MaterializeResult(
            asset_key="kg_nodes",
            metadata={
                **preview_table(
                    conn,
                    "kg_nodes",
                    "updated_at = ?",
                    [now],
                    ["node_id", "node_type", "name", "support_count", "energy"],
                    partition_where=(NODES_OF_COLLECTION, [scope.collection]),
                ),
                "nodes_written": conn.execute("SELECT count(*) FROM kg_nodes WHERE updated_at = ?", [now]).fetchone()[
                    0
                ],
                "nodes_created": report.nodes_created,
                "nodes_deleted": report.nodes_deleted,
                "documents_synced": report.documents,
                "this_run": per_document,
                "nodes_by_type": _counts_by(conn, "kg_nodes", "node_type"),
                "node_vectors_embedded": embedded + published.vectors.embedded,
                "node_vectors_total": published.vectors.total,
                "graph_snapshot": published.snapshot,
                "stated_aliases_merged": MetadataValue.md(stated),
                "nodes_absorbed_at_formation": MetadataValue.md(absorbed),
            },
        )
        yield MaterializeResult(
            asset_key="kg_edges",
            metadata={
                **preview_table(
                    conn,
                    "kg_edges",
                    "created_at = ? OR last_reinforced_at = ?",
                    [now, now],
                    ["edge_type", "source_id", "target_id", "strength", "explanation"],
                    partition_where=(EDGES_OF_COLLECTION, [scope.collection]),
                ),
                "edges_created": report.edges_created,
                "edges_reinforced": report.edges_reinforced,
                "edges_deleted": report.edges_deleted,
                "documents_synced": report.documents,
                "edges_by_type": _counts_by(conn, "kg_edges", "edge_type"),
            },
        )
        yield from graph_checks(conn, scope.collection)
