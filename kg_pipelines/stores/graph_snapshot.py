"""The graph snapshot: what readers need of the graph, as Parquet files, published atomically.

DuckDB admits one writing process and then refuses every other process, even read-only opens, so
readers that must never wait (the HTTP API, ``search``, ``ask``, ``retrieve``) never open the
warehouse. Instead every graph materialization ends with ``publish_graph_snapshot``:

1. the tables below are written as Parquet files into a new folder
   ``<data_dir>/graph_snapshots/v<time_ns>-<random>/`` (DuckDB's ``COPY``, one read transaction so
   the files agree with each other), then a ``manifest.json`` with row counts;
2. every file and the folder are fsync'ed;
3. the small pointer file ``graph_snapshots/CURRENT`` is replaced atomically (write a temporary
   file, fsync, ``os.replace``, fsync the folder): a reader sees the old version or the new one,
   never a half-written one, and a crash before step 3 leaves the old version current;
4. old versions are cleaned up: the current one and the ``keep`` newest before it stay, others go
   only when older than ``grace_s`` (a reader that read the pointer just before the switch is still
   loading its version), renamed to a ``.trash-`` name first so a half-deleted folder is never taken
   for a version.

``load_graph_snapshot`` reads the pointer, loads the version's tables into memory (pyarrow) and
caches them per process; each call costs one ``stat`` of the pointer and reloads when a newer
version was published. Chunk texts and vectors are not in the snapshot: they come from LanceDB.

Tables (columns):
- ``nodes``: node_id, node_kind, node_type, name, description, topic_key, base_weight,
  support_count, created_by
- ``edges``: edge_id, source_id, target_id, edge_type, strength, activation_count,
  last_activated_at, created_by, protected, explanation, keywords, support_count
- ``node_support``: node_id, chunk_id, document_id, collection
- ``edge_support``: edge_id, chunk_id, document_id, collection
- ``chunks``: chunk_id, document_id, collection, seq, title (the document's title)
- ``documents``: document_id, collection, title, source_path
- ``merges``: the 200 newest ``node_merges`` rows (no snapshot column)

``nodes`` also carries ``energy`` and ``merge_history`` as JSON text (the explorer shows them).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

SNAPSHOT_DIR = "graph_snapshots"
POINTER = "CURRENT"
MANIFEST = "manifest.json"
FORMAT_VERSION = 1

# table -> the SELECT that fills it (constants: nothing from outside is ever pasted in)
SNAPSHOT_QUERIES: dict[str, str] = {
    "nodes": """SELECT node_id, node_kind, node_type, name, description, topic_key, base_weight,
                       support_count, created_by, CAST(energy AS VARCHAR) AS energy,
                       CAST(merge_history AS VARCHAR) AS merge_history
                FROM kg_nodes ORDER BY node_id""",
    "edges": """SELECT edge_id, source_id, target_id, edge_type, strength, activation_count,
                       last_activated_at, created_by, protected, explanation, keywords, support_count
                FROM kg_edges ORDER BY edge_id""",
    "node_support": """SELECT DISTINCT node_id, chunk_id, document_id, collection
                       FROM kg_node_support ORDER BY node_id, chunk_id""",
    "edge_support": """SELECT DISTINCT edge_id, chunk_id, document_id, collection
                       FROM kg_edge_support ORDER BY edge_id, chunk_id""",
    "chunks": """SELECT c.chunk_id, c.document_id, c.collection, c.seq, coalesce(d.title, c.document_id) AS title
                 FROM chunks c LEFT JOIN documents d USING (document_id) ORDER BY c.chunk_id""",
    "documents": """SELECT document_id, collection, title, source_path FROM documents
                    WHERE text IS NOT NULL ORDER BY document_id""",
    # the newest merges of duplicate nodes, for the explorer's health view
    "merges": """SELECT merge_id, merged_at, canonical_id, duplicate_id, canonical_name, duplicate_name, node_type,
                        score, decision, strategy, origin, undone_at
                 FROM node_merges ORDER BY merged_at DESC LIMIT 200""",
}
# tables a snapshot published by an older version lacks: read as empty
OPTIONAL_TABLES = ("merges",)


def snapshot_root(settings) -> Path:
    return Path(settings.data_dir) / SNAPSHOT_DIR


def _fsync_path(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _new_version_name() -> str:
    # time first so that names sort by publication; the random tail keeps two publishers apart
    return f"v{time.time_ns():020d}-{secrets.token_hex(4)}"


def publish_graph_snapshot(conn: duckdb.DuckDBPyConnection, settings, keep: int = 2, grace_s: float = 120.0) -> Path:
    """Write the graph's snapshot from ``conn`` into a new version folder, make it current, clean
    up old versions; returns the new folder (see the module doc)."""
    root = snapshot_root(settings)
    root.mkdir(parents=True, exist_ok=True)
    name = _new_version_name()
    staging = root / f".staging-{name}"
    staging.mkdir()
    try:
        counts: dict[str, int] = {}
        # a cursor is a connection of its own: its read transaction sees one committed state of
        # every table, whether or not the caller holds a transaction on ``conn``
        reader = conn.cursor()
        try:
            reader.execute("BEGIN TRANSACTION")
            for table, sql in SNAPSHOT_QUERIES.items():
                data = reader.sql(sql).to_arrow_table()
                pq.write_table(data, staging / f"{table}.parquet", compression="zstd")
                counts[table] = data.num_rows
            reader.execute("ROLLBACK")
        finally:
            reader.close()
        manifest = {
            "format": FORMAT_VERSION,
            "version": name,
            "published_at": time.time(),
            "rows": counts,
        }
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        for path in staging.iterdir():
            _fsync_path(path)
        _fsync_path(staging)
        final = root / name
        os.replace(staging, final)  # the folder appears whole under its version name
        _fsync_path(root)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    _switch_pointer(root, name)
    clean_old_snapshots(root, keep=keep, grace_s=grace_s)
    return final


def _switch_pointer(root: Path, name: str) -> None:
    temporary = root / f".{POINTER}.{secrets.token_hex(4)}"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(name + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, root / POINTER)
    _fsync_path(root)


def current_version(root: Path) -> str | None:
    try:
        name = (root / POINTER).read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    return name or None


def clean_old_snapshots(root: Path, keep: int = 2, grace_s: float = 120.0) -> list[str]:
    """Remove versions that are neither current nor among the ``keep`` newest before it, once older
    than ``grace_s``; leftovers of crashed publishes (staging, trash, pointer temporaries) too."""
    current = current_version(root)
    now = time.time()
    versions = sorted(p.name for p in root.iterdir() if p.is_dir() and p.name.startswith("v"))
    if current in versions:
        kept = set(versions[max(0, versions.index(current) - keep) : versions.index(current) + 1])
        # a version newer than the pointer is being switched to by another publisher: keep it
        kept.update(v for v in versions if v > current)
    else:
        kept = set(versions[-(keep + 1) :])
    removed = []
    for path in root.iterdir():
        try:
            age = now - path.stat().st_mtime
        except FileNotFoundError:
            continue
        stale_leftover = path.name.startswith((".staging-", ".trash-", f".{POINTER}.")) and age > grace_s
        old_version = path.is_dir() and path.name.startswith("v") and path.name not in kept and age > grace_s
        if not (stale_leftover or old_version):
            continue
        if path.is_dir():
            trash = path if path.name.startswith(".trash-") else root / f".trash-{path.name}"
            try:
                if trash != path:
                    os.replace(path, trash)
            except FileNotFoundError:
                continue  # another cleaner got it
            shutil.rmtree(trash, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
        removed.append(path.name)
    return removed


@dataclass
class GraphSnapshot:
    """One published version of the graph, in memory (see the module doc for the tables)."""

    version: str
    path: Path
    published_at: float
    nodes: pa.Table
    edges: pa.Table
    node_support: pa.Table
    edge_support: pa.Table
    chunks: pa.Table
    documents: pa.Table
    merges: pa.Table = field(default_factory=lambda: pa.table({"merge_id": pa.array([], pa.string())}))
    _derived: dict[str, Any] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def derived(self, key: str, build: Callable[[GraphSnapshot], Any]) -> Any:
        """A structure derived from this version (an index, an adjacency), built once per version:
        readers cache what they build here, and a newer version starts afresh."""
        with self._lock:
            if key not in self._derived:
                self._derived[key] = build(self)
            return self._derived[key]

    def has_derived(self, key: str) -> bool:
        return key in self._derived

    @property
    def empty(self) -> bool:
        return self.nodes.num_rows == 0


def read_graph_snapshot(folder: Path) -> GraphSnapshot:
    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    if manifest.get("format") != FORMAT_VERSION:
        raise ValueError(f"{folder}: snapshot format {manifest.get('format')}, this code reads {FORMAT_VERSION}")
    tables = {
        table: pq.read_table(folder / f"{table}.parquet")
        for table in SNAPSHOT_QUERIES
        if table not in OPTIONAL_TABLES or (folder / f"{table}.parquet").exists()
    }
    return GraphSnapshot(
        version=manifest["version"], path=folder, published_at=float(manifest["published_at"]), **tables
    )


_cache: dict[Path, tuple[tuple, GraphSnapshot]] = {}
_cache_lock = threading.Lock()


def load_graph_snapshot(settings) -> GraphSnapshot | None:
    """The current snapshot of the settings' graph, or None when none was published yet. Cached per
    process; reloaded when the pointer names a newer version."""
    root = snapshot_root(settings)
    pointer = root / POINTER
    for _attempt in range(3):
        try:
            stat = pointer.stat()
        except FileNotFoundError:
            return None
        key = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
        cached = _cache.get(root)
        if cached is not None and cached[0] == key:
            return cached[1]
        with _cache_lock:
            cached = _cache.get(root)
            if cached is not None and cached[0] == key:
                return cached[1]
            name = current_version(root)
            if name is None:
                return None
            try:
                snapshot = read_graph_snapshot(root / name)
            except FileNotFoundError:
                continue  # cleaned up between reading the pointer and the files: read the pointer again
            if cached is not None and cached[1].version > snapshot.version:
                return cached[1]
            _cache[root] = (key, snapshot)
            return snapshot
    return None
