"""The explorer's JSON endpoints: a term's bounded neighbourhood with its graph-search paths, one
node and one edge with their sources, what an answer's chunks hold, the health reports; errors as
one-line details. On the sample document ingested by the real job, and on a synthetic snapshot for
the node limit."""

from __future__ import annotations

import json

import duckdb
import pytest
from fastapi.testclient import TestClient

from kg_pipelines.api.app import create_app
from kg_pipelines.config import load_settings
from kg_pipelines.retrieval.graph_explorer import ExplorerError, latest_reports, neighbourhood
from kg_pipelines.stores.graph_snapshot import load_graph_snapshot, publish_graph_snapshot
from kg_pipelines.stores.warehouse import connect
from tests.conftest import REPO_ROOT, ingested_graph

SAMPLE = REPO_ROOT / "data" / "inbox" / "microbiome" / "akkermansia_muciniphila_and_metabolic_health.md"
TITLE = "Akkermansia muciniphila and Metabolic Health"


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    with ingested_graph(tmp_path_factory.mktemp("explorer"), {"microbiome/akkermansia.md": SAMPLE.read_text()}) as g:
        yield g.settings


@pytest.fixture(scope="module")
def client(sample):
    return TestClient(create_app(sample))


def test_a_terms_neighbourhood_holds_the_node_its_neighbours_and_the_paths(client):
    body = client.get("/explore/api/neighbourhood", params={"term": "Oleoylethanolamide", "depth": 1}).json()
    ids = {n["id"] for n in body["nodes"]}
    oea = [m["node_id"] for m in body["matched"] if m["node_type"] == "compound"]
    assert oea and oea[0] in ids
    neighbours = {e["target"] for e in body["edges"] if e["source"] == oea[0]}
    neighbours |= {e["source"] for e in body["edges"] if e["target"] == oea[0]}
    assert len(neighbours) >= 3 and neighbours <= ids
    # every edge drawn joins two drawn nodes, and every path is drawn whole
    assert all(e["source"] in ids and e["target"] in ids for e in body["edges"])
    edge_ids = {e["id"] for e in body["edges"]}
    assert body["paths"]
    for path in body["paths"]:
        assert set(path["node_ids"]) <= ids and set(path["edge_ids"]) <= edge_ids
        assert all("--[" in line and "]-->" in line for line in path["lines"])


def test_the_node_limit_is_kept_and_what_is_left_out_is_counted(client):
    small = client.get("/explore/api/neighbourhood", params={"term": "Akkermansia muciniphila", "limit": 3}).json()
    walked = [n for n in small["nodes"] if n["depth"] >= 0]
    assert len(walked) == 3
    assert small["truncated"] and sum(small["more"].values()) > 0
    start = small["matched"][0]["node_id"]
    expanded = client.get("/explore/api/expand", params={"node_id": start, "limit": 300}).json()
    neighbours = {n["id"] for n in expanded["nodes"]} - {start}
    assert not expanded["truncated"] or start not in expanded["more"]
    drawn = {n["id"] for n in small["nodes"]}
    assert small["more"][start] == len(neighbours - drawn) > 0


def test_a_node_shows_its_description_and_source_chunks(client):
    body = client.get("/explore/api/neighbourhood", params={"term": "Oleoylethanolamide", "depth": 1}).json()
    node_id = next(m["node_id"] for m in body["matched"] if m["node_type"] == "compound")
    node = client.get("/explore/api/node", params={"node_id": node_id}).json()
    assert node["name"] == "Oleoylethanolamide" and node["type"] == "compound"
    assert node["description"] and node["degree"] >= 3
    assert isinstance(node["energy"], dict) and node["energy"]["microbiome"] > 0
    assert node["sources"] and {s["title"] for s in node["sources"]} == {TITLE}
    assert all("Oleoylethanolamide" in s["snippet"] or "OEA" in s["snippet"] for s in node["sources"])


def test_an_edge_shows_its_explanation_support_and_sources(client):
    body = client.get("/explore/api/neighbourhood", params={"term": "Oleoylethanolamide", "depth": 1}).json()
    related = next(e for e in body["edges"] if e["type"] == "RELATED" and e["explanation"])
    edge = client.get("/explore/api/edge", params={"edge_id": related["id"]}).json()
    assert edge["explanation"] == related["explanation"]
    assert edge["support_count"] >= 1 and edge["activation_count"] >= 0
    assert edge["sources"] and edge["sources"][0]["title"] == TITLE and edge["sources"][0]["snippet"]


def test_an_answers_chunks_give_the_nodes_and_edges_to_highlight(client, sample):
    snapshot = load_graph_snapshot(sample)
    chunk_id = snapshot.chunks.column("chunk_id")[0].as_py()
    body = client.get("/explore/api/evidence", params={"chunk_id": [chunk_id]}).json()
    supported = {r["node_id"] for r in snapshot.node_support.to_pylist() if r["chunk_id"] == chunk_id} & {
        r["node_id"] for r in snapshot.nodes.to_pylist() if r["node_kind"] == "entity"
    }
    assert supported and supported <= {n["id"] for n in body["nodes"]}
    assert body["edges"] and all(e["source"] in supported or e["target"] in supported for e in body["edges"])


