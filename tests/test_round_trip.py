"""Lossless round trips (issue 21, seed 002 import/export): the demo graph, built from the sample
corpus by the real pipeline and then worked on as a user would (a page bundle merged in, a node
merge, a user's protected link, edge merges, activations, a seed-form import), is exported and
imported into an empty data dir in every format, and every column of kg_nodes, kg_edges and their
provenance tables comes back as it was. Also: JSON records whose optional fields come late, the
problems of two bad files reported together, and node merging on an imported graph."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest

from kg_pipelines.config import load_settings
from kg_pipelines.graph.consolidation import run_consolidation
from kg_pipelines.graph.graph_io import GraphImportError, export_graph, import_graph
from kg_pipelines.graph.node_merging import merge_nodes, unmerge
from kg_pipelines.stores import warehouse
from tests.conftest import REPO_ROOT, add_user_link, ingested_graph

SAMPLE = REPO_ROOT / "data" / "inbox"
FORMATS = ["parquet", "csv", "json", "jsonl"]
# each table with the columns that order its rows (support rows have no key: every column)
TABLES = {
    "kg_nodes": "node_id",
    "kg_edges": "edge_id",
    "kg_node_support": "node_id, document_id, chunk_id, collection, name, description",
    "kg_edge_support": "edge_id, document_id, chunk_id, collection, explanation, keywords",
}
NOW = datetime(2026, 11, 20, 8, 30, 15, 123456, tzinfo=UTC)


def table_rows(conn, table: str) -> list[tuple]:
    return conn.execute(f"SELECT * FROM {table} ORDER BY {TABLES[table]}").fetchall()


def seed_form_records(count: int) -> tuple[list[dict], list[dict]]:
    """Nodes and seed 002 edges as another system writes them: optional fields only on later records
    (past the first hundred, where a reader inferring its schema from the first rows stops looking)."""
    nodes = [{"id": f"s{i}", "name": f"Reading session {i}", "type": "session"} for i in range(count)]
    for node in nodes[count - 5 :]:
        node.update(description="a late description", metadata={"url": "https://example.org/x"}, base_weight=0.7)
    edges = []
    for i in range(count - 1):
        edge = {
            "edgeId": f"edge-{i:04d}",
            "sourceId": f"s{i}",
            "targetId": f"s{i + 1}",
            "type": "similar" if i % 2 else "extends",
            "strength": 0.3 + (i % 5) / 10,
            "createdAt": 1767225600000 + i,
            "activationCount": i % 3,
            "createdBy": "auto",
            "explanation": f"session {i} leads to session {i + 1}",
            "sourceTopicKey": "tag:reading",
            "targetTopicKey": "tag:reading",
        }
        if i >= count - 10:  # the seed's optional fields, present only on the last records
            edge.update(lastReinforcedAt=1769904000000 + i, lastActivatedAt=1769000000000 + i, protected=True)
        edges.append(edge)
    return nodes, edges


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The demo graph: both sample collections ingested, the gut_butyrate page bundle merged, and a
    user's work on it. Yields its settings."""
    from kg_pipelines.dagster_shell.merger_runner import merge_page_bundle

    base = tmp_path_factory.mktemp("demo")
    documents = {
        f"{collection}/{path.name}": path.read_text(encoding="utf-8")
        for collection in ("longevity", "microbiome")
        for path in sorted((SAMPLE / collection).iterdir())
    }
    with ingested_graph(base, documents) as graph:
        bundle = SAMPLE / "pages" / "gut_butyrate"
        assert merge_page_bundle(graph.settings, "gut_butyrate", bundle, graph.instance).failed_runs == 0
        conn = warehouse.connect(graph.settings.warehouse_path)
        try:
            nodes, edges = seed_form_records(130)
            (base / "n.json").write_text(json.dumps(nodes))
            (base / "e.json").write_text(json.dumps(edges))
            import_graph(conn, base / "n.json", base / "e.json", NOW)
            with warehouse.transaction(conn):
                # a person merges two sessions of the import (merge history, averaged weights)
                merge_nodes(conn, "s3", "s4", NOW, score=0.93, decision="person", origin="cli")
                # a protected link of their own beside a pipeline edge: merge-edges folds the pair
                source, target = conn.execute(
                    "SELECT source_id, target_id FROM kg_edges WHERE edge_type = 'RELATED' ORDER BY edge_id LIMIT 1"
                ).fetchall()[0]
                add_user_link(
                    conn,
                    target,
                    source,
                    edge_type="supports",
                    strength=0.35,
                    activation_count=2,
                    created_at=NOW,
                    protected=True,
                    explanation="checked by hand",
                    keywords=["manual"],
                )
                # search used some edges (times with their microseconds)
                conn.execute(
                    """UPDATE kg_edges SET activation_count = activation_count + 3, last_activated_at = ?
                       WHERE edge_id IN (SELECT edge_id FROM kg_edges WHERE edge_type = 'MENTIONS'
                                         ORDER BY edge_id LIMIT 7)""",
                    [NOW + timedelta(microseconds=789)],
                )
            run_consolidation(conn, graph.settings, "merge-edges", now=NOW)
        finally:
            conn.close()
        yield graph.settings


