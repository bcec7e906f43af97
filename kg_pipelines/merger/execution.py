"""Phases 3 to 5: execute each sub-graph bottom-up, audit it, retry it, then finalize.

Each page is one transaction: its node (``kg_index`` creates, ``kg_edit`` edits), the edges from it
to its children's result pages, and its NodePlan's status and result_page_id. A run that dies
leaves every page either done and recorded, or untouched; the next run resumes at the first page
that is not COMPLETED, so no page is created twice.

Conflicts are resolved additively: a merged page keeps every edge it had and gains edges to the
new children's result pages; an edge that exists already keeps the richer explanation. Only an
LLM's merge may drop an existing merger-made link, when it says the new page supersedes it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import duckdb

from kg_pipelines.config import MergerSettings
from kg_pipelines.llm.client import LLMClient
from kg_pipelines.merger.audit import audit_subgraph
from kg_pipelines.merger.offline_decisions import merger_client
from kg_pipelines.merger.pages import EXTERNAL_EDGE_TYPES, WIKI_NODE_KIND, WikiPage
from kg_pipelines.merger.plans import MergePlan, NodePlan, SubGraphPlan, save_node, save_outcome, save_subgraph
from kg_pipelines.stores.warehouse import fetch_dicts, transaction

MAX_RETRIES = 3  # the seed's default; settings.merger.max_retries
EDGE_STRENGTH = 0.5


class ExecutionError(RuntimeError):
    """A page that could not be executed (its NodePlan becomes FAILED)."""


@dataclass
class MergeOutcome:
    plan: MergePlan
    executed_nodes: int
    audits: dict[str, list]  # subgraph_id -> the last audit's findings


def edge_id(edge_type: str, source_id: str, target_id: str) -> str:
    return f"{edge_type}:{source_id}->{target_id}"


# -- the two writes of the seed -------------------------------------------------------------------


def kg_index(conn: duckdb.DuckDBPyConnection, node_id: str, page: WikiPage, bundle_id: str, now: datetime) -> None:
    """Create (or, on a retry of this very page, restore) the wiki page node ``node_id``."""
    metadata = {
        "content": page.content,
        "page_id": page.page_id,
        "bundle_id": bundle_id,
        "github_urls": [x.target_id for x in page.outgoing_links if x.edge_type in EXTERNAL_EDGE_TYPES],
    }
    if conn.execute("SELECT count(*) FROM kg_nodes WHERE node_id = ?", [node_id]).fetchone()[0]:
        # a retry of this very page (its id was recorded): restore what was submitted
        conn.execute(
            "UPDATE kg_nodes SET node_type = ?, name = ?, description = ?, metadata = ?, updated_at = ? "
            "WHERE node_id = ? AND created_by = 'merger'",
            [page.page_type, page.title, page.overview, json.dumps(metadata), now, node_id],
        )
        return
    conn.execute(
        """INSERT INTO kg_nodes (node_id, node_kind, node_type, name, description, topic_key, energy, base_weight,
               support_count, created_by, created_at, updated_at, metadata, merge_history)
        VALUES (?, ?, ?, ?, ?, ?, '{}', 1.0, 0, 'merger', ?, ?, ?, '[]')""",
        [
            node_id,
            WIKI_NODE_KIND,
            page.page_type,
            page.title,
            page.overview,
            f"wiki:{page.page_type}",
            now,
            now,
            json.dumps(metadata),
        ],
    )


def kg_edit(
    conn: duckdb.DuckDBPyConnection, node_id: str, overview: str, content: str, history: dict, now: datetime
) -> None:
    """Edit the existing page ``node_id``: its overview and content, one more merge_history entry."""
    row = fetch_dicts(conn, "SELECT metadata, merge_history FROM kg_nodes WHERE node_id = ?", [node_id])
    if not row:
        raise ExecutionError(f"merge target {node_id!r} is not in the graph any more")
    metadata = json.loads(row[0]["metadata"] or "{}")
    metadata["content"] = content
    merges = [m for m in json.loads(row[0]["merge_history"] or "[]") if m.get("merged_page") != history["merged_page"]]
    merges.append(history)
    conn.execute(
        "UPDATE kg_nodes SET description = ?, metadata = ?, merge_history = ?, updated_at = ? WHERE node_id = ?",
        [overview, json.dumps(metadata), json.dumps(merges), now, node_id],
    )


def add_edge(
    conn: duckdb.DuckDBPyConnection, source_id: str, target_id: str, edge_type: str, explanation: str, now: datetime
) -> bool:
    """Add a merger-made edge; an existing one on the same target keeps the richer explanation.
    True when a new edge was written."""
    key = edge_id(edge_type, source_id, target_id)
    existing = conn.execute("SELECT explanation FROM kg_edges WHERE edge_id = ?", [key]).fetchall()
    if existing:
        if len(explanation) > len(existing[0][0] or ""):
            conn.execute("UPDATE kg_edges SET explanation = ? WHERE edge_id = ?", [explanation, key])
        return False
    conn.execute(
        """INSERT INTO kg_edges (edge_id, source_id, target_id, edge_type, strength, activation_count, created_at,
               last_activated_at, last_reinforced_at, created_by, protected, explanation, keywords,
               source_topic_key, target_topic_key, support_count)
        SELECT ?, ?, ?, ?, ?, 0, ?, NULL, NULL, 'merger', false, ?, [],
               (SELECT topic_key FROM kg_nodes WHERE node_id = ?),
               (SELECT topic_key FROM kg_nodes WHERE node_id = ?), 0""",
        [key, source_id, target_id, edge_type, EDGE_STRENGTH, now, explanation, source_id, target_id],
    )
    return True


# -- phase 3 --------------------------------------------------------------------------------------


class Executor:
    """Executes the pages of a plan. ``before_write(node)`` runs before each page's write (tests use
    it to inject failures and crashes)."""

    def __init__(
        self,
        conn: duckdb.DuckDBPyConnection,
        llm: LLMClient,
        settings: MergerSettings,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        before_write: Callable[[NodePlan], None] | None = None,
        log: Callable[[str], None] = lambda _m: None,
    ):
        self.conn = conn
        self.llm = merger_client(llm)
        self.settings = settings
        self.clock = clock
        self.before_write = before_write
        self.log = log

    def execute_subgraph(self, plan: MergePlan, subgraph: SubGraphPlan, feedback: str | None = None) -> int:
        """Execute from the first PENDING / FAILED page in execution order; stop at a page that fails
        (the pages after it stay PENDING). Returns the pages executed."""
        executed = 0
        for page_id in subgraph.execution_order:
            node = subgraph.nodes[page_id]
            if node.status == "COMPLETED":
                continue
            try:
                if self.before_write is not None:
                    self.before_write(node)
                with transaction(self.conn):
                    self._execute_node(plan, subgraph, node, feedback)
                    node.status, node.error = "COMPLETED", None
                    save_node(self.conn, plan, subgraph, node, self.clock())
                executed += 1
            except Exception as exc:  # one page failed: record it, the audit and the retry take over
                node.status, node.error = "FAILED", f"{type(exc).__name__}: {exc}"
                with transaction(self.conn):
                    save_node(self.conn, plan, subgraph, node, self.clock())
                self.log(f"{plan.bundle_id}: {page_id} failed: {node.error}")
                break
        return executed

    def _execute_node(self, plan: MergePlan, subgraph: SubGraphPlan, node: NodePlan, feedback: str | None) -> None:
        now, page = self.clock(), node.page
        children = [
            (child, edge)
            for child in subgraph.nodes.values()
            for edge in child.deferred_edges
            if edge["parent_id"] == node.page_id
        ]
        for child, _ in children:
            if child.status != "COMPLETED" or not child.result_page_id:
                raise ExecutionError(f"child {child.page_id} is {child.status}, not COMPLETED")
        if node.decision == "CREATE_NEW":
            node.result_page_id = node.result_page_id or self._free_id(node.page_id)
            kg_index(self.conn, node.result_page_id, page, plan.bundle_id, now)
        else:
            target = node.merge_target_id
            existing = fetch_dicts(
                self.conn, "SELECT node_id, name, description, metadata FROM kg_nodes WHERE node_id = ?", [target]
            )
            if not existing:
                raise ExecutionError(f"merge target {target!r} is not in the graph")
            links = [
                r[0]
                for r in self.conn.execute("SELECT target_id FROM kg_edges WHERE source_id = ?", [target]).fetchall()
            ]
            current = {
                "node_id": target,
                "title": existing[0]["name"],
                "overview": existing[0]["description"] or "",
                "content": json.loads(existing[0]["metadata"] or "{}").get("content", ""),
                "links": links,
            }
            merged = self.llm.merge_pages(f"merge:{plan.bundle_id}:{node.page_id}", current, page.to_dict(), feedback)
            history = {
                "merged_page": f"{plan.bundle_id}/{node.page_id}",
                "at": now.isoformat(),
                "reason": merged.reason,
                "previous_overview": current["overview"],
            }
            kg_edit(self.conn, target, merged.overview, merged.content, history, now)
            for superseded in merged.superseded_links:  # a clear winner: the LLM said so
                self.conn.execute(
                    "DELETE FROM kg_edges WHERE source_id = ? AND target_id = ? AND created_by = 'merger'",
                    [target, superseded],
                )
            node.result_page_id = target
        for child, edge in children:
            add_edge(
                self.conn,
                node.result_page_id,
                child.result_page_id,
                edge["edge_type"],
                f"{page.title} {edge['edge_type']} {child.page.title} (page bundle {plan.bundle_id})",
                now,
            )
        in_bundle = set(subgraph.nodes)
        for link in page.page_links:  # links to pages already in the graph
            if link.target_id not in in_bundle:
                add_edge(
                    self.conn,
                    node.result_page_id,
                    link.target_id,
                    link.edge_type,
                    f"{page.title} {link.edge_type} {link.target_id} (page bundle {plan.bundle_id})",
                    now,
                )

    def _free_id(self, page_id: str) -> str:
        """The page_id itself when no node has it; else the first free ``page_id~N``."""
        taken = {
            r[0]
            for r in self.conn.execute(
                "SELECT node_id FROM kg_nodes WHERE node_id = ? OR node_id LIKE ?", [page_id, page_id + "~%"]
            ).fetchall()
        }
        candidate, n = page_id, 1
        while candidate in taken:
            n += 1
            candidate = f"{page_id}~{n}"
        return candidate


# -- phases 3 to 5, with the audit and its retries -----------------------------------------------


def run_merge(executor: Executor, plan: MergePlan, plan_document=None, retry_failed: bool = True) -> MergeOutcome:
    """Execute every sub-graph not yet COMPLETED, audit it, retry it with the audit's feedback up to
    ``max_retries`` times, then finalize created_pages / edited_pages.

    A sub-graph FAILED by an earlier run gets ``max_retries`` more attempts when ``retry_failed``
    (a run started on purpose after the cause was dealt with), from its first page not COMPLETED,
    with its last audit feedback."""
    conn, settings = executor.conn, executor.settings
    executed, audits = 0, {}
    for subgraph in plan.subgraphs:
        if subgraph.status == "COMPLETED" or (subgraph.status == "FAILED" and not retry_failed):
            continue
        if subgraph.status == "FAILED":
            executor.log(f"{plan.bundle_id}: sub-graph {subgraph.subgraph_id} FAILED before: trying it again")
            subgraph.status, subgraph.retry_count = "RETRY", 0
        feedback = subgraph.audit_result if subgraph.status == "RETRY" else None
        while True:
            subgraph.status = "EXECUTING"
            with transaction(conn):
                save_subgraph(conn, plan, subgraph, executor.clock())
            executed += executor.execute_subgraph(plan, subgraph, feedback)
            findings = audit_subgraph(conn, plan.bundle_id, subgraph, settings)
            audits[subgraph.subgraph_id] = findings
            with transaction(conn):
                if not findings:
                    subgraph.status, subgraph.audit_result = "COMPLETED", None
                    save_subgraph(conn, plan, subgraph, executor.clock())
                    break
                feedback = "; ".join(f.message for f in findings)
                subgraph.audit_result = feedback
                subgraph.retry_count += 1
                # the pages the audit blames are done again, from the first one in execution order
                for finding in findings:
                    node = subgraph.nodes[finding.page_id]
                    if node.status == "COMPLETED":
                        node.status, node.error = "FAILED", finding.message
                        save_node(conn, plan, subgraph, node, executor.clock())
                subgraph.status = "RETRY" if subgraph.retry_count < settings.max_retries else "FAILED"
                save_subgraph(conn, plan, subgraph, executor.clock())
            if subgraph.status == "FAILED":
                executor.log(
                    f"{plan.bundle_id}: sub-graph {subgraph.subgraph_id} FAILED after {subgraph.retry_count} "
                    f"attempt(s): {feedback}"
                )
                break
            executor.log(f"{plan.bundle_id}: sub-graph {subgraph.subgraph_id} audit failed, retrying: {feedback}")
    finalize(plan)
    with transaction(conn):
        save_outcome(conn, plan, plan_document(plan) if plan_document else "", executor.clock())
    return MergeOutcome(plan, executed, audits)


def finalize(plan: MergePlan) -> MergePlan:
    """Phase 5: created_pages / edited_pages from the completed pages."""
    created, edited = [], []
    for subgraph in plan.subgraphs:
        for page_id in subgraph.execution_order:
            node = subgraph.nodes[page_id]
            if node.status != "COMPLETED" or not node.result_page_id:
                continue
            target = created if node.decision == "CREATE_NEW" else edited
            if node.result_page_id not in target:
                target.append(node.result_page_id)
    plan.created_pages, plan.edited_pages = created, edited
    statuses = {sg.status for sg in plan.subgraphs}
    plan.status = "COMPLETED" if statuses <= {"COMPLETED"} else "FAILED" if "FAILED" in statuses else "EXECUTING"
    return plan
