"""Incremental graph updates with provenance: merge across documents, reinforce, survive
re-ingestion, remove cleanly, never dangle."""

from datetime import UTC, datetime, timedelta

import pytest

from kg_pipelines.audits import dangling_edges
from kg_pipelines.graph.graph_building import documents_to_sync, sync_graph, update_graph
from kg_pipelines.ingestion.context import SyncScope
from kg_pipelines.ingestion.extraction import entity_node_id
from kg_pipelines.stores import warehouse

T0 = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
def conn(tmp_path):
    c = warehouse.connect(tmp_path / "w.duckdb")
    yield c
    c.close()


def put_document(conn, doc: str, collection: str, entities: list[tuple[str, str]], relations: list[tuple[str, str]]):
    """One document with one chunk mentioning ``entities`` [(name, type)], ``relations`` [(a, b)] and two questions."""
    chunk = f"{doc}#c0000"
    types = dict(entities)
    with warehouse.transaction(conn):
        for table in ("documents", "chunks", "entities", "relationships", "atomic_questions"):
            warehouse.delete_where_in(conn, table, "document_id", [doc])
        warehouse.insert_rows(
            conn,
            "documents",
            [
                {
                    "document_id": doc,
                    "collection": collection,
                    "source_path": f"/x/{doc}",
                    "title": doc.upper(),
                    "content_hash": f"hash-{doc}",
                    "text": "text",
                }
            ],
        )
        warehouse.insert_rows(
            conn,
            "chunks",
            [
                {
                    "chunk_id": chunk,
                    "document_id": doc,
                    "collection": collection,
                    "seq": 0,
                    "text": "text",
                    "token_count": 1,
                    "summary": f"summary {doc}",
                    "text_hash": "h",
                }
            ],
        )
        warehouse.insert_rows(
            conn,
            "entities",
            [
                {
                    "entity_id": f"{chunk}/e{i}",
                    "chunk_id": chunk,
                    "document_id": doc,
                    "collection": collection,
                    "name": n,
                    "entity_type": t,
                    "description": f"{n} in {doc}",
                    "node_id": entity_node_id(n, t),
                }
                for i, (n, t) in enumerate(entities)
            ],
        )
        warehouse.insert_rows(
            conn,
            "relationships",
            [
                {
                    "relationship_id": f"{chunk}/r{i}",
                    "chunk_id": chunk,
                    "document_id": doc,
                    "collection": collection,
                    "source_name": a,
                    "target_name": b,
                    "keywords": ["k"],
                    "tags": [f"tag-{doc}"],
                    "description": f"{a} and {b} ({doc})",
                    "source_node_id": entity_node_id(a, types[a]),
                    "target_node_id": entity_node_id(b, types[b]),
                }
                for i, (a, b) in enumerate(relations)
            ],
        )
        warehouse.insert_rows(
            conn,
            "atomic_questions",
            [
                {
                    "question_id": f"{chunk}/q{i}",
                    "chunk_id": chunk,
                    "document_id": doc,
                    "collection": collection,
                    "seq": i,
                    "question": f"Question {i} of {doc}?",
                }
                for i in range(2)
            ],
        )


def drop_document(conn, doc: str) -> None:
    """What the stages do for a removed document: each deletes its own rows."""
    with warehouse.transaction(conn):
        for table in ("documents", "chunks", "chunk_state", "entities", "relationships", "atomic_questions"):
            warehouse.delete_where_in(conn, table, "document_id", [doc])


def remove_documents(conn, docs: list[str], now):
    for doc in docs:
        drop_document(conn, doc)
    return update_graph(conn, docs, now)


def node(conn, node_id):
    rows = warehouse.fetch_dicts(conn, "SELECT * FROM kg_nodes WHERE node_id = ?", [node_id])
    return rows[0] if rows else None


def edge(conn, edge_id):
    rows = warehouse.fetch_dicts(conn, "SELECT * FROM kg_edges WHERE edge_id = ?", [edge_id])
    return rows[0] if rows else None


RELATED = "RELATED:compound:metformin->protein:ampk"


