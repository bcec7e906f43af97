"""Graph search from a short term: matching (exact, fuzzy, vector), paths in the seed's form,
ranking, deduplication, limits, sources, bad input, and usage queued for the graph."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from kg_pipelines.config import load_settings
from kg_pipelines.retrieval.activations import pending_activations
from kg_pipelines.retrieval.graph_search import GraphSearchError, format_paths, graph_search, search_graph
from kg_pipelines.stores.graph_snapshot import load_graph_snapshot, publish_graph_snapshot, snapshot_root
from kg_pipelines.stores.warehouse import connect, insert_rows, transaction

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
    fuzzy = _search(settings, "Oleoylethanolamid")  # a letter dropped: the whole name by Levenshtein ratio
    assert [(m.node_id, m.match, m.score) for m in fuzzy.matched] == [
        (OEA, "fuzzy", 0.9714),  # ratio 97.14 / 100
        ("concept:oleoylethanolamide", "fuzzy", 0.9714),
    ]
    assert fuzzy.paths[0].lines == _search(settings, "Oleoylethanolamide").paths[0].lines  # the same walk

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
def test_hostile_or_foreign_terms_match_nothing_and_change_nothing(small_graph, term):
    """Search reads the snapshot (never DuckDB): a hostile term must leave the snapshot it reads,
    byte for byte, and match no node (none of these terms is, or misspells, a name)."""
    settings, _ = small_graph
    root = snapshot_root(settings)

    def files() -> dict[str, bytes]:
        return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}

    before, version = files(), load_graph_snapshot(settings).version
    result = _search(settings, term)
    assert result.term == " ".join(term.split())
    assert result.matched == [] and result.paths == [] and result.message == f"no entity matches {result.term!r}"
    assert files() == before and load_graph_snapshot(settings).version == version
    unharmed = search_graph(settings, "Oleoylethanolamide", record=False)  # the graph still answers in full
    assert [m.node_id for m in unharmed.matched] == [OEA, "concept:oleoylethanolamide"]
    assert len(unharmed.paths) == 2 and unharmed.snapshot_version == version


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


@pytest.fixture
def microbes(tmp_path):
    """Names of one genus and of other microbes, each linked to something, in a published snapshot."""
    settings = load_settings(tmp_path)
    conn = connect(settings.warehouse_path)
    names = {
        "microbe:akkermansia muciniphila": "Akkermansia Muciniphila",
        "microbe:akkermansia glycaniphila": "Akkermansia Glycaniphila",
        "microbe:bacteroides fragilis": "Bacteroides Fragilis",
        "microbe:bacteroides thetaiotaomicron": "Bacteroides Thetaiotaomicron",
        "tissue:mucus layer": "Mucus Layer",
        "compound:mucin": "Mucin",
    }
    nodes = [_node(node_id.split(":", 1)[1], name, node_type=node_id.split(":")[0]) for node_id, name in names.items()]
    edges = [
        _edge("microbe:akkermansia muciniphila", "compound:mucin", "Akkermansia muciniphila degrades mucin."),
        _edge("microbe:akkermansia glycaniphila", "compound:mucin", "Akkermansia glycaniphila also grows on mucin."),
        _edge("microbe:bacteroides fragilis", "tissue:mucus layer", "Bacteroides fragilis lives in the mucus layer."),
        _edge("microbe:bacteroides thetaiotaomicron", "compound:mucin", "Bacteroides thetaiotaomicron uses mucin."),
    ]
    with transaction(conn):
        insert_rows(conn, "kg_nodes", nodes)
        insert_rows(conn, "kg_edges", edges)
    publish_graph_snapshot(conn, settings)
    conn.close()
    return settings


def _matched(settings, term):
    return [(m.name, m.match, m.score) for m in _search(settings, term).matched]


def test_a_misspelled_part_of_a_name_finds_its_entity(microbes):
    # 'akermansia' (one k) against whole names scores 61 (ratio): the words of the names find it
    assert _matched(microbes, "akermansia") == [
        ("Akkermansia Glycaniphila", "fuzzy", 0.9524),  # one word of each name, ratio 95.24: ties by name
        ("Akkermansia Muciniphila", "fuzzy", 0.9524),
    ]
    assert _matched(microbes, "mucinphila")[0][:2] == ("Akkermansia Muciniphila", "fuzzy")
    assert _matched(microbes, "bacteroides fragils") == [("Bacteroides Fragilis", "fuzzy", 0.9744)]  # whole name
    found = _search(microbes, "Akermansia muciniphla")  # two words misspelled: each matches a word of the name
    assert [m.name for m in found.matched] == ["Akkermansia Muciniphila"]
    assert found.paths[0].lines == ["Akkermansia Muciniphila --[Akkermansia muciniphila degrades mucin.]--> Mucin"]


def test_exact_and_whole_name_matches_come_before_matches_on_words(microbes):
    assert _matched(microbes, "akkermansia muciniphila") == [("Akkermansia Muciniphila", "exact", 1.0)]
    # a whole name one letter off wins over the sibling that only shares the genus word
    # (scored as a whole name, ratio 97.87, not as words: (100 + 95.65) / 2)
    assert _matched(microbes, "akkermansia glycaniphla") == [("Akkermansia Glycaniphila", "fuzzy", 0.9787)]
    # every word of the term in a name, exactly: the part-of-a-name tier, before any misspelling
    assert [(name, how) for name, how, _ in _matched(microbes, "glycaniphila")] == [
        ("Akkermansia Glycaniphila", "fuzzy")
    ]


def test_short_words_match_only_exactly(microbes):
    lenient = microbes.model_copy(
        update={"graph_search": microbes.graph_search.model_copy(update={"fuzzy_min_score": 75.0})}
    )
    # at a lenient cutoff, "muc" would match the name Mucin and the word "mucus" (ratio 75): a term or word shorter
    # than fuzzy_min_word_chars (4) matches only exactly
    assert _matched(lenient, "muc") == []
    assert _matched(microbes, "zzkermansia") == []  # two letters off a 11-letter word: ratio 82, under 88
    assert _matched(lenient, "akermansia")[0][0].startswith("Akkermansia")


def test_the_api_and_the_cli_match_a_misspelled_part_of_a_name_alike(microbes):
    from click.testing import CliRunner
    from fastapi.testclient import TestClient

    from kg_pipelines.api.app import create_app
    from kg_pipelines.cli import main

    body = TestClient(create_app(microbes)).get("/graph-search", params={"term": "akermansia"}).json()
    assert [(m["name"], m["match"]) for m in body["matched"]] == [
        ("Akkermansia Glycaniphila", "fuzzy"),
        ("Akkermansia Muciniphila", "fuzzy"),
    ]
    out = CliRunner().invoke(main, ["--data-dir", str(microbes.data_dir), "search", "akermansia"]).output
    matched = "Akkermansia Glycaniphila (microbe, fuzzy 0.95), Akkermansia Muciniphila (microbe, fuzzy 0.95)"
    assert f"matched: {matched}" in out


def test_a_name_the_nodes_description_states_finds_it(tmp_path):
    # extraction makes "FGF23" a mention of the long form: no node is named FGF23
    settings = load_settings(tmp_path)
    conn = connect(settings.warehouse_path)
    growth = _node("fibroblast growth factor 23", "Fibroblast Growth Factor 23", node_type="protein")
    growth["description"] = "Osteocytes secrete fibroblast growth factor 23 (FGF23) when phosphate rises."
    phosphate = _node("phosphate", "Phosphate")
    own = _node("fgf21", "FGF21", node_type="protein")  # a node of its own name wins over a stated alias
    own_alias = _node("fibroblast growth factor 21", "Fibroblast Growth Factor 21", node_type="protein")
    own_alias["description"] = "The liver releases fibroblast growth factor 21 (FGF21) during fasting."
    with transaction(conn):
        insert_rows(conn, "kg_nodes", [growth, phosphate, own, own_alias])
        insert_rows(conn, "kg_edges", [_edge(growth["node_id"], phosphate["node_id"], "FGF23 lowers phosphate.")])
    publish_graph_snapshot(conn, settings)
    conn.close()
    assert _matched(settings, "fgf23") == [("Fibroblast Growth Factor 23", "exact", 1.0)]
    assert [m.name for m in _search(settings, "FGF21").matched] == ["FGF21"]


def test_qa_links_a_name_the_nodes_description_states_to_the_nodes_chunks(tmp_path):
    from kg_pipelines.retrieval.rationale_qa import _entity_chunks

    settings = load_settings(tmp_path)
    conn = connect(settings.warehouse_path)
    growth = _node("fibroblast growth factor 23", "Fibroblast Growth Factor 23", node_type="protein")
    growth["description"] = "Osteocytes secrete fibroblast growth factor 23 (FGF23) when phosphate rises."
    support = {
        "node_id": growth["node_id"],
        "document_id": "bone.md",
        "chunk_id": "bone.md#c0001",
        "collection": "bone",
        "name": growth["name"],
        "description": growth["description"],
    }
    with transaction(conn):
        insert_rows(conn, "kg_nodes", [growth])
        insert_rows(conn, "kg_node_support", [support])
    publish_graph_snapshot(conn, settings)
    conn.close()
    linked = _entity_chunks(load_graph_snapshot(settings))
    assert linked["fgf23"] == ("Fibroblast Growth Factor 23", {"bone": ["bone.md#c0001"]})
    assert linked["fgf23"] is linked["fibroblast growth factor 23"]
