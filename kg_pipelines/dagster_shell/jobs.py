"""The one ingestion job: sync a collection (ingest what is new or changed, retry what is due,
remove what is gone). The sensors, the CLI and the UI all launch it."""

from dagster import AssetSelection, define_asset_job, in_process_executor

from .partitions import collections_partitions
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
