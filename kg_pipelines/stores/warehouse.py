"""The DuckDB warehouse: table definitions and the few write patterns every stage uses.

Every table a stage owns is written idempotently: inside one transaction, delete the rows of the
documents (or chunks) being processed, insert the new ones. A failure rolls the whole write back,
so a table never holds half a document.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import duckdb
import pyarrow as pa

# kg_edges' columns after its key, shared with edge_prune_log (which keeps whole pruned rows)
EDGE_FIELDS = """
    source_id VARCHAR NOT NULL, target_id VARCHAR NOT NULL,
    edge_type VARCHAR NOT NULL, strength DOUBLE NOT NULL, activation_count INTEGER NOT NULL,
    created_at TIMESTAMPTZ NOT NULL, last_activated_at TIMESTAMPTZ,
    last_reinforced_at TIMESTAMPTZ, created_by VARCHAR NOT NULL, protected BOOLEAN NOT NULL,
    explanation VARCHAR, keywords VARCHAR[], source_topic_key VARCHAR,
    target_topic_key VARCHAR, support_count INTEGER NOT NULL"""
EDGE_SUPPORT_COLUMNS = """
    edge_id VARCHAR NOT NULL, document_id VARCHAR NOT NULL, chunk_id VARCHAR NOT NULL,
    collection VARCHAR NOT NULL, explanation VARCHAR, keywords VARCHAR[]"""
# rows kept inside another table's row, as lists of structs (a struct's fields take no NOT NULL):
# ``list(e)`` of kg_edges rows
EDGE_ROWS_TYPE = f"STRUCT(edge_id VARCHAR, {EDGE_FIELDS.replace(' NOT NULL', '')})[]"

# Column lists are the contract documented in the README ("Tables").
SCHEMA: dict[str, str] = {
    "documents": """
        document_id VARCHAR PRIMARY KEY, collection VARCHAR NOT NULL, source_path VARCHAR NOT NULL,
        title VARCHAR, content_hash VARCHAR, text VARCHAR, n_chars BIGINT,
        error VARCHAR, ingested_at TIMESTAMPTZ, updated_at TIMESTAMPTZ""",
    # what the chunks stage last built each document from: its sync state
    "document_chunking": """
        document_id VARCHAR PRIMARY KEY, collection VARCHAR NOT NULL, content_hash VARCHAR NOT NULL,
        settings_key VARCHAR NOT NULL, n_chunks INTEGER NOT NULL, updated_at TIMESTAMPTZ NOT NULL""",
    "chunks": """
        chunk_id VARCHAR PRIMARY KEY, document_id VARCHAR NOT NULL, collection VARCHAR NOT NULL,
        seq INTEGER NOT NULL, text VARCHAR NOT NULL, token_count INTEGER NOT NULL,
        char_start BIGINT, char_end BIGINT, summary VARCHAR, prior_summary VARCHAR,
        text_hash VARCHAR NOT NULL""",
    "chunk_state": """
        chunk_id VARCHAR NOT NULL, document_id VARCHAR NOT NULL, stage VARCHAR NOT NULL,
        attempts INTEGER NOT NULL, status VARCHAR NOT NULL, error_kind VARCHAR, last_error VARCHAR,
        input_hash VARCHAR, output_count INTEGER, dropped JSON, rounds INTEGER NOT NULL DEFAULT 0,
        updated_at TIMESTAMPTZ, next_run_at TIMESTAMPTZ, collection VARCHAR NOT NULL,
        PRIMARY KEY (chunk_id, stage)""",
    "entities": """
        entity_id VARCHAR PRIMARY KEY, chunk_id VARCHAR NOT NULL, document_id VARCHAR NOT NULL,
        collection VARCHAR NOT NULL, name VARCHAR NOT NULL, entity_type VARCHAR NOT NULL,
        description VARCHAR NOT NULL, node_id VARCHAR NOT NULL""",
    "relationships": """
        relationship_id VARCHAR PRIMARY KEY, chunk_id VARCHAR NOT NULL, document_id VARCHAR NOT NULL,
        collection VARCHAR NOT NULL, source_name VARCHAR NOT NULL, target_name VARCHAR NOT NULL,
        keywords VARCHAR[] NOT NULL, tags VARCHAR[] NOT NULL, description VARCHAR NOT NULL,
        source_node_id VARCHAR NOT NULL, target_node_id VARCHAR NOT NULL""",
    "atomic_questions": """
        question_id VARCHAR PRIMARY KEY, chunk_id VARCHAR NOT NULL, document_id VARCHAR NOT NULL,
        collection VARCHAR NOT NULL, seq INTEGER NOT NULL, question VARCHAR NOT NULL""",
    "kg_nodes": """
        node_id VARCHAR PRIMARY KEY, node_kind VARCHAR NOT NULL, node_type VARCHAR NOT NULL,
        name VARCHAR NOT NULL, description VARCHAR, topic_key VARCHAR, energy JSON,
        base_weight DOUBLE NOT NULL, support_count INTEGER NOT NULL, created_by VARCHAR NOT NULL,
        created_at TIMESTAMPTZ NOT NULL, updated_at TIMESTAMPTZ NOT NULL, metadata JSON,
        merge_history JSON""",
    # edge_id is stored uncompressed: deleting rows of a table on disk removes their keys from the
    # primary-key index at commit, fetching each key from its column segment; from a compressed
    # (FSST) segment that costs ~18 us a row (1.7 s for 90k pruned edges of 1M), uncompressed 0.07 s
    "kg_edges": f"edge_id VARCHAR USING COMPRESSION uncompressed PRIMARY KEY, {EDGE_FIELDS}",
    # what the graph last consumed of each document: its sync state
    "graph_documents": """
        document_id VARCHAR PRIMARY KEY, collection VARCHAR NOT NULL, input_key VARCHAR NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL""",
    # provenance: which document / chunk supports which node and edge
    "kg_node_support": """
        node_id VARCHAR NOT NULL, document_id VARCHAR NOT NULL, chunk_id VARCHAR NOT NULL,
        collection VARCHAR NOT NULL, name VARCHAR, description VARCHAR""",
    "kg_edge_support": EDGE_SUPPORT_COLUMNS,
    # the knowledge merger (seed 000): proposed wiki pages, their plans, and each bundle's outcome
    "proposed_pages": """
        bundle_id VARCHAR NOT NULL, page_id VARCHAR NOT NULL, seq INTEGER NOT NULL, page_type VARCHAR NOT NULL,
        title VARCHAR NOT NULL, overview VARCHAR, content VARCHAR, outgoing_links JSON NOT NULL,
        bundle_hash VARCHAR NOT NULL, source_path VARCHAR, loaded_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (bundle_id, page_id)""",
    "merge_plans": """
        bundle_id VARCHAR NOT NULL, bundle_hash VARCHAR NOT NULL, subgraph_id VARCHAR NOT NULL,
        root_id VARCHAR NOT NULL, subgraph_status VARCHAR NOT NULL, audit_result VARCHAR,
        retry_count INTEGER NOT NULL, page_id VARCHAR NOT NULL, page_type VARCHAR NOT NULL,
        decision VARCHAR NOT NULL, merge_target_id VARCHAR, best_match_score DOUBLE, reason VARCHAR,
        parent_id VARCHAR, deferred_edges JSON NOT NULL, execution_seq INTEGER NOT NULL,
        plan_seq INTEGER NOT NULL, status VARCHAR NOT NULL, result_page_id VARCHAR, error VARCHAR,
        bundle_status VARCHAR NOT NULL, created_pages VARCHAR[], edited_pages VARCHAR[],
        updated_at TIMESTAMPTZ NOT NULL, PRIMARY KEY (bundle_id, page_id)""",
    "merge_bundles": """
        bundle_id VARCHAR PRIMARY KEY, bundle_hash VARCHAR NOT NULL, source_path VARCHAR, status VARCHAR NOT NULL,
        subgraphs INTEGER NOT NULL, pages INTEGER NOT NULL, created_pages VARCHAR[], edited_pages VARCHAR[],
        plan_md VARCHAR, planned_at TIMESTAMPTZ NOT NULL, updated_at TIMESTAMPTZ NOT NULL,
        finished_at TIMESTAMPTZ""",
    # usage feeds the graph: every queued use of an edge, once applied (retrieval/activations.py)
    "edge_activations": """
        activation_id BIGINT PRIMARY KEY, edge_id VARCHAR NOT NULL, used_by VARCHAR NOT NULL,
        used_at TIMESTAMPTZ NOT NULL, applied_at TIMESTAMPTZ NOT NULL, edge_found BOOLEAN NOT NULL""",
    # recall of the current graph on labelled questions, per collection and cut-off (retrieval_quality.py)
    "retrieval_quality": """
        measured_at TIMESTAMPTZ NOT NULL, collection VARCHAR NOT NULL, variant VARCHAR NOT NULL,
        k INTEGER NOT NULL, questions INTEGER NOT NULL, recall DOUBLE NOT NULL, all_gold DOUBLE NOT NULL,
        accepted_recall DOUBLE, accepted BOOLEAN NOT NULL, labels_hash VARCHAR NOT NULL, graph_version VARCHAR,
        PRIMARY KEY (measured_at, collection, k)""",
    # consolidation (seed 002): what each run pruned, merged and found, enough to restore and explain it
    # the pruned kg_edges row in typed columns; its kg_edge_support rows move to pruned_edge_support
    # as they are (flat rows: a list of structs per edge costs twice as much to build at 10M edges)
    "edge_prune_log": f"""
        run_id VARCHAR NOT NULL, pruned_at TIMESTAMPTZ NOT NULL, edge_id VARCHAR NOT NULL, {EDGE_FIELDS},
        decayed_strength DOUBLE NOT NULL, days_inactive DOUBLE NOT NULL, reason VARCHAR NOT NULL,
        restored_at TIMESTAMPTZ""",
    "pruned_edge_support": f"run_id VARCHAR NOT NULL, {EDGE_SUPPORT_COLUMNS}",
    "consolidated_edges": f"""
        run_id VARCHAR NOT NULL, merged_at TIMESTAMPTZ NOT NULL, edge_id VARCHAR NOT NULL,
        source_id VARCHAR NOT NULL, target_id VARCHAR NOT NULL, edge_type VARCHAR NOT NULL,
        absorbed_edge_ids VARCHAR[] NOT NULL, edge_count INTEGER NOT NULL, old_strength DOUBLE NOT NULL,
        new_strength DOUBLE NOT NULL, activation_count INTEGER NOT NULL,
        absorbed_edges {EDGE_ROWS_TYPE} NOT NULL, PRIMARY KEY (run_id, edge_id)""",
    # an edge id absorbed by a merge -> the edge that carries it now (ingestion redirects its support)
    "edge_aliases": """
        absorbed_edge_id VARCHAR PRIMARY KEY, edge_id VARCHAR NOT NULL, run_id VARCHAR NOT NULL""",
    "topic_clusters": """
        topic_key VARCHAR PRIMARY KEY, node_ids VARCHAR[] NOT NULL, node_count INTEGER NOT NULL,
        internal_edges BIGINT NOT NULL, connectivity DOUBLE NOT NULL, computed_at TIMESTAMPTZ NOT NULL""",
    "communities": """
        community_id INTEGER PRIMARY KEY, node_ids VARCHAR[] NOT NULL, node_count INTEGER NOT NULL,
        edge_count BIGINT NOT NULL, top_nodes VARCHAR[] NOT NULL, summary VARCHAR NOT NULL,
        summary_method VARCHAR NOT NULL, algorithm VARCHAR NOT NULL, computed_at TIMESTAMPTZ NOT NULL""",
    "consolidation_reports": """
        run_id VARCHAR PRIMARY KEY, operation VARCHAR NOT NULL, dry_run BOOLEAN NOT NULL,
        started_at TIMESTAMPTZ NOT NULL, finished_at TIMESTAMPTZ NOT NULL, edges_before BIGINT NOT NULL,
        edges_after BIGINT NOT NULL, affected BIGINT NOT NULL, affected_pct DOUBLE NOT NULL,
        health_target VARCHAR, within_target BOOLEAN, settings JSON NOT NULL, report JSON NOT NULL,
        picture_path VARCHAR""",
    # duplicate nodes (seed 001): the scored pairs of the last detection, every merge (enough to
    # explain and undo it), the node ids merged away (graph building maps them to their canonical)
    "duplicate_candidates": """
        node_a VARCHAR NOT NULL, node_b VARCHAR NOT NULL, node_type VARCHAR NOT NULL, name_a VARCHAR NOT NULL,
        name_b VARCHAR NOT NULL, embedding_similarity DOUBLE NOT NULL, name_similarity DOUBLE NOT NULL,
        metadata_overlap DOUBLE NOT NULL, score DOUBLE NOT NULL, stage VARCHAR NOT NULL,
        decision VARCHAR NOT NULL, reason VARCHAR, detected_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (node_a, node_b)""",
    "node_merges": """
        merge_id VARCHAR PRIMARY KEY, merged_at TIMESTAMPTZ NOT NULL, canonical_id VARCHAR NOT NULL,
        duplicate_id VARCHAR NOT NULL, canonical_name VARCHAR NOT NULL, duplicate_name VARCHAR NOT NULL,
        node_type VARCHAR NOT NULL, score DOUBLE, decision VARCHAR NOT NULL, strategy VARCHAR NOT NULL,
        origin VARCHAR NOT NULL, edges_redirected INTEGER NOT NULL, edges_combined INTEGER NOT NULL,
        self_loops_dropped INTEGER NOT NULL, snapshot JSON NOT NULL, undone_at TIMESTAMPTZ, evidence VARCHAR""",
    "node_aliases": """
        alias_id VARCHAR PRIMARY KEY, canonical_id VARCHAR NOT NULL, merge_id VARCHAR NOT NULL""",
    "dedup_state": """
        name VARCHAR PRIMARY KEY, value TIMESTAMPTZ NOT NULL""",
    # aliases the text states ("long form (SHORT)", "X, also known as Y"), per chunk: the graph step
    # merges the two names' nodes (graph/alias_merging.py); keys_a / keys_b: node keys to try
    "stated_aliases": """
        document_id VARCHAR NOT NULL, chunk_id VARCHAR NOT NULL, collection VARCHAR NOT NULL, kind VARCHAR NOT NULL,
        name_a VARCHAR NOT NULL, name_b VARCHAR NOT NULL, keys_a VARCHAR[] NOT NULL, keys_b VARCHAR[] NOT NULL,
        evidence VARCHAR NOT NULL, found_at TIMESTAMPTZ NOT NULL""",
}

# A document's status is derived from its chunks' states, never written by a later stage:
# Failed (unreadable, nothing ingested), PartiallyFailed (a chunk failed or is quarantined),
# Done (every chunk done in every stage, and chunked from the current text), else Pending.
VIEWS = {
    "document_status": """
        WITH per_document AS (
            SELECT c.document_id, count(DISTINCT c.chunk_id) AS chunks,
                   count(*) FILTER (WHERE s.status = 'done') AS done_states,
                   count(DISTINCT c.chunk_id) FILTER (WHERE s.status = 'failed') AS failed_chunks,
                   count(DISTINCT c.chunk_id) FILTER (WHERE s.status = 'quarantined') AS quarantined_chunks
            FROM chunks c LEFT JOIN chunk_state s ON s.chunk_id = c.chunk_id
            GROUP BY c.document_id)
        SELECT d.document_id, d.collection,
               CASE WHEN d.text IS NULL THEN 'Failed'
                    WHEN coalesce(p.failed_chunks, 0) + coalesce(p.quarantined_chunks, 0) > 0 THEN 'PartiallyFailed'
                    WHEN dc.content_hash = d.content_hash AND coalesce(p.chunks, 0) = dc.n_chunks
                         AND coalesce(p.done_states, 0) = dc.n_chunks * 3 THEN 'Done'
                    ELSE 'Pending' END AS status,
               coalesce(p.chunks, 0) AS chunks, coalesce(p.failed_chunks, 0) AS failed_chunks,
               coalesce(p.quarantined_chunks, 0) AS quarantined_chunks, d.error
        FROM documents d
        LEFT JOIN per_document p USING (document_id)
        LEFT JOIN document_chunking dc USING (document_id)""",
}

INDEXES = (
    "CREATE INDEX IF NOT EXISTS chunks_document ON chunks (document_id)",
    "CREATE INDEX IF NOT EXISTS chunk_state_document ON chunk_state (document_id)",
    "CREATE INDEX IF NOT EXISTS entities_chunk ON entities (chunk_id)",
    "CREATE INDEX IF NOT EXISTS relationships_chunk ON relationships (chunk_id)",
    "CREATE INDEX IF NOT EXISTS questions_chunk ON atomic_questions (chunk_id)",
    "CREATE INDEX IF NOT EXISTS node_support_document ON kg_node_support (document_id)",
    "CREATE INDEX IF NOT EXISTS edge_support_document ON kg_edge_support (document_id)",
    "CREATE INDEX IF NOT EXISTS stated_aliases_document ON stated_aliases (document_id)",
)


_ready: set[tuple[str, int]] = set()  # (path, inode) of files whose schema this process ensured


def connect(path: Path | str, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    path = Path(path)
    if not read_only:
        path.parent.mkdir(parents=True, exist_ok=True)
    conn = duckdb.connect(str(path), read_only=read_only)
    if not read_only:
        key = (str(path.resolve()), path.stat().st_ino)
        if key not in _ready:  # once per file and process: a dozen DDL statements per step add up
            ensure_schema(conn)
            _ready.add(key)
    return conn


def ensure_schema(conn: duckdb.DuckDBPyConnection) -> None:
    for table, columns in SCHEMA.items():
        conn.execute(f"CREATE TABLE IF NOT EXISTS {table} ({columns})")
    _migrate_json_row_columns(conn)
    _migrate_prune_log_support(conn)
    # warehouses made before merges kept their evidence (the sentence stating an alias)
    conn.execute("ALTER TABLE node_merges ADD COLUMN IF NOT EXISTS evidence VARCHAR")
    for statement in INDEXES:
        conn.execute(statement)
    for view, sql in VIEWS.items():
        conn.execute(f"CREATE OR REPLACE VIEW {view} AS {sql}")


def _migrate_json_row_columns(conn: duckdb.DuckDBPyConnection) -> None:
    """Warehouses made before rows were kept in typed columns stored them as JSON text (the prune
    log's ``edge_row`` / ``support_rows``, ``consolidated_edges.absorbed_edges``): rewrite those
    tables into the typed columns, once each, in one transaction (``json_transform`` does the casts);
    the prune log's support rows go to ``pruned_edge_support``."""
    old_tables = {
        table
        for (table,) in conn.execute(
            """SELECT table_name FROM duckdb_columns() WHERE data_type = 'JSON' AND (
                   (table_name = 'edge_prune_log' AND column_name = 'edge_row')
                   OR (table_name = 'consolidated_edges' AND column_name = 'absorbed_edges'))"""
        ).fetchall()
    }
    if not old_tables:  # the usual case: one catalog query when a process first opens the file
        return
    edge = dict(column_types(conn, "kg_edges"))
    support = dict(column_types(conn, "kg_edge_support"))
    if "edge_prune_log" in old_tables:
        with transaction(conn):
            _move_support_rows(conn, f"json_transform(support_rows, '{json.dumps([support])}')")
            _rewrite_table(
                conn,
                "edge_prune_log",
                f"""SELECT run_id, pruned_at, decayed_strength, days_inactive, reason, restored_at,
                       unnest(json_transform(edge_row, '{json.dumps(edge)}'))""",
            )
    if "consolidated_edges" in old_tables:
        with transaction(conn):
            _rewrite_table(
                conn,
                "consolidated_edges",
                f"""SELECT * REPLACE (json_transform(absorbed_edges, '{json.dumps([edge])}') AS absorbed_edges)""",
            )


def _migrate_prune_log_support(conn: duckdb.DuckDBPyConnection) -> None:
    """Warehouses made before ``pruned_edge_support`` kept a pruned edge's support rows in the log
    (``support_rows``, a list of structs): move them there and drop the column, in one transaction."""
    if not conn.execute(
        """SELECT 1 FROM duckdb_columns() WHERE table_name = 'edge_prune_log' AND column_name = 'support_rows'"""
    ).fetchall():
        return
    with transaction(conn):
        _move_support_rows(conn, "support_rows")
        conn.execute("ALTER TABLE edge_prune_log DROP COLUMN support_rows")


def _move_support_rows(conn: duckdb.DuckDBPyConnection, support_rows: str) -> None:
    """The support rows of every logged prune (``support_rows``: an expression over ``edge_prune_log``
    giving the list of structs) into ``pruned_edge_support``, with their run."""
    conn.execute(
        f"""INSERT INTO pruned_edge_support BY NAME
        SELECT run_id, unnest(s) FROM (SELECT run_id, unnest({support_rows}) AS s FROM edge_prune_log)"""
    )


def _rewrite_table(conn: duckdb.DuckDBPyConnection, table: str, select: str) -> None:
    """Recreate ``table`` with its current definition, its rows converted by ``select`` (FROM the old
    table); the caller holds the transaction."""
    conn.execute(f"ALTER TABLE {table} RENAME TO {table}_old")
    conn.execute(f"CREATE TABLE {table} ({SCHEMA[table]})")
    conn.execute(f"INSERT INTO {table} BY NAME {select} FROM {table}_old")
    conn.execute(f"DROP TABLE {table}_old")


def column_types(conn: duckdb.DuckDBPyConnection, table: str) -> list[tuple[str, str]]:
    return [(r[0], r[1]) for r in conn.execute(f"DESCRIBE {table}").fetchall()]


@contextmanager
def transaction(conn: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    conn.execute("BEGIN TRANSACTION")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def delete_where_in(conn: duckdb.DuckDBPyConnection, table: str, column: str, values: Sequence[str]) -> None:
    if values:
        conn.execute(f"DELETE FROM {table} WHERE {column} IN (SELECT unnest(?::VARCHAR[]))", [list(values)])


def insert_rows(conn: duckdb.DuckDBPyConnection, table: str, rows: pa.Table | list[dict]) -> int:
    """Insert rows by column name (columns absent from ``rows`` get their defaults / NULL)."""
    if isinstance(rows, list):
        if not rows:
            return 0
        rows = pa.Table.from_pylist(rows)
    if rows.num_rows == 0:
        return 0
    conn.register("_staged_rows", rows)
    try:
        conn.execute(f"INSERT INTO {table} BY NAME SELECT * FROM _staged_rows")
    finally:
        conn.unregister("_staged_rows")
    return rows.num_rows


def replace_rows(
    conn: duckdb.DuckDBPyConnection, table: str, key_column: str, keys: Sequence[str], rows: pa.Table | list[dict]
) -> int:
    """Delete the rows whose ``key_column`` is in ``keys``, insert ``rows`` (call inside a transaction)."""
    delete_where_in(conn, table, key_column, keys)
    return insert_rows(conn, table, rows)


def fetch_dicts(conn: duckdb.DuckDBPyConnection, sql: str, params: Sequence | None = None) -> list[dict]:
    cursor = conn.execute(sql, params or [])
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def count_rows(conn: duckdb.DuckDBPyConnection, table: str) -> int:
    return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
