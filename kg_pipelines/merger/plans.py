"""The seed's plan structures (NodePlan, SubGraphPlan, MergePlan) and their rows in DuckDB.

A plan is persisted in ``merge_plans`` (one row per NodePlan, with its sub-graph's fields) and
``merge_bundles`` (one row per bundle: the MergePlan's fields). Statuses are written in the same
transaction as the graph change they record, so a run that dies resumes where it stopped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

import duckdb

from kg_pipelines.merger.pages import PageBundle, PageLink, WikiPage
from kg_pipelines.stores.warehouse import fetch_dicts, insert_rows

Decision = Literal["MERGE", "CREATE_NEW"]
NodeStatus = Literal["PENDING", "COMPLETED", "FAILED"]
SubGraphStatus = Literal["PLANNED", "EXECUTING", "COMPLETED", "FAILED", "RETRY"]


@dataclass
class NodePlan:
    """Plan for a single node in the sub-graph."""

    page_id: str
    page_type: str
    page: WikiPage
    decision: Decision
    merge_target_id: str | None
    best_match_score: float | None
    parent_id: str | None  # the lowest parent in the bundle (None: a root)
    deferred_edges: list[dict] = field(default_factory=list)  # {parent_id, edge_type, edge_metadata}
    status: NodeStatus = "PENDING"
    result_page_id: str | None = None
    reason: str = ""
    error: str | None = None


@dataclass
class SubGraphPlan:
    """Plan for an entire sub-graph."""

    subgraph_id: str
    root_id: str
    nodes: dict[str, NodePlan]
    execution_order: list[str]  # bottom-up
    status: SubGraphStatus = "PLANNED"
    audit_result: str | None = None
    retry_count: int = 0


@dataclass
class MergePlan:
    """Complete merge plan for all new pages of a bundle."""

    bundle_id: str
    bundle_hash: str
    subgraphs: list[SubGraphPlan]
    created_pages: list[str] = field(default_factory=list)
    edited_pages: list[str] = field(default_factory=list)
    status: str = "PLANNED"  # PLANNED, COMPLETED (every sub-graph), FAILED (one or more sub-graphs failed)
    planned_at: datetime | None = None

    def node(self, page_id: str) -> NodePlan:
        for subgraph in self.subgraphs:
            if page_id in subgraph.nodes:
                return subgraph.nodes[page_id]
        raise KeyError(page_id)

    def to_json(self) -> dict:
        return {
            "bundle_id": self.bundle_id,
            "bundle_hash": self.bundle_hash,
            "status": self.status,
            "subgraphs": [
                {
                    "subgraph_id": sg.subgraph_id,
                    "root_id": sg.root_id,
                    "status": sg.status,
                    "audit_result": sg.audit_result,
                    "retry_count": sg.retry_count,
                    "execution_order": sg.execution_order,
                    "nodes": [
                        {
                            "page_id": n.page_id,
                            "page_type": n.page_type,
                            "decision": n.decision,
                            "merge_target_id": n.merge_target_id,
                            "best_match_score": n.best_match_score,
                            "parent_id": n.parent_id,
                            "deferred_edges": n.deferred_edges,
                            "status": n.status,
                            "result_page_id": n.result_page_id,
                            "reason": n.reason,
                            "error": n.error,
                        }
                        for n in sg.nodes.values()
                    ],
                }
                for sg in self.subgraphs
            ],
            "execution_order": [page_id for sg in self.subgraphs for page_id in sg.execution_order],
            "created_pages": self.created_pages,
            "edited_pages": self.edited_pages,
        }


# -- rows ---------------------------------------------------------------------------------------


def save_proposed_pages(conn: duckdb.DuckDBPyConnection, bundle: PageBundle, now: datetime) -> int:
    """Replace the bundle's rows of ``proposed_pages`` (call inside a transaction)."""
    conn.execute("DELETE FROM proposed_pages WHERE bundle_id = ?", [bundle.bundle_id])
    return insert_rows(
        conn,
        "proposed_pages",
        [
            {
                "bundle_id": bundle.bundle_id,
                "page_id": p.page_id,
                "seq": i,
                "page_type": p.page_type,
                "title": p.title,
                "overview": p.overview,
                "content": p.content,
                "outgoing_links": json.dumps(
                    [{"target_id": x.target_id, "edge_type": x.edge_type} for x in p.outgoing_links]
                ),
                "bundle_hash": bundle.content_hash,
                "source_path": bundle.source_path,
                "loaded_at": now,
            }
            for i, p in enumerate(bundle.pages)
        ],
    )


