"""Duplicate nodes (seed 001) in Dagster: two graph-health assets and their jobs (the weekly
schedule is in ``schedules.py`` with the other graph-health schedules).

- ``duplicate_candidates``: the detection cascade over the whole graph; its table is the scored
  plan (both ids and names, the three component scores, the total, the decision and its reason) a
  person reviews in the UI before anything merges;
- ``node_merges``: merges the plan's ``merge`` pairs in one transaction (Strategy 1, the periodic
  pass), attaches a before/after picture and logs fresh ``kg_nodes`` / ``kg_edges`` figures in the
  same run. With ``unmerge_ids`` in its run config it undoes those merges instead.

Not partitioned (the graph spans collections), pool ``duckdb`` (never beside an ingestion write).
Formation-time dedup (Strategy 2) runs in the graph asset itself.
"""

from dagster import (
    AssetExecutionContext,
    AssetKey,
    AssetSelection,
    Config,
    MaterializeResult,
    MetadataValue,
    asset,
    define_asset_job,
    in_process_executor,
)
from pydantic import Field

from kg_pipelines.graph.graph_pictures import merge_pass_picture
from kg_pipelines.graph.node_merging import unmerge_as_distinct
from kg_pipelines.graph.periodic_merging import merge_planned, plan_duplicates
from kg_pipelines.stores.node_vectors import NodeVectors
from kg_pipelines.stores.warehouse import fetch_dicts

from .graph_health import graph_refresh_events, publish_graph_change
from .metadata import definition_metadata, preview_table
from .resources import KGResource, _mark_run_process

DEDUP = dict(group_name="graph_health", kinds={"duckdb", "lancedb"}, pool="duckdb")
PLAN_COLUMNS = [
    "node_a",
    "node_b",
    "name_a",
    "name_b",
    "node_type",
    "embedding_similarity",
    "name_similarity",
    "metadata_overlap",
    "score",
    "stage",
    "decision",
    "reason",
]


class DuplicateCandidatesConfig(Config):
    threshold: float | None = Field(default=None, ge=0, le=1, description="Override dedup.threshold for this run")


class NodeMergesConfig(Config):
    dry_run: bool = Field(default=False, description="Merge nothing: the plan stays in duplicate_candidates")
    unmerge_ids: list[str] = Field(default_factory=list, description="Undo these merges (node_merges.merge_id)")
    origin: str = Field(default="ui", description="Who asked: ui, cli or weekly (recorded per merge)")


def _node_vectors(kg: KGResource) -> NodeVectors:
    return NodeVectors.for_settings(kg.settings)


@asset(
    **DEDUP,
    deps=[AssetKey("kg_nodes")],
    description="Duplicate node candidates (seed 001): LanceDB k nearest same-type nodes, then the cascade "
    "(NEVER_MERGE and a person's decisions, exact name, fuzzy name, the score 0.7 embedding + 0.2 name + 0.1 "
    "metadata, the grey zone to the LLM or to a person). The scored plan to review before node_merges.",
    metadata=definition_metadata("duplicate_candidates"),
)
def duplicate_candidates(
    context: AssetExecutionContext, kg: KGResource, config: DuplicateCandidatesConfig
) -> MaterializeResult:
    _mark_run_process(context)
    settings = kg.settings
    threshold = settings.dedup.threshold if config.threshold is None else config.threshold
    with kg.warehouse() as conn:
        now = kg.now()
        llm = kg.llm_client()
        report = plan_duplicates(conn, _node_vectors(kg), settings, now, threshold, llm=llm)
        counts = report.counts()
        context.log.info(f"dedup: {report.nodes} node(s), {report.candidate_pairs} candidate pair(s): {counts}")
        return MaterializeResult(
            metadata={
                **preview_table(
                    conn, "duplicate_candidates", "true ORDER BY score DESC", [], PLAN_COLUMNS, preview_rows=20
                ),
                "threshold": threshold,
                "grey_zone": f"[{min(settings.dedup.grey_zone_low, threshold)}, {threshold})",
                "nodes_compared": report.nodes,
                "candidate_pairs": report.candidate_pairs,
                "dropped_by_name_check": report.dropped_by_name,
                "to_merge": counts.get("merge", 0),
                "kept_apart": counts.get("keep_apart", 0),
                "needs_review": counts.get("needs_review", 0),
                "decisions_file": MetadataValue.path(str(settings.data_dir / settings.dedup.decisions_file)),
                **llm.counters.snapshot(),
            }
        )


