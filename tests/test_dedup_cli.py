"""`kg-pipelines dedup` and `unmerge` through Dagster in-process: the runs, the JSON report, the
assets' metadata (plan, picture, fresh kg_nodes / kg_edges figures), clear errors."""

import json
from datetime import UTC, datetime, timedelta

import pytest
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
    # the test embedder reads Metformine as Metformin (cosine 1); Levenshtein 1 of 10; no metadata on
    # either side: nothing for it, the score is over embedding and name, (0.7 x 1 + 0.2 x 0.9) / 0.9
    assert pair["embedding_similarity"] == pytest.approx(1.0, abs=1e-6)
    assert pair["name_similarity"] == pytest.approx(0.9)
    assert pair["metadata_overlap"] == 0.0 and "not both nodes have metadata" in pair["reason"]
    assert pair["score"] == pytest.approx((0.7 + 0.2 * 0.9) / 0.9, abs=1e-5)
    assert (pair["decision"], pair["stage"]) == ("merge", "score") and report["merges"] == []
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
    # the unmerge is a person's word: the pair is written distinct, and the next pass keeps it apart
    decisions = (data / "dedup_decisions.csv").read_text()
    assert "m1,m2,Metformin,Metformine" in decisions and ",distinct," in decisions
    result = runner.invoke(main, ["--data-dir", str(data), "dedup", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["merges"] == []
    assert [(p["decision"], p["stage"]) for p in report["pairs"]] == [("keep_apart", "person")]
    conn = warehouse.connect(data / "warehouse.duckdb")
    assert conn.execute("SELECT count(*) FROM kg_nodes").fetchone()[0] == 3
    conn.close()

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


def test_the_graph_asset_never_absorbs_a_sibling_even_when_the_embedder_reads_them_as_one(graph, monkeypatch):
    from kg_pipelines.dagster_shell import graph_assets

    # a test embedder that reads SIRT3 as SIRT1 (cosine 1): two distinct proteins all the same, their
    # names differing by a number; formation-time dedup keeps them apart, through re-ingestion too
    monkeypatch.setattr(graph_assets, "embedder_for", lambda *_: NameEmbedder({"sirt3": "sirt1"}))
    graph.write("a/one.md", "# Muscle\nSIRT1 deacetylates PGC-1alpha in muscle cells.\n")
    assert graph.ingest("a").failed_runs == 0
    doc = graph.write("b/two.md", "# Liver\nSIRT3 deacetylates mitochondrial proteins in liver cells.\n")
    assert graph.ingest("b").failed_runs == 0
    assert graph.rows("SELECT duplicate_name, canonical_name FROM node_merges") == []
    meta = graph.instance.get_latest_materialization_event(AssetKey("kg_nodes")).asset_materialization.metadata
    assert "SIRT3" not in meta["nodes_absorbed_at_formation"].value
    doc.write_text("# Liver\nSIRT3 deacetylates mitochondrial enzymes in liver cells.\n")
    assert graph.ingest("b").failed_runs == 0
    names = [r[0] for r in graph.rows("SELECT name FROM kg_nodes WHERE node_kind = 'entity'")]
    assert "SIRT1" in names and "SIRT3" in names
    sirt1 = graph.one("SELECT node_id FROM kg_nodes WHERE name = 'SIRT1'")
    assert {r[0] for r in graph.rows("SELECT collection FROM kg_node_support WHERE node_id = ?", [sirt1])} == {"a"}


def test_the_graph_asset_keeps_siblings_of_one_sentence_apart_with_the_real_embedder(graph):
    graph.write(
        "a/foxo.md",
        "# Forkhead factors\nFOXO1 and FOXO4 are forkhead transcription factors that control autophagy in muscle.\n"
        "GATOR1 and GATOR2 are protein complexes that regulate mTORC1 signalling in the lysosome.\n",
    )
    assert graph.ingest("a").failed_runs == 0
    names = {r[0] for r in graph.rows("SELECT name FROM kg_nodes WHERE node_kind = 'entity'")}
    assert {"FOXO1", "FOXO4", "GATOR1", "GATOR2"} <= names
    assert graph.rows("SELECT duplicate_name, canonical_name FROM node_merges") == []