def load_proposed_pages(conn: duckdb.DuckDBPyConnection, bundle_id: str) -> PageBundle | None:
    rows = fetch_dicts(conn, "SELECT * FROM proposed_pages WHERE bundle_id = ? ORDER BY seq", [bundle_id])
    if not rows:
        return None
    pages = [
        WikiPage(
            r["page_id"],
            r["page_type"],
            r["title"],
            r["overview"],
            r["content"],
            [PageLink(x["target_id"], x["edge_type"]) for x in json.loads(r["outgoing_links"])],
        )
        for r in rows
    ]
    return PageBundle(bundle_id, rows[0]["source_path"], pages, rows[0]["bundle_hash"])


def node_row(plan: MergePlan, subgraph: SubGraphPlan, node: NodePlan, now: datetime) -> dict:
    return {
        "bundle_id": plan.bundle_id,
        "bundle_hash": plan.bundle_hash,
        "subgraph_id": subgraph.subgraph_id,
        "root_id": subgraph.root_id,
        "subgraph_status": subgraph.status,
        "audit_result": subgraph.audit_result,
        "retry_count": subgraph.retry_count,
        "page_id": node.page_id,
        "page_type": node.page_type,
        "decision": node.decision,
        "merge_target_id": node.merge_target_id,
        "best_match_score": node.best_match_score,
        "reason": node.reason,
        "parent_id": node.parent_id,
        "deferred_edges": json.dumps(node.deferred_edges),
        "execution_seq": subgraph.execution_order.index(node.page_id),
        "plan_seq": list(subgraph.nodes).index(node.page_id),
        "status": node.status,
        "result_page_id": node.result_page_id,
        "error": node.error,
        "bundle_status": plan.status,
        "created_pages": plan.created_pages,
        "edited_pages": plan.edited_pages,
        "updated_at": now,
    }


def save_plan(conn: duckdb.DuckDBPyConnection, plan: MergePlan, plan_md: str, source_path: str, now: datetime) -> None:
    """Replace the bundle's plan rows (call inside a transaction)."""
    conn.execute("DELETE FROM merge_plans WHERE bundle_id = ?", [plan.bundle_id])
    insert_rows(conn, "merge_plans", [node_row(plan, sg, n, now) for sg in plan.subgraphs for n in sg.nodes.values()])
    conn.execute("DELETE FROM merge_bundles WHERE bundle_id = ?", [plan.bundle_id])
    insert_rows(
        conn,
        "merge_bundles",
        [
            {
                "bundle_id": plan.bundle_id,
                "bundle_hash": plan.bundle_hash,
                "source_path": source_path,
                "status": plan.status,
                "subgraphs": len(plan.subgraphs),
                "pages": sum(len(sg.nodes) for sg in plan.subgraphs),
                "created_pages": plan.created_pages,
                "edited_pages": plan.edited_pages,
                "plan_md": plan_md,
                "planned_at": plan.planned_at or now,
                "updated_at": now,
            }
        ],
    )


def save_node(conn: duckdb.DuckDBPyConnection, plan: MergePlan, subgraph: SubGraphPlan, node: NodePlan, now) -> None:
    row = node_row(plan, subgraph, node, now)
    conn.execute(
        "UPDATE merge_plans SET status = ?, result_page_id = ?, error = ?, updated_at = ? "
        "WHERE bundle_id = ? AND page_id = ?",
        [row["status"], row["result_page_id"], row["error"], now, plan.bundle_id, node.page_id],
    )


