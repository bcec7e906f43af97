"""The sample corpus (data/inbox) ingested offline by the real job: the graph shows what the text
says. No entity is a document's title, a name is one node of its most specific type, an edge
follows the sentence's direction, items of one list are not linked."""

from __future__ import annotations

import pytest

from kg_pipelines.ingestion.names import node_key
from tests.conftest import REPO_ROOT, ingested_graph

SAMPLE = REPO_ROOT / "data" / "inbox"


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    texts = {
        f"{collection}/{path.name}": path.read_text(encoding="utf-8")
        for collection in ("longevity", "microbiome")
        for path in sorted((SAMPLE / collection).iterdir())
        if path.suffix in (".md", ".txt")
    }
    assert len(texts) >= 10
    with ingested_graph(tmp_path_factory.mktemp("demo"), texts) as graph:
        yield graph


def test_no_entity_is_named_like_a_document_title(demo):
    titles = {node_key(t) for (t,) in demo.rows("SELECT title FROM documents WHERE title IS NOT NULL")}
    assert len(titles) >= 10
    entities = {node_key(n): i for i, n in demo.rows("SELECT node_id, name FROM kg_nodes WHERE node_kind = 'entity'")}
    assert not titles & set(entities), sorted(titles & set(entities))
    # titles are title nodes, linked by NAMES to the entities whose names they hold
    assert demo.one("SELECT count(*) FROM kg_nodes WHERE node_kind = 'title'") == len(titles)
    assert demo.rows(
        "SELECT target_id FROM kg_edges WHERE edge_type = 'NAMES' AND source_id = ?",
        ["title:akkermansia muciniphila and metabolic health"],
    ) == [("microbe:akkermansia muciniphila",)]


def test_a_name_is_one_node_of_its_most_specific_type(demo):
    assert demo.rows(
        "SELECT node_id, node_type FROM kg_nodes WHERE node_kind = 'entity' AND lower(name) = 'oleoylethanolamide'"
    ) == [("compound:oleoylethanolamide", "compound")]
    shared = demo.rows(
        """SELECT substr(node_id, strpos(node_id, ':') + 1) AS k, list(node_id) FROM kg_nodes
        WHERE node_kind = 'entity' GROUP BY k HAVING count(*) > 1"""
    )
    assert shared == []


def test_edges_follow_the_sentence_and_list_items_are_not_linked(demo):
    forward = demo.rows("SELECT keywords FROM kg_edges WHERE edge_id = 'RELATED:compound:metformin->protein:ampk'")
    assert forward and "activates" in forward[0][0]
    assert (
        demo.rows("SELECT edge_id FROM kg_edges WHERE source_id = 'protein:ampk' AND target_id = 'compound:metformin'")
        == []
    )
    # "Metformin, prebiotic fibre, polyphenols and Oleoylethanolamide increase its abundance."
    assert (
        demo.rows(
            """SELECT edge_id FROM kg_edges WHERE edge_type = 'RELATED'
            AND 'compound:metformin' IN (source_id, target_id)
            AND 'compound:oleoylethanolamide' IN (source_id, target_id)"""
        )
        == []
    )


def test_the_seeds_example_path_is_among_the_first_five_for_its_term(demo):
    # seed 003's example: Oleoylethanolamide -> Akkermansia muciniphila -> Diet-Induced Obesity,
    # as `kg-pipelines search Oleoylethanolamide` ranks it (continuity by the real embedder)
    from kg_pipelines.retrieval.graph_search import search_graph

    result = search_graph(demo.settings, "Oleoylethanolamide", depth=2, limit=5, record=False)
    walked = [[hop.source_id for hop in path.hops] + [path.hops[-1].target_id] for path in result.paths]
    assert len(walked) == 5
    assert [
        "compound:oleoylethanolamide",
        "microbe:akkermansia muciniphila",
        "disease:diet induced obesity",
    ] in walked, walked
