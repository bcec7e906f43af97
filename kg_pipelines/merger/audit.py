"""Phase 4, the audit of an executed sub-graph. Each finding names the page to do again:

- ``nodes``: every page COMPLETED; a created page exists in the graph; a merge target exists and
  its merge_history records this page;
- ``edges``: each parent's result page has the edge of the right type to the child's result page,
  and each link to a page already in the graph exists;
- ``content``: a created page holds what was submitted (title, overview, content); a merged page
  holds the key content of the proposed page: every section heading, and at least
  ``merger.key_content_min_share`` of its content words.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import duckdb

from kg_pipelines.config import MergerSettings
from kg_pipelines.merger.content_merge import heading_key, split_sections
from kg_pipelines.merger.plans import SubGraphPlan

AUDIT_CHECKS = ("nodes", "edges", "content")
_WORD = re.compile(r"[a-z0-9][a-z0-9+.\-]*[a-z0-9+]|[a-z0-9]")
_STOP = frozenset(
    "a an and are as at be by for from has have in is it its of on or that the this to was were which with".split()
)


@dataclass(frozen=True)
class AuditFinding:
    check: str  # nodes, edges or content
    page_id: str  # the page whose execution must be done again
    message: str


def content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall((text or "").lower()) if w not in _STOP and len(w) > 2}


def audit_subgraph(
    conn: duckdb.DuckDBPyConnection, bundle_id: str, subgraph: SubGraphPlan, settings: MergerSettings
) -> list[AuditFinding]:
    findings: list[AuditFinding] = []
    nodes = subgraph.nodes
    ids = {r for plan in nodes.values() for r in (plan.result_page_id, plan.merge_target_id) if r}
    rows = {
        r[0]: {"name": r[1], "description": r[2] or "", "metadata": json.loads(r[3] or "{}"), "merges": r[4]}
        for r in conn.execute(
            "SELECT node_id, name, description, metadata, merge_history FROM kg_nodes "
            "WHERE node_id IN (SELECT unnest(?::VARCHAR[]))",
            [sorted(ids)],
        ).fetchall()
    }
    edges = {
        (r[0], r[1], r[2])
        for r in conn.execute(
            "SELECT source_id, target_id, edge_type FROM kg_edges WHERE source_id IN (SELECT unnest(?::VARCHAR[]))",
            [sorted(ids)],
        ).fetchall()
    }
    for page_id in subgraph.execution_order:
        plan = nodes[page_id]
        if plan.status != "COMPLETED" or not plan.result_page_id:
            why = f": {plan.error}" if plan.error else ""
            findings.append(AuditFinding("nodes", page_id, f"{page_id} was not executed ({plan.status}{why})"))
            continue
        row = rows.get(plan.result_page_id)
        if row is None:
            findings.append(
                AuditFinding("nodes", page_id, f"{page_id}: page {plan.result_page_id} is not in the graph")
            )
            continue
        if plan.decision == "MERGE":
            merges = json.loads(row["merges"] or "[]")
            if not any(m.get("merged_page") == f"{bundle_id}/{page_id}" for m in merges):
                findings.append(
                    AuditFinding("nodes", page_id, f"{page_id}: merge target {plan.result_page_id} was not updated")
                )
            findings += _merged_content(page_id, plan, row, settings)
        else:
            page = plan.page
            if (row["name"], row["description"], row["metadata"].get("content", "")) != (
                page.title,
                page.overview,
                page.content,
            ):
                findings.append(
                    AuditFinding(
                        "content", page_id, f"{page_id}: page {plan.result_page_id} differs from what was submitted"
                    )
                )
        for edge in plan.deferred_edges:
            parent = nodes[edge["parent_id"]]
            if parent.status != "COMPLETED" or not parent.result_page_id:
                continue  # reported as the parent's own finding
            if (parent.result_page_id, plan.result_page_id, edge["edge_type"]) not in edges:
                findings.append(
                    AuditFinding(
                        "edges",
                        parent.page_id,
                        f"{parent.page_id}: no {edge['edge_type']} edge "
                        f"{parent.result_page_id} -> {plan.result_page_id}",
                    )
                )
        for link in plan.page.page_links:
            if link.target_id not in nodes and (plan.result_page_id, link.target_id, link.edge_type) not in edges:
                findings.append(
                    AuditFinding(
                        "edges",
                        page_id,
                        f"{page_id}: no {link.edge_type} edge {plan.result_page_id} -> {link.target_id}",
                    )
                )
    return findings


def _merged_content(page_id: str, plan, row: dict, settings: MergerSettings) -> list[AuditFinding]:
    merged_text = row["description"] + "\n" + row["metadata"].get("content", "")
    have_headings = {heading_key(h) for h, _ in split_sections(row["metadata"].get("content", "")) if h}
    missing = [h for h, _ in split_sections(plan.page.content) if h and heading_key(h) not in have_headings]
    findings = []
    if missing:
        findings.append(
            AuditFinding("content", page_id, f"{page_id}: merged page lacks the section(s) {', '.join(missing)}")
        )
    words = content_words(plan.page.overview + "\n" + plan.page.content)
    if words:
        share = len(words & content_words(merged_text)) / len(words)
        if share < settings.key_content_min_share:
            findings.append(
                AuditFinding(
                    "content",
                    page_id,
                    f"{page_id}: merged page holds {share:.0%} of the proposed page's content words "
                    f"(at least {settings.key_content_min_share:.0%} expected)",
                )
            )
    return findings
