"""The one graph: ``kg_nodes`` / ``kg_edges``, updated incrementally per document with provenance.

Nodes: entities (node_type = entity type, keyed by normalized name and type, so one node across
documents and collections), chunks, atomic questions, and document titles. Edges: RELATED
(entity -> entity, from relationships), MENTIONS (chunk -> entity), ANSWERS_IN (question -> chunk),
TITLE_OF (title -> each chunk of the document) and NAMES (title -> the entity node of the same
normalized name, whichever document it was extracted from, and title -> each entity of its own
document whose name the title holds as whole words: "Akkermansia muciniphila and Metabolic Health"
names Akkermansia Muciniphila; a title is never an entity itself).

Why titles: a document's title names what it is about. A name found in one passage ("... born in
Kraków") then leads, through the entity ``Kraków`` and the title node ``Kraków``, to the passage
about that name, which is what multi-hop retrieval needs (see ``retrieval/graph_ranking.py``).
A title node is keyed by ``node_key`` of the title (``title:<key>``), so documents sharing a title
share it. A NAMES edge is supported by the title's document and by each document whose entity
carries the name, so whichever side is synced later creates it, and either side's support keeps it.

One node per name: a name extracted with several types (``Oleoylethanolamide`` a ``compound`` in
one chunk, the fallback ``concept`` in another) is one node of the type decided over every chunk
that extracted it: a specific type beats ``concept``; between specific types the one given in most
chunks wins, a tie goes to the earlier type of ``entity_types.TYPE_PRECEDENCE``. When the decision
changes (a later document types a ``concept`` as ``compound``, or the last document giving a type
goes), the existing node is re-keyed in the same transaction: its support rows move, its edges are
re-keyed or folded into the same edge of the new node, an edge between the two typings (a
self-loop now) goes, node aliases follow (``_rekey_entity_nodes``).

A RELATED edge supported only by bare co-occurrences (no relation cue between the two mentions)
states no direction: when a cue states the reverse edge, the co-occurrences support that one
(``_orient_cooccurrences``), so a pair shows one direction, the text's.

Provenance lives in ``kg_node_support`` / ``kg_edge_support`` (one row per supporting chunk).
Updating a set of documents replaces only their support rows:
- nodes and edges that gain support are created if new (strength 0.5); an existing edge that gains
  support from a document that did not support it before is reinforced
  (strength <- 1 - (1 - strength) * 0.9 per new document, last_reinforced_at = now);
- state that is not the documents' own survives: activation counts, strengths, created_at,
  merge history, and everything made by a user or by the merger;
- pipeline-made edges and nodes left without support are deleted (a node stays while a user- or
  merger-made edge still uses it), and no edge is left dangling.
All of it is set-based SQL in one transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

import duckdb

from kg_pipelines.entity_types import FALLBACK_TYPE, TYPE_PRECEDENCE
from kg_pipelines.graph.node_merging import follow_rekeyed_nodes
from kg_pipelines.stores.warehouse import delete_where_in, insert_rows, transaction

INITIAL_STRENGTH = 0.5
COOCCURRENCE_STRENGTH = 0.25  # a RELATED edge whose every support is a bare co-occurrence (no relation cue)
REINFORCEMENT = 0.1

# ``node_key`` (kg_pipelines.ingestion.names) of a document's title, and of an entity (its node id
# is ``<type>:<node_key(name)>``) in SQL: case-folded, runs of space / hyphen / underscore as one space
_TITLE_KEY = "trim(regexp_replace(lower(coalesce(d.title, '')), '[-_\\s]+', ' ', 'g'))"
# the name a title gives without its trailing qualifier: "Mercury (planet)" names Mercury (the
# encyclopedic way of telling namesakes apart); NAMES links an entity of either key
_TITLE_NAME_KEY = (
    "trim(regexp_replace(lower(regexp_replace(coalesce(d.title, ''), '\\s*\\([^()]*\\)\\s*$', '')), "
    "'[-_\\s]+', ' ', 'g'))"
)
_ENTITY_KEY = "substr(e.node_id, strpos(e.node_id, ':') + 1)"


def _words(expr: str) -> str:
    """SQL: the lower-case words of a text, one space between them (punctuation dropped)."""
    return f"trim(regexp_replace(lower(coalesce({expr}, '')), '[^a-z0-9+\\p{{Greek}}]+', ' ', 'g'))"


def _key_of(column: str) -> str:
    """SQL: the ``node_key`` part of an entity node id (``<type>:<key>``)."""
    return f"substr({column}, strpos({column}, ':') + 1)"


# (node_id, kind, type, name, description, topic_key, collection, document_id, chunk_id)
# An entity whose node was merged into another (node_aliases, written by dedup merges) supports the
# node that absorbed it, so re-ingesting its document never brings the duplicate back.
_NODE_SOURCES = f"""
    SELECT m.node_id, 'entity', m.entity_type, e.name, e.description,
           'type:' || m.entity_type, e.collection, e.document_id, e.chunk_id
    FROM entities e JOIN _node_id_map m ON m.raw_id = e.node_id
    WHERE e.document_id IN (SELECT document_id FROM _docs)
    UNION ALL
    SELECT 'chunk:' || c.chunk_id, 'chunk', 'chunk',
           coalesce(d.title, c.document_id) || ' [' || (c.seq + 1) || ']',
           CASE WHEN coalesce(c.summary, '') = '' THEN left(c.text, 300) ELSE c.summary END,
           'doc:' || c.document_id, c.collection, c.document_id, c.chunk_id
    FROM chunks c LEFT JOIN documents d USING (document_id)
    WHERE c.document_id IN (SELECT document_id FROM _docs)
    UNION ALL
    SELECT 'question:' || q.question_id, 'question', 'atomic_question', q.question, q.question,
           'doc:' || q.document_id, q.collection, q.document_id, q.chunk_id
    FROM atomic_questions q WHERE q.document_id IN (SELECT document_id FROM _docs)
    UNION ALL
    SELECT 'title:' || {_TITLE_KEY}, 'title', 'title', d.title, d.title, 'type:title',
           c.collection, c.document_id, c.chunk_id
    FROM chunks c JOIN documents d USING (document_id)
    WHERE c.document_id IN (SELECT document_id FROM _docs) AND {_TITLE_KEY} <> ''
