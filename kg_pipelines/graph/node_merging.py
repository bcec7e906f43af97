"""Merging duplicate nodes (seed 001, ``merge_duplicate_nodes``, all six steps), and undoing it.

``merge_nodes`` folds a duplicate into a canonical node, inside the caller's transaction:

0. the canonical node is chosen by strategy (``choose_canonical``): ``prefer_older`` (default,
   earlier created_at), ``prefer_higher_weight`` (higher base_weight) or ``prefer_more_links``
   (more edges); ties go to the smaller node id, so a pass is deterministic;
1. energy, per source (collection): summed with tanh saturation. A node's energy here is already
   saturated evidence, tanh(0.2 x supporting chunks), so the two are summed where they are
   additive: e = tanh(atanh(e_canonical) + atanh(e_duplicate)). This is what ingestion recomputes
   from the merged support later, never lower than either side, below 1, and a source only one
   side has passes unchanged. (The seed's own test expects 0.6 + 0.3 to give >= 0.8, which
   no tanh of the sum reaches: tanh(0.9) = 0.716; this form gives 0.763.)
2. base_weight: the average of the two;
3. links: every edge of the duplicate is redirected to the canonical node; when the canonical
   already has that edge (same type, same direction, same other end), the two strengths are
   averaged (activation counts summed, protection kept) and the duplicate's edge removed; an edge
   between the two nodes would become a self-loop and is dropped. Provenance follows the edges
   (``kg_edge_support``) and the node (``kg_node_support``), so re-ingesting or removing a
   document later updates the canonical node;
4. metadata: union, the canonical's value wins on a conflicting key;
5. created_at: the older of the two; a merge_history entry (merged id, name, timestamp, score,
   merge id, strategy) is appended, after the duplicate's own history (chains stay visible);
6. the duplicate is removed, and its id becomes an alias of the canonical (``node_aliases``;
   aliases of the duplicate follow, so A -> B then B -> C resolves A to C).

Each merge is recorded in ``node_merges`` with a snapshot of every row it changed: ``unmerge``
restores both nodes, their edges and provenance exactly as they were.
"""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

import duckdb

from kg_pipelines.stores.warehouse import column_types, fetch_dicts, insert_rows

STRATEGIES = ("prefer_older", "prefer_higher_weight", "prefer_more_links")
_SATURATED = 1 - 1e-9  # atanh(1) is infinite: an energy of 1 (or more, imported) counts as this


class MergeError(ValueError):
    pass


@dataclass
class MergeOutcome:
    merge_id: str
    canonical_id: str
    duplicate_id: str
    canonical_name: str
    duplicate_name: str
    score: float | None
    edges_redirected: int
    edges_combined: int
    self_loops_dropped: int


# -- step 1: energy --------------------------------------------------------------------------------
def merge_energy(canonical: dict, duplicate: dict) -> dict:
    """Per source: tanh(atanh(a) + atanh(b)) (see the module doc); non-numeric values: canonical's."""
    merged = dict(canonical)
    for source, value in duplicate.items():
        current = merged.get(source)
        if not isinstance(value, (int, float)):
            merged.setdefault(source, value)
            continue
        if not isinstance(current, (int, float)):
            merged[source] = value if current is None else current
            continue
        a = min(max(float(current), 0.0), _SATURATED)
        b = min(max(float(value), 0.0), _SATURATED)
        merged[source] = round(math.tanh(math.atanh(a) + math.atanh(b)), 6)
    return merged


def _json_dict(value: object) -> dict:
    if isinstance(value, dict):
        return value
    try:
        loaded = json.loads(value) if isinstance(value, str) and value.strip() else {}
    except json.JSONDecodeError:
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _json_list(value: object) -> list:
    if isinstance(value, list):
        return value
    try:
        loaded = json.loads(value) if isinstance(value, str) and value.strip() else []
    except json.JSONDecodeError:
        return []
    return loaded if isinstance(loaded, list) else []


