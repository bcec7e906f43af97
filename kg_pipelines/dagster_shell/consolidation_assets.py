"""Graph-health assets of consolidation (seed 002), not partitioned, pool duckdb:

- ``edge_prune_log``: prune weak edges (the log of what was pruned, restorable);
- ``consolidated_edges``: merge duplicate edges (one row per edge that absorbed duplicates);
- ``communities``: summarize (topic clusters again, communities with summaries);
- ``consolidation_reports``: the reports with the seed's health targets beside the figures.

Each operation runs ``run_consolidation`` (one transaction), attaches its before/after picture,
and, when it changed the graph, logs fresh ``kg_nodes`` / ``kg_edges`` figures in the same run.
Run config (launchpad, or the CLI): ``ops: <asset>: config: {dry_run: true, decay_half_life_days: 0}``.
"""

from dagster import AssetExecutionContext, AssetKey, Config, MaterializeResult, MetadataValue, asset
from pydantic import Field

from kg_pipelines.graph.consolidation import run_consolidation, write_report_file
from kg_pipelines.stores.warehouse import fetch_dicts

from .graph_health import graph_refresh_events, publish_graph_change
from .metadata import definition_metadata, preview_table
from .resources import KGResource, _mark_run_process

GROUP = "graph_health"
HEALTH = dict(group_name=GROUP, kinds={"duckdb"}, pool="duckdb")


class ConsolidationConfig(Config):
    dry_run: bool = Field(default=False, description="Report only: change nothing in the graph")
    decay_half_life_days: float | None = Field(
        default=None, description="Override consolidation.decay_half_life_days for this run (0: no decay)"
    )


def _operate(context, kg: KGResource, operation: str, config: ConsolidationConfig, table: str, preview: list[str]):
    _mark_run_process(context)
    settings = kg.settings
    llm = kg.llm_client() if operation == "summarize" and settings.llm.provider != "offline" else None
    with kg.warehouse() as conn:
        now = kg.now()
        result = run_consolidation(
            conn,
            settings,
            operation,
            now=now,
            dry_run=config.dry_run,
            decay_half_life_days=config.decay_half_life_days,
            llm_client=llm,
            data_dir=settings.data_dir,
        )
        report = result.report
        report_file = write_report_file(settings.data_dir, report.run_id, result.report_text)
        changed = (
            not config.dry_run
            and operation != "summarize"
            and (getattr(report, "pruned", 0) or getattr(report, "edges_merged", 0))
        )
        published = {}
        if changed:
            published = publish_graph_change(conn, settings, now).metadata()
            what = {"edges_pruned": report.pruned} if operation == "prune" else {"edges_merged": report.edges_merged}
            for event in graph_refresh_events(conn, f"consolidation {operation} ({report.run_id})", now, what):
                context.log_event(event)
        meta = preview_table(
            conn,
            table,
            "run_id = ?" if table != "communities" else "true",
            [report.run_id] if table != "communities" else [],
            preview,
        )
        meta.pop("dagster/partition_row_count", None)
    figures = {
        "prune": lambda r: {
            "total": r.total,
            "pruned": r.pruned,
            "kept": r.kept,
            "candidates": r.candidates,
            "kept_seed_bridge": r.kept_seed_bridge,
            "kept_true_bridge": r.kept_true_bridge,
            "kept_connectivity": r.kept_connectivity,
            "kept_structural": r.kept_structural,
        },
        "merge-edges": lambda r: {
            "total_before": r.total_before,
            "total_after": r.total_after,
            "edges_merged": r.edges_merged,
        },
        "summarize": lambda r: {
            "topic_clusters": len(r.clusters),
            "communities": len(r.communities),
            "algorithm": r.algorithm,
        },
    }[operation](report)
    return MaterializeResult(
        metadata={
            **meta,
            **figures,
            **published,
            "run_id": report.run_id,
            "report_file": MetadataValue.path(str(report_file)),
            "dry_run": config.dry_run,
            "health_target": result.health["target"],
            "health_actual": result.health["actual"],
            "within_target": result.health["within"],
            "picture": MetadataValue.path(str(result.picture_path)) if result.picture_path else "none",
            "picture_summary": MetadataValue.md(result.picture_summary or "no picture"),
        }
    )


