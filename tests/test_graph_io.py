"""Bring your own graph: the seed 002 JSON form imports as it is, bad rows are reported by line and
nothing is imported then, and export then import gives the same graph in every format."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta

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


TABLES = {
    "kg_nodes": "node_id",
    "kg_edges": "edge_id",
    "kg_node_support": "node_id, document_id, chunk_id, collection, name, description",
    "kg_edge_support": "edge_id, document_id, chunk_id, collection, explanation, keywords",
}
T0 = datetime(2026, 9, 1, 10, 0, 0, 123457, tzinfo=UTC)  # microseconds, which epoch milliseconds alone lose


def build_graph(conn) -> None:
    """A graph as the pipeline, a person, the merger and an import leave it: every column set, and
    the values formats get wrong (microseconds, commas, quotes, new lines, non-ASCII text, empty text
    beside null, nested JSON, long floats)."""
    nodes = [
        dict(node_id="gene:foxo3", node_kind="entity", node_type="gene", name="FOXO3",
             description='Forkhead box O3, "the longevity gene",\nfound in centenarians', topic_key="type:gene",
             energy='{"longevity": 0.379949}', base_weight=0.85, support_count=2, created_by="pipeline",
             created_at=T0, updated_at=T0 + timedelta(hours=1), metadata='{"aliases": ["FKHRL1"], "hgnc": 3821}',
             merge_history='[{"merged_node_id": "gene:foxo3a", "merge_id": "merge-1", "similarity_score": 0.97}]'),
        dict(node_id="compound:β-hydroxybutyrate", node_kind="entity", node_type="compound",
             name="β-hydroxybutyrate", description="", topic_key=None, energy=None, base_weight=1.0,
             support_count=1, created_by="pipeline", created_at=T0, updated_at=T0, metadata="{}",
             merge_history="[]"),
        dict(node_id="page:fasting", node_kind="wiki_page", node_type="Workflow", name="Fasting, step by step",
             description=None, topic_key="type:Workflow", energy="{}", base_weight=1.0 / 3, support_count=0,
             created_by="merger", created_at=T0 + timedelta(microseconds=1), updated_at=T0, metadata=None,
             merge_history=None),
    ]  # fmt: skip
    edges = [
        dict(edge_id="RELATED:compound:β-hydroxybutyrate->gene:foxo3", source_id="compound:β-hydroxybutyrate",
             target_id="gene:foxo3", edge_type="RELATED", strength=0.4375000000000001, activation_count=3,
             created_at=T0, last_activated_at=T0 + timedelta(days=2, microseconds=999),
             last_reinforced_at=None, created_by="pipeline", protected=False,
             explanation="β-hydroxybutyrate raises FOXO3, a, b; \"quoted\"", keywords=["raises", "co-occurrence"],
             source_topic_key="type:compound", target_topic_key="type:gene", support_count=1),
        dict(edge_id="mine-1", source_id="page:fasting", target_id="gene:foxo3", edge_type="implemented_by",
             strength=1.0, activation_count=0, created_at=T0, last_activated_at=None,
             last_reinforced_at=T0 + timedelta(days=5), created_by="user", protected=True, explanation=None,
             keywords=None, source_topic_key=None, target_topic_key="", support_count=0),
        dict(edge_id="e-7", source_id="gene:foxo3", target_id="page:fasting", edge_type="similar",
             strength=0.05, activation_count=1, created_at=T0, last_activated_at=None, last_reinforced_at=None,
             created_by="auto", protected=False, explanation="", keywords=[], source_topic_key="tag:x",
             target_topic_key="tag:x", support_count=0),
    ]  # fmt: skip
    warehouse.insert_rows(conn, "kg_nodes", nodes)
    warehouse.insert_rows(conn, "kg_edges", edges)
    support = dict(document_id="longevity/foxo.md", collection="longevity")
    warehouse.insert_rows(
        conn,
        "kg_node_support",
        [
            dict(support, node_id="gene:foxo3", chunk_id="longevity/foxo.md#c0000", name="FOXO3", description="x"),
            dict(support, node_id="gene:foxo3", chunk_id="longevity/foxo.md#c0001", name="FOXO3", description=None),
            dict(support, node_id="compound:β-hydroxybutyrate", chunk_id="longevity/foxo.md#c0001",
                 name="β-hydroxybutyrate", description="ketone body"),
        ],
    )  # fmt: skip
    warehouse.insert_rows(
        conn,
        "kg_edge_support",
        [
            dict(support, edge_id=edges[0]["edge_id"], chunk_id="longevity/foxo.md#c0001",
                 explanation=edges[0]["explanation"], keywords=["raises"]),
        ],
    )  # fmt: skip


def all_rows(conn) -> dict[str, list[tuple]]:
    return {t: conn.execute(f"SELECT * FROM {t} ORDER BY {key}").fetchall() for t, key in TABLES.items()}


@pytest.mark.parametrize("fmt", ["parquet", "csv", "json", "jsonl"])
def test_export_then_import_gives_the_same_graph(tmp_path, conn, fmt):
    build_graph(conn)
    before = all_rows(conn)
    assert [len(rows) for rows in before.values()] == [3, 3, 3, 1]
    nodes_path, edges_path = export_graph(conn, tmp_path / "out", fmt)
    other = warehouse.connect(load_settings(tmp_path / "other").warehouse_path)
    report = import_graph(other, nodes_path, edges_path, NOW)  # NOW: a time none of the rows has
    assert (report.node_support, report.edge_support, report.ignored_fields) == (3, 1, [])
    after = all_rows(other)
    for table in TABLES:  # every column of every row, row by row
        for mine, theirs in zip(before[table], after[table], strict=True):
            assert theirs == mine, table
    again = export_graph(other, tmp_path / "again", fmt)
    assert [p.read_bytes() for p in again] == [nodes_path.read_bytes(), edges_path.read_bytes()]
    other.close()


def test_the_edge_file_keeps_the_seed_form(tmp_path, conn):
    """Edge times stay epoch milliseconds (a fraction only for microseconds), keys the seed's names."""
    build_graph(conn)
    _, edges_path = export_graph(conn, tmp_path / "out", "json")
    edges = {e["edgeId"]: e for e in json.loads(edges_path.read_text())}
    assert (
        edges["mine-1"]["createdAt"] == 1788256800123.457 and edges["mine-1"]["lastReinforcedAt"] == 1788688800123.457
    )
    assert list(edges["e-7"])[:14] == list(EDGES[0]) + ["protected"]
    assert edges["e-7"]["keywords"] == [] and edges["mine-1"]["keywords"] is None
    import_graph(conn, write_json(tmp_path / "n.json", NODES), write_json(tmp_path / "e.json", EDGES), NOW)
    _, edges_path = export_graph(conn, tmp_path / "again", "jsonl")
    seed = {e["edgeId"]: e for e in map(json.loads, edges_path.read_text().splitlines())}
    assert seed["e1"]["createdAt"] == 1767225600000 and isinstance(seed["e1"]["createdAt"], int)  # whole ms


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
