"""Running the ingestion job in-process (the CLI and the tests): register the sources, add their
partitions, execute one run per contiguous range of partitions on the given instance."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from dagster import DagsterInstance

from kg_pipelines.config import KGSettings
from kg_pipelines.ingestion.inbox import contiguous_ranges
from kg_pipelines.stores.source_registry import Source, SourceRegistry

from .partitions import documents_partitions

# progress bars and a summary are the CLI's output; Dagster's own event log stays in the UI
QUIET_LOGS = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}


@dataclass
class IngestOutcome:
    runs: int = 0
    failed_runs: int = 0
    errors: list[str] = field(default_factory=list)


def ingest_sources(settings: KGSettings, sources: Sequence[Source], instance: DagsterInstance) -> IngestOutcome:
    from kg_pipelines.definitions import defs

    from .sensors import range_run_request

    SourceRegistry(settings.source_registry_path).register(sources)
    name = documents_partitions.name
    known = list(instance.get_dynamic_partitions(name))
    known_set = set(known)
    new = [s.document_id for s in sources if s.document_id not in known_set]
    if new:
        instance.add_dynamic_partitions(name, new)
    job = defs.resolve_job_def("ingest_documents")
    outcome = IngestOutcome()
    for start, end in contiguous_ranges(known + new, {s.document_id for s in sources}):
        tags = dict(range_run_request(start, end, "in-process").tags)
        result = job.execute_in_process(instance=instance, tags=tags, raise_on_error=False, run_config=QUIET_LOGS)
        outcome.runs += 1
        if not result.success:
            outcome.failed_runs += 1
            for event in result.all_events:
                error = getattr(event.event_specific_data, "error", None) if event.is_failure else None
                if error is not None:
                    outcome.errors.append(f"step {event.step_key} failed: {error.message.strip()}")
    return outcome


def delete_partitions(instance: DagsterInstance, document_ids: Sequence[str]) -> None:
    known = set(instance.get_dynamic_partitions(documents_partitions.name))
    for document_id in document_ids:
        if document_id in known:
            instance.delete_dynamic_partition(documents_partitions.name, document_id)