@asset(
    **DEDUP,
    deps=[AssetKey("duplicate_candidates")],
    description="Merges of duplicate nodes (seed 001, six steps): energy summed per source with tanh "
    "saturation, base_weight averaged, links redirected (weights averaged, no self-loops), metadata union, "
    "oldest created_at, merge_history; one transaction per pass; each row holds what `unmerge` restores.",
    metadata=definition_metadata("node_merges"),
)
def node_merges(context: AssetExecutionContext, kg: KGResource, config: NodeMergesConfig) -> MaterializeResult:
    _mark_run_process(context)
    settings = kg.settings
    store = _node_vectors(kg)
    with kg.warehouse() as conn:
        now = kg.now()
        if config.unmerge_ids:
            decisions = settings.data_dir / settings.dedup.decisions_file
            undone = unmerge_as_distinct(conn, config.unmerge_ids, now, decisions)  # the pair stays apart
            published = publish_graph_change(conn, settings, now)
            for event in graph_refresh_events(conn, "unmerge", now, {"merges_undone": len(undone)}):
                context.log_event(event)
            return MaterializeResult(
                metadata={
                    **preview_table(conn, "node_merges", "undone_at = ?", [now], _MERGE_COLUMNS),
                    **published.metadata(),
                    "merges_undone": MetadataValue.json([m["merge_id"] for m in undone]),
                    "restored_nodes": MetadataValue.json([m["duplicate_id"] for m in undone]),
                }
            )
        planned = fetch_dicts(
            conn, "SELECT node_a, node_b FROM duplicate_candidates WHERE decision = 'merge' ORDER BY score DESC"
        )
        involved = sorted({n for p in planned for n in (p["node_a"], p["node_b"])})
        before = _edges_around(conn, involved)
        names = dict(conn.execute("SELECT node_id, name FROM kg_nodes").fetchall())
        if config.dry_run:
            return MaterializeResult(
                metadata={
                    **preview_table(conn, "node_merges", "merged_at = ?", [now], _MERGE_COLUMNS),
                    "dry_run": True,
                    "planned_merges": len(planned),
                }
            )
        report = merge_planned(conn, store, settings, now, origin=config.origin)
        merges = [vars(m) for m in report.merges]
        after = _edges_around(conn, sorted({m["canonical_id"] for m in merges}))
        path, summary = merge_pass_picture(settings.data_dir, now, merges, before, after, names)
        published = publish_graph_change(conn, settings, now).metadata() if merges else {}
        for event in graph_refresh_events(conn, "dedup merge pass", now, {"nodes_merged": len(merges)}):
            context.log_event(event)
        return MaterializeResult(
            metadata={
                **preview_table(conn, "node_merges", "merged_at = ?", [now], _MERGE_COLUMNS),
                **published,
                "nodes_merged": len(merges),
                "edges_redirected": sum(m["edges_redirected"] for m in merges),
                "edges_combined": sum(m["edges_combined"] for m in merges),
                "self_loops_dropped": sum(m["self_loops_dropped"] for m in merges),
                "skipped": MetadataValue.json(report.skipped),
                "strategy": settings.dedup.strategy,
                "picture": MetadataValue.path(str(path)),
                "picture_summary": MetadataValue.md(summary),
            }
        )


_MERGE_COLUMNS = ["merge_id", "duplicate_name", "canonical_name", "score", "decision", "strategy", "origin"]


def _edges_around(conn, node_ids: list[str], cap: int = 300) -> list[tuple[str, str]]:
    if not node_ids:
        return []
    return [
        (s, t)
        for s, t in conn.execute(
            f"""SELECT source_id, target_id FROM kg_edges
                WHERE source_id IN (SELECT unnest(?::VARCHAR[])) OR target_id IN (SELECT unnest(?::VARCHAR[]))
                ORDER BY edge_id LIMIT {cap}""",
            [node_ids, node_ids],
        ).fetchall()
    ]


dedup_nodes_job = define_asset_job(
    "dedup_nodes",
    selection=AssetSelection.assets("duplicate_candidates", "node_merges"),
    executor_def=in_process_executor,
    description="Detect duplicate nodes and merge them (seed 001, the periodic pass).",
)
detect_duplicates_job = define_asset_job(
    "detect_duplicate_nodes",
    selection=AssetSelection.assets("duplicate_candidates"),
    executor_def=in_process_executor,
    description="Detect duplicate nodes only: the plan in duplicate_candidates, nothing merged (dry run).",
)
unmerge_job = define_asset_job(
    "unmerge_nodes",
    selection=AssetSelection.assets("node_merges"),
    executor_def=in_process_executor,
    description="Undo merges of duplicate nodes (run config: ops: node_merges: config: unmerge_ids).",
)


DEDUP_ASSETS = [duplicate_candidates, node_merges]
DEDUP_JOBS = [dedup_nodes_job, detect_duplicates_job, unmerge_job]