def test_entities_merge_across_documents_and_shared_edges_are_reinforced(conn):
    put_document(conn, "a", "longevity", [("Metformin", "compound"), ("AMPK", "protein")], [("Metformin", "AMPK")])
    report = update_graph(conn, ["a"], T0)
    assert report.nodes_created == 2 + 1 + 1 + 2  # entities, chunk, title, questions
    assert report.edges_created == 1 + 2 + 1 + 2  # RELATED, MENTIONS, TITLE_OF, ANSWERS_IN
    assert edge(conn, RELATED)["strength"] == pytest.approx(0.5)

    put_document(
        conn,
        "b",
        "microbiome",
        [("metformin", "compound"), ("AMPK", "protein"), ("Akkermansia", "microbe")],
        [("metformin", "AMPK"), ("metformin", "Akkermansia")],
    )
    report = update_graph(conn, ["b"], T0 + timedelta(days=1))
    assert report.edges_reinforced == 1
    shared = edge(conn, RELATED)
    assert shared["strength"] == pytest.approx(1 - 0.5 * 0.9)
    assert shared["support_count"] == 2
    assert shared["last_reinforced_at"] is not None
    metformin = node(conn, "compound:metformin")
    assert metformin["support_count"] == 2
    assert '"longevity"' in metformin["energy"] and '"microbiome"' in metformin["energy"]
    assert conn.execute("SELECT count(*) FROM kg_nodes WHERE node_kind = 'entity'").fetchone()[0] == 3
    assert edge(conn, "ANSWERS_IN:question:b#c0000/q1->chunk:b#c0000") is not None
    assert edge(conn, "MENTIONS:chunk:b#c0000->microbe:akkermansia") is not None


def test_reingesting_keeps_graph_state_and_replaces_only_its_support(conn):
    put_document(
        conn,
        "a",
        "c",
        [("Metformin", "compound"), ("AMPK", "protein"), ("Liver", "anatomy")],
        [("Metformin", "AMPK"), ("Metformin", "Liver")],
    )
    put_document(conn, "b", "c", [("Metformin", "compound"), ("AMPK", "protein")], [("Metformin", "AMPK")])
    update_graph(conn, ["a", "b"], T0)
    assert edge(conn, RELATED)["strength"] == pytest.approx(1 - 0.5 * 0.9)  # two documents at creation
    conn.execute(
        "UPDATE kg_edges SET activation_count = 7, strength = 0.8, last_activated_at = ? WHERE edge_id = ?",
        [T0, RELATED],
    )
    conn.execute(
        """INSERT INTO kg_edges VALUES ('USER:liver->ampk', 'anatomy:liver', 'protein:ampk', 'user_link', 0.9, 3, ?,
        NULL, NULL, 'user', true, 'a user note', [], NULL, NULL, 0)""",
        [T0],
    )

    # document a is edited: Liver and the Metformin->Liver relation are gone from it
    put_document(conn, "a", "c", [("Metformin", "compound"), ("AMPK", "protein")], [("Metformin", "AMPK")])
    report = update_graph(conn, ["a"], T0 + timedelta(days=2))
    assert report.edges_reinforced == 0  # the same document again is no new evidence
    shared = edge(conn, RELATED)
    assert shared["activation_count"] == 7 and shared["strength"] == pytest.approx(0.8)
    assert edge(conn, "RELATED:compound:metformin->anatomy:liver") is None
    assert edge(conn, "USER:liver->ampk") is not None
    assert node(conn, "anatomy:liver") is not None  # kept: a user-made edge still uses it
    assert dangling_edges(conn).passed


def test_removing_a_document_keeps_what_others_support(conn):
    put_document(
        conn,
        "a",
        "c",
        [("Metformin", "compound"), ("AMPK", "protein"), ("Liver", "anatomy")],
        [("Metformin", "AMPK"), ("AMPK", "Liver")],
    )
    put_document(conn, "b", "c", [("Metformin", "compound"), ("AMPK", "protein")], [("Metformin", "AMPK")])
    update_graph(conn, ["a", "b"], T0)
    report = remove_documents(conn, ["a"], T0 + timedelta(days=1))
    assert report.nodes_deleted == 1 + 1 + 1 + 2  # Liver, a's chunk, a's title, a's questions
    assert node(conn, "anatomy:liver") is None
    assert node(conn, "compound:metformin")["support_count"] == 1
    assert edge(conn, RELATED)["support_count"] == 1
    assert conn.execute("SELECT count(*) FROM kg_node_support WHERE document_id = 'a'").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM kg_edge_support WHERE document_id = 'a'").fetchone()[0] == 0
    assert dangling_edges(conn).passed

    remove_documents(conn, ["b"], T0 + timedelta(days=2))
    assert conn.execute("SELECT count(*) FROM kg_nodes").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM kg_edges").fetchone()[0] == 0


