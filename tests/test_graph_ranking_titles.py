"""Title nodes in graph building: a document's title is a node linked to its chunks (TITLE_OF) and
to the entity node of the same normalized name (NAMES), from whichever side is synced later."""

from datetime import timedelta

import pytest

from kg_pipelines.audits import dangling_edges
from kg_pipelines.graph.graph_building import update_graph
from kg_pipelines.stores import warehouse
from tests.test_graph_building import T0, edge, node, put_document, remove_documents


@pytest.fixture
def conn(tmp_path):
    c = warehouse.connect(tmp_path / "w.duckdb")
    yield c
    c.close()


def test_title_node_links_the_documents_chunks_and_the_entity_of_its_name(conn):
    # "b" mentions Kraków; "krakow-doc" is titled Kraków: the title links b's entity to the passage
    put_document(conn, "b", "c", [("Kraków", "location"), ("Chopin", "person")], [("Chopin", "Kraków")])
    update_graph(conn, ["b"], T0)
    assert edge(conn, "TITLE_OF:title:b->chunk:b#c0000") is not None
    assert node(conn, "title:b")["node_kind"] == "title"

    put_document(conn, "k", "c", [("Vistula", "location")], [])
    conn.execute("UPDATE documents SET title = 'Kraków' WHERE document_id = 'k'")
    update_graph(conn, ["k"], T0 + timedelta(days=1))
    # created from the title's side: the entity was extracted from another document
    names = edge(conn, "NAMES:title:kraków->location:kraków")
    assert names is not None and names["explanation"] == "a document is titled Kraków"
    assert edge(conn, "TITLE_OF:title:kraków->chunk:k#c0000") is not None

    # the entity's document goes: the NAMES edge and every support row of it go too
    remove_documents(conn, ["b"], T0 + timedelta(days=2))
    assert edge(conn, "NAMES:title:kraków->location:kraków") is None
    assert conn.execute("SELECT count(*) FROM kg_edge_support WHERE edge_id LIKE 'NAMES:%'").fetchone()[0] == 0
    # it comes back from the entity's side when a document mentions the name again
    put_document(conn, "b", "c", [("Kraków", "location")], [])
    update_graph(conn, ["b"], T0 + timedelta(days=3))
    assert edge(conn, "NAMES:title:kraków->location:kraków")["support_count"] == 1
    assert dangling_edges(conn).passed


def test_a_title_with_a_qualifier_names_the_entity_without_it(conn):
    put_document(conn, "m", "c", [("Mercury", "location"), ("Sun", "location")], [("Mercury", "Sun")])
    conn.execute("UPDATE documents SET title = 'Mercury (planet)' WHERE document_id = 'm'")
    update_graph(conn, ["m"], T0)
    assert edge(conn, "NAMES:title:mercury (planet)->location:mercury") is not None
    assert edge(conn, "NAMES:title:mercury (planet)->location:sun") is None
