"""Running the dedup jobs in-process (the CLI, the tests), like ``runner.sync_collections``: free
what dead runs hold, wait for a live writer, run on the given instance so the run shows in the UI."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from dagster import DagsterInstance

from kg_pipelines.config import KGSettings

from .run_guard import ensure_pool_limit, process_tags, wait_for_pool
from .runner import QUIET_LOGS, _root_cause


@dataclass
class DedupOutcome:
    run_id: str
    success: bool
    errors: list[str] = field(default_factory=list)

    @property
    def failed_runs(self) -> int:
        return 0 if self.success else 1


def run_dedup(
    settings: KGSettings,
    instance: DagsterInstance,
    dry_run: bool = False,
    threshold: float | None = None,
    unmerge_ids: Sequence[str] = (),
    echo: Callable[[str], None] = lambda _m: None,
) -> DedupOutcome:
    """Detect (and unless ``dry_run`` merge) duplicate nodes, or undo ``unmerge_ids``."""
    from kg_pipelines.definitions import defs

    ensure_pool_limit(instance)
    wait_for_pool(instance, settings.runs.pool_wait_timeout_s, echo)
    ops: dict = {}
    if unmerge_ids:
        name = "unmerge_nodes"
        ops["node_merges"] = {"config": {"unmerge_ids": list(unmerge_ids), "origin": "cli"}}
    else:
        name = "detect_duplicate_nodes" if dry_run else "dedup_nodes"
        if threshold is not None:
            ops["duplicate_candidates"] = {"config": {"threshold": threshold}}
        if not dry_run:
            ops["node_merges"] = {"config": {"origin": "cli"}}
    job = defs.resolve_job_def(name)
    tags = {"kg/dedup": "unmerge" if unmerge_ids else "cli", "kg/reason": "cli", **process_tags(os.getpid())}
    result = job.execute_in_process(
        instance=instance, tags=tags, raise_on_error=False, run_config={**QUIET_LOGS, "ops": ops}
    )
    errors = [
        f"step {e.step_key} failed: {_root_cause(e.event_specific_data.error).splitlines()[0]}"
        for e in result.all_events
        if e.is_step_failure
    ]
    return DedupOutcome(result.run_id, result.success, errors)