# -- step 0: the canonical node --------------------------------------------------------------------
def choose_canonical(conn: duckdb.DuckDBPyConnection, id_a: str, id_b: str, strategy: str) -> tuple[str, str]:
    """(canonical id, duplicate id) by ``strategy``; ties go to the smaller id."""
    if strategy not in STRATEGIES:
        raise MergeError(f"unknown merge strategy {strategy!r}: use {', '.join(STRATEGIES)}")
    rows = {
        r["node_id"]: r
        for r in fetch_dicts(
            conn,
            """SELECT n.node_id, n.created_at, n.base_weight,
                      (SELECT count(*) FROM kg_edges e
                       WHERE e.source_id = n.node_id OR e.target_id = n.node_id) AS links
               FROM kg_nodes n WHERE n.node_id IN (?, ?)""",
            [id_a, id_b],
        )
    }
    for node_id in (id_a, id_b):
        if node_id not in rows:
            raise MergeError(f"node {node_id!r} is not in the graph")
    a, b = rows[id_a], rows[id_b]
    if strategy == "prefer_older":
        key_a, key_b = (a["created_at"], a["node_id"]), (b["created_at"], b["node_id"])
    elif strategy == "prefer_higher_weight":
        key_a, key_b = (-a["base_weight"], a["node_id"]), (-b["base_weight"], b["node_id"])
    else:
        key_a, key_b = (-a["links"], a["node_id"]), (-b["links"], b["node_id"])
    return (id_a, id_b) if key_a <= key_b else (id_b, id_a)


