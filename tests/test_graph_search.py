"""Graph search from a short term: matching (exact, fuzzy, vector), paths in the seed's form,
ranking, deduplication, limits, sources, bad input, and usage queued for the graph."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from kg_pipelines.config import load_settings
from kg_pipelines.retrieval.activations import pending_activations
from kg_pipelines.retrieval.graph_search import GraphSearchError, format_paths, graph_search, search_graph
from kg_pipelines.stores.graph_snapshot import load_graph_snapshot, publish_graph_snapshot
from kg_pipelines.stores.warehouse import connect, count_rows, insert_rows, transaction

NOW = datetime(2026, 11, 22, tzinfo=UTC)


def _node(key: str, name: str, node_type: str = "compound", kind: str = "entity") -> dict:
    return {
        "node_id": f"{node_type}:{key}",
        "node_kind": kind,
        "node_type": node_type,
        "name": name,
        "description": name,
        "base_weight": 1.0,
        "support_count": 1,
        "created_by": "pipeline",
        "created_at": NOW,
        "updated_at": NOW,
    }


def _edge(source: str, target: str, explanation: str, strength: float = 0.5, edge_type: str = "RELATED") -> dict:
    return {
        "edge_id": f"{edge_type}:{source}->{target}",
        "source_id": source,
        "target_id": target,
        "edge_type": edge_type,
        "strength": strength,
        "activation_count": 0,
        "created_at": NOW,
        "created_by": "pipeline",
        "protected": False,
        "explanation": explanation,
        "support_count": 1,
    }


OEA, AKK, DIO = "compound:oleoylethanolamide", "microbe:akkermansia muciniphila", "disease:diet-induced obesity"
PPAR, FAO = "protein:ppar-alpha", "biological_process:fatty acid oxidation"
TRIAL = (
    "Oleoylethanolamide supplementation was tested for its effect on Akkermansia muciniphila in adults with "
    "obesity (Appetite. 2019)."
)
CROSS_TALK = "Akkermansia muciniphila and the gut lining together control diet-induced obesity (PNAS. 2013)."


@pytest.fixture
def small_graph(tmp_path):
    """OEA -> Akkermansia -> diet-induced obesity; OEA -> PPAR-alpha -> fatty acid oxidation; a chunk
    and a question node; a second OEA node of another type; supports in two documents."""
    settings = load_settings(tmp_path)
    conn = connect(settings.warehouse_path)
    nodes = [
        _node("oleoylethanolamide", "Oleoylethanolamide"),
        _node("oleoylethanolamide", "Oleoylethanolamide", node_type="concept"),
        _node("akkermansia muciniphila", "Akkermansia Muciniphila", node_type="microbe"),
        _node("diet-induced obesity", "Diet-Induced Obesity", node_type="disease"),
        _node("ppar-alpha", "PPAR-alpha", node_type="protein"),
        _node("fatty acid oxidation", "Fatty Acid Oxidation", node_type="biological_process"),
        _node("doc/c1", "Doc [1]", node_type="chunk", kind="chunk"),
    ]
    edges = [
        _edge(OEA, AKK, TRIAL, 0.7),
        _edge(AKK, DIO, CROSS_TALK, 0.6),
        _edge(OEA, PPAR, "Oleoylethanolamide activates PPAR-alpha.", 0.5),
        _edge(PPAR, FAO, "PPAR-alpha activation promotes fatty acid oxidation.", 0.5),
        _edge(DIO, OEA, "Diet-induced obesity lowers Oleoylethanolamide in the gut.", 0.4),  # a cycle back
        _edge("concept:oleoylethanolamide", AKK, TRIAL, 0.7),  # the same line through another start node
        _edge("chunk:doc/c1", OEA, "mention", 0.9, edge_type="MENTIONS"),  # text: never walked
    ]
    supports = [
        {"edge_id": f"RELATED:{OEA}->{AKK}", "document_id": "d1", "chunk_id": "c1", "collection": "micro"},
        {"edge_id": f"RELATED:{AKK}->{DIO}", "document_id": "d2", "chunk_id": "c2", "collection": "micro"},
    ]
    chunks = [
        {
            "chunk_id": c,
            "document_id": d,
            "collection": "micro",
            "seq": 0,
            "text": "t",
            "token_count": 1,
            "text_hash": c,
        }
        for c, d in (("c1", "d1"), ("c2", "d2"))
    ]
    documents = [
        {"document_id": d, "collection": "micro", "source_path": f"/{d}.md", "title": t, "text": "t"}
        for d, t in (("d1", "OEA trial"), ("d2", "Cross-talk study"))
    ]
    with transaction(conn):
        insert_rows(conn, "kg_nodes", nodes)
        insert_rows(conn, "kg_edges", edges)
        insert_rows(conn, "kg_edge_support", supports)
        insert_rows(conn, "chunks", chunks)
        insert_rows(conn, "documents", documents)
    publish_graph_snapshot(conn, settings)
    yield settings, conn
    conn.close()


def _search(settings, term, **kwargs):
    return graph_search(load_graph_snapshot(settings), term, settings, **kwargs)


def test_paths_are_in_the_seeds_form_with_sources(small_graph):
    settings, _ = small_graph
    result = _search(settings, "Oleoylethanolamide")
    first = result.paths[0]
    assert first.lines == [
        f"Oleoylethanolamide --[{TRIAL}]--> Akkermansia Muciniphila",
        f"Akkermansia Muciniphila --[{CROSS_TALK}]--> Diet-Induced Obesity",
    ]
    assert [(s.chunk_id, s.document_id, s.title) for s in first.sources] == [
        ("c1", "d1", "OEA trial"),
        ("c2", "d2", "Cross-talk study"),
    ]
    text = "\n".join(format_paths(result))
    assert "Oleoylethanolamide --[" in text and "sources: Cross-talk study; OEA trial" in text


def test_exact_match_ignores_case_and_separators_and_finds_every_type(small_graph):
    settings, _ = small_graph
    result = _search(settings, "  oleoylETHANOLAMIDE ")
    assert {(m.node_type, m.match) for m in result.matched} == {("compound", "exact"), ("concept", "exact")}
    assert _search(settings, "diet induced obesity").matched[0].name == "Diet-Induced Obesity"


def test_same_line_from_two_start_nodes_is_one_path_and_no_path_revisits_a_name(small_graph):
    settings, _ = small_graph
    result = _search(settings, "Oleoylethanolamide", depth=4, limit=50)
    keys = [tuple(p.lines) for p in result.paths]
    assert len(keys) == len(set(keys))
    for path in result.paths:
        names = [path.hops[0].source] + [h.target for h in path.hops]
        assert len(names) == len(set(names)), names  # the cycle back to OEA is never followed
        assert all(h.edge_type == "RELATED" for h in path.hops)  # MENTIONS leads to text: not walked


def test_depth_limit_and_ranking(small_graph):
    settings, _ = small_graph
    one = _search(settings, "Oleoylethanolamide", depth=1)
    assert all(len(p.hops) == 1 for p in one.paths)
    assert [p.hops[0].target for p in one.paths] == ["Akkermansia Muciniphila", "PPAR-alpha"]  # stronger first
    assert [p.score for p in one.paths] == sorted((p.score for p in one.paths), reverse=True)
    assert len(_search(settings, "Oleoylethanolamide", limit=1).paths) == 1


def test_a_term_with_no_way_out_is_walked_backwards(small_graph):
    settings, _ = small_graph
    result = _search(settings, "Fatty Acid Oxidation", depth=2)
    assert (
        result.paths[0].lines[-1]
        == "PPAR-alpha --[PPAR-alpha activation promotes fatty acid oxidation.]--> Fatty Acid Oxidation"
    )
    assert all(h.direction == "in" for h in result.paths[0].hops)


def test_fuzzy_then_vector_matching(small_graph):
    settings, _ = small_graph
    fuzzy = _search(settings, "Oleoylethanolamid")
    assert fuzzy.matched and fuzzy.matched[0].match == "fuzzy" and fuzzy.paths

    class Vectors:  # the nearest-node search of LanceDB graph_nodes, answered for a made-up vector
        def search(self, vector, k=10, node_type=None):
            return [(PPAR, 0.9), ("protein:gone", 0.95), (FAO, 0.2)][:k]

    result = _search(settings, "the satiety receptor", embed=lambda t: np.ones(4), node_vectors=Vectors())
    assert [(m.node_id, m.match) for m in result.matched] == [(PPAR, "vector")]  # gone node and weak match dropped
    assert result.paths[0].hops[0].source == "PPAR-alpha"


@pytest.mark.parametrize(
    "term",
    [
        "' OR '1'='1",
        '"; DROP TABLE kg_edges; --',
        "100% oleoyl%",
        "SELECT * FROM kg_nodes WHERE name LIKE '%'",
        "Oleoylethanolamide'); DELETE FROM kg_nodes; --",
        "油酰乙醇胺",
        "Oleoylethanolamide ảnh hưởng",
    ],
)
def test_hostile_or_foreign_terms_match_nothing_harmful(small_graph, term):
    settings, conn = small_graph
    result = _search(settings, term)
    assert result.term == " ".join(term.split())
    assert all(m.match in ("exact", "fuzzy", "vector") for m in result.matched)
    assert count_rows(conn, "kg_nodes") == 7 and count_rows(conn, "kg_edges") == 7


@pytest.mark.parametrize(
    ("term", "depth", "limit", "message"),
    [
        ("", 2, 10, "term is empty"),
        ("   ", 2, 10, "term is empty"),
        ("x" * 10_000, 2, 10, "at most 200"),
        ("Oleoylethanolamide", 0, 10, "depth must be between 1 and 4, got 0"),
        ("Oleoylethanolamide", 1000, 10, "depth must be between 1 and 4, got 1000"),
        ("Oleoylethanolamide", 2, 0, "limit must be between 1 and 100"),
    ],
)
def test_bad_requests_are_refused_with_the_rule(small_graph, term, depth, limit, message):
    settings, _ = small_graph
    with pytest.raises(GraphSearchError, match=message):
        _search(settings, term, depth=depth, limit=limit)


def test_empty_graph_says_so(tmp_path):
    settings = load_settings(tmp_path)
    result = graph_search(load_graph_snapshot(settings), "Oleoylethanolamide", settings)
    assert result.paths == [] and "no snapshot" in result.message
    assert not (tmp_path / "lancedb").exists()  # a search creates nothing


def test_unknown_term_says_so(small_graph):
    settings, _ = small_graph
    result = _search(settings, "Zebrafish")
    assert result.paths == [] and result.message == "no entity matches 'Zebrafish'"


def test_search_graph_queues_the_edges_of_the_returned_paths(small_graph):
    settings, _ = small_graph
    result = search_graph(settings, "Oleoylethanolamide", depth=1)
    assert pending_activations(settings) == len(result.edge_ids) == 2
    search_graph(settings, "Zebrafish")
    assert pending_activations(settings) == 2  # nothing used, nothing queued


def test_a_newer_snapshot_is_indexed_in_the_background_while_the_previous_answers(small_graph, monkeypatch):
    import threading

    from kg_pipelines.retrieval import graph_search as module

    settings, conn = small_graph
    settings = settings.model_copy(
        update={"graph_search": settings.graph_search.model_copy(update={"reload_wait_s": 0.0})}
    )
    first = search_graph(settings, "Oleoylethanolamide", record=False).snapshot_version
    with transaction(conn):
        insert_rows(conn, "kg_nodes", [_node("anandamide", "Anandamide")])
    publish_graph_snapshot(conn, settings)
    release = threading.Event()
    real_build = module.build_search_index

    def slow_build(snapshot):
        release.wait(30)
        return real_build(snapshot)

    monkeypatch.setattr(module, "build_search_index", slow_build)
    while_building = search_graph(settings, "Oleoylethanolamide", record=False)
    assert while_building.snapshot_version == first and while_building.paths  # the previous one answers
    release.set()
    next(iter(module._builders.values())).join(30)
    assert search_graph(settings, "Oleoylethanolamide", record=False).snapshot_version > first
