"""The graph-health schedules: consolidation (seed 002 section 5) and the weekly dedup pass (seed 001).

| schedule | cron (UTC) | job |
|---|---|---|
| ``consolidate_prune_schedule`` | daily 03:00 | prune weak edges |
| ``consolidate_merge_edges_schedule`` | Mondays 04:00 | merge duplicate edges |
| ``consolidate_summarize_schedule`` | Mondays 05:00, every other week | topic clusters, communities |
| ``weekly_dedup_schedule`` | Sundays 03:00 | duplicate nodes: detect and merge |

All four start RUNNING (``make dev`` runs them through the Dagster daemon). "Every 14 days" is
not expressible in cron: summarize is a weekly schedule that skips the off-weeks, counted from
``consolidation.summarize_anchor_date``.

Each tick decides without opening DuckDB (a run may hold its lock), in this order: the feature flag
``consolidation.enabled`` (seed 002 section 5.2, default on), then the figures the graph writers
publish (``graph_stats.json``: at least ``min_edges`` edges, first edge at least
``min_graph_age_days`` old), then summarize's off-weeks. A tick that does not run says why in a
``SkipReason`` the UI shows on the schedule's tick history. The dedup pass is gated the same way:
on a young graph the formation-time dedup of the graph asset already absorbs new duplicates, and
``kg-pipelines dedup`` runs the pass by hand.
"""

from datetime import UTC, date, datetime

from dagster import DefaultScheduleStatus, RunRequest, ScheduleEvaluationContext, SkipReason, schedule

from kg_pipelines.graph.graph_stats import consolidation_skip_reason, read_graph_stats

from .dedup_assets import dedup_nodes_job
from .jobs import consolidate_merge_edges_job, consolidate_prune_job, consolidate_summarize_job
from .resources import KGResource

RUNNING = DefaultScheduleStatus.RUNNING
PRUNE_CRON = "0 3 * * *"  # daily 03:00 UTC
MERGE_EDGES_CRON = "0 4 * * 1"  # Mondays 04:00 UTC
SUMMARIZE_CRON = "0 5 * * 1"  # Mondays 05:00 UTC; every other week (off-weeks skip)
WEEKLY_DEDUP_CRON = "0 3 * * 0"  # Sundays 03:00 UTC, after the daily prune


def _tick_time(context: ScheduleEvaluationContext) -> datetime:
    when = context.scheduled_execution_time
    return when.astimezone(UTC) if when is not None else datetime.now(UTC)


def off_week_reason(settings, when: datetime) -> str | None:
    """Why ``when`` is an off-week of the every-n-weeks summarize schedule, or None."""
    options = settings.consolidation
    anchor = date.fromisoformat(options.summarize_anchor_date)
    weeks = (when.date() - anchor).days // 7
    if weeks % options.summarize_every_weeks:
        return (
            f"off-week: summarize runs every {options.summarize_every_weeks} weeks counted from "
            f"{options.summarize_anchor_date}; this is week {weeks}"
        )
    return None


def skip_reason(settings, operation: str, when: datetime) -> str | None:
    """Why the ``operation`` tick at ``when`` must not request a run (the flag, the graph's size and
    age, summarize's off-weeks), or None when it may."""
    reason = consolidation_skip_reason(settings, read_graph_stats(settings.data_dir), when)
    if reason is None and operation == "summarize":
        reason = off_week_reason(settings, when)
    return reason


def consolidation_tick(settings, operation: str, when: datetime) -> RunRequest | SkipReason:
    """The decision of one consolidation tick: a run request, or the reason to skip."""
    reason = skip_reason(settings, operation, when)
    if reason is not None:
        return SkipReason(f"{operation} skipped: {reason}")
    return RunRequest(run_key=f"{operation}-{when.isoformat()}", tags={"kg/consolidation": operation})


def dedup_tick(settings, when: datetime) -> RunRequest | SkipReason:
    """The decision of one weekly dedup tick: the merge pass (``origin: weekly``), or the reason to skip."""
    reason = skip_reason(settings, "dedup", when)
    if reason is not None:
        return SkipReason(f"weekly dedup skipped: {reason}")
    return RunRequest(
        run_key=f"dedup-{when.isoformat()}",
        run_config={"ops": {"node_merges": {"config": {"origin": "weekly"}}}},
        tags={"kg/dedup": "weekly"},
    )


@schedule(
    job=consolidate_prune_job,
    cron_schedule=PRUNE_CRON,
    execution_timezone="UTC",
    default_status=RUNNING,
    description="Prune weak edges every 24 hours (seed 002), when consolidation.enabled and the graph has at least "
    "consolidation.min_edges edges and is consolidation.min_graph_age_days old.",
)
def consolidate_prune_schedule(context: ScheduleEvaluationContext, kg: KGResource):
    return consolidation_tick(kg.settings, "prune", _tick_time(context))


@schedule(
    job=consolidate_merge_edges_job,
    cron_schedule=MERGE_EDGES_CRON,
    execution_timezone="UTC",
    default_status=RUNNING,
    description="Merge duplicate edges every 7 days (seed 002), behind the same flag and gates as the prune.",
)
def consolidate_merge_edges_schedule(context: ScheduleEvaluationContext, kg: KGResource):
    return consolidation_tick(kg.settings, "merge-edges", _tick_time(context))


@schedule(
    job=consolidate_summarize_job,
    cron_schedule=SUMMARIZE_CRON,
    execution_timezone="UTC",
    default_status=RUNNING,
    description="Topic clusters and communities every 14 days (seed 002): a weekly tick that skips the off-weeks "
    "counted from consolidation.summarize_anchor_date; same flag and gates as the prune.",
)
def consolidate_summarize_schedule(context: ScheduleEvaluationContext, kg: KGResource):
    return consolidation_tick(kg.settings, "summarize", _tick_time(context))


@schedule(
    job=dedup_nodes_job,
    cron_schedule=WEEKLY_DEDUP_CRON,
    execution_timezone="UTC",
    default_status=RUNNING,
    description="The weekly duplicate-node merge pass (seed 001 Strategy 1), behind the same flag and gates as "
    "consolidation.",
)
def weekly_dedup_schedule(context: ScheduleEvaluationContext, kg: KGResource):
    return dedup_tick(kg.settings, _tick_time(context))


CONSOLIDATION_SCHEDULES = [
    consolidate_prune_schedule,
    consolidate_merge_edges_schedule,
    consolidate_summarize_schedule,
]
GRAPH_HEALTH_SCHEDULES = [*CONSOLIDATION_SCHEDULES, weekly_dedup_schedule]