# -- the merge --------------------------------------------------------------------------------------
def merge_nodes(
    conn: duckdb.DuckDBPyConnection,
    canonical_id: str,
    duplicate_id: str,
    now: datetime,
    score: float | None = None,
    decision: str = "score",
    strategy: str = "prefer_older",
    origin: str = "cli",
    evidence: str | None = None,
) -> MergeOutcome:
    """Fold ``duplicate_id`` into ``canonical_id`` (the caller holds the transaction); ``evidence``:
    the sentence stating the two are one (a stated alias), kept in ``node_merges``."""
    if canonical_id == duplicate_id:
        raise MergeError(f"cannot merge node {canonical_id!r} into itself")
    nodes = {
        r["node_id"]: r
        for r in fetch_dicts(conn, "SELECT * FROM kg_nodes WHERE node_id IN (?, ?)", [canonical_id, duplicate_id])
    }
    for node_id in (canonical_id, duplicate_id):
        if node_id not in nodes:
            raise MergeError(f"node {node_id!r} is not in the graph")
    canonical, duplicate = nodes[canonical_id], nodes[duplicate_id]
    if canonical["node_type"] != duplicate["node_type"]:
        raise MergeError(
            f"{canonical_id!r} ({canonical['node_type']}) and {duplicate_id!r} ({duplicate['node_type']}): "
            "only nodes of one type merge"
        )
    merge_id = "merge-" + uuid.uuid4().hex[:12]

    # what the merge changes, before it changes it (unmerge restores this)
    dup_edges = fetch_dicts(
        conn,
        "SELECT * FROM kg_edges WHERE source_id = ? OR target_id = ? ORDER BY edge_id",
        [duplicate_id, duplicate_id],
    )
    dup_edge_support = fetch_dicts(
        conn,
        "SELECT * FROM kg_edge_support WHERE edge_id IN (SELECT unnest(?::VARCHAR[]))",
        [[e["edge_id"] for e in dup_edges]],
    )
    dup_node_support = fetch_dicts(conn, "SELECT * FROM kg_node_support WHERE node_id = ?", [duplicate_id])
    aliases = [
        r[0]
        for r in conn.execute("SELECT alias_id FROM node_aliases WHERE canonical_id = ?", [duplicate_id]).fetchall()
    ]

    redirected: list[dict] = []  # {"from": old edge id, "to": new edge id}
    combined: list[dict] = []  # {"from": old edge id, "into": existing edge row before, "moved_support": rows}
    dropped: list[str] = []
    topic = canonical["topic_key"]
    for edge in dup_edges:
        source = canonical_id if edge["source_id"] == duplicate_id else edge["source_id"]
        target = canonical_id if edge["target_id"] == duplicate_id else edge["target_id"]
        support = [s for s in dup_edge_support if s["edge_id"] == edge["edge_id"]]
        conn.execute("DELETE FROM kg_edge_support WHERE edge_id = ?", [edge["edge_id"]])
        conn.execute("DELETE FROM kg_edges WHERE edge_id = ?", [edge["edge_id"]])
        if source == target:
            dropped.append(edge["edge_id"])  # an edge between the two would be a self-loop
            continue
        # the canonical's own link of this type and direction, found by its ends (an imported graph's
        # edge ids need not be type:source->target); several (parallel imported ones): the pattern id
        # first, then the smallest id
        new_id = f"{edge['edge_type']}:{source}->{target}"
        existing = fetch_dicts(
            conn,
            """SELECT * FROM kg_edges WHERE source_id = ? AND target_id = ? AND edge_type = ?
               ORDER BY edge_id = ? DESC, edge_id LIMIT 1""",
            [source, target, edge["edge_type"], new_id],
        )
        if existing:
            into = existing[0]
            new_id = into["edge_id"]
            conn.execute(
                """UPDATE kg_edges SET strength = (strength + ?) / 2, activation_count = activation_count + ?,
                       last_activated_at = greatest(last_activated_at, ?),
                       last_reinforced_at = greatest(last_reinforced_at, ?),
                       protected = protected OR ?, support_count = support_count + ?
                   WHERE edge_id = ?""",
                [
                    edge["strength"],
                    edge["activation_count"],
                    edge["last_activated_at"],
                    edge["last_reinforced_at"],
                    edge["protected"],
                    len(support),
                    new_id,
                ],
            )
            combined.append({"from": edge["edge_id"], "into": into, "moved_support": len(support)})
        else:
            # a pattern id follows its new ends (ingestion derives it so); any other id stays, and so
            # does a pattern id another edge already holds
            pattern = edge["edge_id"] == f"{edge['edge_type']}:{edge['source_id']}->{edge['target_id']}"
            taken = conn.execute("SELECT count(*) FROM kg_edges WHERE edge_id = ?", [new_id]).fetchall()[0][0]
            if not pattern or taken:
                new_id = edge["edge_id"]
            moved = dict(edge, edge_id=new_id, source_id=source, target_id=target)
            if source == canonical_id:
                moved["source_topic_key"] = topic
            if target == canonical_id:
                moved["target_topic_key"] = topic
            insert_rows(conn, "kg_edges", [moved])
            redirected.append({"from": edge["edge_id"], "to": new_id})
        insert_rows(conn, "kg_edge_support", [dict(s, edge_id=new_id) for s in support])

    # steps 1, 2, 4, 5: the canonical node's own fields
    history = _json_list(canonical["merge_history"]) + _json_list(duplicate["merge_history"])
    history.append(
        {
            "merged_node_id": duplicate_id,
            "merged_node_name": duplicate["name"],
            "merge_timestamp": now.isoformat(),
            "similarity_score": None if score is None else round(score, 6),
            "merge_id": merge_id,
            "strategy": strategy,
        }
    )
    conn.execute(
        """UPDATE kg_nodes SET energy = ?, base_weight = ?, metadata = ?, created_at = ?, merge_history = ?,
               support_count = support_count + ?, updated_at = ?
           WHERE node_id = ?""",
        [
            json.dumps(merge_energy(_json_dict(canonical["energy"]), _json_dict(duplicate["energy"])), sort_keys=True),
            (canonical["base_weight"] + duplicate["base_weight"]) / 2,
            json.dumps({**_json_dict(duplicate["metadata"]), **_json_dict(canonical["metadata"])}, sort_keys=True),
            min(canonical["created_at"], duplicate["created_at"]),
            json.dumps(history),
            len(dup_node_support),
            now,
            canonical_id,
        ],
    )
    conn.execute("UPDATE kg_node_support SET node_id = ? WHERE node_id = ?", [canonical_id, duplicate_id])
    # step 6: the duplicate goes; its id (and every alias it carried) now names the canonical node
    conn.execute("DELETE FROM kg_nodes WHERE node_id = ?", [duplicate_id])
    conn.execute("UPDATE node_aliases SET canonical_id = ? WHERE canonical_id = ?", [canonical_id, duplicate_id])
    conn.execute("DELETE FROM node_aliases WHERE alias_id = ?", [duplicate_id])
    insert_rows(conn, "node_aliases", [{"alias_id": duplicate_id, "canonical_id": canonical_id, "merge_id": merge_id}])

    snapshot = {
        "canonical": canonical,
        "duplicate": duplicate,
        "duplicate_edges": dup_edges,
        "duplicate_edge_support": dup_edge_support,
        "duplicate_node_support": dup_node_support,
        "redirected": redirected,
        "combined": combined,
        "self_loops": dropped,
        "aliases": aliases,
    }
    insert_rows(
        conn,
        "node_merges",
        [
            {
                "merge_id": merge_id,
                "merged_at": now,
                "canonical_id": canonical_id,
                "duplicate_id": duplicate_id,
                "canonical_name": canonical["name"],
                "duplicate_name": duplicate["name"],
                "node_type": canonical["node_type"],
                "score": score,
                "decision": decision,
                "strategy": strategy,
                "origin": origin,
                "edges_redirected": len(redirected),
                "edges_combined": len(combined),
                "self_loops_dropped": len(dropped),
                "snapshot": json.dumps(snapshot, default=_json_default),
                "undone_at": None,
                "evidence": evidence,
            }
        ],
    )
    return MergeOutcome(
        merge_id,
        canonical_id,
        duplicate_id,
        canonical["name"],
        duplicate["name"],
        score,
        len(redirected),
        len(combined),
        len(dropped),
    )


