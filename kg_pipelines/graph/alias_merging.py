"""Merging the nodes of aliases a text states (``graph/stated_aliases.py``): the graph asset's step
right after graph building and before formation-time dedup.

1. The chunks of the documents this run synced are read for alias statements; their rows in
   ``stated_aliases`` are replaced (a removed document's go).
2. The statements to act on: those of this run's documents, and those of earlier documents naming a
   node created in this run (a definition read before its short form became a node still counts,
   whatever order documents arrive in).
3. A statement joins two entity nodes when each side names one, by the graph's node key (case- and
   separator-insensitive, ``ingestion/names.py``; a name merged away earlier names the node that
   absorbed it). A cue's side takes its longest word run that names a node. Only nodes of one
   type merge; a pair whose names are nodes of different types only is counted, not merged.
4. Refused, so a person's word and an undone merge hold: a pair in ``never_merge.txt``, a pair
   decided ``distinct`` in the decisions file, and a pair whose merge was undone (``unmerge``).
   An abbreviation that the corpus defines with two different long forms ("ER" for endoplasmic
   reticulum and for estrogen receptor) is ambiguous and joins nothing: long forms count as one when
   they are the same name spelled differently (rapidfuzz ratio >= 90 on their keys: "tumour necrosis
   factor alpha" / "tumor necrosis factor-alpha").
5. The node the text prefers (the long form, or the current name) stays: strategy ``stated_name``,
   decision ``stated_alias``, the stating sentence in ``node_merges.evidence``; ``unmerge`` undoes
   it like any merge. Rows and merges are one transaction; merged-away nodes lose their vector.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

import duckdb
from rapidfuzz import fuzz

from kg_pipelines.graph.merge_exclusions import DISTINCT, MergeExclusions
from kg_pipelines.graph.node_merging import MergeOutcome, merge_nodes
from kg_pipelines.graph.stated_aliases import ABBREVIATION, find_stated_aliases
from kg_pipelines.stores.warehouse import delete_where_in, fetch_dicts, insert_rows, transaction

DECISION = "stated_alias"
STRATEGY = "stated_name"
SAME_LONG_FORM = 90  # rapidfuzz ratio of two long forms' keys above which they are one spelling
_KEY_OF_ID = "substr(node_id, strpos(node_id, ':') + 1)"


@dataclass
class AliasMergeReport:
    statements: int = 0  # alias statements read in this run's chunks
    merges: list[MergeOutcome] = field(default_factory=list)
    type_conflicts: list[tuple[str, str]] = field(default_factory=list)  # names that are nodes of different types
    ambiguous: list[str] = field(default_factory=list)  # short forms defined with different long forms
    kept_apart: list[tuple[str, str]] = field(default_factory=list)  # never_merge / distinct / undone


def record_stated_aliases(conn: duckdb.DuckDBPyConnection, document_ids: Sequence[str], now: datetime) -> int:
    """Replace the ``stated_aliases`` rows of ``document_ids`` with what their chunks state (the
    caller holds the transaction); the number of statements found."""
    rows = []
    chunks = fetch_dicts(
        conn,
        """SELECT chunk_id, document_id, collection, text FROM chunks
           WHERE document_id IN (SELECT unnest(?::VARCHAR[])) ORDER BY document_id, seq""",
        [list(document_ids)],
    )
    for chunk in chunks:
        for alias in find_stated_aliases(chunk["text"] or ""):
            rows.append(
                {
                    "document_id": chunk["document_id"],
                    "chunk_id": chunk["chunk_id"],
                    "collection": chunk["collection"],
                    "kind": alias.kind,
                    "name_a": alias.name_a,
                    "name_b": alias.name_b,
                    "keys_a": list(alias.keys_a),
                    "keys_b": list(alias.keys_b),
                    "evidence": alias.evidence,
                    "found_at": now,
                }
            )
    delete_where_in(conn, "stated_aliases", "document_id", list(document_ids))
    insert_rows(conn, "stated_aliases", rows)
    return len(rows)


def _statements_to_check(conn, document_ids: Sequence[str], now: datetime) -> list[dict]:
    return fetch_dicts(
        conn,
        f"""WITH new_keys AS (
                SELECT DISTINCT {_KEY_OF_ID} AS key FROM kg_nodes WHERE node_kind = 'entity' AND created_at >= ?),
            hits AS (
                SELECT DISTINCT row_id FROM (
                    SELECT rowid AS row_id, unnest(list_concat(keys_a, keys_b)) AS key FROM stated_aliases)
                WHERE key IN (SELECT key FROM new_keys))
            SELECT * FROM stated_aliases
            WHERE document_id IN (SELECT unnest(?::VARCHAR[])) OR rowid IN (SELECT row_id FROM hits)
            ORDER BY document_id, chunk_id, name_a, name_b""",
        [now, list(document_ids)],
    )


def _nodes_by_key(conn, keys: list[str]) -> dict[str, dict[str, dict]]:
    """node key -> node type -> live node (id, name) it names, directly or as a merged-away alias."""
    rows = fetch_dicts(
        conn,
        f"""WITH wanted AS (SELECT DISTINCT unnest(?::VARCHAR[]) AS key),
            named AS (
                SELECT {_KEY_OF_ID} AS key, node_id FROM kg_nodes
                WHERE node_kind = 'entity' AND {_KEY_OF_ID} IN (SELECT key FROM wanted)
                UNION
                SELECT substr(alias_id, strpos(alias_id, ':') + 1), canonical_id FROM node_aliases
                WHERE substr(alias_id, strpos(alias_id, ':') + 1) IN (SELECT key FROM wanted))
            SELECT named.key, n.node_id, n.node_type, n.name FROM named JOIN kg_nodes n USING (node_id)
            WHERE n.node_kind = 'entity' ORDER BY named.key, n.node_id""",
        [keys],
    )
    found: dict[str, dict[str, dict]] = {}
    for row in rows:
        found.setdefault(row["key"], {}).setdefault(row["node_type"], row)
    return found


def _ambiguous_short_forms(conn, short_keys: list[str]) -> set[str]:
    """Short forms the corpus defines with long forms that are not one name spelled differently."""
    rows = conn.execute(
        """SELECT keys_b[1], list(DISTINCT keys_a[1] ORDER BY keys_a[1]) FROM stated_aliases
           WHERE kind = ? AND keys_b[1] IN (SELECT unnest(?::VARCHAR[])) GROUP BY 1""",
        [ABBREVIATION, short_keys],
    ).fetchall()
    ambiguous = set()
    for short, longs in rows:
        if any(fuzz.ratio(longs[0], other) < SAME_LONG_FORM for other in longs[1:]):
            ambiguous.add(short)
    return ambiguous


def _undone_pairs(conn) -> set[frozenset[str]]:
    rows = conn.execute("SELECT canonical_id, duplicate_id FROM node_merges WHERE undone_at IS NOT NULL").fetchall()
    return {frozenset(r) for r in rows}


def merge_stated_aliases(
    conn: duckdb.DuckDBPyConnection,
    store,
    exclusions: MergeExclusions,
    document_ids: Sequence[str],
    now: datetime,
) -> AliasMergeReport:
    """Record the alias statements of ``document_ids`` and merge the nodes they join (module doc),
    in one transaction; ``store`` (NodeVectors) loses the merged-away nodes' vectors after it."""
    report = AliasMergeReport()
    with transaction(conn):
        report.statements = record_stated_aliases(conn, document_ids, now)
        statements = _statements_to_check(conn, document_ids, now)
        keys = sorted({k for s in statements for k in (*s["keys_a"], *s["keys_b"])})
        nodes = _nodes_by_key(conn, keys)
        short_keys = sorted({s["keys_b"][0] for s in statements if s["kind"] == ABBREVIATION})
        ambiguous = _ambiguous_short_forms(conn, short_keys)
        report.ambiguous = sorted(k for k in ambiguous if k in nodes)
        undone = _undone_pairs(conn)
        resolved: dict[str, str] = {}  # merged away in this pass -> the node that absorbed it

        def current(node_id: str) -> str:
            while node_id in resolved:
                node_id = resolved[node_id]
            return node_id

        for statement in statements:
            key_a = next((k for k in statement["keys_a"] if k in nodes), None)
            key_b = next((k for k in statement["keys_b"] if k in nodes), None)
            if key_a is None or key_b is None or key_a == key_b:
                continue
            if statement["kind"] == ABBREVIATION and statement["keys_b"][0] in ambiguous:
                continue
            shared = sorted(set(nodes[key_a]) & set(nodes[key_b]))
            if not shared:
                report.type_conflicts.append((statement["name_a"], statement["name_b"]))
                continue
            for node_type in shared:
                node_a, node_b = nodes[key_a][node_type], nodes[key_b][node_type]
                a, b = current(node_a["node_id"]), current(node_b["node_id"])
                if a == b:
                    continue
                if (
                    exclusions.never(node_type, node_a["name"], node_b["name"])
                    or exclusions.decision(a, b) == DISTINCT
                    or frozenset((a, b)) in undone
                ):
                    report.kept_apart.append((node_a["name"], node_b["name"]))
                    continue
                outcome = merge_nodes(
                    conn, a, b, now, None, DECISION, STRATEGY, "graph", evidence=statement["evidence"]
                )
                resolved[b] = a
                report.merges.append(outcome)
    if report.merges:
        store.delete([m.duplicate_id for m in report.merges])
    return report


def stated_alias_step(conn: duckdb.DuckDBPyConnection, store, settings, document_ids: Sequence[str], now) -> str:
    """The graph asset's step: merge stated aliases of the synced documents; Markdown for the
    materialization metadata."""
    from kg_pipelines.graph.merge_exclusions import load_exclusions

    options = settings.dedup
    exclusions = load_exclusions(settings.data_dir, options.never_merge_file, options.decisions_file)
    report = merge_stated_aliases(conn, store, exclusions, document_ids, now)
    lines = [
        f"{report.statements} alias statement(s) read, {len(report.merges)} merge(s); "
        f"{len(report.type_conflicts)} pair(s) of different types, {len(report.ambiguous)} ambiguous short "
        f"form(s), {len(report.kept_apart)} kept apart by a decision"
    ]
    if report.merges:
        lines.append("")
        lines += [f"- {m.duplicate_name} → {m.canonical_name} ({m.merge_id})" for m in report.merges]
    return "\n".join(lines)
