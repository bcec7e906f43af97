"""The relation's hop (docs/retrieval.md, "The relation's hop"), on a hand-made snapshot and a small
LanceDB chunk table: the walk reaches the bridge entity the first passage mentions, and among the
bridge's passages the one that carries the question's relation words ("spouse") seeds the second
walk, ahead of the bridge's other passages and of passages that only resemble the question."""

from __future__ import annotations

import time
import zlib

import numpy as np
import pyarrow as pa
import pytest

from kg_pipelines.config import load_settings
from kg_pipelines.retrieval.chunk_retrieval import ChunkRetriever
from kg_pipelines.retrieval.entity_linking import LinkedNode, relation_words, written_words
from kg_pipelines.stores.graph_snapshot import GraphSnapshot
from kg_pipelines.stores.vectors import VectorStore, vectors_column
from tests.test_chunk_retrieval import chunk_rows
from tests.test_graph_ranking import tables

# Invented facts. The question names the observatory; its passage names the founder (the bridge);
# six passages mention the founder, and only one of them states her spouse, in a passage titled
# by the spouse's name (so no title leads there from the question or from the founder's name).
# The walk reaches every passage of the founder alike; the spouse's comes last of them in order.
PASSAGES = {
    "velmora": (
        "Velmora Observatory",
        "The Velmora Observatory stands on the Tessaly Ridge in Europe. Ilse Marchetti was its founder "
        "in 1931 and directed it for twenty years.",
        ["ilse marchetti", "tessaly ridge", "europe"],
    ),
    "ilse": (
        "Ilse Marchetti",
        "Ilse Marchetti was an astronomer who catalogued variable stars in the southern sky.",
        ["ilse marchetti"],
    ),
    "teaching": (
        "Karsten College",
        "Karsten College hired Ilse Marchetti to teach celestial mechanics.",
        ["ilse marchetti"],
    ),
    "catalogue": (
        "Marchetti Catalogue",
        "The Marchetti Catalogue lists 400 variable stars that Ilse Marchetti observed.",
        ["ilse marchetti"],
    ),
    "comet": ("Comet Aldane", "Comet Aldane was first seen by Ilse Marchetti in 1936.", ["ilse marchetti"]),
    "medal": (
        "Orrin Medal",
        "The Orrin Medal honours the founder of an observatory: founder after founder, Ilse Marchetti in 1950.",
        ["ilse marchetti"],
    ),
    "rheder": (
        "Tomas Rheder",
        "Tomas Rheder was a bridge engineer. His spouse was the astronomer Ilse Marchetti, whom he married in 1925.",
        ["ilse marchetti"],
    ),
}
# a hub: twenty passages mention Europe, which the first passage mentions too; one of them is all
# about spouses, but a bridge in twenty passages says little about which one
PASSAGES["royals"] = (
    "Royal Spouses",
    "Royal spouses: the spouse of a king in Europe kept archives, built abbeys, funded hospitals, ran estates, "
    "raised heirs and wrote letters.",
    ["europe"],
)
for n in range(19):
    PASSAGES[f"europe{n}"] = (f"European Town {n}", f"Town number {n} lies in Europe.", ["europe"])
# passages that resemble the question (founder, spouse, observatory) and answer nothing: they fill
# the text ranking's best ten, as the many look-alikes of a real corpus do
for place in (
    "Harrow",
    "Pell",
    "Aune",
    "Brisk",
    "Corvel",
    "Dunmere",
    "Esker",
    "Fallow",
    "Gorse",
    "Hythe",
    "Ivel",
    "Jarrow",
    "Keld",
    "Lund",
):
    PASSAGES[place.lower()] = (
        f"{place} Observatory",
        f"The founder of the {place} Observatory and his spouse gave the observatory its first telescope.",
        [f"{place.lower()} observatory"],
    )
QUESTION = "Who was the spouse of the founder of Velmora Observatory?"


class WordEmbedder:
    """Bag of hashed words: texts sharing words are near (a stand-in for a model that would make
    the look-alikes resemble the question)."""

    model_name = "fake"

    def embed(self, texts):
        vectors = np.zeros((len(texts), 256), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().replace(".", " ").replace(",", " ").split():
                vectors[row, zlib.crc32(word.encode()) % 256] += 1.0
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)


