"""Names a question writes short, titles it composes from a bridge, and how much a title named in a
passage weighs (docs/retrieval.md, "Seeds and the walk"), on hand-made snapshots: a run that begins
a longer name links it; "Meet Me in <the bridge>" is a title the question names through the bridge
its first passage mentions; a passage that names many titles shares its weight among them."""

from __future__ import annotations

import pytest

from kg_pipelines.retrieval.chunk_retrieval import ChunkRetriever
from kg_pipelines.retrieval.entity_linking import (
    NameIndex,
    composed_titles,
    link_question,
    writes_name,
    written_words,
)
from kg_pipelines.retrieval.graph_ranking import build_passage_graph
from tests.test_graph_ranking import tables
from tests.test_relation_hop import passage_retriever


def name_graph(names: list[tuple[str, str]]):
    graph = build_passage_graph(*tables([(f"{kind}:{name.lower()}", kind, name) for kind, name in names], []))
    return graph, NameIndex.build(graph)


def test_a_run_that_begins_a_longer_name_links_it():
    graph, names = name_graph(
        [("title", "Tessaly Ridge Observatory"), ("title", "Orrin Vale Deep Space Radio Station")]
    )
    links = link_question("Who built Tessaly Ridge in the north?", graph, names)
    assert [(link.name, link.method, round(link.score, 2)) for link in links] == [
        ("Tessaly Ridge Observatory", "partial", 0.67)
    ]
    assert writes_name(links[0], "Who built Tessaly Ridge in the north?")
    # one word is too short a run to stand for a longer name
    assert link_question("Who built Tessaly?", graph, names) == []
    # a run that holds a name of its own is left to that name
    links = link_question(
        "Who built Tessaly Ridge?", *name_graph([("title", "Tessaly Ridge Observatory"), ("entity", "Tessaly")])
    )
    assert [(link.name, link.method) for link in links] == [("Tessaly", "exact")]
    # a run that writes less than half of the name's words does not stand for it
    assert link_question("Who runs Orrin Vale?", graph, names) == []
    # the whole name links exactly, as before
    links = link_question("Who built Tessaly Ridge Observatory?", graph, names)
    assert [(link.name, link.method) for link in links] == [("Tessaly Ridge Observatory", "exact")]


def test_a_title_composed_of_a_bridge_and_the_questions_words():
    graph, names = name_graph(
        [
            ("entity", "Port Varrow"),
            ("title", "Meet Me in Port Varrow"),
            ("title", "Port Varrow City"),
            ("title", "Port Varrow"),
            ("title", "Harbour of Port Varrow"),
            ("title", "Meet Me in Lindqvist"),
        ]
    )
    bridge = [graph.position["entity:port varrow"]]
    question = "Who plays John in Meet Me in the birthplace of Hyman Orlo?"
    found = composed_titles(question, bridge, names, graph, 0.5)
    # the bridge's own title composes nothing; "City" and "Harbour" are not the question's words;
    # a title that holds the question's words but not the bridge is not composed from it
    assert [(link.name, link.method, link.score) for link in found] == [("Meet Me in Port Varrow", "composed", 0.5)]
    # a word the first passage already writes is not left for the bridge to answer
    assert composed_titles(question, bridge, names, graph, 0.5, written_words(["They meet every year."])) == []
    # of the titles composed, those that use the most of the question's words
    graph, names = name_graph(
        [("entity", "Orlan"), ("title", "Orlan's coastal provinces"), ("title", "Provinces of Orlan")]
    )
    found = composed_titles(
        "The state where Ida Venn died has how many coastal provinces?",
        [graph.position["entity:orlan"]],
        names,
        graph,
        1.0,
    )
    assert [link.name for link in found] == ["Orlan's coastal provinces"]


# Invented facts. The question names Hyman Orlo; his passage names his birthplace, Port Varrow, among
# seven other places that are titles too. The film's passage, titled "Meet Me in Port Varrow",
# shares no name with the question and mentions nothing of his passage.
PLACES = ["Port Varrow", "Alden", "Brisk", "Corvel", "Dunmere", "Esker", "Fallow", "Gorse"]
PASSAGES = {
    "orlo": (
        "Hyman Orlo",
        "Hyman Orlo was a film producer born in Port Varrow. He worked in "
        + ", ".join(PLACES[1:])
        + " before he retired.",
        [p.lower() for p in PLACES],
    ),
    "film": (
        "Meet Me in Port Varrow",
        "Meet Me in Port Varrow is a musical film in which Tom Arden plays John Truett.",
        ["tom arden"],
    ),
    **{
        p.lower().replace(" ", "_"): (p, f"{p} is a small town with a market, a mill and a harbour.", [p.lower()])
        for p in PLACES
    },
}
QUESTION = "Who plays John in Meet Me in the Hyman Orlo birthplace?"


@pytest.fixture
def retriever(tmp_path):
    return passage_retriever(tmp_path, PASSAGES)


def ranked(retriever: ChunkRetriever) -> list[str]:
    ranking = retriever.rank(QUESTION, ["c"])
    return [chunk for chunk, _ in retriever.variant_lists(ranking, ["c"], "graph_seeded")["c"]]


def test_the_composed_title_seeds_the_second_walk(retriever, monkeypatch):
    found = ranked(retriever)
    assert set(found[:2]) == {"orlo", "film"}, found
    # without it, the places the first passage names come first
    monkeypatch.setattr(ChunkRetriever, "_composed_titles", lambda self, *args: [])
    found = ranked(retriever)
    assert found[0] == "orlo" and found.index("film") > 4, found


def test_a_passage_that_names_many_titles_shares_its_weight_among_them(retriever):
    ranking = retriever.rank(QUESTION, ["c"])
    first = retriever.variant_lists(ranking, ["c"], "graph")
    named = retriever._titles_named_by_best(first, ["c"])
    by_name = {link.name: link.score for link in named}
    # Hyman Orlo's passage (the walk's best) names the eight places: each weighs 1 / 8
    assert first["c"][0][0] == "orlo"
    assert by_name["Port Varrow"] == pytest.approx(1 / 8) and by_name["Gorse"] == pytest.approx(1 / 8)
