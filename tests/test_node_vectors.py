"""Node vectors: a text is embedded once; a node whose text another row has takes that vector."""

import numpy as np
import pytest

from kg_pipelines.stores import warehouse
from kg_pipelines.stores.node_vectors import NodeVectors, node_text, sync_node_vectors
from tests.test_dedup import NameEmbedder, add_node


class CountingEmbedder(NameEmbedder):
    """The trigram test embedder, recording every text it was asked to embed."""

    def __init__(self):
        super().__init__()
        self.seen: list[str] = []

    def embed(self, texts):
        self.seen.extend(texts)
        return super().embed(texts)


@pytest.fixture
def conn(tmp_path):
    c = warehouse.connect(tmp_path / "w.duckdb")
    yield c
    c.close()


def test_a_text_is_embedded_once_and_a_name_seen_again_reuses_its_vector(conn, tmp_path):
    store = NodeVectors(tmp_path / "lancedb")
    embedder = CountingEmbedder()
    add_node(conn, "person:krakow", "Kraków", node_type="person")
    add_node(conn, "title:krakow", "Kraków", node_type="title", node_kind="title")
    add_node(conn, "place:vistula", "Vistula", node_type="place")
    done = sync_node_vectors(conn, store, embedder)
    assert done.embedded == 3 and done.reused == 1
    assert sorted(embedder.seen) == ["Kraków", "Vistula"]  # the title and the entity share one text

    # a later run: a node of another type with a name already embedded is not embedded again
    add_node(conn, "place:krakow", "Kraków", node_type="place")
    add_node(conn, "place:warsaw", "Warsaw", node_type="place")
    embedder.seen.clear()
    done = sync_node_vectors(conn, store, embedder)
    assert done.embedded == 2 and done.reused == 1 and embedder.seen == ["Warsaw"]
    vectors = store.vectors(["place:krakow", "person:krakow", "place:warsaw"])
    assert np.allclose(vectors["place:krakow"], vectors["person:krakow"])
    assert np.allclose(vectors["place:warsaw"], NameEmbedder().embed([node_text("Warsaw", None)])[0])
    assert store.count() == 5

    # nothing changed: nothing embedded, nothing written
    embedder.seen.clear()
    assert sync_node_vectors(conn, store, embedder).embedded == 0 and embedder.seen == []


def test_a_node_is_embedded_from_its_name_and_the_words_of_its_description_around_it():
    sentence = (
        "Co-written by the Swedish synth-pop group Little Dragon, who appeared on the original version, "
        "it is an electro funk record that serves as an ode to his mother."
    )
    # the mention and four words on each side; what lies further from the name is left out
    window = "the Swedish synth-pop group Little Dragon, who appeared on the"
    assert node_text("Little Dragon", sentence) == f"Little Dragon. {window}"
    # the first mention, whatever its case
    found = "In fasting mice, hepatic foxo1 and FOXO1 in muscle regulate glucose output."
    assert node_text("FOXO1", found) == "FOXO1. In fasting mice, hepatic foxo1 and FOXO1 in muscle"
    # no mention: the first words, as many as a window around a name of this length holds
    address = "12 kingsford street, flat 3, brunswick heights, west end, new town 2600 act australia"
    first = "12 kingsford street, flat 3, brunswick heights, west end, new"
    assert node_text("John Smith", address) == f"John Smith. {first}"
    # a short description stays whole; a description that is the name adds nothing
    assert node_text("Metformin", "Metformin lowers glucose.") == "Metformin. Metformin lowers glucose."
    assert node_text("Metformin", "Metformin") == "Metformin"


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("FOXO1", "hepatic foxo1 and FOXO1"),
        ("Little Dragon", "the group LITTLE DRAGON, who"),
        ("Smith", "no mention here"),
        ("a.b", "aXb then a.b"),  # the name is text, not a pattern
        ("Straße", "die STRASSE und die straße"),  # non-ASCII: as re.IGNORECASE matches it
        ("kelvin", "the \u212aelvin scale"),  # Kelvin sign K: a case fold of k outside ASCII
        ("İstanbul", "from istanbul to İstanbul"),
    ],
)
def test_the_first_mention_is_where_a_case_blind_search_finds_the_name(name, text):
    import re

    from kg_pipelines.stores.node_vectors import first_mention

    found = re.search(re.escape(name), text, re.IGNORECASE)
    assert first_mention(name, text) == (found.span() if found else None)


def test_new_texts_go_to_the_embedder_shortest_first_and_each_node_keeps_its_own_vector(conn, tmp_path, monkeypatch):
    import kg_pipelines.stores.node_vectors as node_vectors

    monkeypatch.setattr(node_vectors, "BATCH", 2)  # calls of two texts

    class CallRecorder(NameEmbedder):
        calls: list[list[str]] = []

        def embed(self, texts):
            self.calls.append(list(texts))
            return super().embed(texts)

    names = ["Bartholomew Fairweather", "Ann", "Clementine Hargreaves-Smith", "Bo", "Dmitri Volkov"]
    for i, name in enumerate(names):
        add_node(conn, f"person:{i}", name, node_type="person")
    embedder = CallRecorder()
    sync_node_vectors(conn, NodeVectors(tmp_path / "lancedb"), embedder)
    # a call holds texts of like length: the short names together, the long ones together
    assert embedder.calls == [
        ["Bo", "Ann"],
        ["Dmitri Volkov", "Bartholomew Fairweather"],
        ["Clementine Hargreaves-Smith"],
    ]
    vectors = NodeVectors(tmp_path / "lancedb").vectors([f"person:{i}" for i in range(len(names))])
    for i, name in enumerate(names):
        assert np.allclose(vectors[f"person:{i}"], NameEmbedder().embed([name])[0])


def test_a_node_with_its_own_description_is_embedded_from_its_window_once(conn, tmp_path):
    store = NodeVectors(tmp_path / "lancedb")
    embedder = CountingEmbedder()
    add_node(conn, "group:little dragon", "Little Dragon", node_type="organization")
    sentence = "Co-written by the Swedish synth-pop group Little Dragon, who appeared on the original version."
    conn.execute("UPDATE kg_nodes SET description = ? WHERE node_id = 'group:little dragon'", [sentence])
    assert sync_node_vectors(conn, store, embedder).embedded == 1
    text = node_text("Little Dragon", sentence)
    assert embedder.seen == [text] and text != "Little Dragon"
    assert np.allclose(store.vectors(["group:little dragon"])["group:little dragon"], NameEmbedder().embed([text])[0])
    # the row keeps the hash of that text: the next sync finds nothing to do
    embedder.seen.clear()
    assert sync_node_vectors(conn, store, embedder).embedded == 0 and embedder.seen == []
