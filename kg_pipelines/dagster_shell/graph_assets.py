"""The graph assets: ``kg_nodes`` and ``kg_edges``, updated incrementally for the run's documents."""


from dagster import AssetCheckSpec, AssetExecutionContext, AssetSpec, MaterializeResult, MetadataValue, multi_asset

from kg_pipelines.ingestion.chunk_state import refresh_document_status
from kg_pipelines.graph.graph_building import update_graph

from .ingestion_assets import PARTITIONED
from .metadata import definition_metadata, table_metadata
from .resources import KGResource

GRAPH_INPUTS = ["chunks", "entities", "relationships", "atomic_questions"]


def _counts_by(conn, table: str, column: str) -> MetadataValue:
    rows = conn.execute(f"SELECT {column}, count(*) FROM {table} GROUP BY 1 ORDER BY 2 DESC").fetchall()
    return MetadataValue.json({str(k): v for k, v in rows})


@multi_asset(
    specs=[
        AssetSpec("kg_nodes", group_name="graph", kinds={"duckdb"}, deps=GRAPH_INPUTS,
                  description="The one graph's nodes: entities (node_type = entity type, one node per normalized "
                  "name and type across documents), chunks and atomic questions, with provenance in "
                  "kg_node_support.", metadata=definition_metadata("kg_nodes")),
        AssetSpec("kg_edges", group_name="graph", kinds={"duckdb"}, deps=GRAPH_INPUTS,
                  description="RELATED (entity->entity), MENTIONS (chunk->entity) and ANSWERS_IN (question->chunk) "
                  "edges with the consolidation fields (strength, activation_count, timestamps, created_by, "
                  "protected, explanation, topic keys) and provenance in kg_edge_support.",
                  metadata=definition_metadata("kg_edges")),
    ],
    check_specs=[
        AssetCheckSpec("no_dangling_edges", asset="kg_edges", blocking=True,
                       description="Every edge's source and target is a node."),
    ],
    **PARTITIONED,
)
def knowledge_graph(context: AssetExecutionContext, kg: KGResource):
    from .checks import dangling_edges_result

    ids = list(context.partition_keys)
    with kg.warehouse() as conn:
        now = kg.now()
        report = update_graph(conn, ids, now)
        refresh_document_status(conn, ids, now)
        context.log.info(
            f"graph: +{report.nodes_created} nodes, +{report.edges_created} edges, {report.edges_reinforced} "
            f"reinforced, -{report.nodes_deleted} nodes, -{report.edges_deleted} edges"
        )
        yield MaterializeResult(asset_key="kg_nodes", metadata={
            **table_metadata(conn, "kg_nodes", None, ["node_id", "node_type", "name", "support_count", "energy"]),
            "nodes_created": report.nodes_created, "nodes_deleted": report.nodes_deleted,
            "nodes_by_type": _counts_by(conn, "kg_nodes", "node_type")})
        yield MaterializeResult(asset_key="kg_edges", metadata={
            **table_metadata(conn, "kg_edges", None, ["edge_type", "source_id", "target_id", "strength", "explanation"]),
            "edges_created": report.edges_created, "edges_reinforced": report.edges_reinforced,
            "edges_deleted": report.edges_deleted, "edges_by_type": _counts_by(conn, "kg_edges", "edge_type")})
        yield dangling_edges_result(conn)