@pytest.mark.parametrize(
    "path, params, status, says",
    [
        ("/explore/api/node", {"node_id": "compound:no such thing"}, 404, "no node 'compound:no such thing'"),
        ("/explore/api/edge", {"edge_id": "RELATED:a->b"}, 404, "no edge 'RELATED:a->b'"),
        ("/explore/api/neighbourhood", {}, 422, "term: Field required"),
        ("/explore/api/neighbourhood", {"term": "x", "node_id": "y"}, 422, "node_id: unknown query parameter"),
        ("/explore/api/expand", {"node_id": "nope"}, 404, "no node 'nope'"),
        ("/explore/api/neighbourhood", {"term": "   "}, 400, "term"),
        ("/explore/api/neighbourhood", {"term": "OEA", "depth": 9}, 422, "depth"),
        ("/explore/api/neighbourhood", {"term": "OEA", "limit": 0}, 422, "limit"),
    ],
)
def test_errors_are_one_line_details(client, path, params, status, says):
    response = client.get(path, params=params)
    assert response.status_code == status
    assert isinstance(response.json()["detail"], str) and says in response.json()["detail"]


def test_an_empty_data_dir_says_how_to_ingest(tmp_path):
    settings = load_settings(data_dir=tmp_path / "empty")
    body = TestClient(create_app(settings)).get("/explore/api/neighbourhood", params={"term": "anything"}).json()
    assert body["nodes"] == [] and "ingest" in body["message"]


def test_the_page_and_its_library_are_served_from_the_package(client):
    page = client.get("/explore")
    assert page.status_code == 200 and "cytoscape.min.js" in page.text and "explore.js" in page.text
    library = client.get("/explore/static/vendor/cytoscape/cytoscape.min.js")
    assert library.status_code == 200 and "cytoscape" in library.text[:2000].lower()
    assert client.get("/explore/static/vendor/cytoscape/LICENSE").status_code == 200


# -- on a synthetic snapshot: the bounds of the walk --------------------------------------------------
def _star_snapshot(tmp_path, leaves: int):
    settings = load_settings(data_dir=tmp_path)
    conn = connect(settings.warehouse_path)
    conn.execute(
        "INSERT INTO kg_nodes (node_id, node_kind, node_type, name, topic_key, base_weight, support_count, "
        "created_by, created_at, updated_at) SELECT 'gene:n' || i, 'entity', 'gene', 'N' || i, 'type:gene', 1, 1, "
        "'pipeline', now(), now() FROM range(?) t(i)",
        [leaves + 1],
    )
    conn.execute(
        "INSERT INTO kg_edges (edge_id, source_id, target_id, edge_type, strength, activation_count, created_at, "
        "last_reinforced_at, created_by, protected, support_count) SELECT 'RELATED:gene:n0->gene:n' || i, 'gene:n0', "
        "'gene:n' || i, 'RELATED', i / 1000.0, 0, now(), now(), 'pipeline', false, 1 FROM range(1, ?) t(i)",
        [leaves + 1],
    )
    publish_graph_snapshot(conn, settings)
    conn.close()
    return load_graph_snapshot(settings)


def test_the_walk_takes_the_strongest_edges_first_and_counts_the_rest(tmp_path):
    try:
        snapshot = _star_snapshot(tmp_path, 500)
    except duckdb.Error as exc:  # the table contract changed: say so rather than skip silently
        pytest.fail(f"could not build the synthetic graph: {exc}")
    found = neighbourhood(snapshot, ["gene:n0"], depth=2, limit=50)
    names = {n["id"] for n in found["nodes"]}
    assert len(names) == 50 and "gene:n0" in names
    assert {f"gene:n{i}" for i in range(452, 501)} <= names  # the 49 strongest leaves
    assert found["more"] == {"gene:n0": 451} and len(found["edges"]) == 49
    with pytest.raises(ExplorerError, match="depth must be between 1 and 3"):
        neighbourhood(snapshot, ["gene:n0"], depth=4)


def test_health_reports_take_the_newest_of_each_operation_and_cut_long_lists(tmp_path):
    folder = tmp_path / "consolidation_reports"
    folder.mkdir()
    old = {"operation": "prune", "run_id": "old", "pruned_edge_ids": ["a"]}
    new = {"operation": "prune", "run_id": "new", "pruned_edge_ids": [f"e{i}" for i in range(250)]}
    (folder / "old.json").write_text(json.dumps(old))
    (folder / "new.json").write_text(json.dumps(new))
    import os

    os.utime(folder / "old.json", (1, 1))
    (folder / "broken.json").write_text("{not json")
    reports = latest_reports(tmp_path)["consolidation"]
    assert list(reports) == ["prune"] and reports["prune"]["run_id"] == "new"
    assert len(reports["prune"]["report"]["pruned_edge_ids"]) == 100
    assert reports["prune"]["report"]["pruned_edge_ids_total"] == 250
