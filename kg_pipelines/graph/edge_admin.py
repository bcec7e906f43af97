"""The operator's levers on single edges (seed 002): protect, unprotect, add a user edge, restore a
prune.

Seed 002 never prunes a user-made (``created_by = 'user'``) or protected edge; these functions let a
person make an edge so and undo a prune, each in one transaction, with a one-line
``EdgeAdminError`` (and nothing written) for an id or name that does not resolve:

- ``set_protected``: mark an edge protected (consolidation never prunes it) or clear the mark;
- ``add_user_edge``: a new edge ``created_by = 'user'`` between two nodes named by id or by an
  unambiguous name. Its id has the pipeline's form (``TYPE:source->target``), so a document that
  later states the same relation supports this edge instead of duplicating it; with no support it
  stays (a user made it), and prune never takes it;
- ``restore_prune_run``: put back what one prune run removed (all its edges, or some), with their
  support rows (``consolidation.restore_pruned_edges``), protected by default: the edges are still
  weak and inactive, so without the mark the next daily prune would remove them again.

An id that is gone is explained: an edge pruned (restore it), an edge absorbed by merge-edges (use
the edge that absorbed it), a node merged by dedup (use the canonical node).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

from kg_pipelines.graph.consolidation import restore_pruned_edges
from kg_pipelines.stores.warehouse import fetch_dicts, transaction

USER = "user"
EDGE_TYPE = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")
AMBIGUOUS_SHOWN = 5
SUGGESTION_MIN_SIMILARITY = 0.85  # DuckDB jaro_winkler_similarity of lower-cased names


class EdgeAdminError(ValueError):
    """A lever that cannot apply: one line that says why and what to do instead."""


# -- edges ----------------------------------------------------------------------------------------


def _edge(conn, edge_id: str) -> dict | None:
    rows = fetch_dicts(
        conn,
        "SELECT edge_id, source_id, target_id, edge_type, strength, created_by, protected FROM kg_edges "
        "WHERE edge_id = ?",
        [edge_id],
    )
    return rows[0] if rows else None


def missing_edge_reason(conn, edge_id: str) -> str:
    """Why ``edge_id`` is not in the graph, with what to do instead."""
    alias = conn.execute("SELECT edge_id, run_id FROM edge_aliases WHERE absorbed_edge_id = ?", [edge_id]).fetchall()
    if alias and alias[0][1] == "retype":
        return f"edge {edge_id!r} is now {alias[0][0]!r} (an end node took its specific type): use that edge"
    if alias:
        return f"edge {edge_id!r} was merged into {alias[0][0]!r} by merge-edges run {alias[0][1]}: use that edge"
    pruned = conn.execute(
        "SELECT run_id FROM edge_prune_log WHERE edge_id = ? AND restored_at IS NULL ORDER BY pruned_at DESC LIMIT 1",
        [edge_id],
    ).fetchall()
    if pruned:
        return (
            f"edge {edge_id!r} was pruned by run {pruned[0][0]}: "
            f"`kg-pipelines consolidate restore {pruned[0][0]} --edge {edge_id}` puts it back"
        )
    return f"unknown edge {edge_id!r} (edge ids look like TYPE:source->target; see kg_edges.edge_id)"


@dataclass(frozen=True)
class Protection:
    edge_id: str
    protected: bool  # the mark now
    changed: bool  # False: the edge already had it
    created_by: str


def set_protected(conn, edge_id: str, protected: bool) -> Protection:
    """Mark ``edge_id`` protected (consolidation never prunes it) or clear the mark, in one transaction."""
    with transaction(conn):
        edge = _edge(conn, edge_id)
        if edge is None:
            raise EdgeAdminError(missing_edge_reason(conn, edge_id))
        if edge["protected"] != protected:
            conn.execute("UPDATE kg_edges SET protected = ? WHERE edge_id = ?", [protected, edge_id])
    return Protection(edge_id, protected, edge["protected"] != protected, edge["created_by"])


# -- nodes by id or name --------------------------------------------------------------------------


def _describe(rows: list[dict]) -> str:
    shown = ", ".join(f"{r['node_id']} ({r['node_type']})" for r in rows[:AMBIGUOUS_SHOWN])
    more = f" and {len(rows) - AMBIGUOUS_SHOWN} more" if len(rows) > AMBIGUOUS_SHOWN else ""
    return shown + more


def resolve_node(conn, ref: str) -> dict:
    """The node ``ref`` names: its id, else the one node of that name (exactly, then ignoring case).
    Raises ``EdgeAdminError`` when no node or several nodes answer to it."""
    columns = "node_id, name, node_type, topic_key"
    found = fetch_dicts(conn, f"SELECT {columns} FROM kg_nodes WHERE node_id = ?", [ref])
    if found:
        return found[0]
    merged = conn.execute(
        "SELECT a.canonical_id, a.merge_id FROM node_aliases a WHERE a.alias_id = ?", [ref]
    ).fetchall()
    if merged:
        raise EdgeAdminError(f"node {ref!r} was merged into {merged[0][0]!r} (merge {merged[0][1]}): use that node")
    for where in ("name = ?", "lower(name) = lower(?)"):
        found = fetch_dicts(conn, f"SELECT {columns} FROM kg_nodes WHERE {where} ORDER BY node_id", [ref])
        if len(found) == 1:
            return found[0]
        if found:
            raise EdgeAdminError(f"{ref!r} names {len(found)} nodes: {_describe(found)}; give the node id instead")
    near = conn.execute(
        """SELECT name FROM kg_nodes WHERE jaro_winkler_similarity(lower(name), lower(?)) >= ?
        ORDER BY jaro_winkler_similarity(lower(name), lower(?)) DESC, name LIMIT 3""",
        [ref, SUGGESTION_MIN_SIMILARITY, ref],
    ).fetchall()
    hint = f"; did you mean {', '.join(repr(n) for (n,) in near)}?" if near else ""
    raise EdgeAdminError(f"no node has the id or name {ref!r}{hint}")


# -- a user edge ----------------------------------------------------------------------------------


def add_user_edge(
    conn,
    source: str,
    target: str,
    edge_type: str,
    explanation: str | None = None,
    strength: float = 1.0,
    now: datetime | None = None,
) -> dict:
    """Add the edge ``source -[edge_type]-> target`` (ids or names) made by a user, in one
    transaction; the new ``kg_edges`` row."""
    if not EDGE_TYPE.fullmatch(edge_type or ""):
        raise EdgeAdminError(
            f"edge type {edge_type!r}: a letter, then letters, digits or underscores (64 at most), e.g. RELATED"
        )
    if not 0.0 <= strength <= 1.0:
        raise EdgeAdminError(f"strength {strength}: expected 0 to 1")
    now = now or datetime.now(UTC)
    with transaction(conn):
        src, dst = resolve_node(conn, source), resolve_node(conn, target)
        if src["node_id"] == dst["node_id"]:
            raise EdgeAdminError(f"{source!r} and {target!r} are the same node {src['node_id']!r}: no self-loops")
        edge_id = f"{edge_type}:{src['node_id']}->{dst['node_id']}"
        existing = _edge(conn, edge_id)
        if existing is not None:
            hint = "" if existing["created_by"] == USER else f"; `kg-pipelines edge protect {edge_id}` keeps it"
            raise EdgeAdminError(f"edge {edge_id!r} exists already (created_by {existing['created_by']}){hint}")
        alias = conn.execute(
            "SELECT edge_id FROM edge_aliases WHERE absorbed_edge_id = ? AND edge_id IN (SELECT edge_id FROM kg_edges)",
            [edge_id],
        ).fetchall()
        if alias:
            raise EdgeAdminError(
                f"edge {edge_id!r} was merged into {alias[0][0]!r} by merge-edges; "
                f"`kg-pipelines edge protect {alias[0][0]}` keeps that one"
            )
        conn.execute(
            """INSERT INTO kg_edges (edge_id, source_id, target_id, edge_type, strength, activation_count,
                   created_at, last_activated_at, last_reinforced_at, created_by, protected, explanation,
                   keywords, source_topic_key, target_topic_key, support_count)
            VALUES (?, ?, ?, ?, ?, 0, ?, NULL, NULL, ?, false, ?, [], ?, ?, 0)""",
            [
                edge_id,
                src["node_id"],
                dst["node_id"],
                edge_type,
                strength,
                now,
                USER,
                explanation,
                src["topic_key"],
                dst["topic_key"],
            ],
        )
        row = fetch_dicts(conn, "SELECT * FROM kg_edges WHERE edge_id = ?", [edge_id])[0]
    return row


# -- restore a prune ------------------------------------------------------------------------------


@dataclass
class RestoreReport:
    run_id: str
    restored: list[str] = field(default_factory=list)
    protected: bool = True
    already_restored: list[str] = field(default_factory=list)
    back_in_graph: list[str] = field(default_factory=list)  # a later sync or `edge add` made it again
    endpoint_gone: list[str] = field(default_factory=list)  # a node it joined was removed or merged
    pruned_again: dict[str, str] = field(default_factory=dict)  # edge id -> the later prune run

    def skipped(self) -> list[str]:
        """One phrase per kind of edge left out."""
        parts = []
        for ids, why in (
            (self.already_restored, "already restored"),
            (self.back_in_graph, "in the graph again"),
            (self.endpoint_gone, "an endpoint is no longer in the graph"),
        ):
            if ids:
                parts.append(f"{len(ids)} {why} ({', '.join(ids[:3])}{', ...' if len(ids) > 3 else ''})")
        if self.pruned_again:
            runs = sorted(set(self.pruned_again.values()))
            parts.append(f"{len(self.pruned_again)} pruned again later (restore run {', '.join(runs)})")
        return parts


def restore_prune_run(
    conn, run_id: str, edge_ids: list[str] | None = None, protect: bool = True, now: datetime | None = None
) -> RestoreReport:
    """Put back the edges prune run ``run_id`` removed (only ``edge_ids`` when given) with their
    support, in one transaction; ``protect``: mark them protected so later prunes keep them."""
    logged = fetch_dicts(
        conn,
        """SELECT l.edge_id, l.restored_at,
                  l.edge_id IN (SELECT edge_id FROM kg_edges) AS present,
                  l.source_id IN (SELECT node_id FROM kg_nodes) AND l.target_id IN (SELECT node_id FROM kg_nodes)
                      AS endpoints,
                  (SELECT arg_max(later.run_id, later.pruned_at) FROM edge_prune_log later
                   WHERE later.edge_id = l.edge_id AND later.pruned_at > l.pruned_at
                     AND later.restored_at IS NULL) AS later_run
           FROM edge_prune_log l WHERE l.run_id = ? ORDER BY l.edge_id""",
        [run_id],
    )
    if not logged:
        raise EdgeAdminError(_no_pruned_edges(conn, run_id))
    if edge_ids:
        known = {row["edge_id"] for row in logged}
        unknown = [e for e in edge_ids if e not in known]
        if unknown:
            raise EdgeAdminError(
                f"run {run_id} did not prune {', '.join(repr(e) for e in unknown)} "
                f"({len(known)} edge(s) pruned by it; see edge_prune_log)"
            )
        wanted = set(edge_ids)
        logged = [row for row in logged if row["edge_id"] in wanted]
    report = RestoreReport(run_id, protected=protect)
    eligible = []
    for row in logged:
        edge_id = row["edge_id"]
        if row["restored_at"] is not None:
            report.already_restored.append(edge_id)
        elif row["later_run"] is not None:
            report.pruned_again[edge_id] = row["later_run"]
        elif row["present"]:
            report.back_in_graph.append(edge_id)
        elif not row["endpoints"]:
            report.endpoint_gone.append(edge_id)
        else:
            eligible.append(edge_id)
    if eligible:
        # the same conditions as restore_pruned_edges' own (this process holds the file's write lock:
        # nothing changes in between), so every eligible edge comes back from this run's entry
        restore_pruned_edges(conn, eligible, now, protect=protect)
    report.restored = eligible
    return report


def _no_pruned_edges(conn, run_id: str) -> str:
    found = conn.execute("SELECT operation, dry_run FROM consolidation_reports WHERE run_id = ?", [run_id]).fetchall()
    if not found:
        return f"unknown prune run {run_id!r} (run ids: consolidation_reports.run_id, `consolidate prune --json`)"
    operation, dry_run = found[0]
    if operation != "prune":
        return f"run {run_id} was a {operation} run, not a prune: nothing to restore"
    if dry_run:
        return f"run {run_id} was a dry run: it pruned nothing"
    return f"run {run_id} pruned no edge: nothing to restore"
