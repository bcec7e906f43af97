"""The passage graph, personalized PageRank and entity linking, on hand-made snapshot tables."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from kg_pipelines.retrieval.entity_linking import NameIndex, link_question, question_words
from kg_pipelines.retrieval.graph_ranking import build_passage_graph, personalized_pagerank, rank_chunks

# passage p1 mentions Ada Brandt (the question's name) and Tolvik; p2 is the passage titled
# Tolvik; p3 mentions Tolvik only in passing among other names; p4 shares nothing.
NODES = [
    ("chunk:p1", "chunk", "Ada Brandt [1]"),
    ("chunk:p2", "chunk", "Tolvik [1]"),
    ("chunk:p3", "chunk", "Harbours [1]"),
    ("chunk:p4", "chunk", "Weather [1]"),
    ("person:ada brandt", "entity", "Ada Brandt"),
    ("location:tolvik", "entity", "Tolvik"),
    ("location:oslo", "entity", "Oslo"),
    ("title:ada brandt", "title", "Ada Brandt"),
    ("title:tolvik", "title", "Tolvik"),
    ("title:harbours", "title", "Harbours"),
    ("title:weather", "title", "Weather"),
    ("question:q1", "question", "Who is Ada Brandt?"),
]
EDGES = [
    ("MENTIONS", "chunk:p1", "person:ada brandt", 0.5),
    ("MENTIONS", "chunk:p1", "location:tolvik", 0.5),
    ("MENTIONS", "chunk:p3", "location:tolvik", 0.5),
    ("MENTIONS", "chunk:p3", "location:oslo", 0.5),
    ("RELATED", "person:ada brandt", "location:tolvik", 0.5),
    ("TITLE_OF", "title:ada brandt", "chunk:p1", 0.5),
    ("TITLE_OF", "title:tolvik", "chunk:p2", 0.5),
    ("TITLE_OF", "title:harbours", "chunk:p3", 0.5),
    ("TITLE_OF", "title:weather", "chunk:p4", 0.5),
    ("NAMES", "title:tolvik", "location:tolvik", 0.5),
    ("NAMES", "title:ada brandt", "person:ada brandt", 0.5),
    ("ANSWERS_IN", "question:q1", "chunk:p4", 0.5),  # never walked
]


def tables(nodes=NODES, edges=EDGES):
    node_table = pa.table(
        {"node_id": [n[0] for n in nodes], "node_kind": [n[1] for n in nodes], "name": [n[2] for n in nodes]},
        schema=pa.schema([("node_id", pa.string()), ("node_kind", pa.string()), ("name", pa.string())]),
    )
    edge_table = pa.table(
        {
            "edge_type": [e[0] for e in edges],
            "source_id": [e[1] for e in edges],
            "target_id": [e[2] for e in edges],
            "strength": [e[3] for e in edges],
        },
        schema=pa.schema(
            [
                ("edge_type", pa.string()),
                ("source_id", pa.string()),
                ("target_id", pa.string()),
                ("strength", pa.float64()),
            ]
        ),
    )
    return node_table, edge_table


def test_the_walk_from_a_name_reaches_the_passage_about_the_name_it_leads_to():
    graph = build_passage_graph(*tables())
    assert "question:q1" not in graph.position  # atomic questions are left out
    seeds = {graph.position["person:ada brandt"]: 1.0}
    rank = personalized_pagerank(graph, seeds, damping=0.5)
    assert rank.sum() == pytest.approx(1.0)
    ranked = [c for c, _ in rank_chunks(graph, rank, 4)]
    # p1 first (it names her), then p2 (titled Tolvik, the place p1 names), before p3 (which only
    # mentions Tolvik among other names); p4 is unreachable
    assert ranked == ["p1", "p2", "p3"]
    assert [c for c, _ in rank_chunks(graph, rank, 4, allowed={"p2", "p4"})] == ["p2"]


def test_specificity_counts_the_passages_a_node_touches():
    graph = build_passage_graph(*tables())
    count = dict(zip(graph.node_ids, graph.chunk_count))
    # Tolvik: mentioned by p1 and p3, and p2 is titled by its name
    assert count["location:tolvik"] == 3 and count["person:ada brandt"] == 1 and count["title:tolvik"] == 1
    assert count["chunk:p2"] == 1


def test_an_empty_graph_or_no_seed_ranks_nothing():
    empty = build_passage_graph(*tables([], []))
    assert empty.empty
    assert rank_chunks(empty, personalized_pagerank(empty, {0: 1.0}), 5) == []
    graph = build_passage_graph(*tables())
    assert rank_chunks(graph, personalized_pagerank(graph, {}), 5) == []
    assert not personalized_pagerank(graph, {10_000: 1.0}).any()  # a stale position is ignored


def test_linking_exact_longest_first_fuzzy_and_never_function_words():
    graph = build_passage_graph(*tables())
    names = NameIndex.build(graph)
    links = link_question("Which harbour did ada brandt's ship leave from?", graph, names)
    assert {(link.node_id, link.method) for link in links} == {
        ("person:ada brandt", "exact"),
        ("title:ada brandt", "exact"),
    }
    fuzzy = link_question("Where is Tolvick?", graph, names, fuzzy_cutoff=80)
    assert {(link.node_id, link.method) for link in fuzzy} == {("location:tolvik", "fuzzy"), ("title:tolvik", "fuzzy")}
    assert all(0.8 <= link.score < 1.0 for link in fuzzy)
    assert link_question("Which of the ones is it?", graph, names) == []
    assert link_question("", graph, names) == []
    assert link_question("谁创立了天文台？ Đài thiên văn", graph, names) == []


def test_linking_by_vector_keeps_only_close_entity_and_title_nodes():
    graph = build_passage_graph(*tables())
    names = NameIndex.build(graph)

    class NodeVectors:
        def search(self, vector, k):
            return [("location:oslo", 0.9), ("chunk:p4", 0.95), ("location:tolvik", 0.3), ("gone:node", 0.99)]

    links = link_question("nothing named", graph, names, question_vector=np.ones(3), node_vectors=NodeVectors())
    assert [(link.node_id, link.method) for link in links] == [("location:oslo", "vector")]


def test_a_title_qualifier_is_not_needed_to_link_the_title():
    nodes = [*NODES, ("title:mercury (planet)", "title", "Mercury (planet)")]
    graph = build_passage_graph(*tables(nodes))
    links = link_question("How hot is Mercury?", graph, NameIndex.build(graph))
    assert [link.node_id for link in links] == ["title:mercury (planet)"]


def test_question_words_drop_possessives_and_punctuation():
    assert question_words('Was "Ada Brandt\'s" ship (the Tolvik) late?') == [
        "Was",
        "Ada",
        "Brandt",
        "ship",
        "the",
        "Tolvik",
        "late",
    ]
