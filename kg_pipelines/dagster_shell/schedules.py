"""Consolidation schedules (seed 002 section 5): prune daily, merge duplicate edges weekly,
summarize every 14 days (not expressible in cron: a weekly schedule that skips the off-weeks,
counted from ``consolidation.summarize_anchor_date``).

Each tick decides without opening DuckDB (a run may hold its lock): the feature flag first, then
the figures the graph assets publish after each graph write (``graph_stats.json``: at least
``min_edges`` edges, first edge at least ``min_graph_age_days`` old); otherwise the tick is skipped
with the reason.
"""

from datetime import UTC, date, datetime

from dagster import RunRequest, ScheduleEvaluationContext, SkipReason, schedule

from kg_pipelines.graph.graph_stats import consolidation_skip_reason, read_graph_stats

from .jobs import consolidate_merge_edges_job, consolidate_prune_job, consolidate_summarize_job
from .resources import KGResource


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


def consolidation_tick(settings, operation: str, when: datetime) -> RunRequest | SkipReason:
    """The decision of one tick: a run request, or the reason to skip."""
    reason = consolidation_skip_reason(settings, read_graph_stats(settings.data_dir), when)
    if reason is None and operation == "summarize":
        reason = off_week_reason(settings, when)
    if reason is not None:
        return SkipReason(f"{operation} skipped: {reason}")
    return RunRequest(run_key=f"{operation}-{when.isoformat()}", tags={"kg/consolidation": operation})


@schedule(job=consolidate_prune_job, cron_schedule="0 3 * * *", execution_timezone="UTC")
def consolidate_prune_schedule(context: ScheduleEvaluationContext, kg: KGResource):
    """Prune weak edges every 24 hours."""
    return consolidation_tick(kg.settings, "prune", _tick_time(context))


@schedule(job=consolidate_merge_edges_job, cron_schedule="0 4 * * 1", execution_timezone="UTC")
def consolidate_merge_edges_schedule(context: ScheduleEvaluationContext, kg: KGResource):
    """Merge duplicate edges every 7 days."""
    return consolidation_tick(kg.settings, "merge-edges", _tick_time(context))


@schedule(job=consolidate_summarize_job, cron_schedule="0 5 * * 1", execution_timezone="UTC")
def consolidate_summarize_schedule(context: ScheduleEvaluationContext, kg: KGResource):
    """Summarize every 14 days: a weekly tick that skips the off-weeks."""
    return consolidation_tick(kg.settings, "summarize", _tick_time(context))


CONSOLIDATION_SCHEDULES = [
    consolidate_prune_schedule,
    consolidate_merge_edges_schedule,
    consolidate_summarize_schedule,
]
