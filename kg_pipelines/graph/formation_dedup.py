"""Formation-time deduplication (seed 001, Strategy 2, ``create_node_with_deduplication``).

Runs in the graph asset right after graph building and node embedding, in the same step: every
entity node created since the last check is compared (LanceDB k nearest of its type, then the
seed's score) with the graph; an existing node at or above the threshold absorbs it (it stays the
canonical node whatever the strategy; its energy takes the new node's, as in the seed). Two new
nodes of the same run that are duplicates of each other (the seed's concurrent creation) merge
too, the older (then smaller id) staying. The merges, their ``node_merges`` rows (strategy
``formation_time``) and the new check mark (``dedup_state``) are one transaction; a crash between
graph building and this step leaves the new nodes unchecked, and the next graph run checks them.
No grey zone here: what is not sure waits for the weekly pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

import duckdb

from kg_pipelines.graph.duplicate_detection import DEDUP_NODE_KINDS, MERGE, detect_duplicates, keep_apart_check
from kg_pipelines.graph.merge_exclusions import MergeExclusions
from kg_pipelines.graph.node_merging import MergeOutcome, PlannedMerge, merge_pairs
from kg_pipelines.stores.node_vectors import NodeVectors
from kg_pipelines.stores.warehouse import transaction

CHECKED_UNTIL = "formation_checked_until"


@dataclass
class FormationReport:
    new_nodes: int = 0
    merges: list[MergeOutcome] = field(default_factory=list)


def unchecked_entity_nodes(conn: duckdb.DuckDBPyConnection) -> list[str]:
    mark = conn.execute("SELECT max(value) FROM dedup_state WHERE name = ?", [CHECKED_UNTIL]).fetchone()[0]
    sql = "SELECT node_id FROM kg_nodes WHERE node_kind = 'entity'"
    rows = conn.execute(sql + (" AND created_at > ?" if mark else ""), [mark] if mark else []).fetchall()
    return sorted(r[0] for r in rows)


def absorb_new_nodes(
    conn: duckdb.DuckDBPyConnection,
    store: NodeVectors,
    exclusions: MergeExclusions,
    now: datetime,
    threshold: float = 0.95,
    k: int = 10,
    index_min_rows: int = 20000,
    node_kinds: Sequence[str] = DEDUP_NODE_KINDS,
) -> FormationReport:
    """Merge each new entity node into an existing same-type node of ``node_kinds`` (entities and
    imported nodes by default: never a title or a wiki page) scoring at or above ``threshold``."""
    new_ids = unchecked_entity_nodes(conn) if "entity" in node_kinds else []
    report = FormationReport(new_nodes=len(new_ids))
    planned: list[PlannedMerge] = []
    if new_ids:
        found = detect_duplicates(
            conn,
            store,
            exclusions,
            threshold,
            threshold,
            k,
            index_min_rows,
            llm=None,
            only=new_ids,
            node_kinds=node_kinds,
        )
        sure = [p for p in found.pairs if p.decision == MERGE]
        planned = [PlannedMerge(p.node_a.node_id, p.node_b.node_id, p.score, p.stage) for p in sure]
    new = set(new_ids)
    kinds = [list(node_kinds)]
    created = dict(
        conn.execute(
            "SELECT node_id, created_at FROM kg_nodes WHERE node_kind IN (SELECT unnest(?::VARCHAR[]))", kinds
        ).fetchall()
    )

    def existing_absorbs(a: str, b: str) -> tuple[str, str]:
        """The node that was there before absorbs the new one; two new ones: the older, then smaller id."""
        if (a in new) != (b in new):
            return (b, a) if a in new else (a, b)
        return (a, b) if (created.get(a), a) <= (created.get(b), b) else (b, a)

    with transaction(conn):
        report.merges = merge_pairs(
            conn,
            planned,
            now,
            strategy="formation_time",
            origin="graph",
            keep_apart=keep_apart_check(conn, exclusions),
            canonical_of=existing_absorbs,
        )
        conn.execute("DELETE FROM dedup_state WHERE name = ?", [CHECKED_UNTIL])
        conn.execute("INSERT INTO dedup_state VALUES (?, ?)", [CHECKED_UNTIL, now])
    store.delete([m.duplicate_id for m in report.merges])
    return report


def formation_dedup(conn: duckdb.DuckDBPyConnection, store: NodeVectors, settings, now: datetime) -> str:
    """The graph asset's step: absorb new duplicates when ``dedup.formation_time``; a Markdown line
    per merge for the materialization metadata."""
    from kg_pipelines.graph.merge_exclusions import load_exclusions

    options = settings.dedup
    if not options.formation_time:
        return "formation-time dedup is off (dedup.formation_time)"
    exclusions = load_exclusions(settings.data_dir, options.never_merge_file, options.decisions_file)
    report = absorb_new_nodes(
        conn, store, exclusions, now, options.threshold, options.neighbours, options.index_min_rows, options.node_kinds
    )
    if not report.merges:
        return f"{report.new_nodes} new entity node(s) checked: none absorbed"
    lines = [f"{report.new_nodes} new entity node(s) checked, {len(report.merges)} absorbed:", ""]
    lines += [f"- {m.duplicate_name} → {m.canonical_name} (score {m.score:.3f}, {m.merge_id})" for m in report.merges]
    return "\n".join(lines)
