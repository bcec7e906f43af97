"""How the walk's seeds are linked and weighted (docs/retrieval.md, "Seeds and the walk"), on
hand-made snapshot tables: a title written with commas is linked whole, and a common word of the
question that happens to name a node, or a node that only resembles the question, weighs on the
scale of the dense passage seeds, not as a name the question wrote."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from kg_pipelines.retrieval.chunk_retrieval import seed_weight
from kg_pipelines.retrieval.entity_linking import (
    LinkedNode,
    NameIndex,
    common_word_mention,
    link_question,
    titles_named_in,
)
from kg_pipelines.retrieval.graph_ranking import build_passage_graph, personalized_pagerank, rank_chunks
from tests.test_graph_ranking import EDGES, NODES, tables

# p5 is the passage about a rapper called Big; its only link to the question is the word "big"
BIG_NODES = [*NODES, ("chunk:p5", "chunk", "Big (rapper) [1]"), ("person:big", "entity", "Big")]
BIG_NODES += [("title:big (rapper)", "title", "Big (rapper)")]
BIG_EDGES = [
    *EDGES,
    ("MENTIONS", "chunk:p5", "person:big", 0.5),
    ("TITLE_OF", "title:big (rapper)", "chunk:p5", 0.5),
    ("NAMES", "title:big (rapper)", "person:big", 0.5),
]
QUESTION = "From which harbour did the big ship of Ada Brandt sail?"


def walk(question: str, graph, resemblance_weight: float = 0.05, links=None) -> list[str]:
    links = link_question(question, graph, NameIndex.build(graph)) if links is None else links
    seeds: dict[int, float] = {}
    for link in links:
        weight = seed_weight(link, graph, question, resemblance_weight)
        seeds[link.position] = max(seeds.get(link.position, 0.0), weight)
    return [chunk for chunk, _ in rank_chunks(graph, personalized_pagerank(graph, seeds, damping=0.7), 5)]


def test_a_title_written_with_commas_is_linked_whole():
    nodes = [*NODES, ("title:aldric venn, 2nd baron holloway", "title", "Aldric Venn, 2nd Baron Holloway")]
    graph = build_passage_graph(*tables(nodes))
    links = link_question("Who was the mother of Aldric Venn, 2nd Baron Holloway?", graph, NameIndex.build(graph))
    assert [(link.node_id, link.method) for link in links] == [("title:aldric venn, 2nd baron holloway", "exact")]


def test_a_common_word_that_names_a_node_weighs_like_a_passage_seed():
    graph = build_passage_graph(*tables(BIG_NODES, BIG_EDGES))
    links = {link.node_id: link for link in link_question(QUESTION, graph, NameIndex.build(graph))}
    assert {"person:big", "person:ada brandt", "title:ada brandt"} <= set(links)
    assert common_word_mention(links["person:big"], QUESTION)
    assert not common_word_mention(links["person:ada brandt"], QUESTION)
    # a question typed all in lower case marks no name: its words keep their weight
    assert not common_word_mention(replace(links["person:ada brandt"], mention="ada brandt"), QUESTION.lower())
    assert seed_weight(links["person:big"], graph, QUESTION, 0.05) == 0.05
    assert seed_weight(links["person:ada brandt"], graph, QUESTION, 0.05) == 1.0
    # the walk: Ada Brandt's passage, then the passage about the harbour it names (two hops), ahead
    # of the rapper's passage that the word "big" alone reaches
    ranked = walk(QUESTION, graph)
    assert ranked[:2] == ["p1", "p2"] and ranked.index("p5") > ranked.index("p2")
    # weighed as a name (the rule off), the word alone puts the rapper first
    assert walk(QUESTION, graph, resemblance_weight=1.0)[0] == "p5"


def test_a_node_that_only_resembles_the_question_weighs_like_a_passage_seed():
    graph = build_passage_graph(*tables(BIG_NODES, BIG_EDGES))
    position = graph.position["person:big"]
    vector = LinkedNode(position, "person:big", "Big", "vector", 0.8, "")
    assert np.isclose(seed_weight(vector, graph, QUESTION, 0.05), 0.8 * 0.05)
    exact = link_question("Ada Brandt", graph, NameIndex.build(graph))
    ranked = walk("Ada Brandt", graph, links=[*exact, vector])
    assert ranked.index("p2") < ranked.index("p5")
    # weighed as a name (the rule off), the resembling node's passage comes before the second hop
    off = walk("Ada Brandt", graph, resemblance_weight=1.0, links=[*exact, vector])
    assert off.index("p5") < off.index("p2")


def test_titles_named_in_a_passage_text_are_followed_when_extraction_missed_them():
    # p1's text names Tolvik, but no MENTIONS edge says so (extraction missed it)
    edges = [e for e in EDGES if e[:3] != ("MENTIONS", "chunk:p1", "location:tolvik")]
    edges = [e for e in edges if e[0] != "RELATED"]
    graph = build_passage_graph(*tables(NODES, edges))
    names = NameIndex.build(graph)
    text = "Ada Brandt sailed from Tolvik in 1902; the harbours of the coast were closed."
    own = {graph.position["title:ada brandt"]}
    found = titles_named_in(text, names, graph, 1.0, own)
    # Tolvik, written as a name; not "harbours" (a title, but written as a common word), not its own title
    assert [(link.node_id, link.method) for link in found] == [("title:tolvik", "text")]
    question = "Where did Ada Brandt sail from?"
    first = walk(question, graph)
    assert "p2" not in first  # the names alone never reach the passage about Tolvik
    second = walk(question, graph, links=[*link_question(question, graph, names), *found])
    assert second[:2] == ["p1", "p2"]