def _json_default(value: object) -> str:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    raise TypeError(f"cannot store {type(value).__name__} in a merge snapshot")


# -- a merge pass -----------------------------------------------------------------------------------
@dataclass
class PlannedMerge:
    node_a: str
    node_b: str
    score: float | None
    decision: str
    evidence: str | None = None


def merge_pairs(
    conn: duckdb.DuckDBPyConnection,
    pairs: Sequence[PlannedMerge],
    now: datetime,
    strategy: str = "prefer_older",
    origin: str = "cli",
    keep_apart=None,
    canonical_of=None,
) -> list[MergeOutcome]:
    """Merge each pair, best first, following earlier merges of the pass (A -> B, then a pair of A
    and C merges C into B). ``keep_apart(id, id)`` refuses a pair after resolution (NEVER_MERGE on
    the nodes a pair resolves to); ``canonical_of(id, id)`` overrides the strategy. The caller holds
    the transaction: a failure leaves nothing of the pass."""
    resolved: dict[str, str] = {}

    def current(node_id: str) -> str:
        while node_id in resolved:
            node_id = resolved[node_id]
        return node_id

    outcomes = []
    for pair in pairs:
        a, b = current(pair.node_a), current(pair.node_b)
        if a == b or (keep_apart is not None and keep_apart(a, b)):
            continue
        chosen = canonical_of(a, b) if canonical_of is not None else None
        canonical, duplicate = chosen or choose_canonical(conn, a, b, strategy)
        outcome = merge_nodes(
            conn,
            canonical,
            duplicate,
            now,
            pair.score,
            pair.decision,
            strategy if chosen is None else "formation_time",
            origin,
            pair.evidence,
        )
        resolved[duplicate] = canonical
        outcomes.append(outcome)
    return outcomes


# -- unmerge ----------------------------------------------------------------------------------------
def _restore(conn: duckdb.DuckDBPyConnection, table: str, rows: Iterable[dict]) -> None:
    """Insert snapshot rows back, times parsed from their ISO text."""
    rows = list(rows)
    if not rows:
        return
    times = {name for name, kind in column_types(conn, table) if "TIMESTAMP" in kind.upper()}
    fixed = [
        {k: (datetime.fromisoformat(v) if k in times and isinstance(v, str) else v) for k, v in r.items()} for r in rows
    ]
    columns = [name for name, _ in column_types(conn, table)]
    placeholders = ", ".join("?" for _ in columns)
    conn.executemany(
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({placeholders})",
        [[r.get(c) for c in columns] for r in fixed],
    )


