"""Bring your own graph: the seed 002 JSON form imports as it is, bad rows are reported by line and
nothing is imported then, and export then import gives the same graph in every format."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime

import polars as pl
import pytest

from kg_pipelines.config import load_settings
from kg_pipelines.graph.graph_io import GraphImportError, export_graph, import_graph
from kg_pipelines.stores import warehouse

NOW = datetime(2026, 11, 1, tzinfo=UTC)

NODES = [
    {"id": "s1", "name": "React Hooks Guide", "type": "session", "description": "Notes on hooks"},
    {"id": "s2", "name": "React State", "type": "session", "metadata": {"url": "https://react.dev/learn"}},
    {"id": "s3", "name": "React Effects", "type": "session", "created_at": "2026-09-01T10:00:00+00:00"},
    {"id": "s4", "name": "Vue Basics", "type": "session", "base_weight": 0.7, "energy": {"web": 0.3}},
]
# the seed 002 system's own edge records (times in epoch milliseconds)
EDGES = [
    {
        "edgeId": "e1",
        "sourceId": "s1",
        "targetId": "s2",
        "type": "extends",
        "strength": 0.5,
        "createdAt": 1767225600000,
        "lastActivatedAt": 1769904000000,
        "lastReinforcedAt": None,
        "activationCount": 4,
        "createdBy": "auto",
        "explanation": "hooks build on state",
        "sourceTopicKey": "tag:react",
        "targetTopicKey": "tag:react",
    },
    {
        "edgeId": "e2",
        "sourceId": "s3",
        "targetId": "s2",
        "type": "similar",
        "strength": 0.3,
        "createdAt": 1767312000000,
        "lastActivatedAt": None,
        "lastReinforcedAt": 1768000000000,
        "activationCount": 1,
        "createdBy": "user",
        "explanation": "both about component state",
        "sourceTopicKey": "tag:react",
        "targetTopicKey": "tag:react",
    },
]


@pytest.fixture
def conn(tmp_path):
    connection = warehouse.connect(load_settings(tmp_path / "graph").warehouse_path)
    yield connection
    connection.close()


def write_json(path, rows):
    path.write_text(json.dumps(rows, indent=2))
    return path


def test_seed_json_edges_import_as_they_are(tmp_path, conn):
    report = import_graph(conn, write_json(tmp_path / "n.json", NODES), write_json(tmp_path / "e.json", EDGES), NOW)
    assert (report.nodes, report.edges) == (4, 2)
    row = conn.execute(
        """SELECT source_id, target_id, edge_type, strength, activation_count, created_by, explanation,
                  epoch_ms(created_at), epoch_ms(last_activated_at), last_reinforced_at, source_topic_key
           FROM kg_edges WHERE edge_id = 'e1'"""
    ).fetchall()[0]
    assert row == (
        "s1",
        "s2",
        "extends",
        0.5,
        4,
        "auto",
        "hooks build on state",
        1767225600000,
        1769904000000,
        None,
        "tag:react",
    )
    assert conn.execute("SELECT created_by FROM kg_edges WHERE edge_id = 'e2'").fetchall() == [("user",)]
    node = conn.execute("SELECT node_type, name, metadata, base_weight, energy FROM kg_nodes WHERE node_id = 's4'")
    assert node.fetchall() == [("session", "Vue Basics", "{}", 0.7, '{"web": 0.3}')]


def test_bad_rows_are_reported_by_line_and_nothing_is_imported(tmp_path, conn):
    edges = [EDGES[0], {**EDGES[1], "strength": "strong"}, {**EDGES[0], "edgeId": "e3", "targetId": "nowhere"}]
    path = write_json(tmp_path / "e.json", edges)
    with pytest.raises(GraphImportError) as error:
        import_graph(conn, write_json(tmp_path / "n.json", NODES), path, NOW)
    text = path.read_text().splitlines()
    problems = error.value.problems
    assert len(problems) == 2
    line_of_second = next(i for i, t in enumerate(text, 1) if t.strip() == "{" and i > 2 and "e2" in text[i])
    assert f"line {line_of_second}:" in problems[0] and "strength 'strong' is not a number" in problems[0]
    assert "unknown node(s) nowhere" in problems[1]
    assert conn.execute("SELECT count(*) FROM kg_nodes").fetchall()[0][0] == 0  # nodes file was fine: still nothing


def test_csv_problems_name_the_file_line(tmp_path, conn):
    nodes = tmp_path / "n.csv"
    nodes.write_text("id,name,type\ns1,Alpha,gene\ns2,,gene\ns1,Again,gene\n")
    with pytest.raises(GraphImportError) as error:
        import_graph(conn, nodes, write_json(tmp_path / "e.json", []), NOW)
    assert error.value.problems == [
        f"{nodes}: line 3: missing name",
        f"{nodes}: line 4: node id 's1' repeats the one on line 2",
    ]


@pytest.mark.parametrize("fmt", ["parquet", "csv", "json", "jsonl"])
def test_export_then_import_gives_the_same_graph(tmp_path, conn, fmt):
    import_graph(conn, write_json(tmp_path / "n.json", NODES), write_json(tmp_path / "e.json", EDGES), NOW)
    nodes_path, edges_path = export_graph(conn, tmp_path / "out", fmt)
    other = warehouse.connect(load_settings(tmp_path / "other").warehouse_path)
    import_graph(other, nodes_path, edges_path, NOW)
    columns = {
        "kg_nodes": "node_id, node_kind, node_type, name, description, topic_key, CAST(energy AS VARCHAR), "
        "base_weight, CAST(metadata AS VARCHAR), created_at",
        "kg_edges": "edge_id, source_id, target_id, edge_type, strength, activation_count, created_at, "
        "last_activated_at, last_reinforced_at, created_by, protected, explanation, source_topic_key, target_topic_key",
    }
    for table, cols in columns.items():
        mine = conn.execute(f"SELECT {cols} FROM {table} ORDER BY 1").fetchall()
        assert other.execute(f"SELECT {cols} FROM {table} ORDER BY 1").fetchall() == mine
    again = export_graph(other, tmp_path / "again", fmt)
    if fmt == "parquet":
        assert pl.read_parquet(again[1]).equals(pl.read_parquet(edges_path))
    else:
        assert again[1].read_text() == edges_path.read_text() and again[0].read_text() == nodes_path.read_text()
    other.close()


def test_cli_import_embeds_the_nodes_and_exports(tmp_path):
    data = tmp_path / "graph"
    nodes, edges = write_json(tmp_path / "n.json", NODES), write_json(tmp_path / "e.json", EDGES)
    cli = [sys.executable, "-m", "kg_pipelines.cli", "--data-dir", str(data)]
    done = subprocess.run([*cli, "import-graph", str(nodes), str(edges)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "imported 4 nodes (0 replaced) and 2 edges (0 replaced); 4 node vector(s) embedded" in done.stdout
    from kg_pipelines.stores.node_vectors import NodeVectors

    assert NodeVectors(data / "lancedb").count() == 4
    from kg_pipelines.stores.graph_snapshot import load_graph_snapshot

    snapshot = load_graph_snapshot(load_settings(data))  # what search and the API read
    assert (snapshot.nodes.num_rows, snapshot.edges.num_rows) == (4, 2)
    assert json.loads((data / "graph_stats.json").read_text())["edges"] == 2
    bad = write_json(tmp_path / "bad.json", [{**EDGES[0], "sourceId": None}])
    done = subprocess.run([*cli, "import-graph", str(nodes), str(bad)], capture_output=True, text=True)
    assert (
        done.returncode == 1
        and "nothing imported; 1 problem(s)" in done.stderr
        and "line 2: missing sourceId" in done.stderr
    )
    assert "Traceback" not in done.stderr
    done = subprocess.run(
        [*cli, "export-graph", str(tmp_path / "out"), "--format", "csv"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert pl.read_csv(tmp_path / "out" / "edges.csv")["edgeId"].to_list() == ["e1", "e2"]