def test_a_failing_update_leaves_the_graph_as_it_was(conn, monkeypatch):
    put_document(conn, "a", "c", [("Metformin", "compound"), ("AMPK", "protein")], [("Metformin", "AMPK")])
    update_graph(conn, ["a"], T0)
    before = (
        conn.execute("SELECT count(*) FROM kg_nodes").fetchone()[0],
        conn.execute("SELECT count(*) FROM kg_edges").fetchone()[0],
    )
    import kg_pipelines.graph.graph_building as gb

    def boom(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(gb, "_refresh_derived", boom)
    drop_document(conn, "a")
    with pytest.raises(RuntimeError):
        update_graph(conn, ["a"], T0)
    after = (
        conn.execute("SELECT count(*) FROM kg_nodes").fetchone()[0],
        conn.execute("SELECT count(*) FROM kg_edges").fetchone()[0],
    )
    assert after == before
    assert conn.execute("SELECT count(*) FROM kg_node_support WHERE document_id = 'a'").fetchone()[0] > 0


def _state(conn, doc: str, when) -> None:
    with warehouse.transaction(conn):
        warehouse.delete_where_in(conn, "chunk_state", "document_id", [doc])
        warehouse.insert_rows(
            conn,
            "chunk_state",
            [
                {
                    "chunk_id": f"{doc}#c0000",
                    "document_id": doc,
                    "collection": "c",
                    "stage": stage,
                    "attempts": 1,
                    "status": "done",
                    "input_hash": "i",
                    "rounds": 0,
                    "updated_at": when,
                }
                for stage in ("extract", "questions")
            ],
        )


def test_sync_consumes_only_what_changed_and_takes_out_removed_documents(conn):
    scope = SyncScope("c")
    for doc in ("a", "b"):
        put_document(conn, doc, "c", [("Metformin", "compound"), ("AMPK", "protein")], [("Metformin", "AMPK")])
        _state(conn, doc, T0)
    put_document(conn, "z", "other", [("Rapamycin", "compound")], [])
    _state(conn, "z", T0)
    first = sync_graph(conn, scope, T0)
    assert sorted(first.synced_documents) == ["a", "b"]  # not z: another collection
    assert documents_to_sync(conn, scope) == []  # nothing changed since
    assert sync_graph(conn, scope, T0).documents == 0

    _state(conn, "b", T0 + timedelta(hours=1))  # a stage rewrote b's chunk
    assert documents_to_sync(conn, scope) == [("b", documents_to_sync(conn, scope)[0][1])]
    assert sync_graph(conn, scope, T0 + timedelta(hours=1)).synced_documents == ["b"]

    drop_document(conn, "a")
    report = sync_graph(conn, scope, T0 + timedelta(hours=2))
    assert report.removed_documents == ["a"]
    assert conn.execute("SELECT count(*) FROM kg_node_support WHERE document_id = 'a'").fetchone()[0] == 0
    assert conn.execute("SELECT document_id FROM graph_documents ORDER BY 1").fetchall() == [("b",)]
    assert node(conn, "compound:metformin")["support_count"] == 1

    # re-processing on purpose: the forced document is synced even though nothing changed
    assert sync_graph(conn, SyncScope("c", frozenset({"b"})), T0 + timedelta(hours=3)).synced_documents == ["b"]


# -- type conflicts: one node per name, of the most specific type ----------------------------------


def entity_nodes(conn, key: str) -> list[tuple[str, str]]:
    return conn.execute(
        "SELECT node_id, node_type FROM kg_nodes WHERE node_kind = 'entity' AND node_id LIKE '%:' || ? ORDER BY 1",
        [key],
    ).fetchall()


def test_a_name_typed_concept_in_one_document_and_specific_in_another_is_one_node(conn):
    # the same lipid extracted as a plain concept (a list item) in one document, a compound in the next
    put_document(
        conn,
        "trial",
        "c",
        [("Palmitoylethanolamide", "concept"), ("PPAR-alpha", "protein")],
        [("Palmitoylethanolamide", "PPAR-alpha")],
    )
    update_graph(conn, ["trial"], T0)
    conn.execute(
        "UPDATE kg_edges SET activation_count = 4, strength = 0.7 WHERE edge_id = ?",
        ["RELATED:concept:palmitoylethanolamide->protein:ppar alpha"],
    )
    assert entity_nodes(conn, "palmitoylethanolamide") == [("concept:palmitoylethanolamide", "concept")]

    put_document(
        conn,
        "review",
        "c",
        [("Palmitoylethanolamide", "compound"), ("Mast Cells", "cell_type")],
        [("Palmitoylethanolamide", "Mast Cells")],
    )
    report = update_graph(conn, ["review"], T0 + timedelta(days=1))
    # the earlier concept node was re-keyed, not left beside the compound
    assert entity_nodes(conn, "palmitoylethanolamide") == [("compound:palmitoylethanolamide", "compound")]
    assert report.nodes_retyped == 1
    moved = node(conn, "compound:palmitoylethanolamide")
    assert moved["created_at"] == T0 and moved["support_count"] == 2 and moved["topic_key"] == "type:compound"
    # its edges moved with it and kept their state; support rows follow
    related = edge(conn, "RELATED:compound:palmitoylethanolamide->protein:ppar alpha")
    assert related is not None and related["activation_count"] == 4 and related["strength"] == pytest.approx(0.7)
    assert related["source_topic_key"] == "type:compound" and related["support_count"] == 1
    assert edge(conn, "RELATED:concept:palmitoylethanolamide->protein:ppar alpha") is None
    assert edge(conn, "MENTIONS:chunk:trial#c0000->compound:palmitoylethanolamide") is not None
    assert conn.execute("SELECT count(*) FROM kg_node_support WHERE node_id LIKE 'concept:%'").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM kg_edge_support WHERE edge_id LIKE '%concept:%'").fetchone()[0] == 0
    assert dangling_edges(conn).passed

    # a later document typing it concept again joins the compound node; none comes back
    put_document(conn, "note", "c", [("palmitoylethanolamide", "concept")], [])
    update_graph(conn, ["note"], T0 + timedelta(days=2))
    assert entity_nodes(conn, "palmitoylethanolamide") == [("compound:palmitoylethanolamide", "compound")]
    assert node(conn, "compound:palmitoylethanolamide")["support_count"] == 3

    # the only document typing it goes: the name falls back to its one remaining type
    remove_documents(conn, ["review"], T0 + timedelta(days=3))
    assert entity_nodes(conn, "palmitoylethanolamide") == [("concept:palmitoylethanolamide", "concept")]
    assert edge(conn, "RELATED:concept:palmitoylethanolamide->protein:ppar alpha")["activation_count"] == 4
    assert dangling_edges(conn).passed


def test_between_specific_types_the_type_given_most_often_wins_then_the_fixed_order(conn):
    put_document(conn, "a", "c", [("TFEB", "gene"), ("Lysosome", "anatomy")], [("TFEB", "Lysosome")])
    put_document(conn, "b", "c", [("TFEB", "protein")], [])
    update_graph(conn, ["a", "b"], T0)
    # one vote each: a tie goes to the earlier type of TYPE_PRECEDENCE (gene before protein)
    assert entity_nodes(conn, "tfeb") == [("gene:tfeb", "gene")]
    put_document(conn, "c", "c", [("TFEB", "protein"), ("Lysosome", "anatomy")], [("Lysosome", "TFEB")])
    update_graph(conn, ["c"], T0 + timedelta(days=1))
    assert entity_nodes(conn, "tfeb") == [("protein:tfeb", "protein")]  # two protein votes to one
    assert edge(conn, "RELATED:protein:tfeb->anatomy:lysosome") is not None
    assert edge(conn, "RELATED:anatomy:lysosome->protein:tfeb") is not None
    assert conn.execute("SELECT count(*) FROM kg_edges WHERE edge_id LIKE '%gene:tfeb%'").fetchone()[0] == 0
    assert dangling_edges(conn).passed


def test_an_edge_between_two_typings_of_one_name_is_dropped_and_parallel_edges_fold(conn):
    put_document(
        conn,
        "a",
        "c",
        [("Urolithin A", "concept"), ("Mitophagy", "biological_process")],
        [("Urolithin A", "Mitophagy")],
    )
    put_document(conn, "b", "c", [("Urolithin A", "concept"), ("PINK1", "gene")], [("Urolithin A", "PINK1")])
    update_graph(conn, ["a", "b"], T0)
    conn.execute(
        """INSERT INTO kg_edges VALUES ('USER:ua', 'concept:urolithin a', 'biological_process:mitophagy',
        'user_link', 0.9, 2, ?, NULL, NULL, 'user', true, 'a user note', [], NULL, NULL, 0)""",
        [T0],
    )
    put_document(
        conn,
        "c",
        "c",
        [("Urolithin A", "compound"), ("Mitophagy", "biological_process")],
        [("Urolithin A", "Mitophagy")],
    )
    update_graph(conn, ["c"], T0 + timedelta(days=1))
    assert entity_nodes(conn, "urolithin a") == [("compound:urolithin a", "compound")]
    folded = edge(conn, "RELATED:compound:urolithin a->biological_process:mitophagy")
    assert folded["support_count"] == 2  # a's support moved onto the edge c created
    user = edge(conn, "USER:ua")  # a user's edge keeps its id and follows the node
    assert user["source_id"] == "compound:urolithin a" and user["created_by"] == "user"
    assert edge(conn, "RELATED:compound:urolithin a->gene:pink1")["support_count"] == 1
    assert dangling_edges(conn).passed


def _cooccurrence_only(conn, doc: str) -> None:
    conn.execute("UPDATE relationships SET tags = ['co-occurrence'] WHERE document_id = ?", [doc])


@pytest.mark.parametrize("cued_first", [True, False])
def test_a_bare_cooccurrence_supports_the_direction_a_cue_stated(conn, cued_first):
    # "Berberine activates AMPK" in one document; "drugs that activate AMPK, including berberine" in another
    cued = ("cued", [("Berberine", "compound"), ("AMPK", "protein")], [("Berberine", "AMPK")])
    bare = ("bare", [("AMPK", "protein"), ("Berberine", "compound")], [("AMPK", "Berberine")])
    for doc, entities, relations in (cued, bare) if cued_first else (bare, cued):
        put_document(conn, doc, "c", entities, relations)
        if doc == "bare":
            _cooccurrence_only(conn, doc)
        update_graph(conn, [doc], T0 + timedelta(days=1 if doc == (bare if cued_first else cued)[0] else 0))
    forward = edge(conn, "RELATED:compound:berberine->protein:ampk")
    assert edge(conn, "RELATED:protein:ampk->compound:berberine") is None
    assert forward["support_count"] == 2 and forward["keywords"] == ["co-occurrence", "tag-cued"]
    assert dangling_edges(conn).passed
    # re-syncing the bare document does not bring the reversed edge back, nor reinforce again
    strength = forward["strength"]
    update_graph(conn, ["bare"], T0 + timedelta(days=3))
    assert edge(conn, "RELATED:protein:ampk->compound:berberine") is None
    assert edge(conn, "RELATED:compound:berberine->protein:ampk")["strength"] == pytest.approx(strength)
    # without the cue, the co-occurrence keeps the pair's one edge, as a co-occurrence
    remove_documents(conn, ["cued"], T0 + timedelta(days=4))
    related = conn.execute("SELECT edge_id, keywords, support_count FROM kg_edges WHERE edge_type = 'RELATED'")
    assert related.fetchall() == [("RELATED:compound:berberine->protein:ampk", ["co-occurrence"], 1)]
    assert dangling_edges(conn).passed


def test_two_bare_cooccurrences_keep_their_edges(conn):
    put_document(conn, "a", "c", [("AMPK", "protein"), ("Berberine", "compound")], [("AMPK", "Berberine")])
    put_document(conn, "b", "c", [("AMPK", "protein"), ("Berberine", "compound")], [("Berberine", "AMPK")])
    _cooccurrence_only(conn, "a")
    _cooccurrence_only(conn, "b")
    update_graph(conn, ["a", "b"], T0)
    assert edge(conn, "RELATED:protein:ampk->compound:berberine") is not None
    assert edge(conn, "RELATED:compound:berberine->protein:ampk") is not None


def test_a_title_names_the_entities_of_its_document_whose_names_it_holds_as_words(conn):
    put_document(
        conn,
        "akk",
        "c",
        [("Akkermansia Muciniphila", "microbe"), ("Mucin", "compound"), ("Metabolic Syndrome", "disease")],
        [("Akkermansia Muciniphila", "Mucin")],
    )
    title = "Akkermansia muciniphila and Metabolic Health"
    conn.execute("UPDATE documents SET title = ? WHERE document_id = 'akk'", [title])
    update_graph(conn, ["akk"], T0)
    names = conn.execute("SELECT target_id FROM kg_edges WHERE edge_type = 'NAMES' ORDER BY 1").fetchall()
    # whole words only: "Mucin" is inside "muciniphila", "Metabolic Syndrome" is not in the title
    assert names == [("microbe:akkermansia muciniphila",)]
    assert node(conn, "title:akkermansia muciniphila and metabolic health")["node_kind"] == "title"
    entities = conn.execute("SELECT name FROM kg_nodes WHERE node_kind = 'entity' ORDER BY 1").fetchall()
    assert entities == [("Akkermansia Muciniphila",), ("Metabolic Syndrome",), ("Mucin",)]
