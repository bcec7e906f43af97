"""Sensors that keep collections in sync without a person.

``inbox_sensor``: new, edited and deleted files of ``<inbox>/<collection>/`` are registered in the
source registry, and each collection that changed gets one ``sync_collection`` run.
- cursor: a watermark (mtime, path) of the newest file already handed to a run, and a tick number;
- at most ``sensor.max_files_per_tick`` files per tick, the rest on the next ticks;
- capacity guard: while ``sensor.max_queued_runs`` runs wait in the queue, skip with a reason;
- run key: a digest of the collection's change set (documents with content hash and registry
  generation, removals with theirs), so an edited, reverted or restored file is synced again, while
  a re-evaluated tick repeats its own keys;
- a folder whose name is not a valid collection name is skipped with a logged reason.

``retry_sensor``: collections whose failed chunks are due for another round (published by the
ingestion assets in the SQLite registry) get a sync run, unless one is already queued or going.

Neither sensor opens the DuckDB warehouse (one writer per file): they read the inbox and SQLite.

Every sensor of the project is evaluated at most every ``SENSOR_INTERVAL_S`` seconds (seed 003's
scheduler polls every 10 s): ``sensor.minimum_interval_s`` of the data dir's settings, read when
the code location loads.
"""

import hashlib
import json
import logging
from datetime import UTC, datetime

from dagster import (
    AddDynamicPartitionsRequest,
    DagsterRunStatus,
    DefaultSensorStatus,
    RunRequest,
    RunsFilter,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    sensor,
)

from kg_pipelines.collections import validate_collection_name
from kg_pipelines.config import SensorSettings, load_settings
from kg_pipelines.ingestion.inbox import plan_inbox_changes, scan_inbox

from .jobs import sync_collection_job
from .partitions import collections_partitions
from .resources import KGResource
from .run_guard import INGESTION_TAG


def configured_sensor_interval() -> int:
    """``sensor.minimum_interval_s`` of the settings ``KG_DATA_DIR`` / ``KG_CONFIG`` name; the
    default when they cannot be read (the code location still loads, and every run then reports
    the settings error itself)."""
    try:
        return load_settings().sensor.minimum_interval_s
    except (ValueError, OSError) as exc:
        default = SensorSettings().minimum_interval_s
        logging.getLogger(__name__).warning("sensor interval: settings unreadable (%s); using %d s", exc, default)
        return default


SENSOR_INTERVAL_S = configured_sensor_interval()
WAITING = [DagsterRunStatus.QUEUED, DagsterRunStatus.NOT_STARTED, DagsterRunStatus.STARTING]
QUEUED_OR_GOING = [*WAITING, DagsterRunStatus.STARTED, DagsterRunStatus.CANCELING]


def sync_run_request(collection: str, run_key: str | None, reason: str) -> RunRequest:
    return RunRequest(
        job_name=sync_collection_job.name,
        partition_key=collection,
        run_key=run_key,
        tags={INGESTION_TAG: "true", "kg/reason": reason},
    )


def queue_full(context: SensorEvaluationContext, settings) -> SkipReason | None:
    """The capacity guard of every sensor: skip while ``sensor.max_queued_runs`` runs wait."""
    waiting = context.instance.get_runs_count(RunsFilter(statuses=WAITING))
    if waiting >= settings.sensor.max_queued_runs:
        return SkipReason(
            f"capacity guard: {waiting} runs already wait in the queue (limit {settings.sensor.max_queued_runs})"
        )
    return None


def _digest(parts: list[str]) -> str:
    return hashlib.sha1("\n".join(sorted(parts)).encode()).hexdigest()[:16]