def snapshot_tables(passages: dict = PASSAGES) -> GraphSnapshot:
    """A snapshot of ``passages`` (chunk id -> title, text, entity names): one title node and one
    chunk per passage, its MENTIONS, and NAMES from a title to the entity of the same name."""
    nodes, edges = [], []
    entities = sorted({e for _, _, mentions in passages.values() for e in mentions})
    nodes += [(f"entity:{e}", "entity", e.title()) for e in entities]
    for chunk, (title, _, mentions) in passages.items():
        key = title.lower()
        nodes += [(f"chunk:{chunk}", "chunk", f"{title} [1]"), (f"title:{key}", "title", title)]
        edges.append(("TITLE_OF", f"title:{key}", f"chunk:{chunk}", 0.5))
        edges += [("MENTIONS", f"chunk:{chunk}", f"entity:{e}", 0.5) for e in mentions]
        if key in entities:
            edges.append(("NAMES", f"title:{key}", f"entity:{key}", 0.5))
    node_table, edge_table = tables(nodes, edges)
    chunks = pa.table(
        {
            "chunk_id": list(passages),
            "document_id": [f"c/{c}" for c in passages],
            "collection": ["c"] * len(passages),
            "seq": [0] * len(passages),
            "title": [title for title, _, _ in passages.values()],
        }
    )
    empty = pa.table({"id": pa.array([], pa.string())})
    return GraphSnapshot("v1", None, time.time(), node_table, edge_table, empty, empty, chunks, empty)


def passage_retriever(tmp_path, passages: dict = PASSAGES) -> ChunkRetriever:
    """A retriever over ``passages`` in collection ``c``: their chunks embedded by ``WordEmbedder``
    into LanceDB, the snapshot of ``snapshot_tables``, no vector linking."""
    settings = load_settings(tmp_path)
    settings = settings.model_copy(
        update={"retrieval": settings.retrieval.model_copy(update={"link_by_vector": False})}
    )
    store = VectorStore.for_settings(settings)
    rows = chunk_rows([(c, text) for c, (_, text, _) in passages.items()])
    vectors = vectors_column(WordEmbedder().embed(rows.column("text").to_pylist()))
    store.replace(
        "chunks", "c", "chunk_id", [], rows.set_column(rows.schema.get_field_index("vector"), "vector", vectors)
    )
    snapshot = snapshot_tables(passages)
    retriever = ChunkRetriever(settings, snapshot_loader=lambda: snapshot)
    retriever._embedder_for = lambda model: WordEmbedder()
    return retriever


@pytest.fixture
def retriever(tmp_path):
    return passage_retriever(tmp_path)


def ranked(retriever: ChunkRetriever, **options) -> list[str]:
    retriever.options = retriever.settings.retrieval.model_copy(update=options)
    ranking = retriever.rank(QUESTION, ["c"])
    return [chunk for chunk, _ in retriever.variant_lists(ranking, ["c"], "graph_seeded")["c"]]


def test_relation_words_are_the_question_less_its_names_and_function_words():
    link = LinkedNode(0, "title:velmora observatory", "Velmora Observatory", "exact", 1.0, "Velmora Observatory")
    assert relation_words(QUESTION, [link]) == ["spouse", "founder"]
    assert "founder" in written_words(["Ilse Marchetti was its founder."])
    # a word the question writes in lower case stays a relation word even if a node bears it
    common = LinkedNode(1, "entity:founder", "Founder", "exact", 1.0, "founder")
    assert relation_words(QUESTION, [link, common]) == ["spouse", "founder"]


def test_the_bridge_passage_that_states_the_relation_seeds_the_second_walk(retriever):
    found = ranked(retriever)
    # the first hop, the passage titled by the bridge's name (one step nearer), then the spouse's
    assert found[:3] == ["velmora", "ilse", "rheder"], found
    # the relation is what the first passage does not already say: "founder" is written there, so the
    # medal's founders do not count; and the hub's passage about spouses spreads thin
    assert found.index("medal") > 3 and found.index("royals") > 3, found
    # with one relation seed, it goes to the spouse's passage and not to the hub's
    assert ranked(retriever, relation_hop_seeds=1)[:3] == ["velmora", "ilse", "rheder"]
    # without the relation's hop the founder's other passages tie with it and come first
    off = ranked(retriever, relation_hop_passages=0)
    assert off[:2] == ["velmora", "ilse"] and off.index("rheder") > 4, off