"""

# (edge_type, source_id, target_id, explanation, keywords, collection, document_id, chunk_id)
_EDGE_SOURCES = f"""
    SELECT 'RELATED', sm.node_id, tm.node_id, r.description, r.tags, r.collection, r.document_id, r.chunk_id
    FROM relationships r
    JOIN _node_id_map sm ON sm.raw_id = r.source_node_id
    JOIN _node_id_map tm ON tm.raw_id = r.target_node_id
    WHERE r.document_id IN (SELECT document_id FROM _docs) AND sm.node_id <> tm.node_id
    UNION ALL
    SELECT 'MENTIONS', 'chunk:' || e.chunk_id, m.node_id, e.description, []::VARCHAR[],
           e.collection, e.document_id, e.chunk_id
    FROM entities e JOIN _node_id_map m ON m.raw_id = e.node_id
    WHERE e.document_id IN (SELECT document_id FROM _docs)
    UNION ALL
    SELECT 'ANSWERS_IN', 'question:' || q.question_id, 'chunk:' || q.chunk_id, q.question, []::VARCHAR[],
           q.collection, q.document_id, q.chunk_id
    FROM atomic_questions q WHERE q.document_id IN (SELECT document_id FROM _docs)
    UNION ALL
    SELECT 'TITLE_OF', 'title:' || {_TITLE_KEY}, 'chunk:' || c.chunk_id,
           'the document titled ' || d.title || ' holds this passage', []::VARCHAR[],
           c.collection, c.document_id, c.chunk_id
    FROM chunks c JOIN documents d USING (document_id)
    WHERE c.document_id IN (SELECT document_id FROM _docs) AND {_TITLE_KEY} <> ''
    UNION ALL
    SELECT 'NAMES', 'title:' || t.title_key, e.node_id, 'a document is titled ' || t.title, []::VARCHAR[],
           t.collection, t.document_id, t.chunk_id
    FROM (SELECT DISTINCT document_id, title, title_key, collection, chunk_id,
                 unnest([title_key, CASE WHEN name_key <> '' THEN name_key END]) AS match_key
          FROM (SELECT d.document_id, any_value(d.title) AS title, any_value({_TITLE_KEY}) AS title_key,
                       any_value({_TITLE_NAME_KEY}) AS name_key,
                       any_value(c.collection) AS collection, min(c.chunk_id) AS chunk_id
                FROM chunks c JOIN documents d USING (document_id)
                WHERE c.document_id IN (SELECT document_id FROM _docs) GROUP BY d.document_id)) t
    JOIN (SELECT DISTINCT m.node_id, {_ENTITY_KEY} AS entity_key
          FROM entities e JOIN _node_id_map m ON m.raw_id = e.node_id) e
      ON e.entity_key = t.match_key
    UNION ALL
    SELECT 'NAMES', 'title:' || t.title_key, m.node_id,
           'a document is titled ' || t.title, []::VARCHAR[], e.collection, e.document_id, e.chunk_id
    FROM entities e JOIN _node_id_map m ON m.raw_id = e.node_id
    JOIN (SELECT DISTINCT title_key, title, unnest([title_key, CASE WHEN name_key <> '' THEN name_key END]) AS match_key
          FROM (SELECT {_TITLE_KEY} AS title_key, {_TITLE_NAME_KEY} AS name_key, d.title
                FROM documents d WHERE d.document_id IN (SELECT document_id FROM chunks))) t
      ON {_ENTITY_KEY} = t.match_key
    WHERE e.document_id IN (SELECT document_id FROM _docs)
    UNION ALL
    SELECT 'NAMES', 'title:' || {_TITLE_KEY}, m.node_id, 'a document is titled ' || d.title, []::VARCHAR[],
           e.collection, e.document_id, e.chunk_id
    FROM entities e JOIN _node_id_map m ON m.raw_id = e.node_id JOIN documents d USING (document_id)
    WHERE e.document_id IN (SELECT document_id FROM _docs) AND {_TITLE_KEY} <> ''
      AND ' ' || {_words("d.title")} || ' ' LIKE '% ' || {_words(_ENTITY_KEY)} || ' %'
      AND {_words(_ENTITY_KEY)} <> ''