@asset(
    **HEALTH,
    deps=[AssetKey("kg_edges"), AssetKey("prune_candidates")],
    description="Prune weak edges (seed 002): strength after decay < consolidation.prune_threshold, inactive "
    ">= min_inactive_days, not a bridge (the seed's rule and true bridges), not user-made, not protected. "
    "Each pruned edge is logged with its reason and row; its support rows move to pruned_edge_support "
    "(restorable).",
    metadata=definition_metadata("edge_prune_log"),
)
def edge_prune_log(context: AssetExecutionContext, kg: KGResource, config: ConsolidationConfig) -> MaterializeResult:
    return _operate(context, kg, "prune", config, "edge_prune_log", ["edge_id", "decayed_strength", "reason"])


@asset(
    **HEALTH,
    deps=[AssetKey("kg_edges"), AssetKey("edge_merge_groups")],
    description="Merge duplicate edges (seed 002): per unordered pair the strongest edge survives with "
    "strength min(1, max + 0.5 x sum(others)), summed activations and '[Merged N edges]'; it takes over the "
    "absorbed edges' support.",
    metadata=definition_metadata("consolidated_edges"),
)
def consolidated_edges(
    context: AssetExecutionContext, kg: KGResource, config: ConsolidationConfig
) -> MaterializeResult:
    return _operate(
        context,
        kg,
        "merge-edges",
        config,
        "consolidated_edges",
        ["edge_id", "edge_type", "absorbed_edge_ids", "old_strength", "new_strength"],
    )


@asset(
    **HEALTH,
    deps=[AssetKey("kg_edges"), AssetKey("kg_nodes"), AssetKey("topic_clusters")],
    description="Summarize (seed 002 + communities): topic clusters by topic key, and communities found by "
    "Louvain with an extractive (or LLM) summary each. Edges are not changed.",
    metadata=definition_metadata("communities"),
)
def communities(context: AssetExecutionContext, kg: KGResource, config: ConsolidationConfig) -> MaterializeResult:
    return _operate(context, kg, "summarize", config, "communities", ["community_id", "node_count", "summary"])


@asset(
    **HEALTH,
    deps=[AssetKey("edge_prune_log"), AssetKey("consolidated_edges"), AssetKey("communities")],
    description="Every consolidation run's report, with the seed's health targets (pruned 5-15 % per cycle, "
    "merged < 5 %, 3-10 clusters) beside the actual figures.",
    metadata=definition_metadata("consolidation_reports"),
)
def consolidation_reports(context: AssetExecutionContext, kg: KGResource) -> MaterializeResult:
    _mark_run_process(context)
    with kg.warehouse() as conn:
        latest = fetch_dicts(
            conn,
            """SELECT operation, run_id, dry_run, affected, affected_pct, health_target, within_target, picture_path
            FROM consolidation_reports QUALIFY row_number() OVER (PARTITION BY operation ORDER BY started_at DESC) = 1
            ORDER BY operation""",
        )
        meta = preview_table(
            conn,
            "consolidation_reports",
            "true ORDER BY started_at DESC",
            [],
            ["run_id", "operation", "dry_run", "affected", "affected_pct", "health_target", "within_target"],
        )
        meta.pop("dagster/partition_row_count", None)
    lines = ["| operation | run | affected | % | target | within |", "|---|---|---|---|---|---|"]
    for r in latest:
        lines.append(
            f"| {r['operation']}{' (dry run)' if r['dry_run'] else ''} | {r['run_id']} | {r['affected']} | "
            f"{r['affected_pct']} | {r['health_target']} | {r['within_target']} |"
        )
    return MaterializeResult(metadata={**meta, "latest_by_operation": MetadataValue.md("\n".join(lines))})


CONSOLIDATION_ASSETS = [edge_prune_log, consolidated_edges, communities, consolidation_reports]
