"""The knowledge merger's assets, one partition per page bundle (``page_bundles``):

proposed_pages (validated pages and links) -> merge_plans (phases 1-2, one row per NodePlan)
-> merged_wiki_pages (phases 3-5: writes the wiki pages into kg_nodes / kg_edges), with the
phase 4 audit as asset checks. plan.md is attached as Markdown metadata and written to
``<data_dir>/merges/<bundle>/plan.md``.
"""

from pathlib import Path

from dagster import (
    AssetCheckResult,
    AssetCheckSpec,
    AssetExecutionContext,
    Config,
    Failure,
    MaterializeResult,
    MetadataValue,
    asset,
)
from pydantic import Field

from kg_pipelines.merger.audit import AUDIT_CHECKS, audit_subgraph
from kg_pipelines.merger.knowledge_merger import (
    PAGES_FOLDER,
    embedding_scorer,
    execute,
    planned,
    read_bundle,
    store_bundle,
    write_plan_files,
)
from kg_pipelines.merger.pages import BundleError
from kg_pipelines.merger.plan_document import render_plan
from kg_pipelines.merger.plans import load_plan, load_proposed_pages

from .graph_health import publish_graph_change
from .metadata import definition_metadata, preview_table
from .partitions import page_bundles_partitions
from .resources import KGResource, _mark_run_process

MERGER = {"group_name": "merger", "partitions_def": page_bundles_partitions, "pool": "duckdb"}
BUNDLE_ROWS = "bundle_id = ?"
CHECK_DESCRIPTIONS = {
    "audit_nodes": "Every page executed; created pages exist in the graph; merge targets were updated.",
    "audit_edges": "Each parent's result page has the edge of the right type to each child's result page.",
    "audit_content": "Created pages hold what was submitted; merged pages hold the key content of the new page.",
    "subgraphs_completed": "Every sub-graph COMPLETED (none FAILED after its retries).",
}


class BundleConfig(Config):
    bundle_path: str = Field(
        default="",
        description="The bundle to read (a .json file or a folder of .md files); empty: <inbox>/pages/<partition>",
    )


def _bundle_path(kg: KGResource, bundle_id: str, config: BundleConfig) -> Path:
    if config.bundle_path:
        return Path(config.bundle_path)
    folder = kg.settings.inbox / PAGES_FOLDER
    for candidate in (folder / f"{bundle_id}.json", folder / bundle_id):
        if candidate.exists():
            return candidate
    raise Failure(
        f"page bundle {bundle_id!r}: neither {folder / bundle_id}.json nor the folder {folder / bundle_id}/ exists"
    )


@asset(
    kinds={"duckdb"},
    description="The pages of a page bundle, validated: page types, links to pages of the bundle or the graph, "
    "the hierarchy's link types, no cycles, a Principle has an Implementation, unique page ids.",
    metadata=definition_metadata("proposed_pages"),
    **MERGER,
)
def proposed_pages(context: AssetExecutionContext, config: BundleConfig, kg: KGResource) -> MaterializeResult:
    _mark_run_process(context)
    bundle_id = context.partition_key
    path = _bundle_path(kg, bundle_id, config)
    with kg.warehouse() as conn:
        try:
            bundle = read_bundle(conn, path, bundle_id)
        except BundleError as exc:
            raise Failure(
                description=str(exc),
                metadata={"problems": MetadataValue.md("\n".join(f"- {p}" for p in exc.problems))},
                allow_retries=False,
            ) from exc
        stored = store_bundle(conn, bundle, kg.now())
        return MaterializeResult(
            metadata={
                **preview_table(
                    conn,
                    "proposed_pages",
                    BUNDLE_ROWS,
                    [bundle_id],
                    ["page_id", "page_type", "title", "outgoing_links"],
                    partition_where=(BUNDLE_ROWS, [bundle_id]),
                    preview_rows=20,
                ),
                "pages": len(bundle.pages),
                "changed": stored.changed,
                "bundle_hash": bundle.content_hash,
                "source_path": MetadataValue.path(bundle.source_path),
            }
        )


