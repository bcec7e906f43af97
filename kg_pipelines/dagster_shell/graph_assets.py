"""The graph assets: ``kg_nodes`` and ``kg_edges``, synced with the collection's stage tables."""

from dagster import AssetExecutionContext, AssetSpec, MaterializeResult, MetadataValue, multi_asset

from kg_pipelines.embedding import embedder_for
from kg_pipelines.graph.graph_step import run_graph_step
from kg_pipelines.stores.warehouse import fetch_dicts

from .checks import GRAPH_CHECKS, graph_checks
from .ingestion_assets import PARTITIONED
from .metadata import ACTIVITY_ROWS, activity_table, definition_metadata, preview_table
from .resources import KGResource

GRAPH_INPUTS = ["chunks", "entities", "relationships", "atomic_questions"]
# a collection's part of the graph: what its documents support
NODES_OF_COLLECTION = "node_id IN (SELECT node_id FROM kg_node_support WHERE collection = ?)"
EDGES_OF_COLLECTION = "edge_id IN (SELECT edge_id FROM kg_edge_support WHERE collection = ?)"


def _counts_by(conn, table: str, column: str) -> MetadataValue:
    rows = conn.execute(f"SELECT {column}, count(*) FROM {table} GROUP BY 1 ORDER BY 2 DESC").fetchall()
    return MetadataValue.json({str(k): v for k, v in rows})


def _documents_done(conn, document_ids: list[str], removed: list[str], cap: int = ACTIVITY_ROWS) -> dict[str, dict]:
    """What the run did for the first ``cap`` documents (by id: the rows ``activity_table`` shows),
    as the graph saw it at the end of the run: one set-based query, whatever the run's size."""
    gone = set(removed)
    shown = sorted(set(document_ids) | gone)[:cap]
    rows = fetch_dicts(
        conn,
        """
        WITH shown AS (SELECT unnest(?::VARCHAR[]) AS document_id),
        e AS (SELECT document_id, count(*) AS n FROM entities WHERE document_id IN (FROM shown) GROUP BY 1),
        r AS (SELECT document_id, count(*) AS n FROM relationships WHERE document_id IN (FROM shown) GROUP BY 1),
        q AS (SELECT document_id, count(*) AS n FROM atomic_questions WHERE document_id IN (FROM shown) GROUP BY 1),
        f AS (SELECT document_id, string_agg(DISTINCT error_kind || ': ' || last_error, '; ') AS chunk_errors
              FROM chunk_state WHERE document_id IN (FROM shown) AND status <> 'done' GROUP BY 1)
        SELECT s.document_id, s.status, s.chunks, s.error, coalesce(e.n, 0) AS entities,
               coalesce(r.n, 0) AS relationships, coalesce(q.n, 0) AS questions, f.chunk_errors
        FROM document_status s LEFT JOIN e USING (document_id) LEFT JOIN r USING (document_id)
             LEFT JOIN q USING (document_id) LEFT JOIN f USING (document_id)
        WHERE s.document_id IN (FROM shown) ORDER BY 1""",
        [[d for d in shown if d not in gone]],
    )
    done = {r.pop("document_id"): {**r, "error": r.pop("chunk_errors") or r["error"]} for r in rows}
    for document_id in shown:
        if document_id in gone:
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
        settings = ctx.settings
        embedder = embedder_for(settings.node_embedding_model, settings.llm)
        step = run_graph_step(conn, settings, scope, now, embedder, progress=ctx.progress)
        report, published = step.graph, step.publication
        context.log.info(
            f"graph: {report.documents} document(s) synced: +{report.nodes_created} nodes, +{report.edges_created} "
            f"edges, {report.edges_reinforced} reinforced, -{report.nodes_deleted} nodes, -{report.edges_deleted} edges"
            " (" + ", ".join(f"{part} {seconds:.1f} s" for part, seconds in step.timings.items()) + ")"
        )
        removed = set(report.removed_documents)
        synced = [d for d in report.synced_documents if d not in removed]
        per_document = activity_table(
            _documents_done(conn, synced, report.removed_documents),
            ["status", "chunks", "entities", "relationships", "questions", "error"],
            total=len(set(synced) | removed),
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
                "node_vectors_embedded": step.node_vectors_embedded + published.vectors.embedded,
                "node_vectors_reused": step.node_vectors_reused + published.vectors.reused,
                "node_vectors_total": published.vectors.total,
                "graph_snapshot": published.snapshot,
                "stated_aliases_merged": MetadataValue.md(step.stated_aliases),
                "nodes_absorbed_at_formation": MetadataValue.md(step.formation_dedup),
                "seconds_by_part": MetadataValue.json({k: round(v, 3) for k, v in step.timings.items()}),
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
        yield from graph_checks(conn, scope.collection, step.checks)
