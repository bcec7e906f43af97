"""plan.md, the seed's plan document: per sub-graph its root, execution order, node plans and
audit status, then what the merge created and edited."""

from __future__ import annotations

from datetime import UTC, datetime

from kg_pipelines.merger.plans import MergePlan, SubGraphPlan

AUDIT_STATUS = {
    "PLANNED": "PENDING",
    "EXECUTING": "PENDING",
    "RETRY": "FAILED",
    "COMPLETED": "PASSED",
    "FAILED": "FAILED",
}


def _cell(value: object) -> str:
    return "-" if value in (None, "") else str(value).replace("|", "\\|").replace("\n", " ")


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def render_plan(plan: MergePlan, generated: datetime | None = None) -> str:
    generated = generated or datetime.now(UTC)
    lines = [
        "# Merge Plan",
        "",
        f"Generated: {generated.strftime('%Y-%m-%d %H:%M:%S %Z')}",
        f"Bundle: {plan.bundle_id} (content hash {plan.bundle_hash[:12]})",
        f"Total SubGraphs: {len(plan.subgraphs)}",
        "",
        "---",
    ]
    for number, subgraph in enumerate(plan.subgraphs, 1):
        lines += ["", *_subgraph(number, subgraph), "", "---"]
    lines += [
        "",
        "## Result",
        f"- **Status**: {plan.status}",
        f"- **Created pages**: {', '.join(plan.created_pages) or '(none)'}",
        f"- **Edited pages**: {', '.join(plan.edited_pages) or '(none)'}",
    ]
    return "\n".join(lines) + "\n"


def _subgraph(number: int, subgraph: SubGraphPlan) -> list[str]:
    root = subgraph.nodes[subgraph.root_id]
    lines = [
        f"## SubGraph {number}: {subgraph.subgraph_id}",
        "",
        "### Root",
        f"- **Page**: {root.page_id}",
        f"- **Type**: {root.page_type}",
        f"- **Decision**: {root.decision}",
        f"- **Target**: {root.merge_target_id or 'N/A'}",
        f"- **Score**: {_score(root.best_match_score)}",
        "",
        "### Execution Order",
    ]
    for i, page_id in enumerate(subgraph.execution_order, 1):
        node = subgraph.nodes[page_id]
        action = f"MERGE with {node.merge_target_id}" if node.decision == "MERGE" else "CREATE_NEW"
        result = f" (result: {node.result_page_id})" if node.result_page_id else ""
        lines.append(f"{i}. {page_id} → {action}{result}")
    lines += [
        "",
        "### Node Plans",
        "",
        "| Node | Decision | Target | Score | Parent | Deferred Edge | Status | Reason |",
        "|------|----------|--------|-------|--------|---------------|--------|--------|",
    ]
    for node in subgraph.nodes.values():
        deferred = ", ".join(
            e["edge_type"] + ("" if e["parent_id"] == node.parent_id else f" (from {e['parent_id']})")
            for e in node.deferred_edges
        )
        lines.append(
            f"| {_cell(node.page_id)} | {node.decision} | {_cell(node.merge_target_id)} | "
            f"{_score(node.best_match_score)} | {_cell(node.parent_id or '(root)')} | {_cell(deferred)} | "
            f"{node.status} | {_cell(node.reason)} |"
        )
    lines += [
        "",
        "### Audit Status",
        f"- **Status**: {AUDIT_STATUS[subgraph.status]}",
        f"- **Retry Count**: {subgraph.retry_count}",
        f"- **Feedback**: {subgraph.audit_result or '(none)'}",
    ]
    return lines
