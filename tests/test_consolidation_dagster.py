"""Consolidation through Dagster: the jobs run the assets (reports, pictures, fresh kg_nodes /
kg_edges figures in the same run), the schedules skip with their reasons without opening DuckDB,
the SQL asset factory draws the lineage, and consolidation and ingestion never fight."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from html import escape
from pathlib import Path

import duckdb
import networkx as nx
import pytest
import yaml
from dagster import AssetKey, build_schedule_context

from kg_pipelines.dagster_shell.resources import KGResource
from kg_pipelines.dagster_shell.runner import run_consolidation_job
from kg_pipelines.dagster_shell.schedules import (
    consolidate_merge_edges_schedule,
    consolidate_prune_schedule,
    consolidate_summarize_schedule,
)
from kg_pipelines.graph.consolidation import run_consolidation
from kg_pipelines.graph.graph_stats import publish_graph_stats
from kg_pipelines.stores import warehouse
from tests.conftest import add_user_link

A = "# Metformin\nMetformin activates AMPK in liver cells. AMPK senses cellular energy in muscle.\n"
B = "# Rapamycin\nRapamycin inhibits mTORC1 in yeast. Rapamycin extends lifespan in mice.\n"
C = "# Spermidine\nSpermidine induces autophagy in flies. Autophagy clears damaged mitochondria.\n"
OLD = datetime.now(UTC) - timedelta(days=40)


def weaken(conn, edge_ids: list[str]) -> None:
    conn.execute(
        """UPDATE kg_edges SET strength = 0.01, created_at = ?, last_reinforced_at = NULL, last_activated_at = NULL
        WHERE edge_id IN (SELECT unnest(?::VARCHAR[]))""",
        [OLD, edge_ids],
    ).fetchall()


def non_bridges(conn, edge_type: str = "RELATED") -> list[str]:
    """Edges of ``edge_type`` whose removal alone disconnects nothing and leaves no node without edges."""
    edges = conn.execute("SELECT edge_id, source_id, target_id, edge_type FROM kg_edges").fetchall()
    graph = nx.MultiGraph()
    for edge_id, s, t, _ in edges:
        graph.add_edge(s, t, key=edge_id)
    simple = nx.Graph(graph)
    bridges = {frozenset(e) for e in nx.bridges(simple)}
    return sorted(
        edge_id
        for edge_id, s, t, kind in edges
        if kind == edge_type and frozenset((s, t)) not in bridges and min(graph.degree(s), graph.degree(t)) > 1
    )


@pytest.fixture
def ingested(graph):
    graph.configure(consolidation={"decay_half_life_days": 0})
    for name, text in (("a.md", A), ("b.md", B), ("c.md", C)):
        graph.write(f"bio/{name}", text)
    assert graph.ingest("bio").failed_runs == 0
    return graph


def test_prune_job_reports_pictures_and_refreshes_the_graph_figures(ingested):
    graph = ingested
    conn = warehouse.connect(graph.settings.warehouse_path)
    target = non_bridges(conn)[0]
    weaken(conn, [target])
    conn.close()
    outcome = run_consolidation_job(graph.settings, "prune", graph.instance)
    assert outcome.success, outcome.errors
    report = json.loads((graph.root / "consolidation_reports" / f"{outcome.report_run_id}.json").read_text())
    assert report["pruned_edge_ids"] == [target] and report["health"]["target"] == "pruned 5-15 % of edges per cycle"
    edges_now = graph.one("SELECT count(*) FROM kg_edges")
    latest = graph.instance.get_latest_materialization_event(AssetKey("kg_edges")).asset_materialization
    assert latest.metadata["dagster/row_count"].value == edges_now  # the UI shows the graph after the prune
    assert latest.metadata["edges_pruned"].value == 1 and "consolidation prune" in latest.metadata["refreshed_by"].value
    nodes = graph.instance.get_latest_materialization_event(AssetKey("kg_nodes")).asset_materialization
    assert nodes.metadata["dagster/row_count"].value == graph.one("SELECT count(*) FROM kg_nodes")
    pruned = graph.instance.get_latest_materialization_event(AssetKey("edge_prune_log")).asset_materialization
    before = edges_now + 1
    share = 100.0 * 1 / before  # the seed's healthy prune: 5-15 % of the edges per cycle
    assert pruned.metadata["pruned"].value == 1 and pruned.metadata["total"].value == before
    assert pruned.metadata["health_actual"].value == f"1 of {before} edges ({share:.1f} %)"
    assert pruned.metadata["within_target"].value is (5.0 <= share <= 15.0)
    assert report["health"]["within"] is (5.0 <= share <= 15.0)
    picture = Path(pruned.metadata["picture"].value)
    html = picture.read_text()
    assert picture.parent == graph.root / "pictures" and "<svg" in html and escape(target) in html
    assert "<script" not in html and "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    reports = graph.instance.get_latest_materialization_event(AssetKey("consolidation_reports")).asset_materialization
    assert "pruned 5-15 %" in reports.metadata["latest_by_operation"].value
    assert json.loads((graph.root / "graph_stats.json").read_text())["edges"] == edges_now


def test_dry_run_job_changes_nothing_and_logs_no_graph_figures(ingested):
    graph = ingested
    conn = warehouse.connect(graph.settings.warehouse_path)
    weaken(conn, non_bridges(conn)[:1])
    conn.close()
    before = graph.rows("SELECT * FROM kg_edges ORDER BY edge_id")
    marker = graph.instance.get_latest_materialization_event(AssetKey("kg_edges")).run_id
    outcome = run_consolidation_job(graph.settings, "prune", graph.instance, dry_run=True)
    assert outcome.success
    assert graph.rows("SELECT * FROM kg_edges ORDER BY edge_id") == before
    assert graph.instance.get_latest_materialization_event(AssetKey("kg_edges")).run_id == marker


def topic_clusters_of(conn, min_size: int) -> dict[str, list[str]]:
    """Seed 002's topic clusters computed here, from the edges' topic keys (the model is SQL)."""
    members: dict[str, set[str]] = {}
    for source, target, source_key, target_key in conn.execute(
        "SELECT source_id, target_id, source_topic_key, target_topic_key FROM kg_edges"
    ).fetchall():
        for node, key in ((source, source_key), (target, target_key)):
            if key:
                members.setdefault(key, set()).add(node)
    return {key: sorted(nodes) for key, nodes in members.items() if len(nodes) >= min_size}


def test_summarize_and_merge_jobs_run(ingested):
    graph = ingested
    conn = warehouse.connect(graph.settings.warehouse_path)
    edge_id, source, target, strength, activations = conn.execute(
        """SELECT edge_id, source_id, target_id, strength, activation_count FROM kg_edges
        WHERE edge_type = 'RELATED' ORDER BY edge_id LIMIT 1"""
    ).fetchall()[0]
    # a person's own link of the same pair, weaker: merge-edges folds it in
    add_user_link(
        conn, target, source, edge_type="similar", strength=round(strength / 3, 3), activation_count=2, created_at=OLD
    )
    before = conn.execute("SELECT count(*) FROM kg_edges").fetchall()[0][0]
    conn.close()
    outcome = run_consolidation_job(graph.settings, "merge-edges", graph.instance)
    assert outcome.success, outcome.errors
    from tests.test_consolidation import seed_merged_strength

    row = graph.rows(
        "SELECT strength, activation_count, created_by, explanation LIKE '[Merged 2 edges] %' FROM kg_edges "
        "WHERE edge_id = ?",
        [edge_id],
    )
    assert row == [(seed_merged_strength([strength, round(strength / 3, 3)]), activations + 2, "user", True)]
    assert graph.one("SELECT count(*) FROM kg_edges WHERE edge_id = 'user-link'") == 0
    merged = graph.instance.get_latest_materialization_event(AssetKey("consolidated_edges")).asset_materialization
    assert (merged.metadata["edges_merged"].value, merged.metadata["total_after"].value) == (1, before - 1)
    edges = graph.instance.get_latest_materialization_event(AssetKey("kg_edges")).asset_materialization
    assert edges.metadata["dagster/row_count"].value == before - 1 == graph.one("SELECT count(*) FROM kg_edges")

    outcome = run_consolidation_job(graph.settings, "summarize", graph.instance)
    assert outcome.success, outcome.errors
    conn = warehouse.connect(graph.settings.warehouse_path)
    try:
        clusters = dict(conn.execute("SELECT topic_key, node_ids FROM topic_clusters").fetchall())
        assert clusters == topic_clusters_of(conn, graph.settings.consolidation.cluster_min_size) and clusters
        communities = [set(r[0]) for r in conn.execute("SELECT node_ids FROM communities").fetchall()]
        members = [n for c in communities for n in c]
        assert len(members) == len(set(members))  # a node is in one community at most
        assert set(members) <= {r[0] for r in conn.execute("SELECT node_id FROM kg_nodes").fetchall()}
    finally:
        conn.close()
    meta = graph.instance.get_latest_materialization_event(AssetKey("communities")).asset_materialization.metadata
    assert meta["communities"].value == len(communities) > 0
    assert meta["topic_clusters"].value == len(clusters)


def test_sql_model_assets_take_lineage_and_version_from_the_files():
    from kg_pipelines.definitions import defs
    from kg_pipelines.graph import graph_sql

    graph = defs.resolve_asset_graph()
    prune_candidates = graph.get(AssetKey("prune_candidates"))
    assert {k.path[0] for k in prune_candidates.parent_keys} == {"graph_adjacency", "kg_edges"}
    assert prune_candidates.code_version == graph_sql.model_hash("prune_candidates")
    assert graph.get(AssetKey("topic_clusters")).group_name == "graph_health"
    assert not graph.get(AssetKey("edge_prune_log")).is_partitioned


def test_a_pruned_edge_stays_pruned_when_unchanged_documents_sync_again(ingested):
    graph = ingested
    conn = warehouse.connect(graph.settings.warehouse_path)
    target = non_bridges(conn)[0]
    weaken(conn, [target])
    run_consolidation(conn, graph.settings, "prune")
    document = conn.execute("SELECT document_id FROM pruned_edge_support").fetchall()[0][0]
    conn.close()
    assert graph.ingest("bio").failed_runs == 0  # nothing changed: nothing re-synced
    assert graph.one("SELECT count(*) FROM kg_edges WHERE edge_id = ?", [target]) == 0
    # re-processing the document on purpose is new evidence: the edge comes back (documented)
    from kg_pipelines.dagster_shell.runner import sync_collections

    sync_collections(graph.settings, ["bio"], graph.instance, only=[document])
    assert graph.one("SELECT count(*) FROM kg_edges WHERE edge_id = ?", [target]) == 1


def test_a_merged_duplicate_is_not_recreated_when_its_document_changes(ingested):
    graph = ingested
    conn = warehouse.connect(graph.settings.warehouse_path)
    edge_id, source, target, document = conn.execute(
        """SELECT e.edge_id, e.source_id, e.target_id, s.document_id
        FROM kg_edges e JOIN kg_edge_support s USING (edge_id)
        WHERE e.edge_type = 'RELATED' AND s.document_id = 'bio/b.md' ORDER BY 1 LIMIT 1"""
    ).fetchall()[0]
    add_user_link(conn, target, source, edge_type="similar", strength=0.9, created_at=OLD)
    run_consolidation(conn, graph.settings, "merge-edges")
    assert conn.execute("SELECT count(*) FROM kg_edges WHERE edge_id = ?", [edge_id]).fetchall()[0][0] == 0
    conn.close()
    graph.write("bio/b.md", B + "Rapamycin is studied in dogs.\n")
    assert graph.ingest("bio").failed_runs == 0
    assert graph.one("SELECT count(*) FROM kg_edges WHERE edge_id = ?", [edge_id]) == 0  # not re-created
    support = graph.rows("SELECT DISTINCT document_id FROM kg_edge_support WHERE edge_id = 'user-link'")
    assert (document,) in support  # the changed document supports the surviving edge


# -- schedules --------------------------------------------------------------------------------------


def tick(schedule, data: Path, when: datetime):
    with build_schedule_context(scheduled_execution_time=when, resources={"kg": KGResource(data_dir=str(data))}) as ctx:
        return schedule.evaluate_tick(ctx)


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    data = tmp_path / "data"
    data.mkdir()
    monkeypatch.delenv("KG_CONFIG", raising=False)

    def no_duckdb(*_a, **_k):
        raise AssertionError("a schedule opened DuckDB")

    monkeypatch.setattr(duckdb, "connect", no_duckdb)  # schedules must decide from the published figures
    return data


def publish(data: Path, edges: int, first: datetime) -> None:
    stats = {"edges": edges, "nodes": edges, "first_edge_at": first.isoformat(), "updated_at": first.isoformat()}
    (data / "graph_stats.json").write_text(json.dumps(stats))


WHEN = datetime(2026, 11, 23, 5, 0, tzinfo=UTC)  # a Monday, week 46 from the anchor 2026-01-05


def test_schedules_skip_with_their_reasons(data_dir):
    assert "nothing ingested" in tick(consolidate_prune_schedule, data_dir, WHEN).skip_message
    publish(data_dir, 49, WHEN - timedelta(days=30))
    assert (
        "49 edges, fewer than consolidation.min_edges = 50"
        in tick(consolidate_prune_schedule, data_dir, WHEN).skip_message
    )
    publish(data_dir, 50, WHEN - timedelta(days=13))
    young = tick(consolidate_merge_edges_schedule, data_dir, WHEN).skip_message
    assert "13.0 days old" in young and "min_graph_age_days = 14" in young
    publish(data_dir, 50, WHEN - timedelta(days=14))
    result = tick(consolidate_prune_schedule, data_dir, WHEN)
    assert result.skip_message is None and len(result.run_requests) == 1
    (data_dir / "kg.yaml").write_text(yaml.safe_dump({"consolidation": {"enabled": False}}))
    assert "disabled" in tick(consolidate_prune_schedule, data_dir, WHEN).skip_message  # the flag decides first


def test_summarize_runs_every_other_week(data_dir):
    publish(data_dir, 500, WHEN - timedelta(days=60))
    on = tick(consolidate_summarize_schedule, data_dir, WHEN)
    assert on.skip_message is None and on.run_requests
    off = tick(consolidate_summarize_schedule, data_dir, WHEN + timedelta(days=7))
    assert "off-week" in off.skip_message and "every 2 weeks" in off.skip_message
    assert tick(consolidate_summarize_schedule, data_dir, WHEN + timedelta(days=14)).run_requests


def test_graph_stats_are_published_from_the_warehouse(tmp_path):
    conn = warehouse.connect(tmp_path / "w.duckdb")
    stats = publish_graph_stats(conn, tmp_path)
    assert stats["edges"] == 0 and stats["first_edge_at"] is None
    assert json.loads((tmp_path / "graph_stats.json").read_text()) == stats


# -- an ingestion and a consolidation launched together -------------------------------------------


def cli(data: Path, *args: str) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k not in ("DAGSTER_HOME", "KG_CONFIG", "KG_DATA_DIR")}
    env["HF_HUB_OFFLINE"] = "1"
    return subprocess.Popen(
        [sys.executable, "-m", "kg_pipelines.cli", "--data-dir", str(data), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )


def test_ingestion_and_consolidation_launched_together_both_succeed(tmp_path):
    data, first, second = tmp_path / "data", tmp_path / "first", tmp_path / "second"
    data.mkdir()
    (data / "kg.yaml").write_text(yaml.safe_dump({"consolidation": {"decay_half_life_days": 0}}))
    for folder, texts in ((first, (A, B)), (second, (C, A.replace("liver", "kidney")))):
        for i, text in enumerate(texts):
            (folder / f"doc{i}.md").parent.mkdir(parents=True, exist_ok=True)
            (folder / f"doc{i}.md").write_text(text)
    proc = cli(data, "ingest", str(first), "--collection", "one")
    assert proc.wait(600) == 0, proc.stderr.read()
    conn = warehouse.connect(data / "warehouse.duckdb")
    targets = non_bridges(conn)[:2]
    weaken(conn, targets)
    conn.close()
    ingest = cli(data, "ingest", str(second), "--collection", "two")
    prune = cli(data, "consolidate", "prune", "--json")
    ingest_out, ingest_err = ingest.communicate(timeout=600)
    prune_out, prune_err = prune.communicate(timeout=600)
    assert ingest.returncode == 0, ingest_err[-3000:]
    assert prune.returncode == 0, prune_err[-3000:]
    report = json.loads(prune_out)
    conn = duckdb.connect(str(data / "warehouse.duckdb"), read_only=True)
    try:
        documents = {r[0] for r in conn.execute("SELECT document_id FROM graph_documents").fetchall()}
        assert {"two/doc0.md", "two/doc1.md", "one/doc0.md", "one/doc1.md"} <= documents  # ingestion wrote all
        logged = {r[0] for r in conn.execute("SELECT edge_id FROM edge_prune_log").fetchall()}
        assert logged == set(report["pruned_edge_ids"]) and logged  # the prune committed what it reported
        for edge_id in logged:  # gone, unless a new document of the second ingest supports it again
            back = conn.execute("SELECT count(*) FROM kg_edges WHERE edge_id = ?", [edge_id]).fetchall()[0][0]
            support = conn.execute(
                "SELECT count(*) FROM kg_edge_support WHERE edge_id = ? AND collection = 'two'", [edge_id]
            ).fetchall()[0][0]
            assert back == 0 or support > 0
    finally:
        conn.close()


def test_cli_consolidates_the_sample_graph_and_prints_json_reports(tmp_path):
    from tests.conftest import REPO_ROOT

    data = tmp_path / "data"
    sample = REPO_ROOT / "data" / "consolidation_sample"
    done = cli(data, "import-graph", str(sample / "nodes.json"), str(sample / "edges.json"))
    assert done.wait(600) == 0, done.stderr.read()
    dry = cli(data, "consolidate", "prune", "--dry-run", "--json", "--decay-half-life-days", "0")
    out, err = dry.communicate(timeout=600)
    assert dry.returncode == 0, err[-3000:]
    report = json.loads(out)
    assert report["dry_run"] and report["decay_half_life_days"] == 0.0 and report["pruned_edge_ids"]
    assert report["kept_true_bridge"] >= 1  # the garden sessions' only link to the rest
    assert report["health"]["target"] == "pruned 5-15 % of edges per cycle"
    prune = cli(data, "consolidate", "prune", "--json", "--decay-half-life-days", "0")
    out, err = prune.communicate(timeout=600)
    assert prune.returncode == 0, err[-3000:]
    assert json.loads(out)["pruned_edge_ids"] == report["pruned_edge_ids"]  # the dry run changed nothing
    merge = cli(data, "consolidate", "merge-edges", "--json")
    out, err = merge.communicate(timeout=600)
    assert merge.returncode == 0, err[-3000:]
    merged = json.loads(out)
    # the seed's mergeDuplicateEdges, run here on the sample file less what the prune took
    from tests.test_consolidation import seed_merged_strength

    pruned = set(report["pruned_edge_ids"])
    groups: dict[tuple[str, str], list[dict]] = {}
    for edge in json.loads((sample / "edges.json").read_text()):
        if edge["edgeId"] not in pruned:
            groups.setdefault(tuple(sorted((edge["sourceId"], edge["targetId"]))), []).append(edge)
    expected = {}
    for group in (g for g in groups.values() if len(g) > 1):
        ranked = sorted(group, key=lambda e: (-e["strength"], e["edgeId"]))  # ties: the smaller id, as the SQL
        expected[ranked[0]["edgeId"]] = (
            [e["edgeId"] for e in ranked[1:]],
            seed_merged_strength([e["strength"] for e in group]),
            sum(e["activationCount"] for e in group),
        )
    got = {
        e["edge_id"]: (e["absorbed_edge_ids"], e["new_strength"], e["activation_count"])
        for e in merged["surviving_edges"]
    }
    assert got == expected and expected
    assert merged["edges_merged"] == sum(len(v[0]) for v in expected.values())
    assert merged["total_after"] == merged["total_before"] - merged["edges_merged"]
    text = cli(data, "consolidate", "summarize")
    out, err = text.communicate(timeout=600)
    assert text.returncode == 0, err[-3000:]
    conn = duckdb.connect(str(data / "warehouse.duckdb"), read_only=True)
    try:
        clusters = topic_clusters_of(conn, 3)
        communities = conn.execute("SELECT count(*) FROM communities").fetchall()[0][0]
    finally:
        conn.close()
    within = "within" if 3 <= len(clusters) <= 10 else "outside"
    assert out.splitlines() == [
        f"summarize: {len(clusters)} topic clusters, {communities} communities (louvain)",
        f"health: {len(clusters)} topic clusters; target: 3-10 topic clusters after a month of use ({within})",
    ]