@sensor(
    jobs=[sync_collection_job],
    minimum_interval_seconds=SENSOR_INTERVAL_S,
    default_status=DefaultSensorStatus.RUNNING,  # dropping a file into the inbox is enough
    description="Watches <inbox>/<collection>/ for .txt, .md and .pdf files; each collection with new, edited or "
    "deleted files gets one sync_collection run.",
)
def inbox_sensor(context: SensorEvaluationContext, kg: KGResource):
    settings = kg.settings
    full = queue_full(context, settings)
    if full is not None:
        return full
    state = json.loads(context.cursor) if context.cursor else {}
    saved_tick = state.get("tick", 0)
    tick = saved_tick + 1
    files = []
    for found in scan_inbox(settings.inbox):
        try:
            validate_collection_name(found.collection)
            files.append(found)
        except ValueError as exc:
            context.log.warning(f"{found.path}: skipped: {exc}")
    registry = kg.registry()
    registered = registry.all(include_removed=True)
    changes = plan_inbox_changes(
        files,
        registered,
        tuple(state.get("mark", (0.0, ""))),
        settings.sensor.max_files_per_tick,
        settings.inbox,
        saved_tick,
    )
    generations = registry.register(changes.to_ingest, tick)
    registry.forget(changes.to_remove, tick)
    removed_generation = {s.document_id: s.generation for s in registered}
    collection_of = {s.document_id: s.collection for s in registered}

    change_sets: dict[str, list[str]] = {}
    for source in changes.to_ingest:
        change_sets.setdefault(source.collection, []).append(
            f"{source.document_id}:{source.content_hash}:{generations[source.document_id]}"
        )
    for document_id in changes.to_remove:
        change_sets.setdefault(collection_of[document_id], []).append(
            f"removed:{document_id}:{removed_generation[document_id]}"
        )
    known = set(context.instance.get_dynamic_partitions(collections_partitions.name))
    new_partitions = sorted(set(change_sets) - known)
    runs = [sync_run_request(c, f"sync:{c}:{_digest(parts)}", "inbox") for c, parts in sorted(change_sets.items())]
    if changes.more_waiting:
        context.log.info(f"{changes.more_waiting} more file(s) wait for the next tick (max_files_per_tick)")
    cursor = json.dumps({"mark": list(changes.watermark), "tick": tick})
    if not runs:
        return SensorResult(skip_reason=SkipReason("no new, edited or deleted files in the inbox"), cursor=cursor)
    requests = [AddDynamicPartitionsRequest(collections_partitions.name, new_partitions)] if new_partitions else []
    return SensorResult(run_requests=runs, dynamic_partitions_requests=requests, cursor=cursor)


@sensor(
    jobs=[sync_collection_job],
    minimum_interval_seconds=SENSOR_INTERVAL_S,
    default_status=DefaultSensorStatus.RUNNING,  # failed chunks recover without a person
    description="Launches a sync of each collection whose failed chunks are due for another retry round "
    "(growing delays; after chunk_jobs.max_retry_rounds rounds a chunk is quarantined).",
)
def retry_sensor(context: SensorEvaluationContext, kg: KGResource):
    now = datetime.now(UTC)
    due = kg.registry().due_retries(now)
    if not due:
        return SkipReason("no failed chunk is due for a retry")
    busy = {
        r.tags.get("dagster/partition")
        for r in context.instance.get_runs(RunsFilter(statuses=QUEUED_OR_GOING, job_name=sync_collection_job.name))
    }
    # no run key: a retry run that died before it could reschedule its chunks must be launchable again
    runs = [sync_run_request(c, None, "retry") for c, _ in due if c not in busy]
    if not runs:
        return SkipReason(
            f"retries are due for {', '.join(c for c, _ in due)}, whose sync is already queued or running"
        )
    # a collection whose partition is gone from the instance (deleted in the UI, a new Dagster home
    # over an old data dir) gets it back: a request for an unknown partition fails the whole tick
    known = set(context.instance.get_dynamic_partitions(collections_partitions.name))
    missing = sorted(r.partition_key for r in runs if r.partition_key not in known)
    requests = [AddDynamicPartitionsRequest(collections_partitions.name, missing)] if missing else []
    return SensorResult(run_requests=runs, dynamic_partitions_requests=requests)
