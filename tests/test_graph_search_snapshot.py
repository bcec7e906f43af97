"""The graph snapshot readers use instead of DuckDB: published atomically, cached, reloaded,
old versions cleaned up without pulling a version from under a reader."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime

from kg_pipelines.config import load_settings
from kg_pipelines.stores import graph_snapshot
from kg_pipelines.stores.graph_snapshot import (
    POINTER,
    clean_old_snapshots,
    load_graph_snapshot,
    publish_graph_snapshot,
    snapshot_root,
)
from kg_pipelines.stores.warehouse import connect, insert_rows, transaction

NOW = datetime(2026, 11, 22, tzinfo=UTC)


def _node(node_id, name, kind="entity", node_type="compound"):
    return {
        "node_id": node_id,
        "node_kind": kind,
        "node_type": node_type,
        "name": name,
        "description": f"{name} described",
        "base_weight": 1.0,
        "support_count": 1,
        "created_by": "pipeline",
        "created_at": NOW,
        "updated_at": NOW,
    }


def _edge(source, target, strength=0.5):
    return {
        "edge_id": f"RELATED:{source}->{target}",
        "source_id": source,
        "target_id": target,
        "edge_type": "RELATED",
        "strength": strength,
        "activation_count": 0,
        "created_at": NOW,
        "created_by": "pipeline",
        "protected": False,
        "explanation": f"{source} acts on {target}.",
        "support_count": 1,
    }


def _warehouse(tmp_path):
    settings = load_settings(tmp_path)
    conn = connect(settings.warehouse_path)
    with transaction(conn):
        insert_rows(conn, "kg_nodes", [_node("compound:a", "A"), _node("compound:b", "B")])
        insert_rows(conn, "kg_edges", [_edge("compound:a", "compound:b")])
        insert_rows(
            conn,
            "kg_edge_support",
            [{"edge_id": "RELATED:compound:a->compound:b", "document_id": "d1", "chunk_id": "c1", "collection": "x"}],
        )
        insert_rows(
            conn,
            "chunks",
            [
                {
                    "chunk_id": "c1",
                    "document_id": "d1",
                    "collection": "x",
                    "seq": 0,
                    "text": "A acts on B.",
                    "token_count": 4,
                    "text_hash": "h",
                }
            ],
        )
        insert_rows(
            conn,
            "documents",
            [{"document_id": "d1", "collection": "x", "source_path": "/d1.md", "title": "Doc one", "text": "A"}],
        )
    return settings, conn


def test_no_snapshot_yet_is_none(tmp_path):
    assert load_graph_snapshot(load_settings(tmp_path)) is None


def test_publish_then_load_has_every_table(tmp_path):
    settings, conn = _warehouse(tmp_path)
    folder = publish_graph_snapshot(conn, settings)
    snapshot = load_graph_snapshot(settings)
    assert snapshot is not None and snapshot.path == folder
    assert sorted(snapshot.nodes.column("node_id").to_pylist()) == ["compound:a", "compound:b"]
    assert snapshot.edges.column("explanation").to_pylist() == ["compound:a acts on compound:b."]
    assert snapshot.edge_support.column("document_id").to_pylist() == ["d1"]
    assert snapshot.chunks.column("title").to_pylist() == ["Doc one"]
    assert snapshot.documents.column("source_path").to_pylist() == ["/d1.md"]
    # cached: the same object while nothing new is published
    assert load_graph_snapshot(settings) is snapshot


def test_publishing_inside_a_callers_transaction_sees_the_committed_graph(tmp_path):
    settings, conn = _warehouse(tmp_path)
    with transaction(conn):
        publish_graph_snapshot(conn, settings)
    assert load_graph_snapshot(settings).nodes.num_rows == 2


def test_newer_version_is_reloaded_and_derived_structures_start_afresh(tmp_path):
    settings, conn = _warehouse(tmp_path)
    publish_graph_snapshot(conn, settings)
    first = load_graph_snapshot(settings)
    assert first.derived("count", lambda s: s.nodes.num_rows) == 2
    with transaction(conn):
        insert_rows(conn, "kg_nodes", [_node("compound:c", "C")])
    publish_graph_snapshot(conn, settings)
    second = load_graph_snapshot(settings)
    assert second is not first and second.version > first.version
    assert second.derived("count", lambda s: s.nodes.num_rows) == 3


def test_a_crash_before_the_pointer_switch_leaves_the_old_version(tmp_path, monkeypatch):
    settings, conn = _warehouse(tmp_path)
    publish_graph_snapshot(conn, settings)
    before = load_graph_snapshot(settings).version

    def die(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(graph_snapshot, "_switch_pointer", die)
    with transaction(conn):
        insert_rows(conn, "kg_nodes", [_node("compound:c", "C")])
    try:
        publish_graph_snapshot(conn, settings)
    except KeyboardInterrupt:
        pass
    graph_snapshot._cache.clear()
    assert load_graph_snapshot(settings).version == before


def test_cleanup_keeps_current_and_recent_versions(tmp_path):
    settings, conn = _warehouse(tmp_path)
    versions = [publish_graph_snapshot(conn, settings, keep=1, grace_s=3600).name for _ in range(4)]
    root = snapshot_root(settings)
    on_disk = sorted(p.name for p in root.iterdir() if p.name.startswith("v"))
    assert on_disk == versions  # all younger than the grace period
    old = time.time() - 7200
    for name in versions:
        os.utime(root / name, (old, old))
    (root / ".staging-vcrashed").mkdir()
    os.utime(root / ".staging-vcrashed", (old, old))
    removed = clean_old_snapshots(root, keep=1, grace_s=60)
    assert sorted(removed) == sorted([versions[0], versions[1], ".staging-vcrashed"])
    assert sorted(p.name for p in root.iterdir() if p.name != POINTER) == versions[2:]
    assert load_graph_snapshot(settings).version == versions[-1]


def test_a_version_cleaned_up_under_a_reader_is_reread_from_the_pointer(tmp_path, monkeypatch):
    settings, conn = _warehouse(tmp_path)
    publish_graph_snapshot(conn, settings)
    stale = snapshot_root(settings) / "v00000000000000000001-gone"
    real = graph_snapshot.current_version
    calls = []

    def pointer_then_real(root):
        calls.append(1)
        return stale.name if len(calls) == 1 else real(root)

    monkeypatch.setattr(graph_snapshot, "current_version", pointer_then_real)
    graph_snapshot._cache.clear()
    assert load_graph_snapshot(settings).nodes.num_rows == 2
    assert len(calls) == 2
