"""Jobs: ingest a range of document partitions; remove documents."""


from dagster import AssetSelection, Config, OpExecutionContext, define_asset_job, in_process_executor, job, op

from kg_pipelines.graph.removal import remove_documents_everywhere

from .partitions import documents_partitions
from .resources import KGResource

INGESTION_TAG = "kg/ingestion"

# One run processes a range of documents, its steps one after the other in one process: the
# steps share the duckdb pool anyway, and a process per step would cost seconds each.
ingest_documents_job = define_asset_job(
    "ingest_documents",
    selection=AssetSelection.groups("ingestion", "graph"),
    partitions_def=documents_partitions,
    executor_def=in_process_executor,
    tags={INGESTION_TAG: "true"},
    description="Documents -> chunks -> entities, relationships, atomic questions -> graph, for a range of documents.",
)


class RemoveDocumentsConfig(Config):
    document_ids: list[str]


@op(pool="duckdb", description="Delete the documents' rows and vectors and take their support from the graph.")
def remove_documents_op(context: OpExecutionContext, config: RemoveDocumentsConfig, kg: KGResource) -> None:
    with kg.warehouse() as conn:
        report = remove_documents_everywhere(conn, kg.vectors(), kg.registry(), config.document_ids, kg.now())
    context.log.info(
        f"removed {len(config.document_ids)} document(s): -{report.nodes_deleted} nodes, -{report.edges_deleted} edges"
    )


@job(name="remove_documents", executor_def=in_process_executor, tags={INGESTION_TAG: "true"},
     description="Remove documents (files deleted from the inbox, or `kg-pipelines remove`).")
def remove_documents_job():
    remove_documents_op()