def test_the_demo_graph_holds_what_a_round_trip_must_keep(demo):
    """Every column of both tables varies in the demo graph, so the comparisons below can fail on any."""
    conn = warehouse.connect(demo.warehouse_path)
    try:
        for table in ("kg_nodes", "kg_edges"):
            columns = [c for c, _ in warehouse.column_types(conn, table)]
            for column in columns:
                distinct = conn.execute(f"SELECT count(DISTINCT {column}::VARCHAR) FROM {table}").fetchall()[0][0]
                assert distinct >= 2, f"{table}.{column} has one value in the demo graph"
        creators = {r[0] for r in conn.execute("SELECT DISTINCT created_by FROM kg_nodes").fetchall()}
        assert {"pipeline", "merger", "import"} <= creators
        assert conn.execute("SELECT count(*) FROM kg_edges WHERE created_by = 'user' AND protected").fetchall()[0][0]
        assert conn.execute("SELECT count(*) FROM kg_nodes WHERE merge_history::VARCHAR <> '[]'").fetchall()[0][0]
        assert conn.execute("SELECT count(*) FROM kg_edges WHERE len(keywords) > 0").fetchall()[0][0]
        assert conn.execute("SELECT count(*) FROM kg_edge_support").fetchall()[0][0] > 1000
    finally:
        conn.close()


@pytest.mark.parametrize("fmt", FORMATS)
def test_export_then_import_into_an_empty_data_dir_gives_the_same_graph(demo, tmp_path, fmt):
    conn = warehouse.connect(demo.warehouse_path)
    try:
        nodes_path, edges_path = export_graph(conn, tmp_path / "out", fmt)
        before = {table: table_rows(conn, table) for table in TABLES}
    finally:
        conn.close()
    other = warehouse.connect(load_settings(tmp_path / "empty").warehouse_path)
    try:
        report = import_graph(other, nodes_path, edges_path, datetime.now(UTC))
        assert report.ignored_fields == [] and (report.nodes_updated, report.edges_updated) == (0, 0)
        for table, rows in before.items():
            after = table_rows(other, table)
            assert len(after) == len(rows), table
            for mine, theirs in zip(rows, after, strict=True):
                assert theirs == mine, f"{table}: {theirs} != {mine}"
        # and export of the copy writes the same files again
        again = export_graph(other, tmp_path / "again", fmt)
        assert [p.read_bytes() for p in again] == [nodes_path.read_bytes(), edges_path.read_bytes()]
    finally:
        other.close()


def test_cli_export_writes_what_import_reads_back(demo, tmp_path):
    """``kg-pipelines export-graph`` (its own process, the warehouse opened read-only); the import's
    CLI path (embedding, snapshot) is tested in test_graph_io."""
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "kg_pipelines.cli", "--data-dir", str(demo.data_dir), "export-graph", str(out)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    copy = warehouse.connect(load_settings(tmp_path / "data").warehouse_path)
    try:
        report = import_graph(copy, out / "nodes.parquet", out / "edges.parquet")
        conn = warehouse.connect(demo.warehouse_path)
        try:
            for table in TABLES:
                assert table_rows(copy, table) == table_rows(conn, table), table
        finally:
            conn.close()
        assert report.node_support == copy.execute("SELECT count(*) FROM kg_node_support").fetchall()[0][0] > 1000
    finally:
        copy.close()


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_optional_fields_that_appear_only_on_later_records_are_read(tmp_path, fmt):
    nodes, edges = seed_form_records(130)
    paths = []
    for name, rows in (("nodes", nodes), ("edges", edges)):
        path = tmp_path / f"{name}.{fmt}"
        text = json.dumps(rows, indent=1) if fmt == "json" else "".join(json.dumps(r) + "\n" for r in rows)
        path.write_text(text)
        paths.append(path)
    conn = warehouse.connect(load_settings(tmp_path / "graph").warehouse_path)
    try:
        report = import_graph(conn, *paths, NOW)
        assert (report.nodes, report.edges) == (130, 129)
        late = conn.execute(
            """SELECT epoch_ms(last_reinforced_at), epoch_ms(last_activated_at), protected, created_by
               FROM kg_edges WHERE edge_id = 'edge-0128'"""
        ).fetchall()
        assert late == [(1769904000128, 1769000000128, True, "auto")]
        early = conn.execute(
            "SELECT last_reinforced_at, protected, keywords, support_count FROM kg_edges WHERE edge_id = 'edge-0001'"
        ).fetchall()
        assert early == [(None, False, [], 0)]
        node = conn.execute(
            "SELECT description, metadata, base_weight, created_by FROM kg_nodes WHERE node_id = 's129'"
        )
        assert node.fetchall() == [("a late description", '{"url": "https://example.org/x"}', 0.7, "import")]
    finally:
        conn.close()