def unmerge(conn: duckdb.DuckDBPyConnection, merge_id: str, now: datetime) -> dict:
    """Undo a merge (the caller holds the transaction): both nodes, their edges, their provenance
    and the aliases as they were before it. A later merge that involves either node must be undone
    first. Returns the merge's row."""
    found = fetch_dicts(conn, "SELECT * FROM node_merges WHERE merge_id = ?", [merge_id])
    if not found:
        raise MergeError(f"unknown merge {merge_id!r} (see the node_merges table or `kg-pipelines dedup --json`)")
    merge = found[0]
    if merge["undone_at"] is not None:
        raise MergeError(f"merge {merge_id} was already undone at {merge['undone_at']}")
    canonical_id, duplicate_id = merge["canonical_id"], merge["duplicate_id"]
    # merges of one pass share their time: the row order (node_merges only ever grows) says which came later
    later = conn.execute(
        """SELECT merge_id FROM node_merges WHERE undone_at IS NULL
           AND rowid > (SELECT rowid FROM node_merges WHERE merge_id = ?)
           AND (canonical_id IN (?, ?) OR duplicate_id IN (?, ?)) ORDER BY rowid DESC""",
        [merge_id, canonical_id, duplicate_id, canonical_id, duplicate_id],
    ).fetchall()
    if later:
        raise MergeError(f"undo the later merge(s) of these nodes first: {', '.join(r[0] for r in later)}")
    if conn.execute("SELECT count(*) FROM kg_nodes WHERE node_id = ?", [canonical_id]).fetchone()[0] == 0:
        raise MergeError(f"the canonical node {canonical_id!r} of {merge_id} is gone from the graph: nothing to split")
    snap = json.loads(merge["snapshot"])

    # edges: take back what the merge made, put back what it removed
    for moved in snap["redirected"]:
        conn.execute("DELETE FROM kg_edge_support WHERE edge_id = ?", [moved["to"]])
        conn.execute("DELETE FROM kg_edges WHERE edge_id = ?", [moved["to"]])
    for folded in snap["combined"]:
        into = folded["into"]
        conn.execute("DELETE FROM kg_edges WHERE edge_id = ?", [into["edge_id"]])
        _restore(conn, "kg_edges", [into])
        for row in (s for s in snap["duplicate_edge_support"] if s["edge_id"] == folded["from"]):
            _delete_one_support(conn, "kg_edge_support", "edge_id", dict(row, edge_id=into["edge_id"]))
    _restore(conn, "kg_edges", snap["duplicate_edges"])
    _restore(conn, "kg_edge_support", snap["duplicate_edge_support"])
    # nodes and their provenance
    for row in snap["duplicate_node_support"]:
        _delete_one_support(conn, "kg_node_support", "node_id", dict(row, node_id=canonical_id))
    _restore(conn, "kg_node_support", snap["duplicate_node_support"])
    conn.execute("DELETE FROM kg_nodes WHERE node_id = ?", [canonical_id])
    _restore(conn, "kg_nodes", [snap["canonical"], snap["duplicate"]])
    # aliases
    conn.execute("DELETE FROM node_aliases WHERE alias_id = ?", [duplicate_id])
    if snap["aliases"]:
        conn.execute(
            "UPDATE node_aliases SET canonical_id = ? WHERE alias_id IN (SELECT unnest(?::VARCHAR[]))",
            [duplicate_id, snap["aliases"]],
        )
    # documents re-ingested since the merge filed their support under the canonical node: the
    # graph consumes them again at the next sync of their collection, now without the alias
    conn.execute(
        """DELETE FROM graph_documents WHERE updated_at > ? AND document_id IN (
               SELECT document_id FROM entities WHERE node_id = ? OR node_id IN (SELECT unnest(?::VARCHAR[])))""",
        [merge["merged_at"], duplicate_id, snap["aliases"]],
    )
    conn.execute("UPDATE node_merges SET undone_at = ? WHERE merge_id = ?", [now, merge_id])
    return merge


def follow_rekeyed_nodes(
    conn: duckdb.DuckDBPyConnection, nodes: dict[str, str], edges: dict[str, str], types: dict[str, str]
) -> int:
    """Point the merges not undone at the ids graph building re-keyed (the caller holds the
    transaction): ``nodes`` old node id -> new, ``edges`` old edge id -> new (the re-keyed edges
    still in the graph), ``types`` new node id -> its type. The merge's canonical node, and in its
    snapshot every node, edge and provenance row that names an old id, take the new one (an edge
    id of the pattern ``type:source->target`` follows its ends), so ``unmerge`` restores the nodes
    and edges as they are named now. Returns how many merges changed."""
    if not nodes:
        return 0
    found = conn.execute(
        """SELECT merge_id, canonical_id, duplicate_id, node_type, snapshot FROM node_merges m
        WHERE undone_at IS NULL AND EXISTS (
            SELECT 1 FROM (SELECT unnest(?::VARCHAR[]) AS old_id) r WHERE contains(m.snapshot::VARCHAR, r.old_id))""",
        [sorted(nodes)],
    ).fetchall()
    changed = 0
    for merge_id, canonical_id, duplicate_id, node_type, snapshot in found:
        old = json.loads(snapshot)
        new = _rekeyed_snapshot(old, nodes, edges, types)
        canonical = nodes.get(canonical_id, canonical_id)
        if new == old and canonical == canonical_id:
            continue
        conn.execute(
            "UPDATE node_merges SET canonical_id = ?, duplicate_id = ?, node_type = ?, snapshot = ? WHERE merge_id = ?",
            [
                canonical,
                nodes.get(duplicate_id, duplicate_id),
                types.get(canonical, node_type),
                json.dumps(new),
                merge_id,
            ],
        )
        changed += 1
    return changed


