"""`kg-pipelines dedup` and `unmerge` through Dagster in-process: the runs, the JSON report, the
assets' metadata (plan, picture, fresh kg_nodes / kg_edges figures), clear errors."""

import json
from datetime import UTC, datetime, timedelta

from click.testing import CliRunner
from dagster import AssetKey, DagsterInstance, RunsFilter

from kg_pipelines.cli import main
from kg_pipelines.stores import warehouse
from kg_pipelines.stores.node_vectors import NodeVectors, sync_node_vectors
from tests.test_dedup import NameEmbedder, add_edge, add_node

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def make_graph(data):
    conn = warehouse.connect(data / "warehouse.duckdb")
    try:
        add_node(conn, "m1", "Metformin", node_type="compound", created_at=T0)
        add_node(conn, "m2", "Metformine", node_type="compound", created_at=T0 + timedelta(days=1))
        add_node(conn, "a1", "AMPK", node_type="protein")
        add_edge(conn, "m2", "a1", 0.5)
        sync_node_vectors(conn, NodeVectors(data / "lancedb"), NameEmbedder({"metformine": "metformin"}))
    finally:
        conn.close()


def test_dedup_dry_run_merge_and_unmerge(cli_env):
    data = cli_env / "graph"
    data.mkdir()
    make_graph(data)
    runner = CliRunner()

    result = runner.invoke(main, ["--data-dir", str(data), "dedup", "--dry-run", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    (pair,) = report["pairs"]
    assert {pair["node_a"], pair["node_b"]} == {"m1", "m2"} and {pair["name_a"], pair["name_b"]} == {
        "Metformin",
        "Metformine",
    }
    for key in ("embedding_similarity", "name_similarity", "metadata_overlap", "score"):
        assert isinstance(pair[key], float)
    assert pair["decision"] == "merge" and report["merges"] == []
    conn = warehouse.connect(data / "warehouse.duckdb")
    assert conn.execute("SELECT count(*) FROM kg_nodes").fetchone()[0] == 3  # dry run: nothing merged
    conn.close()

    result = runner.invoke(main, ["--data-dir", str(data), "dedup", "--json"])
    assert result.exit_code == 0, result.output
    (merge,) = json.loads(result.stdout)["merges"]
    assert (merge["canonical_id"], merge["duplicate_id"]) == ("m1", "m2")
    conn = warehouse.connect(data / "warehouse.duckdb")
    assert conn.execute("SELECT source_id FROM kg_edges").fetchall() == [("m1",)]
    conn.close()

    instance = DagsterInstance.from_config(str(data / "dagster_home"))
    runs = instance.get_runs(RunsFilter(job_name="dedup_nodes"))
    assert len(runs) == 1 and runs[0].is_success
    merged = instance.get_latest_materialization_event(AssetKey("node_merges")).asset_materialization.metadata
    assert merged["nodes_merged"].value == 1 and merged["picture"].value.endswith(".html")
    nodes = instance.get_latest_materialization_event(AssetKey("kg_nodes")).asset_materialization.metadata
    assert nodes["dagster/row_count"].value == 2 and "dedup" in nodes["refreshed_by"].value
    plan = instance.get_latest_materialization_event(AssetKey("duplicate_candidates")).asset_materialization.metadata
    assert plan["to_merge"].value == 1 and "Metformine" in plan["preview"].value

    result = runner.invoke(main, ["--data-dir", str(data), "unmerge", merge["merge_id"]])
    assert result.exit_code == 0, result.output
    assert "'Metformine' is back" in result.output
    conn = warehouse.connect(data / "warehouse.duckdb")
    assert conn.execute("SELECT source_id FROM kg_edges").fetchall() == [("m2",)]
    assert conn.execute("SELECT count(*) FROM kg_nodes").fetchone()[0] == 3
    conn.close()
    assert "m2" in NodeVectors(data / "lancedb").hashes()  # its vector is back too

    result = runner.invoke(main, ["--data-dir", str(data), "unmerge", merge["merge_id"]])
    assert result.exit_code == 1 and "already undone" in result.output
    result = runner.invoke(main, ["--data-dir", str(data), "unmerge", "merge-nope"])
    assert result.exit_code == 1 and "unknown merge 'merge-nope'" in result.output
    assert "Traceback" not in result.output


def test_dedup_on_an_empty_data_dir_says_so(cli_env):
    result = CliRunner().invoke(main, ["--data-dir", str(cli_env / "nothing"), "dedup"])
    assert result.exit_code == 1 and "empty: nothing to deduplicate" in result.output
    result = CliRunner().invoke(main, ["--data-dir", str(cli_env / "nothing"), "dedup", "--threshold", "2"])
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_the_graph_asset_absorbs_a_new_duplicate_and_reingestion_keeps_it_absorbed(graph, monkeypatch):
    from kg_pipelines.dagster_shell import graph_assets

    # a test embedder that reads SIRT3 as SIRT1: the two names then score 0.7 + 0.2 x 0.8 + 0.1
    monkeypatch.setattr(graph_assets, "embedder_for", lambda *_: NameEmbedder({"sirt3": "sirt1"}))
    graph.write("a/one.md", "# Muscle\nSIRT1 deacetylates PGC-1alpha in muscle cells.\n")
    assert graph.ingest("a").failed_runs == 0
    names = [r[0] for r in graph.rows("SELECT name FROM kg_nodes WHERE node_kind = 'entity'")]
    assert "SIRT1" in names
    doc = graph.write("b/two.md", "# Liver\nSIRT3 deacetylates mitochondrial proteins in liver cells.\n")
    assert graph.ingest("b").failed_runs == 0
    merges = graph.rows("SELECT duplicate_name, canonical_name, strategy, origin FROM node_merges")
    assert ("SIRT3", "SIRT1", "formation_time", "graph") in merges
    meta = graph.instance.get_latest_materialization_event(AssetKey("kg_nodes")).asset_materialization.metadata
    assert "SIRT3 → SIRT1" in meta["nodes_absorbed_at_formation"].value
    # the duplicate's document edited and synced again: its entity stays with the canonical node
    doc.write_text("# Liver\nSIRT3 deacetylates mitochondrial enzymes in liver cells.\n")
    assert graph.ingest("b").failed_runs == 0
    names = [r[0] for r in graph.rows("SELECT name FROM kg_nodes WHERE node_kind = 'entity'")]
    assert "SIRT3" not in names
    sirt1 = graph.one("SELECT node_id FROM kg_nodes WHERE name = 'SIRT1'")
    assert {r[0] for r in graph.rows("SELECT collection FROM kg_node_support WHERE node_id = ?", [sirt1])} == {"a", "b"}
