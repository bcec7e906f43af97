"""Graph search ranking with the real embedder: a path whose hops tell one story outranks paths that
change the subject at the middle node, and two names a sentence only lists together are not taken for
a relation. Invented facts in real-looking names (a compound, a microbe, what the microbe does)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kg_pipelines.config import load_settings
from kg_pipelines.embedding import DEFAULT_EMBEDDING_MODEL, embedder_for
from kg_pipelines.retrieval.graph_search import _listed_together, graph_search
from kg_pipelines.stores.graph_snapshot import load_graph_snapshot, publish_graph_snapshot, read_graph_snapshot
from kg_pipelines.stores.warehouse import connect, insert_rows, transaction

NOW = datetime(2026, 11, 25, tzinfo=UTC)


def _node(node_id: str, name: str) -> dict:
    return {
        "node_id": node_id,
        "node_kind": "entity",
        "node_type": node_id.split(":")[0],
        "name": name,
        "description": name,
        "base_weight": 1.0,
        "support_count": 1,
        "created_by": "pipeline",
        "created_at": NOW,
        "updated_at": NOW,
    }


def _edge(source: str, target: str, explanation: str, strength: float = 0.5, support: int = 1) -> dict:
    return {
        "edge_id": f"RELATED:{source}->{target}",
        "source_id": source,
        "target_id": target,
        "edge_type": "RELATED",
        "strength": strength,
        "activation_count": 0,
        "created_at": NOW,
        "created_by": "pipeline",
        "protected": False,
        "explanation": explanation,
        "support_count": support,
    }


PEA, CHR = "compound:palmitoylethanolamide", "microbe:christensenella minuta"
NAMES = {
    PEA: "Palmitoylethanolamide",
    CHR: "Christensenella Minuta",
    "disease:irritable bowel syndrome": "Irritable Bowel Syndrome",
    "compound:hydrogen": "Hydrogen",
    "microbe:methanobrevibacter smithii": "Methanobrevibacter Smithii",
    "taxon:firmicutes": "Firmicutes",
    "person:hiroshi morotomi": "Hiroshi Morotomi",
    "tissue:colonic mucosa": "Colonic Mucosa",
    "protein:ppar-alpha": "PPAR-alpha",
    "compound:berberine": "Berberine",
    "compound:urolithin a": "Urolithin A",
    "protein:ampk": "AMPK",
}
TRIAL = (
    "A placebo-controlled trial in adults with irritable bowel syndrome tested whether Palmitoylethanolamide "
    "changes the abundance of Christensenella minuta in stool."
)
STORY = (  # carries on the trial's subject: the same disease, what the microbe does in it
    "In a rat model of irritable bowel syndrome, colonisation with Christensenella minuta reduced visceral pain "
    "and restored normal bowel habit."
)
EDGES = [
    _edge(PEA, CHR, TRIAL),
    _edge(PEA, "protein:ppar-alpha", "Palmitoylethanolamide binds PPAR-alpha in sensory neurons.", 0.45),
    # the microbe's other facts: equally strong, better supported, about something else
    _edge(
        CHR,
        "compound:hydrogen",
        "Christensenella minuta ferments simple sugars and releases hydrogen and acetate.",
        support=3,
    ),
    _edge(
        CHR,
        "microbe:methanobrevibacter smithii",
        "Christensenella minuta forms dense aggregates with the archaeon Methanobrevibacter smithii.",
        support=3,
    ),
    _edge(
        CHR, "taxon:firmicutes", "Christensenella minuta is a strictly anaerobic member of the Firmicutes.", support=3
    ),
    _edge(
        CHR,
        "person:hiroshi morotomi",
        "Christensenella minuta was first described by Hiroshi Morotomi and colleagues in 2012.",
        support=3,
    ),
    _edge(
        CHR,
        "tissue:colonic mucosa",
        "Christensenella minuta was cultured from the colonic mucosa of healthy donors.",
        support=3,
    ),
    _edge(CHR, "disease:irritable bowel syndrome", STORY),
    # a relation, and two names a sentence only lists together (the listed pair better supported)
    _edge("compound:berberine", "protein:ampk", "Berberine activates AMPK in liver cells of obese mice.", 0.5),
    _edge(
        "compound:berberine",
        "compound:urolithin a",
        "Berberine, inulin, Urolithin A and resveratrol raise its abundance in the gut.",
        0.55,
        support=3,
    ),
]


@pytest.fixture(scope="module")
def story_graph(tmp_path_factory):
    settings = load_settings(tmp_path_factory.mktemp("story"))
    conn = connect(settings.warehouse_path)
    with transaction(conn):
        insert_rows(conn, "kg_nodes", [_node(node_id, name) for node_id, name in NAMES.items()])
        insert_rows(conn, "kg_edges", EDGES)
    publish_graph_snapshot(conn, settings)
    conn.close()
    return settings


@pytest.fixture(scope="module")
def embed_texts():
    return embedder_for(DEFAULT_EMBEDDING_MODEL).embed  # the packaged MiniLM, offline


def _targets(result) -> list[str]:
    return [" -> ".join([p.hops[0].source] + [h.target for h in p.hops]) for p in result.paths]


def test_a_path_whose_hops_tell_one_story_outranks_paths_that_change_the_subject(story_graph, embed_texts):
    snapshot = load_graph_snapshot(story_graph)
    ranked = graph_search(snapshot, "Palmitoylethanolamide", story_graph, limit=10, embed_texts=embed_texts)
    story = "Palmitoylethanolamide -> Christensenella Minuta -> Irritable Bowel Syndrome"
    assert _targets(ranked)[0] == story, _targets(ranked)
    assert ranked.paths[0].lines[1] == f"Christensenella Minuta --[{STORY}]--> Irritable Bowel Syndrome"
    # without the sentences' continuity (no embedder), the better supported facts come first and
    # the story path falls below them: the factor is what ranks it
    plain = graph_search(snapshot, "Palmitoylethanolamide", story_graph, limit=10)
    assert _targets(plain).index(story) >= 3, _targets(plain)


def test_continuity_is_scored_on_the_sentences_not_on_the_names(story_graph, embed_texts):
    off = story_graph.model_copy(
        update={"graph_search": story_graph.graph_search.model_copy(update={"continuity_weight": 0.0})}
    )
    snapshot = load_graph_snapshot(story_graph)
    with_embedder_but_off = graph_search(snapshot, "Palmitoylethanolamide", off, limit=10, embed_texts=embed_texts)
    plain = graph_search(snapshot, "Palmitoylethanolamide", story_graph, limit=10)
    assert _targets(with_embedder_but_off) == _targets(plain)
    scored = graph_search(snapshot, "Palmitoylethanolamide", story_graph, limit=10, embed_texts=embed_texts)
    by_target = {t: p.score for t, p in zip(_targets(scored), scored.paths)}
    assert by_target["Palmitoylethanolamide -> Christensenella Minuta -> Irritable Bowel Syndrome"] > max(
        score for target, score in by_target.items() if "Irritable" not in target
    )


def test_names_a_sentence_only_lists_together_are_not_a_relation(story_graph):
    result = graph_search(load_graph_snapshot(story_graph), "Berberine", story_graph, depth=1)
    # the listed pair is stronger and better supported, yet the stated relation comes first
    assert _targets(result) == ["Berberine -> AMPK", "Berberine -> Urolithin A"]
    assert _listed_together("metformin, inulin, urolithin a and resveratrol raise it", "metformin", "urolithin a")
    assert _listed_together("sirt1, sirt3 or sirt6", "sirt1", "sirt6")
    assert not _listed_together("berberine activates ampk in liver cells", "berberine", "ampk")
    assert not _listed_together("sirt1, sirt3 and sirt6 deacetylate foxo3", "sirt1", "foxo3")
    assert not _listed_together(
        "metformin, which lowers glucose, increases the abundance of akkermansia", "metformin", "akkermansia"
    )


SEED_PATH = (  # seed 003's example, as the sample corpus states it
    "Oleoylethanolamide --[A randomized clinical trial in people with obesity tested whether Oleoylethanolamide "
    "supplementation changes the abundance of Akkermansia muciniphila in the gut (Appetite. 2019). … The "
    "investigators measured Akkermansia muciniphila in stool samples by quantitative PCR, and they reported that "
    "Oleoylethanolamide increased the abundance of Akkermansia muciniphila compared with placebo.]--> "
    "Akkermansia Muciniphila",
    "Akkermansia Muciniphila --[A key mechanistic study by Everard and colleagues showed that cross-talk between "
    "Akkermansia muciniphila and the intestinal epithelium controls diet-induced obesity (PNAS. 2013).]--> "
    "Diet-Induced Obesity",
)


@pytest.fixture(scope="module")
def sample_corpus(tmp_path_factory):
    """Both text collections of the sample corpus (data/inbox), ingested by the real job (offline)."""
    from tests.conftest import REPO_ROOT, ingested_graph

    inbox = REPO_ROOT / "data" / "inbox"
    documents = {
        f"{collection}/{path.name}": path.read_text(encoding="utf-8")
        for collection in ("microbiome", "longevity")
        for path in sorted((inbox / collection).iterdir())
        if path.suffix in (".md", ".txt")
    }
    with ingested_graph(tmp_path_factory.mktemp("sample"), documents) as graph:
        yield graph.settings


def test_the_seeds_example_path_is_among_the_first_five_on_the_sample_corpus(sample_corpus):
    from kg_pipelines.retrieval.graph_search import search_graph

    result = search_graph(sample_corpus, "Oleoylethanolamide", record=False)  # what the CLI and the API run
    lines = [tuple(path.lines) for path in result.paths]
    assert SEED_PATH in lines[:5], "\n".join(" | ".join(line) for line in lines)


def test_an_embedder_that_fails_leaves_the_ranking_without_continuity_and_says_so(story_graph):
    def broken(texts):
        raise ConnectionError("embedding endpoint unreachable")

    snapshot = read_graph_snapshot(load_graph_snapshot(story_graph).path)  # a fresh copy: no sentence cached yet
    result = graph_search(snapshot, "Palmitoylethanolamide", story_graph, limit=10, embed_texts=broken)
    plain = graph_search(snapshot, "Palmitoylethanolamide", story_graph, limit=10)
    assert _targets(result) == _targets(plain) and result.paths
    assert result.message == (
        "ranked without sentence continuity: the embedder failed (ConnectionError: embedding endpoint unreachable)"
    )