def _rekeyed_snapshot(snap: dict, nodes: dict[str, str], edges: dict[str, str], types: dict[str, str]) -> dict:
    """A merge snapshot with the re-keyed node and edge ids (``follow_rekeyed_nodes``)."""

    def node_id(old: str) -> str:
        return nodes.get(old, old)

    def edge_id(old: str, row: dict | None = None) -> str:
        if old in edges:
            return edges[old]
        if row is not None and old == f"{row['edge_type']}:{row['source_id']}->{row['target_id']}":
            return f"{row['edge_type']}:{node_id(row['source_id'])}->{node_id(row['target_id'])}"
        return old

    def node_row(row: dict) -> dict:
        new = node_id(row["node_id"])
        if new == row["node_id"]:
            return row
        kind = types.get(new, row["node_type"])
        return dict(row, node_id=new, node_type=kind, topic_key=f"type:{kind}")

    def edge_row(row: dict) -> dict:
        moved = dict(row, edge_id=edge_id(row["edge_id"], row))
        for end in ("source", "target"):
            new = node_id(row[f"{end}_id"])
            if new != row[f"{end}_id"]:
                moved[f"{end}_id"] = new
                moved[f"{end}_topic_key"] = f"type:{types.get(new, '')}"
        return moved

    pattern_of = {e["edge_id"]: e for e in snap.get("duplicate_edges", [])}
    return dict(
        snap,
        canonical=node_row(snap["canonical"]),
        duplicate=node_row(snap["duplicate"]),
        duplicate_edges=[edge_row(e) for e in snap.get("duplicate_edges", [])],
        duplicate_edge_support=[
            dict(s, edge_id=edge_id(s["edge_id"], pattern_of.get(s["edge_id"])))
            for s in snap.get("duplicate_edge_support", [])
        ],
        duplicate_node_support=[dict(s, node_id=node_id(s["node_id"])) for s in snap.get("duplicate_node_support", [])],
        redirected=[
            {"from": edge_id(r["from"], pattern_of.get(r["from"])), "to": edge_id(r["to"])}
            for r in snap.get("redirected", [])
        ],
        combined=[
            dict(c, **{"from": edge_id(c["from"], pattern_of.get(c["from"])), "into": edge_row(c["into"])})
            for c in snap.get("combined", [])
        ],
        self_loops=[edge_id(e, pattern_of.get(e)) for e in snap.get("self_loops", [])],
        aliases=[node_id(a) for a in snap.get("aliases", [])],
    )


def unmerge_as_distinct(
    conn: duckdb.DuckDBPyConnection, merge_ids: Sequence[str], now: datetime, decisions_path: Path
) -> list[dict]:
    """Undo the merges, newest first as given, and mark each split pair ``distinct`` in the
    decisions file, as one operation: the file is written inside the transaction, before its
    commit, so a failure anywhere leaves the graph as it was (a file written before a failed commit
    only says distinct for a pair still merged: the retried unmerge writes it again). No later pass,
    periodic or at formation time, merges the pair again (``duplicate_detection`` reads the file)."""
    from kg_pipelines.graph.merge_exclusions import record_distinct
    from kg_pipelines.stores.warehouse import transaction

    with transaction(conn):
        undone = [unmerge(conn, merge_id, now) for merge_id in merge_ids]
        pairs = [
            {
                "node_a": m["canonical_id"],
                "node_b": m["duplicate_id"],
                "name_a": m["canonical_name"],
                "name_b": m["duplicate_name"],
                "score": m.get("score"),
            }
            for m in undone
        ]
        record_distinct(Path(decisions_path), pairs, f"unmerged ({', '.join(merge_ids)}): kept apart from now on")
    return undone


def _delete_one_support(conn: duckdb.DuckDBPyConnection, table: str, key: str, row: dict) -> None:
    """Delete the support row equal to ``row`` (one of them, if a chunk gave the same row twice)."""
    conn.execute(
        f"""DELETE FROM {table} WHERE rowid = (SELECT min(rowid) FROM {table}
            WHERE {key} = ? AND document_id = ? AND chunk_id = ? AND collection = ?)""",
        [row[key], row["document_id"], row["chunk_id"], row["collection"]],
    )