@asset(
    deps=[proposed_pages],
    kinds={"duckdb", "lancedb"},
    description="Phases 1-2 of the merge: sub-graphs, top-down decisions (same-type, scoped search; inherited "
    "CREATE_NEW; Heuristic tie-breaker), execution order and deferred edges; one row per NodePlan with its "
    "sub-graph's status, audit result and retry count. The same bundle content keeps its plan.",
    metadata=definition_metadata("merge_plans"),
    **MERGER,
)
def merge_plans(context: AssetExecutionContext, kg: KGResource) -> MaterializeResult:
    _mark_run_process(context)
    bundle_id, settings = context.partition_key, kg.settings
    with kg.warehouse() as conn:
        bundle = load_proposed_pages(conn, bundle_id)
        if bundle is None:
            raise Failure(f"page bundle {bundle_id!r} has no proposed_pages: materialize proposed_pages first")
        llm = kg.llm_client()
        plan, reused = planned(conn, bundle, lambda: embedding_scorer(conn, settings), llm, settings, kg.now())
        plan_md = render_plan(plan)
        path = write_plan_files(settings, plan, plan_md)
        decisions = [n.decision for sg in plan.subgraphs for n in sg.nodes.values()]
        return MaterializeResult(
            metadata={
                **preview_table(
                    conn,
                    "merge_plans",
                    BUNDLE_ROWS,
                    [bundle_id],
                    ["subgraph_id", "page_id", "decision", "merge_target_id", "best_match_score", "status"],
                    partition_where=(BUNDLE_ROWS, [bundle_id]),
                    preview_rows=30,
                ),
                "plan": MetadataValue.md(plan_md),
                "plan_path": MetadataValue.path(str(path)),
                "plan_reused": reused,
                "subgraphs": len(plan.subgraphs),
                "merge": decisions.count("MERGE"),
                "create_new": decisions.count("CREATE_NEW"),
                **llm.counters.snapshot(),
            }
        )


@asset(
    deps=[merge_plans],
    kinds={"duckdb", "lancedb"},
    description="Phases 3-5 of the merge: each sub-graph executed bottom-up into kg_nodes / kg_edges (created_by "
    "= merger; kg_index creates, kg_edit edits, edges added additively), audited, retried with the audit's "
    "feedback up to merger.max_retries times; created_pages / edited_pages. Resumes an interrupted run.",
    metadata=definition_metadata("merge_bundles"),
    check_specs=[
        AssetCheckSpec(name, asset="merged_wiki_pages", description=d) for name, d in CHECK_DESCRIPTIONS.items()
    ],
    **MERGER,
)
def merged_wiki_pages(context: AssetExecutionContext, kg: KGResource):
    _mark_run_process(context)
    bundle_id, settings = context.partition_key, kg.settings
    with kg.warehouse() as conn:
        plan = load_plan(conn, bundle_id)
        if plan is None:
            raise Failure(f"page bundle {bundle_id!r} has no plan: materialize merge_plans first")
        llm = kg.llm_client()
        outcome = execute(conn, plan, llm, settings, log=context.log.warning)
        published = publish_graph_change(conn, settings)  # readers (API, search) see the new pages
        plan_md = render_plan(plan)
        path = write_plan_files(settings, plan, plan_md)
        yield MaterializeResult(
            metadata={
                **preview_table(
                    conn,
                    "merge_bundles",
                    BUNDLE_ROWS,
                    [bundle_id],
                    ["bundle_id", "status", "created_pages", "edited_pages"],
                    partition_where=(BUNDLE_ROWS, [bundle_id]),
                ),
                "plan": MetadataValue.md(plan_md),
                "plan_path": MetadataValue.path(str(path)),
                "status": plan.status,
                "created_pages": MetadataValue.json(plan.created_pages),
                "edited_pages": MetadataValue.json(plan.edited_pages),
                "pages_executed": outcome.executed_nodes,
                "retries": sum(sg.retry_count for sg in plan.subgraphs),
                "subgraphs_failed": sum(sg.status == "FAILED" for sg in plan.subgraphs),
                **published.metadata(),
                **llm.counters.snapshot(),
            }
        )
        findings = [f for sg in plan.subgraphs for f in audit_subgraph(conn, bundle_id, sg, settings.merger)]
    for check in AUDIT_CHECKS:
        failed = [f.message for f in findings if f.check == check]
        yield AssetCheckResult(
            check_name=f"audit_{check}",
            passed=not failed,
            description="; ".join(failed[:5]) or CHECK_DESCRIPTIONS[f"audit_{check}"],
            metadata={"findings": len(failed)},
        )
    failed_subgraphs = [f"{sg.subgraph_id}: {sg.audit_result}" for sg in plan.subgraphs if sg.status != "COMPLETED"]
    yield AssetCheckResult(
        check_name="subgraphs_completed",
        passed=not failed_subgraphs,
        description="; ".join(failed_subgraphs[:5]) or CHECK_DESCRIPTIONS["subgraphs_completed"],
        metadata={
            "subgraphs": len(plan.subgraphs),
            "retry_counts": MetadataValue.json({sg.subgraph_id: sg.retry_count for sg in plan.subgraphs}),
        },
    )