def save_subgraph(conn: duckdb.DuckDBPyConnection, plan: MergePlan, subgraph: SubGraphPlan, now) -> None:
    conn.execute(
        "UPDATE merge_plans SET subgraph_status = ?, audit_result = ?, retry_count = ?, updated_at = ? "
        "WHERE bundle_id = ? AND subgraph_id = ?",
        [subgraph.status, subgraph.audit_result, subgraph.retry_count, now, plan.bundle_id, subgraph.subgraph_id],
    )


def save_outcome(conn: duckdb.DuckDBPyConnection, plan: MergePlan, plan_md: str, now: datetime) -> None:
    conn.execute(
        "UPDATE merge_bundles SET status = ?, created_pages = ?, edited_pages = ?, plan_md = ?, updated_at = ?, "
        "finished_at = ? WHERE bundle_id = ?",
        [plan.status, plan.created_pages, plan.edited_pages, plan_md, now, now, plan.bundle_id],
    )
    conn.execute(
        "UPDATE merge_plans SET bundle_status = ?, created_pages = ?, edited_pages = ? WHERE bundle_id = ?",
        [plan.status, plan.created_pages, plan.edited_pages, plan.bundle_id],
    )


def load_plan(conn: duckdb.DuckDBPyConnection, bundle_id: str) -> MergePlan | None:
    """The persisted plan of a bundle (with its pages from ``proposed_pages``), or None."""
    head = fetch_dicts(conn, "SELECT * FROM merge_bundles WHERE bundle_id = ?", [bundle_id])
    if not head:
        return None
    bundle = load_proposed_pages(conn, bundle_id)
    pages = bundle.by_id() if bundle else {}
    rows = fetch_dicts(
        conn, "SELECT * FROM merge_plans WHERE bundle_id = ? ORDER BY subgraph_id, execution_seq", [bundle_id]
    )
    subgraphs: dict[str, SubGraphPlan] = {}
    order: list[str] = []
    plan_seq = {r["page_id"]: r["plan_seq"] for r in rows}
    for r in rows:
        sg = subgraphs.get(r["subgraph_id"])
        if sg is None:
            sg = subgraphs[r["subgraph_id"]] = SubGraphPlan(
                r["subgraph_id"], r["root_id"], {}, [], r["subgraph_status"], r["audit_result"], r["retry_count"]
            )
            order.append(r["subgraph_id"])
        sg.execution_order.append(r["page_id"])
        sg.nodes[r["page_id"]] = NodePlan(
            page_id=r["page_id"],
            page_type=r["page_type"],
            page=pages.get(r["page_id"]) or WikiPage(r["page_id"], r["page_type"], r["page_id"], "", ""),
            decision=r["decision"],
            merge_target_id=r["merge_target_id"],
            best_match_score=r["best_match_score"],
            parent_id=r["parent_id"],
            deferred_edges=json.loads(r["deferred_edges"] or "[]"),
            status=r["status"],
            result_page_id=r["result_page_id"],
            reason=r["reason"] or "",
            error=r["error"],
        )
    # node plans in planning (top-down) order, as they were planned
    for sg in subgraphs.values():
        sg.nodes = dict(sorted(sg.nodes.items(), key=lambda kv: plan_seq[kv[0]]))
    h = head[0]
    return MergePlan(
        bundle_id,
        h["bundle_hash"],
        [subgraphs[s] for s in sorted(order, key=_subgraph_number)],
        list(h["created_pages"] or []),
        list(h["edited_pages"] or []),
        h["status"],
        h["planned_at"],
    )


def _subgraph_number(subgraph_id: str) -> int:
    return int(subgraph_id.split("-", 1)[0].removeprefix("sg") or 0)