"""


@dataclass
class GraphReport:
    documents: int
    nodes_created: int
    edges_created: int
    edges_reinforced: int
    nodes_deleted: int
    edges_deleted: int
    nodes_total: int
    edges_total: int
    removed_documents: list[str] = field(default_factory=list)
    synced_documents: list[str] = field(default_factory=list)
    nodes_retyped: int = 0  # entity nodes re-keyed to the type their name resolved to (type conflicts)
    edges_retyped: int = 0  # edges moved with them (re-keyed, folded into an existing edge, or a dropped self-loop)

    def add(self, other: GraphReport) -> GraphReport:
        """This report followed by ``other`` (totals are ``other``'s: it came last)."""
        return GraphReport(
            self.documents + other.documents,
            self.nodes_created + other.nodes_created,
            self.edges_created + other.edges_created,
            self.edges_reinforced + other.edges_reinforced,
            self.nodes_deleted + other.nodes_deleted,
            self.edges_deleted + other.edges_deleted,
            other.nodes_total,
            other.edges_total,
            self.removed_documents + other.removed_documents,
            nodes_retyped=self.nodes_retyped + other.nodes_retyped,
            edges_retyped=self.edges_retyped + other.edges_retyped,
        )


def update_graph(conn: duckdb.DuckDBPyConnection, document_ids: Sequence[str], now: datetime) -> GraphReport:
    """Replace the graph support of ``document_ids`` with what their current rows say."""
    with transaction(conn):
        return apply_document_support(conn, document_ids, now)


def documents_to_sync(conn: duckdb.DuckDBPyConnection, scope) -> list[tuple[str, str | None]]:
    """(document_id, input_key) of the scope's documents whose stage outputs changed since the
    graph last consumed them; input_key None: the document is gone, its support goes.

    A document's input key digests its text version, title and every ``chunk_state`` row (input,
    status and time of each stage of each chunk): any stage that rewrote a chunk's rows changed it.
    """
    where_d, params_d = scope.sql_filter("d")
    where_g, params_g = scope.sql_filter("g")
    forced = sorted(scope.only) if scope.only is not None else []
    return conn.execute(
        f"""WITH current AS (
            SELECT d.document_id, md5(d.content_hash || '|' || coalesce(d.title, '') || '|' || coalesce(string_agg(
                s.chunk_id || ':' || s.stage || ':' || coalesce(s.input_hash, '') || ':' || s.status || ':'
                || s.updated_at::VARCHAR, '|' ORDER BY s.chunk_id, s.stage), '')) AS input_key
            FROM documents d LEFT JOIN chunk_state s USING (document_id)
            WHERE {where_d} AND d.text IS NOT NULL
            GROUP BY d.document_id, d.content_hash, d.title),
        consumed AS (SELECT g.document_id, g.input_key FROM graph_documents g WHERE {where_g})
        SELECT coalesce(c.document_id, g.document_id) AS document_id, c.input_key
        FROM current c FULL OUTER JOIN consumed g USING (document_id)
        WHERE c.input_key IS DISTINCT FROM g.input_key
           OR coalesce(c.document_id, g.document_id) IN (SELECT unnest(?::VARCHAR[]))
        ORDER BY 1""",
        [*params_d, *params_g, forced],
    ).fetchall()


def sync_graph(
    conn: duckdb.DuckDBPyConnection, scope, now: datetime, batch_documents: int = 500, progress=None
) -> GraphReport:
    """Bring the graph's support for the scope in line with its stage tables, in batches of
    documents, each batch one transaction that also records what it consumed (``graph_documents``)."""
    changed = documents_to_sync(conn, scope)
    total = GraphReport(0, 0, 0, 0, 0, 0, *_totals(conn))
    tick = progress("graph (documents)", len(changed)) if progress else None
    for start in range(0, len(changed), batch_documents):
        batch = changed[start : start + batch_documents]
        ids = [d for d, _ in batch]
        with transaction(conn):
            part = apply_document_support(conn, ids, now)
            delete_where_in(conn, "graph_documents", "document_id", ids)
            insert_rows(
                conn,
                "graph_documents",
                [
                    {"document_id": d, "collection": scope.collection, "input_key": key, "updated_at": now}
                    for d, key in batch
                    if key is not None
                ],
            )
        total = total.add(part)
        if tick:
            tick(len(batch))
    total.removed_documents = [d for d, key in changed if key is None]
    total.synced_documents = [d for d, _ in changed]
    return total


def apply_document_support(conn: duckdb.DuckDBPyConnection, document_ids: Sequence[str], now: datetime) -> GraphReport:
    """The update itself; the caller holds the transaction."""
    run = conn.execute
    nodes_before, edges_before = _totals(conn)
    run(
        "CREATE OR REPLACE TEMP TABLE _docs AS SELECT DISTINCT unnest(?::VARCHAR[]) AS document_id",
        [list(document_ids)],
    )
    _resolve_entity_types(conn)
    rekeyed_nodes, rekeyed_edges = _rekey_entity_nodes(conn)
    run(
        "CREATE OR REPLACE TEMP TABLE _prev_edge_docs AS SELECT DISTINCT edge_id, document_id FROM kg_edge_support "
        "WHERE document_id IN (SELECT document_id FROM _docs)"
    )
    run(
        "CREATE OR REPLACE TEMP TABLE _touched_nodes AS SELECT DISTINCT node_id FROM kg_node_support "
        "WHERE document_id IN (SELECT document_id FROM _docs)"
    )
    run(
        "CREATE OR REPLACE TEMP TABLE _touched_edges AS SELECT DISTINCT edge_id FROM _prev_edge_docs "
        "UNION SELECT new_edge FROM _edge_rekey"
    )
    run("INSERT INTO _touched_nodes SELECT DISTINCT new_id FROM _rekey")
    run("DELETE FROM kg_node_support WHERE document_id IN (SELECT document_id FROM _docs)")
    run("DELETE FROM kg_edge_support WHERE document_id IN (SELECT document_id FROM _docs)")

    # new support
    run(
        f"""CREATE OR REPLACE TEMP TABLE _new_nodes AS
        SELECT DISTINCT * FROM ({_NODE_SOURCES}) AS s(node_id, node_kind, node_type, name, description,
            topic_key, collection, document_id, chunk_id)"""
    )
    run(
        f"""CREATE OR REPLACE TEMP TABLE _new_edges AS
        SELECT edge_type || ':' || source_id || '->' || target_id AS edge_id, *
        FROM ({_EDGE_SOURCES}) AS s(edge_type, source_id, target_id, explanation, keywords, collection,
            document_id, chunk_id)"""
    )
    # an edge id absorbed by a consolidation merge (edge_aliases) gives its support to the edge that
    # absorbed it, so a re-synced document reinforces that edge instead of re-creating the duplicate
    run(
        """UPDATE _new_edges SET edge_id = a.edge_id FROM edge_aliases a
        WHERE _new_edges.edge_id = a.absorbed_edge_id AND a.edge_id IN (SELECT edge_id FROM kg_edges)"""
    )
    run(
        "INSERT INTO kg_node_support SELECT DISTINCT node_id, document_id, chunk_id, collection, name, description "
        "FROM _new_nodes"
    )
    run(
        "INSERT INTO kg_edge_support SELECT DISTINCT edge_id, document_id, chunk_id, collection, explanation, keywords "
        "FROM _new_edges"
    )
    _orient_cooccurrences(conn)

    # nodes and edges that are new to the graph
    created_nodes = run(
        """INSERT INTO kg_nodes (node_id, node_kind, node_type, name, description, topic_key, energy,
               base_weight, support_count, created_by, created_at, updated_at, metadata, merge_history)
        SELECT node_id, arg_min(node_kind, chunk_id), arg_min(node_type, chunk_id),
               arg_min(name, chunk_id), arg_min(description, chunk_id),
               arg_min(topic_key, chunk_id), '{}', 1.0, 0, 'pipeline', ?, ?, '{}', '[]'
        FROM _new_nodes WHERE node_id NOT IN (SELECT node_id FROM kg_nodes)
        GROUP BY node_id""",
        [now, now],
    ).fetchone()[0]
    created_edges = run(
        """INSERT INTO kg_edges (edge_id, source_id, target_id, edge_type, strength, activation_count,
               created_at, last_activated_at, last_reinforced_at, created_by, protected, explanation,
               keywords, source_topic_key, target_topic_key, support_count)
        SELECT e.edge_id, any_value(e.source_id), any_value(e.target_id), any_value(e.edge_type),
               1 - (1 - CASE WHEN bool_and(e.keywords = ['co-occurrence']) THEN ? ELSE ? END)
                 * pow(1 - ?, count(DISTINCT e.document_id) - 1), 0, ?, NULL, NULL,
               'pipeline', false, arg_min(e.explanation, e.chunk_id), [], NULL, NULL, 0
        FROM _new_edges e WHERE e.edge_id NOT IN (SELECT edge_id FROM kg_edges)
        GROUP BY e.edge_id""",
        [COOCCURRENCE_STRENGTH, INITIAL_STRENGTH, REINFORCEMENT, now],
    ).fetchone()[0]

    # reinforcement: an existing edge supported by a document that did not support it before
    reinforced = run(
        """UPDATE kg_edges SET strength = 1 - (1 - strength) * pow(1 - ?, g.new_docs), last_reinforced_at = ?
        FROM (
            SELECT n.edge_id, count(DISTINCT n.document_id) AS new_docs FROM _new_edges n
            WHERE NOT EXISTS (SELECT 1 FROM _prev_edge_docs p
                              WHERE p.edge_id = n.edge_id AND p.document_id = n.document_id)
            GROUP BY n.edge_id
        ) g
        WHERE kg_edges.edge_id = g.edge_id AND kg_edges.created_at < ?""",
        [REINFORCEMENT, now, now],
    ).fetchone()[0]

    # what lost all support goes (unless a user or the merger made it)
    deleted_edges = run(
        """DELETE FROM kg_edges WHERE created_by = 'pipeline'
        AND edge_id IN (SELECT edge_id FROM _touched_edges)
        AND edge_id NOT IN (SELECT edge_id FROM kg_edge_support)"""
    ).fetchone()[0]
    deleted_nodes = run(
        """DELETE FROM kg_nodes WHERE created_by = 'pipeline'
        AND node_id IN (SELECT node_id FROM _touched_nodes)
        AND node_id NOT IN (SELECT node_id FROM kg_node_support)
        AND node_id NOT IN (SELECT source_id FROM kg_edges WHERE created_by <> 'pipeline'
                            UNION SELECT target_id FROM kg_edges WHERE created_by <> 'pipeline')"""
    ).fetchone()[0]
    deleted_edges += run(
        """DELETE FROM kg_edges WHERE source_id NOT IN (SELECT node_id FROM kg_nodes)
        OR target_id NOT IN (SELECT node_id FROM kg_nodes)"""
    ).fetchone()[0]
    # a NAMES edge supported by a title's document loses its entity when the entity's own documents
    # go: the edge went above, its support rows go with it
    run(
        """DELETE FROM kg_edge_support WHERE edge_id LIKE 'NAMES:%'
        AND edge_id NOT IN (SELECT edge_id FROM kg_edges WHERE edge_type = 'NAMES')"""
    )

    _refresh_derived(conn, now)
    nodes_after, edges_after = _totals(conn)
    for temp in (
        "_docs",
        "_prev_edge_docs",
        "_touched_nodes",
        "_touched_edges",
        "_new_nodes",
        "_new_edges",
        "_type_keys",
        "_entity_type",
        "_node_id_map",
        "_rekey",
        "_edge_rekey",
    ):
        run(f"DROP TABLE IF EXISTS {temp}")
    return GraphReport(
        documents=len(set(document_ids)),
        nodes_created=created_nodes,
        edges_created=created_edges,
        edges_reinforced=reinforced,
        nodes_deleted=deleted_nodes,
        edges_deleted=deleted_edges,
        nodes_total=nodes_after,
        edges_total=edges_after,
        nodes_retyped=rekeyed_nodes,
        edges_retyped=rekeyed_edges,
    )


def _orient_cooccurrences(conn: duckdb.DuckDBPyConnection) -> None:
    """A co-occurrence states no direction: a RELATED edge all of whose support is a bare
    co-occurrence gives that support to the reverse edge when a relation cue stated that one
    ("Metformin activates AMPK" in one sentence, "drugs that activate AMPK, including metformin" in
    another: one edge Metformin -> AMPK, not a second AMPK -> Metformin). Only edges of the update
    (or the reverse of one) are looked at; the one left without support goes with the others."""
    run = conn.execute
    run(
        """CREATE OR REPLACE TEMP TABLE _flip AS
        WITH candidates AS (
            SELECT DISTINCT edge_id, source_id, target_id FROM _new_edges WHERE edge_type = 'RELATED'
            UNION
            SELECT e.edge_id, e.source_id, e.target_id FROM kg_edges e
            WHERE e.edge_type = 'RELATED'
              AND 'RELATED:' || e.target_id || '->' || e.source_id IN (SELECT edge_id FROM _new_edges))
        SELECT c.edge_id AS old_edge, coalesce(a.edge_id, r.reverse_id) AS new_edge
        FROM (SELECT *, 'RELATED:' || target_id || '->' || source_id AS reverse_id FROM candidates) r
        JOIN candidates c USING (edge_id)
        LEFT JOIN edge_aliases a ON a.absorbed_edge_id = r.reverse_id
        WHERE NOT EXISTS (SELECT 1 FROM kg_edge_support s
                          WHERE s.edge_id = c.edge_id AND s.keywords <> ['co-occurrence'])
          AND EXISTS (SELECT 1 FROM kg_edge_support s
                      WHERE s.edge_id = coalesce(a.edge_id, r.reverse_id) AND s.keywords <> ['co-occurrence'])"""
    )
    if not run("SELECT count(*) FROM _flip").fetchone()[0]:
        run("DROP TABLE IF EXISTS _flip")
        return
    run("UPDATE kg_edge_support SET edge_id = f.new_edge FROM _flip f WHERE kg_edge_support.edge_id = f.old_edge")
    run(
        """UPDATE _new_edges SET edge_id = f.new_edge, source_id = _new_edges.target_id,
               target_id = _new_edges.source_id
        FROM _flip f WHERE _new_edges.edge_id = f.old_edge"""
    )
    run("INSERT INTO _touched_edges SELECT old_edge FROM _flip UNION SELECT new_edge FROM _flip")
    run("DROP TABLE IF EXISTS _flip")


def _resolve_entity_types(conn: duckdb.DuckDBPyConnection) -> None:
    """``_entity_type`` (key, entity_type): the one type of each name the update touches, and
    ``_node_id_map`` (raw_id, node_id, entity_type): the node each extracted entity id goes to.

    A name's type is decided over every chunk that extracted it (``entities``, all documents), by
    ``entity_types.type_order``: a specific type beats ``concept``, then the type given in most
    chunks, then ``TYPE_PRECEDENCE``, then the type's name. The names touched are those of the
    documents' entities, of the entity nodes they supported before, and of their titles (NAMES)."""
    run = conn.execute
    run(
        f"""CREATE OR REPLACE TEMP TABLE _type_keys AS
        SELECT DISTINCT {_key_of("node_id")} AS key FROM entities WHERE document_id IN (SELECT document_id FROM _docs)
        UNION SELECT {_key_of("s.node_id")} FROM kg_node_support s JOIN kg_nodes n USING (node_id)
              WHERE s.document_id IN (SELECT document_id FROM _docs) AND n.node_kind = 'entity'
        UNION SELECT {_TITLE_KEY} FROM documents d WHERE d.document_id IN (SELECT document_id FROM _docs)
        UNION SELECT {_TITLE_NAME_KEY} FROM documents d WHERE d.document_id IN (SELECT document_id FROM _docs)"""
    )
    run(
        f"""CREATE OR REPLACE TEMP TABLE _entity_type AS
        SELECT key, entity_type FROM (
            SELECT key, entity_type, row_number() OVER (
                PARTITION BY key
                ORDER BY entity_type = ?, votes DESC,
                         coalesce(list_position(?::VARCHAR[], entity_type), 1000000), entity_type) AS pick
            FROM (SELECT {_key_of("node_id")} AS key, entity_type, count(*) AS votes FROM entities
                  WHERE {_key_of("node_id")} IN (SELECT key FROM _type_keys) GROUP BY ALL))
        WHERE pick = 1""",
        [FALLBACK_TYPE, list(TYPE_PRECEDENCE)],
    )
    # an id merged away by dedup (node_aliases) goes to the node that absorbed it: the resolved id's
    # alias first, then the id as extracted
    run(
        f"""CREATE OR REPLACE TEMP TABLE _node_id_map AS
        SELECT raw_id, node_id, split_part(node_id, ':', 1) AS entity_type FROM (
        SELECT r.raw_id, coalesce(a1.canonical_id, a0.canonical_id, r.resolved_id) AS node_id
        FROM (SELECT DISTINCT ids.raw_id, coalesce(et.entity_type || ':' || et.key, ids.raw_id) AS resolved_id
              FROM (SELECT node_id AS raw_id FROM entities WHERE {_key_of("node_id")} IN (SELECT key FROM _type_keys)
                    UNION SELECT source_node_id FROM relationships
                          WHERE document_id IN (SELECT document_id FROM _docs)
                    UNION SELECT target_node_id FROM relationships
                          WHERE document_id IN (SELECT document_id FROM _docs)) ids
              LEFT JOIN _entity_type et ON et.key = {_key_of("ids.raw_id")}) r
        LEFT JOIN node_aliases a1 ON a1.alias_id = r.resolved_id
        LEFT JOIN node_aliases a0 ON a0.alias_id = r.raw_id)"""
    )


def _rekey_entity_nodes(conn: duckdb.DuckDBPyConnection) -> tuple[int, int]:
    """Move each pipeline-made entity node whose name now resolves to another type (``_entity_type``)
    to the node of that type: its support rows follow, its edges are re-keyed (``<type>:<src>-><tgt>``)
    or folded into the same edge of the new node (support moves, activation counts add up, the
    higher strength stays), an edge between the two becomes a self-loop and goes, and node aliases
    follow. The node keeps its state (created_at, energy, merge history) when no node of the new type
    exists yet. Returns (nodes, edges) moved; writes ``_rekey`` and ``_edge_rekey`` for the caller."""
    run = conn.execute
    run(
        f"""CREATE OR REPLACE TEMP TABLE _rekey AS
        SELECT n.node_id AS old_id, et.entity_type || ':' || et.key AS new_id, et.entity_type AS new_type
        FROM kg_nodes n JOIN _entity_type et ON et.key = {_key_of("n.node_id")}
        WHERE n.node_kind = 'entity' AND n.created_by = 'pipeline'
          AND n.node_id <> et.entity_type || ':' || et.key
          AND n.node_id NOT IN (SELECT alias_id FROM node_aliases)"""
    )
    run(
        """CREATE OR REPLACE TEMP TABLE _edge_rekey AS
        SELECT e.edge_id AS old_edge, e.edge_type, e.source_id AS old_source, e.target_id AS old_target,
               coalesce(s.new_id, e.source_id) AS new_source, coalesce(t.new_id, e.target_id) AS new_target,
               CASE WHEN e.edge_id = e.edge_type || ':' || e.source_id || '->' || e.target_id
                    THEN e.edge_type || ':' || coalesce(s.new_id, e.source_id) || '->'
                         || coalesce(t.new_id, e.target_id)
                    ELSE e.edge_id END AS new_edge
        FROM kg_edges e LEFT JOIN _rekey s ON s.old_id = e.source_id LEFT JOIN _rekey t ON t.old_id = e.target_id
        WHERE s.old_id IS NOT NULL OR t.old_id IS NOT NULL"""
    )
    moved = run("SELECT count(*) FROM _rekey").fetchone()[0]
    if not moved:
        return 0, 0
    edges = run("SELECT count(*) FROM _edge_rekey").fetchone()[0]
    # an edge already there by type and endpoints (whatever its id) absorbs the moved one
    run(
        """UPDATE _edge_rekey SET new_edge = x.edge_id FROM kg_edges x
        WHERE x.edge_type = _edge_rekey.edge_type AND x.source_id = _edge_rekey.new_source
          AND x.target_id = _edge_rekey.new_target AND x.edge_id NOT IN (SELECT old_edge FROM _edge_rekey)"""
    )
    # self-loops (an edge between the two typings of one name) go with their support
    run("DELETE FROM kg_edge_support WHERE edge_id IN (SELECT old_edge FROM _edge_rekey WHERE new_source = new_target)")
    run("DELETE FROM kg_edges WHERE edge_id IN (SELECT old_edge FROM _edge_rekey WHERE new_source = new_target)")
    run("DELETE FROM _edge_rekey WHERE new_source = new_target")
    # edges folded into one that stays: it keeps its state, adds the activations, keeps the higher strength
    run(
        """UPDATE kg_edges SET activation_count = kg_edges.activation_count + g.activations,
               strength = greatest(kg_edges.strength, g.strength), protected = kg_edges.protected OR g.protected
        FROM (SELECT r.new_edge, sum(e.activation_count) AS activations, max(e.strength) AS strength,
                     bool_or(e.protected) AS protected
              FROM _edge_rekey r JOIN kg_edges e ON e.edge_id = r.old_edge
              WHERE r.new_edge <> r.old_edge GROUP BY r.new_edge) g
        WHERE kg_edges.edge_id = g.new_edge AND kg_edges.edge_id NOT IN (SELECT old_edge FROM _edge_rekey)"""
    )
    # edges re-keyed to an id not yet in the graph: the moved rows, several folded into one
    run(
        """INSERT INTO kg_edges
        SELECT r.new_edge, any_value(r.new_source), any_value(r.new_target), any_value(e.edge_type), max(e.strength),
               sum(e.activation_count)::INTEGER, min(e.created_at), max(e.last_activated_at),
               max(e.last_reinforced_at), arg_min(e.created_by, e.created_at), bool_or(e.protected),
               arg_min(e.explanation, e.created_at), list_sort(list_distinct(flatten(list(e.keywords)))),
               NULL, NULL, sum(e.support_count)::INTEGER
        FROM _edge_rekey r JOIN kg_edges e ON e.edge_id = r.old_edge
        WHERE r.new_edge <> r.old_edge AND r.new_edge NOT IN (SELECT edge_id FROM kg_edges)
        GROUP BY r.new_edge"""
    )
    run(
        """UPDATE kg_edge_support SET edge_id = r.new_edge FROM _edge_rekey r
        WHERE kg_edge_support.edge_id = r.old_edge AND r.new_edge <> r.old_edge"""
    )
    run(
        """UPDATE edge_aliases SET edge_id = r.new_edge FROM _edge_rekey r
        WHERE edge_aliases.edge_id = r.old_edge AND r.new_edge <> r.old_edge"""
    )
    # the old id of a re-keyed edge is an alias of the new one, so uses queued under it (activations
    # not yet applied) and links a client kept still find the edge; an id that is an edge is no alias
    run("DELETE FROM edge_aliases WHERE absorbed_edge_id IN (SELECT new_edge FROM _edge_rekey)")
    run(
        """INSERT OR REPLACE INTO edge_aliases
        SELECT old_edge, new_edge, 'retype' FROM _edge_rekey WHERE new_edge <> old_edge"""
    )
    run("DELETE FROM kg_edges WHERE edge_id IN (SELECT old_edge FROM _edge_rekey WHERE new_edge <> old_edge)")
    # an edge that keeps its id (not of the id pattern) gets its new endpoints
    run(
        """UPDATE kg_edges SET source_id = r.new_source, target_id = r.new_target FROM _edge_rekey r
        WHERE kg_edges.edge_id = r.old_edge AND r.new_edge = r.old_edge"""
    )
    # the nodes: moved whole when the new id is free (the oldest of several), else folded into it
    run(
        """INSERT INTO kg_nodes
        SELECT r.new_id, n.node_kind, r.new_type, n.name, n.description, 'type:' || r.new_type, n.energy,
               n.base_weight, n.support_count, n.created_by, n.created_at, n.updated_at, n.metadata, n.merge_history
        FROM _rekey r JOIN kg_nodes n ON n.node_id = r.old_id
        WHERE r.new_id NOT IN (SELECT node_id FROM kg_nodes)
        QUALIFY row_number() OVER (PARTITION BY r.new_id ORDER BY n.created_at, n.node_id) = 1"""
    )
    run("UPDATE kg_node_support SET node_id = r.new_id FROM _rekey r WHERE kg_node_support.node_id = r.old_id")
    run("UPDATE node_aliases SET canonical_id = r.new_id FROM _rekey r WHERE node_aliases.canonical_id = r.old_id")
    run("DELETE FROM kg_nodes WHERE node_id IN (SELECT old_id FROM _rekey)")
    run(
        """UPDATE kg_edges SET source_topic_key = sn.topic_key, target_topic_key = tn.topic_key
        FROM kg_nodes sn, kg_nodes tn
        WHERE kg_edges.edge_id IN (SELECT new_edge FROM _edge_rekey)
          AND sn.node_id = kg_edges.source_id AND tn.node_id = kg_edges.target_id"""
    )
    # the log of applied activations, and the merges (node_merges) made with the old ids, follow:
    # unmerge of a merge whose node was re-keyed splits the nodes as they are named now
    run(
        """UPDATE edge_activations SET edge_id = r.new_edge FROM _edge_rekey r
        WHERE edge_activations.edge_id = r.old_edge AND r.new_edge <> r.old_edge"""
    )
    follow_rekeyed_nodes(
        conn,
        dict(run("SELECT old_id, new_id FROM _rekey").fetchall()),
        dict(run("SELECT old_edge, new_edge FROM _edge_rekey WHERE new_edge <> old_edge").fetchall()),
        dict(run("SELECT DISTINCT new_id, new_type FROM _rekey").fetchall()),
    )
    return moved, edges


def _refresh_derived(conn: duckdb.DuckDBPyConnection, now: datetime) -> None:
    """Recompute what is derived from support for the nodes and edges the update touched."""
    conn.execute(
        """CREATE OR REPLACE TEMP TABLE _affected_nodes AS
        SELECT node_id FROM _touched_nodes UNION SELECT node_id FROM _new_nodes"""
    )
    conn.execute(
        """UPDATE kg_nodes SET name = s.name, description = s.description, support_count = s.n,
               energy = s.energy, updated_at = ?
        FROM (
            SELECT node_id, arg_min(name, first_chunk) AS name, arg_min(description, first_chunk) AS description,
                   sum(n)::INTEGER AS n, json_group_object(collection, round(tanh(0.2 * n), 4)) AS energy
            FROM (SELECT node_id, collection, min(chunk_id) AS first_chunk, count(*) AS n,
                         arg_min(name, chunk_id) AS name, arg_min(description, chunk_id) AS description
                  FROM kg_node_support WHERE node_id IN (SELECT node_id FROM _affected_nodes)
                  GROUP BY node_id, collection)
            GROUP BY node_id
        ) s
        WHERE kg_nodes.node_id = s.node_id AND kg_nodes.created_by = 'pipeline'""",
        [now],
    )
    conn.execute(
        """UPDATE kg_edges SET support_count = s.n, explanation = s.explanation, keywords = s.keywords,
               source_topic_key = s.source_topic_key, target_topic_key = s.target_topic_key
        FROM (
            SELECT es.edge_id, count(*)::INTEGER AS n,
                   arg_min(es.explanation, es.chunk_id) AS explanation,
                   list_sort(list_distinct(flatten(list(es.keywords)))) AS keywords,
                   any_value(sn.topic_key) AS source_topic_key, any_value(tn.topic_key) AS target_topic_key
            FROM kg_edge_support es
            JOIN kg_edges e USING (edge_id)
            LEFT JOIN kg_nodes sn ON sn.node_id = e.source_id
            LEFT JOIN kg_nodes tn ON tn.node_id = e.target_id
            WHERE es.edge_id IN (SELECT edge_id FROM _touched_edges UNION SELECT edge_id FROM _new_edges)
            GROUP BY es.edge_id
        ) s
        WHERE kg_edges.edge_id = s.edge_id AND kg_edges.created_by = 'pipeline'"""
    )
    conn.execute("DROP TABLE IF EXISTS _affected_nodes")


def _totals(conn: duckdb.DuckDBPyConnection) -> tuple[int, int]:
    return (
        conn.execute("SELECT count(*) FROM kg_nodes").fetchone()[0],
        conn.execute("SELECT count(*) FROM kg_edges").fetchone()[0],
    )
