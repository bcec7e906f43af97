"""Running the merger job in-process (the CLI and the tests): add the bundle's partition, free what
dead runs hold, wait for a live writer, and run ``merge_page_bundle`` on the given instance, so the
run shows in the UI like a sensor's."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from dagster import DagsterInstance

from kg_pipelines.config import KGSettings

from .partitions import page_bundles_partitions
from .run_guard import INGESTION_TAG, ensure_pool_limit, process_tags, wait_for_pool
from .runner import QUIET_LOGS, SyncOutcome, run_errors


def merge_page_bundle(
    settings: KGSettings,
    bundle_id: str,
    bundle_path: Path | str,
    instance: DagsterInstance,
    echo: Callable[[str], None] = lambda _m: None,
) -> SyncOutcome:
    from kg_pipelines.definitions import defs

    ensure_pool_limit(instance)
    if bundle_id not in set(instance.get_dynamic_partitions(page_bundles_partitions.name)):
        instance.add_dynamic_partitions(page_bundles_partitions.name, [bundle_id])
    wait_for_pool(instance, settings.runs.pool_wait_timeout_s, echo)
    job = defs.resolve_job_def("merge_page_bundle")
    run_config = {
        **QUIET_LOGS,
        "ops": {"proposed_pages": {"config": {"bundle_path": str(Path(bundle_path).resolve())}}},
    }
    tags = {INGESTION_TAG: "true", "kg/reason": "cli", **process_tags(os.getpid())}
    result = job.execute_in_process(
        instance=instance, partition_key=bundle_id, tags=tags, raise_on_error=False, run_config=run_config
    )
    # a failed audit check is reported even when the run succeeds (the asset retried the sub-graph)
    return SyncOutcome(runs=1, failed_runs=0 if result.success else 1, errors=run_errors(result, bundle_id))