def test_fields_the_schema_does_not_know_are_named(tmp_path):
    nodes = [{"id": "a", "name": "A", "type": "gene"}, {"id": "b", "name": "B", "type": "gene", "colour": "red"}]
    edges = [{"sourceId": "a", "targetId": "b", "type": "RELATED", "weight": 3}]
    (tmp_path / "n.json").write_text(json.dumps(nodes))
    (tmp_path / "e.jsonl").write_text(json.dumps(edges[0]) + "\n")
    conn = warehouse.connect(load_settings(tmp_path / "graph").warehouse_path)
    try:
        report = import_graph(conn, tmp_path / "n.json", tmp_path / "e.jsonl", NOW)
        assert report.ignored_fields == [f"{tmp_path / 'n.json'}: colour", f"{tmp_path / 'e.jsonl'}: weight"]
    finally:
        conn.close()


def test_problems_of_both_files_are_reported_and_nothing_is_imported(tmp_path):
    nodes, edges = seed_form_records(130)
    nodes[120]["name"] = ""
    nodes[125]["support_count"] = -2
    edges[3]["strength"] = "strong"
    edges[110]["createdAt"] = "yesterday"
    (tmp_path / "n.json").write_text(json.dumps(nodes, indent=1))
    lines = "".join(json.dumps(r) + "\n" for r in edges).splitlines(keepends=True)
    lines.insert(50, "{not json\n")
    (tmp_path / "e.jsonl").write_text("".join(lines))
    conn = warehouse.connect(load_settings(tmp_path / "graph").warehouse_path)
    try:
        with pytest.raises(GraphImportError) as error:
            import_graph(conn, tmp_path / "n.json", tmp_path / "e.jsonl", NOW)
        problems = error.value.problems
        node_lines = [i for i, t in enumerate((tmp_path / "n.json").read_text().splitlines(), 1) if t == " {"]
        assert problems == [
            f"{tmp_path / 'n.json'}: line {node_lines[120]}: missing name",
            f"{tmp_path / 'n.json'}: line {node_lines[125]}: support_count -2 is below 0",
            f"{tmp_path / 'e.jsonl'}: line 51: not valid JSON (Expecting property name enclosed in double quotes)",
            f"{tmp_path / 'e.jsonl'}: line 4: strength 'strong' is not a number",
            f"{tmp_path / 'e.jsonl'}: line 112: createdAt 'yesterday' is neither epoch milliseconds nor an ISO time",
        ]
        for table in TABLES:
            assert conn.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0] == 0
    finally:
        conn.close()


def test_an_unreadable_nodes_file_still_has_the_edge_file_checked(tmp_path):
    (tmp_path / "n.csv").write_text('id,name,type\n"a,A,gene\n')
    (tmp_path / "e.json").write_text(json.dumps([{"sourceId": "a", "targetId": "b", "type": "R", "strength": 7}]))
    conn = warehouse.connect(load_settings(tmp_path / "graph").warehouse_path)
    try:
        with pytest.raises(GraphImportError) as error:
            import_graph(conn, tmp_path / "n.csv", tmp_path / "e.json", NOW)
        problems = error.value.problems
        assert len(problems) == 2 and problems[0].startswith(f"{tmp_path / 'n.csv'}: cannot be read as csv")
        assert problems[1] == f"{tmp_path / 'e.json'}: line 1: strength 7 is outside [0, 1]"
        assert conn.execute("SELECT count(*) FROM kg_nodes").fetchall()[0][0] == 0
    finally:
        conn.close()


