"""The one ingestion job: sync a collection (ingest what is new or changed, retry what is due,
remove what is gone). The sensors, the CLI and the UI all launch it."""

from dagster import AssetSelection, define_asset_job, in_process_executor

from .partitions import collections_partitions, page_bundles_partitions
from .run_guard import INGESTION_TAG

# A run's steps run one after the other in one process: they share the duckdb pool anyway, and a
# process per step would cost seconds each. The tag puts every ingestion run, whoever launched it
# (sensor, CLI, UI), under the run queue's limit of one at a time (dagster.yaml).
sync_collection_job = define_asset_job(
    "sync_collection",
    selection=AssetSelection.groups("ingestion", "graph"),
    partitions_def=collections_partitions,
    executor_def=in_process_executor,
    tags={INGESTION_TAG: "true"},
    description="Sync one knowledge collection (the partition): documents -> chunks -> entities, relationships, "
    "atomic questions -> graph, for new and changed documents and chunks due for a retry; removed documents "
    "are taken out of every table and the graph.",
)


# The knowledge merger: one run per page bundle (the partition). It carries the ingestion tag, so it
# shares the run queue's limit of one with ingestion runs: the two never write the warehouse at once.
merge_page_bundle_job = define_asset_job(
    "merge_page_bundle",
    selection=AssetSelection.groups("merger"),
    partitions_def=page_bundles_partitions,
    executor_def=in_process_executor,
    tags={INGESTION_TAG: "true"},
    description="Merge one page bundle (the partition) into the graph: proposed_pages -> merge_plans -> "
    "merged_wiki_pages, audited by asset checks.",
)


# -- consolidation (seed 002): one job per operation, launched by the schedules, the CLI and the UI
def _consolidation_job(name: str, assets: list[str], description: str):
    return define_asset_job(
        name,
        selection=AssetSelection.assets(*assets),
        executor_def=in_process_executor,
        description=description,
    )


consolidate_prune_job = _consolidation_job(
    "consolidate_prune",
    ["edge_prune_log", "consolidation_reports"],
    "Prune weak edges (seed 002) and refresh the consolidation reports.",
)
consolidate_merge_edges_job = _consolidation_job(
    "consolidate_merge_edges",
    ["consolidated_edges", "consolidation_reports"],
    "Merge duplicate edges (seed 002) and refresh the consolidation reports.",
)
consolidate_summarize_job = _consolidation_job(
    "consolidate_summarize",
    ["topic_clusters", "communities", "consolidation_reports"],
    "Topic clusters and communities (seed 002 summarize) and refresh the consolidation reports.",
)
CONSOLIDATION_JOBS = {
    "prune": consolidate_prune_job,
    "merge-edges": consolidate_merge_edges_job,
    "summarize": consolidate_summarize_job,
}
OPERATION_ASSET = {"prune": "edge_prune_log", "merge-edges": "consolidated_edges", "summarize": "communities"}
