"""The inbox sensor: new or edited files become document partitions and ingestion runs; files that
disappeared from the inbox are removed from the graph.

- cursor: a watermark (mtime, path) of the newest file already handed to a run and a tick number,
  not a list of files;
- at most ``sensor.max_files_per_tick`` files per tick, the rest on the next ticks;
- capacity guard: while ``sensor.max_queued_runs`` runs wait in the queue, skip with a reason;
- many files at once become one run per contiguous range of partitions, not a run per document;
- run keys include content hashes and registry generations, so an edited, reverted or restored
  file is ingested again, while a re-evaluated tick repeats its own keys.
The sensor never opens the DuckDB warehouse (one writer per file); it reads the inbox and the
SQLite source registry only.
"""


import hashlib
import json

from dagster import (
    AddDynamicPartitionsRequest,
    DefaultSensorStatus,
    DagsterRunStatus,
    DeleteDynamicPartitionsRequest,
    RunRequest,
    RunsFilter,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    sensor,
)

from kg_pipelines.ingestion.inbox import contiguous_ranges, plan_inbox_changes, scan_inbox

from .jobs import INGESTION_TAG, ingest_documents_job, remove_documents_job
from .partitions import documents_partitions
from .resources import KGResource

WAITING = [DagsterRunStatus.QUEUED, DagsterRunStatus.NOT_STARTED, DagsterRunStatus.STARTING]


def range_run_request(start: str, end: str, run_key: str) -> RunRequest:
    return RunRequest(
        job_name=ingest_documents_job.name,
        run_key=run_key,
        tags={"dagster/asset_partition_range_start": start, "dagster/asset_partition_range_end": end, INGESTION_TAG: "true"},
    )


def _digest(parts: list[str]) -> str:
    return hashlib.sha1("\n".join(parts).encode()).hexdigest()[:16]


@sensor(
    jobs=[ingest_documents_job, remove_documents_job],
    minimum_interval_seconds=30,
    default_status=DefaultSensorStatus.RUNNING,  # dropping a file into the inbox is enough
    description="Watches <inbox>/<collection>/ for .txt, .md and .pdf files: ingests new and edited ones, "
    "removes deleted ones.",
)
def inbox_sensor(context: SensorEvaluationContext, kg: KGResource):
    settings = kg.settings
    waiting = context.instance.get_runs_count(RunsFilter(statuses=WAITING))
    if waiting >= settings.sensor.max_queued_runs:
        return SkipReason(f"capacity guard: {waiting} runs already wait in the queue (limit {settings.sensor.max_queued_runs})")
    state = json.loads(context.cursor) if context.cursor else {}
    saved_tick = state.get("tick", 0)
    tick = saved_tick + 1
    registry = kg.registry()
    registered = registry.all(include_removed=True)
    changes = plan_inbox_changes(
        scan_inbox(settings.inbox), registered, tuple(state.get("mark", (0.0, ""))),
        settings.sensor.max_files_per_tick, settings.inbox, saved_tick,
    )
    existing = list(context.instance.get_dynamic_partitions(documents_partitions.name))
    known = set(existing)
    new_keys = [s.document_id for s in changes.to_ingest if s.document_id not in known]
    removed = [k for k in changes.to_remove if k in known]
    generations = registry.register(changes.to_ingest, tick)
    registry.forget(changes.to_remove, tick)
    removed_generation = {s.document_id: s.generation for s in registered}

    gone = set(removed)
    order = [k for k in existing if k not in gone] + new_keys
    hashes = {s.document_id: s.content_hash or "" for s in changes.to_ingest}
    runs = []
    for start, end in contiguous_ranges(order, set(hashes)):
        keys = order[order.index(start) : order.index(end) + 1]
        runs.append(range_run_request(start, end, "ingest:" + _digest([f"{k}:{hashes[k]}:{generations[k]}" for k in keys])))
    if changes.to_remove:
        runs.append(
            RunRequest(
                job_name=remove_documents_job.name,
                run_key="remove:" + _digest(sorted(f"{d}:{removed_generation[d]}" for d in changes.to_remove)),
                run_config={"ops": {"remove_documents_op": {"config": {"document_ids": changes.to_remove}}}},
            )
        )
    requests = []
    if new_keys:
        requests.append(AddDynamicPartitionsRequest(documents_partitions.name, new_keys))
    if removed:
        requests.append(DeleteDynamicPartitionsRequest(documents_partitions.name, removed))
    if changes.more_waiting:
        context.log.info(f"{changes.more_waiting} more file(s) wait for the next tick (max_files_per_tick)")
    cursor = json.dumps({"mark": list(changes.watermark), "tick": tick})
    if not runs and not requests:
        return SensorResult(skip_reason=SkipReason("no new, edited or deleted files in the inbox"), cursor=cursor)
    return SensorResult(run_requests=runs, dynamic_partitions_requests=requests, cursor=cursor)