def test_support_that_disagrees_with_its_count_is_a_problem(tmp_path):
    support = [{"document_id": "d1", "chunk_id": "d1#c0", "collection": "c", "name": "A", "description": None}]
    nodes = [{"id": "a", "name": "A", "type": "gene", "support_count": 2, "support": support}]
    (tmp_path / "n.json").write_text(json.dumps(nodes))
    (tmp_path / "e.json").write_text("[]")
    conn = warehouse.connect(load_settings(tmp_path / "graph").warehouse_path)
    try:
        with pytest.raises(GraphImportError) as error:
            import_graph(conn, tmp_path / "n.json", tmp_path / "e.json", NOW)
        assert error.value.problems == [
            f"{tmp_path / 'n.json'}: line 1: support_count 2 disagrees with the 1 support row(s) given"
        ]
        nodes[0]["support_count"] = 1
        (tmp_path / "n.json").write_text(json.dumps(nodes))
        assert import_graph(conn, tmp_path / "n.json", tmp_path / "e.json", NOW).node_support == 1
        assert conn.execute("SELECT node_id, chunk_id FROM kg_node_support").fetchall() == [("a", "d1#c0")]
    finally:
        conn.close()


# -- node merging on an imported graph ------------------------------------------------------------


def test_merging_nodes_of_an_imported_graph_averages_links_found_by_their_ends(tmp_path):
    nodes = [{"id": n, "name": n.upper(), "type": "gene"} for n in ("foxo3a", "foxo3", "sirt1", "ampk")]
    edges = [
        {"edgeId": "e-1", "sourceId": "foxo3", "targetId": "sirt1", "type": "binds", "strength": 0.8,
         "activationCount": 2, "createdAt": 1767225600000},
        {"edgeId": "e-2", "sourceId": "foxo3a", "targetId": "sirt1", "type": "binds", "strength": 0.4,
         "activationCount": 1, "createdAt": 1767225600000, "protected": True},
        {"edgeId": "e-3", "sourceId": "foxo3a", "targetId": "ampk", "type": "binds", "strength": 0.5,
         "createdAt": 1767225600000},
        {"edgeId": "e-4", "sourceId": "sirt1", "targetId": "foxo3a", "type": "binds", "strength": 0.3,
         "createdAt": 1767225600000},
    ]  # fmt: skip
    (tmp_path / "n.json").write_text(json.dumps(nodes))
    (tmp_path / "e.json").write_text(json.dumps(edges))
    conn = warehouse.connect(load_settings(tmp_path / "graph").warehouse_path)
    try:
        import_graph(conn, tmp_path / "n.json", tmp_path / "e.json", NOW)
        before = {t: table_rows(conn, t) for t in TABLES}
        with warehouse.transaction(conn):
            outcome = merge_nodes(conn, "foxo3", "foxo3a", NOW, score=0.95)
        assert (outcome.edges_combined, outcome.edges_redirected) == (1, 2)
        rows = conn.execute(
            "SELECT edge_id, source_id, target_id, strength, activation_count, protected FROM kg_edges ORDER BY 1"
        ).fetchall()
        assert rows == [
            ("e-1", "foxo3", "sirt1", pytest.approx(0.6), 3, True),  # averaged into the existing link
            ("e-3", "foxo3", "ampk", 0.5, 0, False),  # redirected, its id kept
            ("e-4", "sirt1", "foxo3", 0.3, 0, False),  # the other direction is another link
        ]
        with warehouse.transaction(conn):
            unmerge(conn, outcome.merge_id, NOW)
        assert {t: table_rows(conn, t) for t in TABLES} == before
    finally:
        conn.close()


def test_a_pattern_id_follows_its_new_ends_when_redirected(tmp_path):
    nodes = [{"id": n, "name": n.upper(), "type": "gene"} for n in ("il6", "il-6", "stat3")]
    edges = [{"sourceId": "il-6", "targetId": "stat3", "type": "activates", "strength": 0.5}]
    (tmp_path / "n.json").write_text(json.dumps(nodes))
    (tmp_path / "e.json").write_text(json.dumps(edges))
    conn = warehouse.connect(load_settings(tmp_path / "graph").warehouse_path)
    try:
        import_graph(conn, tmp_path / "n.json", tmp_path / "e.json", NOW)
        assert conn.execute("SELECT edge_id FROM kg_edges").fetchall() == [("activates:il-6->stat3",)]
        with warehouse.transaction(conn):
            merge_nodes(conn, "il6", "il-6", NOW)
        assert conn.execute("SELECT edge_id, source_id FROM kg_edges").fetchall() == [("activates:il6->stat3", "il6")]
    finally:
        conn.close()
