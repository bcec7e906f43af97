"""A plain-text summary of what a graph holds (printed by the CLI after a run and by `summary`)."""

from __future__ import annotations

import duckdb

from kg_pipelines.config import KGSettings
from kg_pipelines.stores import warehouse


def graph_summary(settings: KGSettings) -> str:
    try:
        conn = warehouse.connect(settings.warehouse_path, read_only=True)
    except duckdb.IOException as exc:
        return f"cannot read {settings.warehouse_path} now (another process writes it?): {exc}"
    try:
        return _summary(conn)
    finally:
        conn.close()


def _summary(conn: duckdb.DuckDBPyConnection) -> str:
    one = lambda sql: conn.execute(sql).fetchone()[0]  # noqa: E731
    statuses = dict(conn.execute("SELECT status, count(*) FROM document_status GROUP BY 1 ORDER BY 1").fetchall())
    kinds = conn.execute("SELECT node_kind, count(*) FROM kg_nodes GROUP BY 1 ORDER BY 1").fetchall()
    edge_types = conn.execute("SELECT edge_type, count(*) FROM kg_edges GROUP BY 1 ORDER BY 1").fetchall()
    entity_types = conn.execute(
        "SELECT node_type, count(*) FROM kg_nodes WHERE node_kind = 'entity' GROUP BY 1 ORDER BY 2 DESC LIMIT 6"
    ).fetchall()
    collections = conn.execute("SELECT collection, count(*) FROM documents GROUP BY 1 ORDER BY 1").fetchall()
    lines = [
        "Knowledge graph summary",
        "-----------------------",
        f"documents      {one('SELECT count(*) FROM documents'):>7}   "
        + ", ".join(f"{k} {v}" for k, v in statuses.items()),
        f"collections    {len(collections):>7}   " + ", ".join(f"{c} ({n})" for c, n in collections),
        f"chunks         {one('SELECT count(*) FROM chunks'):>7}",
        f"entities       {one('SELECT count(*) FROM entities'):>7}   (mentions per chunk)",
        f"relationships  {one('SELECT count(*) FROM relationships'):>7}",
        f"questions      {one('SELECT count(*) FROM atomic_questions'):>7}",
        f"nodes          {one('SELECT count(*) FROM kg_nodes'):>7}   " + ", ".join(f"{k} {v}" for k, v in kinds),
        "  top entity types: " + ", ".join(f"{k} {v}" for k, v in entity_types),
        f"edges          {one('SELECT count(*) FROM kg_edges'):>7}   " + ", ".join(f"{k} {v}" for k, v in edge_types),
    ]
    failed_chunks = conn.execute(
        "SELECT stage, error_kind, count(*) FROM chunk_state WHERE status = 'failed' GROUP BY 1, 2 ORDER BY 1, 2"
    ).fetchall()
    quarantined = one("SELECT count(*) FROM chunk_state WHERE status = 'quarantined'")
    retry_at = one("SELECT min(next_run_at) FROM chunk_state WHERE status = 'failed'")
    failed_docs = conn.execute(
        "SELECT document_id, error FROM documents WHERE error IS NOT NULL ORDER BY document_id LIMIT 10"
    ).fetchall()
    lines.append(
        f"failures       chunks: {sum(n for *_, n in failed_chunks)}"
        + ("  (" + ", ".join(f"{s}/{k} {n}" for s, k, n in failed_chunks) + ")" if failed_chunks else "")
        + f"; documents with errors: {one('SELECT count(*) FROM documents WHERE error IS NOT NULL')}"
    )
    if retry_at is not None:
        lines.append(f"  failed chunks are retried automatically (next round at {retry_at:%Y-%m-%d %H:%M:%S} UTC)")
    if quarantined:
        lines.append(
            f"  quarantined chunks: {quarantined} (failed every retry round; `kg-pipelines retry` re-queues them)"
        )
    for document_id, error in failed_docs:
        lines.append(f"  {document_id}: {error}")
    return "\n".join(lines)
