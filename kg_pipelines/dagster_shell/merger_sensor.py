"""``page_bundle_sensor``: each new or changed page bundle in ``<inbox>/pages/`` (a ``*.json``
file, or a folder of ``.md`` files with front matter) gets its ``page_bundles`` partition and one
``merge_page_bundle`` run.

- cursor: per bundle, the content hash it had when a run was last requested and how many runs were
  requested for it, so an unchanged bundle is not merged again, and an edited one is;
- run key: ``merge:<bundle>:<content hash>:<request number>`` (Dagster dedupes a run key forever: the
  number lets a bundle edited back to an earlier content be merged again);
- at most ``sensor.max_files_per_tick`` bundles per tick; capacity guard as for the inbox;
- it never opens the DuckDB warehouse: it reads files only.
"""

from __future__ import annotations

import json

from dagster import (
    AddDynamicPartitionsRequest,
    DefaultSensorStatus,
    RunRequest,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    sensor,
)

from kg_pipelines.merger.knowledge_merger import PAGES_FOLDER
from kg_pipelines.merger.pages import bundle_content_hash, find_bundles

from .jobs import merge_page_bundle_job
from .partitions import page_bundles_partitions
from .resources import KGResource
from .run_guard import INGESTION_TAG
from .sensors import SENSOR_INTERVAL_S, queue_full


def merge_run_request(bundle_id: str, path: str, version: str | None, reason: str) -> RunRequest:
    return RunRequest(
        job_name=merge_page_bundle_job.name,
        partition_key=bundle_id,
        run_key=f"merge:{bundle_id}:{version}" if version else None,
        run_config={"ops": {"proposed_pages": {"config": {"bundle_path": path}}}},
        tags={INGESTION_TAG: "true", "kg/reason": reason},
    )


@sensor(
    jobs=[merge_page_bundle_job],
    minimum_interval_seconds=SENSOR_INTERVAL_S,
    default_status=DefaultSensorStatus.RUNNING,
    description="Watches <inbox>/pages/ for page bundles (*.json, or folders of .md pages with front matter); each "
    "new or changed bundle gets one merge_page_bundle run on its page_bundles partition.",
)
def page_bundle_sensor(context: SensorEvaluationContext, kg: KGResource):
    settings = kg.settings
    full = queue_full(context, settings)
    if full is not None:
        return full
    seen: dict[str, list] = json.loads(context.cursor) if context.cursor else {}  # id -> [hash, requests]
    bundles, skipped = find_bundles(settings.inbox / PAGES_FOLDER)
    for reason in skipped:
        context.log.warning(f"skipped: {reason}")
    runs, left = [], 0
    for bundle_id, path in bundles.items():
        try:
            content_hash = bundle_content_hash(path)
        except OSError as exc:  # removed or unreadable while we looked: the next tick sees it
            context.log.warning(f"{path}: not readable now ({exc})")
            continue
        last_hash, requests = seen.get(bundle_id, [None, 0])
        if last_hash == content_hash:
            continue
        if len(runs) >= settings.sensor.max_files_per_tick:
            left += 1
            continue
        runs.append(merge_run_request(bundle_id, str(path), f"{content_hash[:16]}:{requests + 1}", "inbox"))
        seen[bundle_id] = [content_hash, requests + 1]
    if left:
        context.log.info(f"{left} more bundle(s) wait for the next tick (sensor.max_files_per_tick)")
    cursor = json.dumps(seen, sort_keys=True)
    if not runs:
        return SensorResult(skip_reason=SkipReason("no new or changed page bundle in the inbox"), cursor=cursor)
    known = set(context.instance.get_dynamic_partitions(page_bundles_partitions.name))
    new = sorted({r.partition_key for r in runs} - known)
    requests = [AddDynamicPartitionsRequest(page_bundles_partitions.name, new)] if new else []
    return SensorResult(run_requests=runs, dynamic_partitions_requests=requests, cursor=cursor)
