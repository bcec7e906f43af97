"""Every graph-health write publishes what readers load (the graph snapshot), keeps LanceDB
``graph_nodes`` and ``graph_stats.json`` in step: prune, merge-edges, dedup merges, unmerge,
import-graph. Dry runs publish nothing."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from kg_pipelines.dagster_shell.dedup_runs import run_dedup
from kg_pipelines.dagster_shell.runner import run_consolidation_job
from kg_pipelines.stores import warehouse
from kg_pipelines.stores.graph_snapshot import current_version, load_graph_snapshot, snapshot_root
from kg_pipelines.stores.node_vectors import NodeVectors
from tests.test_consolidation_dagster import A, B, C, non_bridges, weaken
from tests.test_dedup import add_edge, add_node

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def snapshot_edges(settings) -> set[str]:
    return set(load_graph_snapshot(settings).edges.column("edge_id").to_pylist())


def snapshot_nodes(settings) -> set[str]:
    return set(load_graph_snapshot(settings).nodes.column("node_id").to_pylist())


def stats(graph) -> dict:
    return json.loads((graph.root / "graph_stats.json").read_text())


def test_a_pruned_edge_leaves_the_snapshot_and_a_dry_run_publishes_nothing(graph):
    graph.configure(consolidation={"decay_half_life_days": 0})
    for name, text in (("a.md", A), ("b.md", B), ("c.md", C)):
        graph.write(f"bio/{name}", text)
    assert graph.ingest("bio").failed_runs == 0
    conn = warehouse.connect(graph.settings.warehouse_path)
    targets = non_bridges(conn)[:2]
    weaken(conn, targets)
    conn.close()
    assert set(targets) <= snapshot_edges(graph.settings)

    version = current_version(snapshot_root(graph.settings))
    assert run_consolidation_job(graph.settings, "prune", graph.instance, dry_run=True).success
    assert current_version(snapshot_root(graph.settings)) == version  # a dry run changes nothing readers see

    outcome = run_consolidation_job(graph.settings, "prune", graph.instance)
    assert outcome.success, outcome.errors
    left = snapshot_edges(graph.settings)
    assert not set(targets) & left
    assert len(left) == graph.one("SELECT count(*) FROM kg_edges") == stats(graph)["edges"]


def test_merge_edges_publishes_the_survivor(graph):
    settings = graph.configure(consolidation={"decay_half_life_days": 0})
    conn = warehouse.connect(settings.warehouse_path)
    add_node(conn, "a", "SIRT1", node_type="protein")
    add_node(conn, "b", "NAD+", node_type="compound")
    add_edge(conn, "a", "b", 0.3, edge_type="similar")
    add_edge(conn, "b", "a", 0.5, edge_type="extends")
    conn.close()
    outcome = run_consolidation_job(settings, "merge-edges", graph.instance)
    assert outcome.success, outcome.errors
    snapshot = load_graph_snapshot(settings)
    assert snapshot.edges.column("edge_id").to_pylist() == ["extends:b->a"]
    assert snapshot.edges.column("strength").to_pylist() == [0.65]
    assert stats(graph)["edges"] == 1 and NodeVectors(settings.lancedb_dir).count() == 2


def test_a_merged_node_is_merged_for_readers_and_back_after_unmerge(graph):
    settings = graph.configure()
    conn = warehouse.connect(settings.warehouse_path)
    add_node(conn, "m1", "Metformin", node_type="compound", created_at=T0)
    add_node(conn, "m2", "metformin", node_type="compound", created_at=T0 + timedelta(days=1))
    add_node(conn, "a1", "AMPK", node_type="protein")
    add_edge(conn, "m2", "a1", 0.5)
    conn.close()
    outcome = run_dedup(settings, graph.instance)
    assert outcome.success, outcome.errors
    assert snapshot_nodes(settings) == {"m1", "a1"}
    edges = load_graph_snapshot(settings).edges
    assert edges.column("source_id").to_pylist() == ["m1"]
    store = NodeVectors(settings.lancedb_dir)
    assert set(store.hashes()) == {"m1", "a1"} and stats(graph)["nodes"] == 2

    merge_id = graph.one("SELECT merge_id FROM node_merges")
    outcome = run_dedup(settings, graph.instance, unmerge_ids=[merge_id])
    assert outcome.success, outcome.errors
    assert snapshot_nodes(settings) == {"m1", "m2", "a1"}
    assert load_graph_snapshot(settings).edges.column("source_id").to_pylist() == ["m2"]
    assert set(store.hashes()) == {"m1", "m2", "a1"} and stats(graph)["nodes"] == 3
