"""Running the sync job in-process (the CLI, the tests and the benchmark): register the sources,
add the collections' partitions, free what dead runs hold, and run one sync per collection on the
given instance. The run is recorded in that instance, so it shows in the UI like a sensor's run."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from dagster import DagsterInstance

from kg_pipelines.config import KGSettings
from kg_pipelines.stores.source_registry import Source, SourceRegistry

from .partitions import collections_partitions
from .run_guard import INGESTION_TAG, ensure_pool_limit, process_tags, wait_for_pool

# progress bars and a summary are the CLI's output; Dagster's own event log stays in the UI
QUIET_LOGS = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}


@dataclass
class SyncOutcome:
    runs: int = 0
    failed_runs: int = 0
    errors: list[str] = field(default_factory=list)


def ingest_sources(
    settings: KGSettings,
    sources: Sequence[Source],
    instance: DagsterInstance,
    removed: Iterable[str] = (),
    only: Iterable[str] | None = None,
    echo: Callable[[str], None] = lambda _m: None,
    should_stop: Callable[[], bool] = lambda: False,
) -> SyncOutcome:
    """Register ``sources`` (and forget ``removed`` document ids), then sync every collection touched."""
    registry = SourceRegistry(settings.source_registry_path)
    removed = list(removed)
    collection_of = {s.document_id: s.collection for s in registry.all(include_removed=True)}
    registry.register(sources)
    registry.forget(removed)
    collections = sorted({s.collection for s in sources} | {collection_of[d] for d in removed if d in collection_of})
    return sync_collections(settings, collections, instance, only, echo, should_stop)


def sync_collections(
    settings: KGSettings,
    collections: Sequence[str],
    instance: DagsterInstance,
    only: Iterable[str] | None = None,
    echo: Callable[[str], None] = lambda _m: None,
    should_stop: Callable[[], bool] = lambda: False,
) -> SyncOutcome:
    """One ``sync_collection`` run per collection; ``only`` restricts them to (and re-processes) those
    documents. ``should_stop()`` is asked after each run (the CLI: was Ctrl-C or SIGTERM received?):
    then ``KeyboardInterrupt`` is raised instead of starting the next one."""
    from kg_pipelines.definitions import defs

    ensure_pool_limit(instance)
    known = set(instance.get_dynamic_partitions(collections_partitions.name))
    new = [c for c in collections if c not in known]
    if new:
        instance.add_dynamic_partitions(collections_partitions.name, new)
    job = defs.resolve_job_def("sync_collection")
    run_config = dict(QUIET_LOGS)
    if only is not None:
        run_config["resources"] = {"kg": {"config": {"reprocess_document_ids": sorted(only)}}}
    outcome = SyncOutcome()
    for collection in collections:
        wait_for_pool(instance, settings.runs.pool_wait_timeout_s, echo)
        tags = {INGESTION_TAG: "true", "kg/reason": "cli", **process_tags(os.getpid())}
        result = job.execute_in_process(
            instance=instance, partition_key=collection, tags=tags, raise_on_error=False, run_config=run_config
        )
        outcome.runs += 1
        if should_stop():
            raise KeyboardInterrupt  # Dagster turned Ctrl-C / SIGTERM into a failed step: stop here
        if not result.success:
            outcome.failed_runs += 1
            outcome.errors += run_errors(result, collection)
    return outcome


def run_errors(result, label: str) -> list[str]:
    """Each failed step (with its root cause) and each failed asset check of an in-process run."""
    errors = [
        f"{label}: step {event.step_key} failed: {_root_cause(event.event_specific_data.error)}"
        for event in result.all_events
        if event.is_step_failure
    ]
    errors += [
        f"{label}: check {check.check_name} failed: {check.description}"
        for check in result.get_asset_check_evaluations()
        if not check.passed
    ]
    return errors


def _root_cause(error) -> str:
    """The innermost error with its traceback: Dagster wraps a step's exception in its own."""
    while error.cause is not None:
        error = error.cause
    return error.message.strip() + ("\n" + "".join(error.stack).rstrip() if error.stack else "")


@dataclass
class ConsolidationOutcome:
    """What a consolidation run did: the Dagster run, and the report row's run id (None on failure)."""

    dagster_run_id: str
    success: bool
    report_run_id: str | None
    errors: list[str] = field(default_factory=list)
    runs: int = 1

    @property
    def failed_runs(self) -> int:
        return 0 if self.success else 1


def run_consolidation_job(
    settings: KGSettings,
    operation: str,
    instance: DagsterInstance,
    dry_run: bool = False,
    decay_half_life_days: float | None = None,
    echo: Callable[[str], None] = lambda _m: None,
) -> ConsolidationOutcome:
    """Run one consolidation operation's job in-process on ``instance`` (so it shows in the UI),
    after freeing dead runs' pool slots and waiting for live ones (an ingestion may be writing)."""
    from kg_pipelines.definitions import defs

    from .jobs import CONSOLIDATION_JOBS, OPERATION_ASSET

    ensure_pool_limit(instance)
    wait_for_pool(instance, settings.runs.pool_wait_timeout_s, echo)
    job = defs.resolve_job_def(CONSOLIDATION_JOBS[operation].name)
    asset_name = OPERATION_ASSET[operation]
    op_config: dict = {"dry_run": dry_run}
    if decay_half_life_days is not None:
        op_config["decay_half_life_days"] = decay_half_life_days
    run_config = {**QUIET_LOGS, "ops": {asset_name: {"config": op_config}}}
    tags = {"kg/consolidation": operation, "kg/reason": "cli", **process_tags(os.getpid())}
    result = job.execute_in_process(instance=instance, tags=tags, raise_on_error=False, run_config=run_config)
    report_run_id = None
    for materialization in result.asset_materializations_for_node(asset_name):
        if "run_id" in materialization.metadata:
            report_run_id = materialization.metadata["run_id"].value
    errors = [
        f"step {e.step_key} failed: {_root_cause(e.event_specific_data.error)}"
        for e in result.all_events
        if e.is_step_failure
    ]
    return ConsolidationOutcome(result.run_id, result.success, report_run_id, errors)
