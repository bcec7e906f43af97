"""Chunk retrieval over several collections: the graph walk's scores compare across collections
(one walk over the one graph), so a question about one collection's subject is answered from that
collection; text rankings (each collection with its own embedding model) are fused by rank: the
passage that answers a question ranks first in its collection and no lower than second overall (the
other collection's best may tie with it: ranks do not say which collection's best is relevant)."""

from __future__ import annotations

import pytest

from kg_pipelines.retrieval.chunk_retrieval import ChunkRetriever
from tests.conftest import ingested_graph

# invented facts: one collection about a fictional observatory, one about unrelated plants
ASTRONOMY = {
    "velmora_observatory.md": "# Velmora Observatory\n\nThe Velmora Observatory is a mountain observatory on the "
    "Tessaly Ridge. Ilse Marchetti founded the Velmora Observatory in 1931 and directed it for twenty years.\n",
    "ilse_marchetti.md": "# Ilse Marchetti\n\nIlse Marchetti was an astronomer who catalogued variable stars. "
    "Ilse Marchetti spent her childhood in Karsten Falls, a fishing village on the northern coast.\n",
    "lens_making.md": "# Lens Making\n\nThe Velmora Observatory ordered its refracting lens from a glassworks in "
    "Karsten Falls. Grinding a lens of 60 centimetres took the glassworks three winters.\n",
}
BOTANY = {
    "coastal_lichens.md": "# Coastal Lichens\n\nCoastal lichens grow on rocks splashed by sea water. A lichen of "
    "the genus Verrucaria produces a pigment that protects it from ultraviolet light.\n",
    "salt_marsh_grasses.md": "# Salt Marsh Grasses\n\nCordgrass grows in salt marshes that the tide floods twice a "
    "day. Its roots hold the mud together and shelter young fish.\n",
}
QUESTION = "Who founded the Velmora Observatory?"


@pytest.fixture(scope="module")
def two_collections(tmp_path_factory):
    documents = {f"astronomy/{name}": text for name, text in ASTRONOMY.items()}
    documents |= {f"botany/{name}": text for name, text in BOTANY.items()}
    with ingested_graph(tmp_path_factory.mktemp("two_collections"), documents) as graph:
        yield ChunkRetriever(graph.settings)


def test_the_graph_walk_ranks_across_collections_by_its_own_scores(two_collections):
    chunks = two_collections.retrieve(QUESTION, k=3, variant="graph_seeded")
    assert chunks[0].title == "Velmora Observatory"
    # the walk starts at the names the question links (Velmora Observatory): the other collection's
    # passages are reached from nowhere but their own text seeds, far below
    assert [c.collection for c in chunks[:2]] == ["astronomy", "astronomy"], [(c.title, c.score) for c in chunks]
    assert chunks == sorted(chunks, key=lambda c: -c.score)


# a question for each document, its answer in that document only (across both collections)
ANSWERED_IN = {
    QUESTION: "Velmora Observatory",
    "Where did Ilse Marchetti spend her childhood?": "Ilse Marchetti",
    "How many winters did grinding the refracting lens take?": "Lens Making",
    "Which lichen pigment protects against ultraviolet light?": "Coastal Lichens",
    "What do the roots of cordgrass hold together?": "Salt Marsh Grasses",
}


@pytest.mark.parametrize(("question", "title"), list(ANSWERED_IN.items()))
def test_text_rankings_fused_across_collections_put_the_answering_passage_first_in_its_collection(
    two_collections, question, title
):
    chunks = two_collections.retrieve(question, k=5, variant="hybrid")
    titles = [c.title for c in chunks]
    answering = titles.index(title)
    # the passage that answers is its collection's first, and no passage of its own collection is above
    assert [c.title for c in chunks if c.collection == chunks[answering].collection][0] == title, titles
    # rank fusion (seed 004) compares ranks, not the collections' scores: the other collection's best
    # (which answers nothing) may tie with it, nothing else is above it
    assert answering <= 1, titles
    assert chunks == sorted(chunks, key=lambda c: -c.score)
