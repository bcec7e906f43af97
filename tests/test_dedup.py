"""Duplicate nodes (seed 001): the score, detection, the six merge steps, chains, exclusions,
formation-time absorption, aliases across re-ingestion and removal, unmerge, crash safety."""

import hashlib
import json
import math
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from kg_pipelines.graph.duplicate_detection import KEEP_APART, MERGE, NEEDS_REVIEW, detect_duplicates
from kg_pipelines.graph.formation_dedup import absorb_new_nodes
from kg_pipelines.graph.graph_building import update_graph
from kg_pipelines.graph.merge_exclusions import (
    ExclusionFileError,
    MergeExclusions,
    append_review_pairs,
    load_exclusions,
    read_never_merge,
)
from kg_pipelines.graph.node_merging import MergeError, choose_canonical, merge_energy, merge_nodes, unmerge
from kg_pipelines.graph.node_similarity import metadata_overlap, name_similarity, node_similarity
from kg_pipelines.graph.periodic_merging import merge_planned, plan_duplicates
from kg_pipelines.ingestion.names import entity_node_id
from kg_pipelines.stores import warehouse
from kg_pipelines.stores.node_vectors import NodeVectors, sync_node_vectors
from tests.fake_openai import fake_openai  # noqa: F401  (the fixture)
from tests.test_graph_building import drop_document, put_document

T0 = datetime(2026, 1, 1, tzinfo=UTC)
GRAPH_TABLES = {
    "kg_nodes": "node_id",
    "kg_edges": "edge_id",
    "kg_node_support": "node_id, chunk_id, name",
    "kg_edge_support": "edge_id, chunk_id",
    "node_aliases": "alias_id",
}


class NameEmbedder:
    """A test double for a sentence embedder: hashed character trigrams of the node's name (the
    text before the first '. '), after mapping listed spellings to one (what a real model does for
    true synonyms), so tests control which nodes are semantically identical."""

    model_name = "test-trigrams"

    def __init__(self, same: dict[str, str] | None = None, dim: int = 128):
        self.same = {k.lower(): v.lower() for k, v in (same or {}).items()}
        self.dim = dim

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            name = text.split(". ", 1)[0].lower().replace("_", " ")
            name = self.same.get(name, name)
            padded = f"  {name} "
            for i in range(len(padded) - 2):
                out[row, int(hashlib.md5(padded[i : i + 3].encode()).hexdigest(), 16) % self.dim] += 1.0
            out[row] /= np.linalg.norm(out[row]) or 1.0
        return out


@pytest.fixture
def conn(tmp_path):
    c = warehouse.connect(tmp_path / "w.duckdb")
    yield c
    c.close()


@pytest.fixture
def store(tmp_path):
    return NodeVectors(tmp_path / "lancedb")


def add_node(
    conn,
    node_id,
    name,
    node_type="concept",
    created_at=T0,
    energy=None,
    base_weight=1.0,
    metadata=None,
    node_kind="entity",
):
    warehouse.insert_rows(
        conn,
        "kg_nodes",
        [
            {
                "node_id": node_id,
                "node_kind": node_kind,
                "node_type": node_type,
                "name": name,
                "description": None,
                "topic_key": f"type:{node_type}",
                "energy": json.dumps(energy or {}),
                "base_weight": base_weight,
                "support_count": 0,
                "created_by": "user",
                "created_at": created_at,
                "updated_at": created_at,
                "metadata": json.dumps(metadata or {}),
                "merge_history": "[]",
            }
        ],
    )


def add_edge(conn, source, target, strength, edge_type="RELATED", activations=0):
    warehouse.insert_rows(
        conn,
        "kg_edges",
        [
            {
                "edge_id": f"{edge_type}:{source}->{target}",
                "source_id": source,
                "target_id": target,
                "edge_type": edge_type,
                "strength": strength,
                "activation_count": activations,
                "created_at": T0,
                "created_by": "user",
                "protected": False,
                "support_count": 0,
            }
        ],
    )


def find_link(conn, source, target):
    rows = conn.execute("SELECT strength FROM kg_edges WHERE source_id = ? AND target_id = ?", [source, target])
    found = rows.fetchall()
    return found[0][0] if found else None


def graph_state(conn) -> dict:
    return {t: conn.execute(f"SELECT * FROM {t} ORDER BY {order}").fetchall() for t, order in GRAPH_TABLES.items()}


def nodes_named(conn) -> dict[str, str]:
    return dict(conn.execute("SELECT name, node_id FROM kg_nodes WHERE node_kind = 'entity'").fetchall())


NONE = MergeExclusions()


# -- the score -------------------------------------------------------------------------------------
def test_score_is_the_seeds_weighted_sum():
    a, b = np.array([1.0, 0.0]), np.array([0.6, 0.8])
    sim = node_similarity(a, b, "Consciousness_Substrate", "consciousness substrate", {"k": 1}, {"k": 1, "j": 2})
    assert sim.embedding == pytest.approx(0.6)
    assert sim.name == 1.0  # lower case, `_` as space
    assert sim.metadata == 0.5
    assert sim.total == pytest.approx(0.7 * 0.6 + 0.2 * 1.0 + 0.1 * 0.5)
    assert name_similarity("kitten", "sitting") == pytest.approx(1 - 3 / 7)  # Levenshtein 3, longer length 7
    assert node_similarity(None, b, "x", "x").embedding == 0.0  # no vector: 0, as the seed
    # no metadata on both sides: nothing is added for it, the score is over embedding and name
    assert metadata_overlap("{}", None) is None and metadata_overlap({"a": 1}, {}) is None
    bare = node_similarity(a, b, "FOXO1", "FOXO4")
    assert bare.metadata is None
    assert bare.total == pytest.approx((0.7 * 0.6 + 0.2 * 0.8) / 0.9)
    # cosine 0.99 and name 0.8: 0.953 with +0.1 for two empty maps (over the threshold for
    # nothing), the weighted mean of what was measured now: under it
    close = node_similarity(np.array([1.0, 0.0]), np.array([0.99, (1 - 0.99**2) ** 0.5]), "CDK-A", "CDK-B")
    assert close.name == pytest.approx(0.8) and close.metadata is None
    assert 0.7 * 0.99 + 0.2 * close.name + 0.1 >= 0.95 > close.total
    # metadata values: case and spacing aside, texts by their words, numbers by value
    assert metadata_overlap({"venue": "SIGMOD  Record"}, {"venue": "acm sigmod record"}) == 1.0
    assert metadata_overlap({"year": "2002", "price": "19.95"}, {"year": "2002", "price": "9.95"}) == 0.5


# -- the seed's three unit tests ---------------------------------------------------------------------
def test_duplicate_detection(conn, store):
    add_node(conn, "n-a", "consciousness_substrate")
    add_node(conn, "n-b", "consciousness substrate")  # space vs underscore
    add_node(conn, "n-c", "substrate_for_consciousness")  # synonym
    add_node(conn, "n-d", "consciousness substrate", node_type="mechanism")  # another type: never compared
    sync_node_vectors(conn, store, NameEmbedder())
    report = detect_duplicates(conn, store, NONE, threshold=0.90, grey_zone_low=0.90)
    found = {(p.node_a.node_id, p.node_b.node_id): p for p in report.pairs}
    merged = {pair for pair, p in found.items() if p.decision == MERGE}
    assert merged == {("n-a", "n-b")}  # the spelling variant only: the reordered synonym stays apart at 0.90
    assert found[("n-a", "n-b")].stage == "exact_name"
    assert found[("n-a", "n-b")].score >= 0.90
    assert all(p.node_a.node_type == p.node_b.node_type for p in report.pairs)
    assert not any("n-d" in pair for pair in found)


def test_node_merging_preserves_energy(conn):
    add_node(conn, "test_a", "test_a", created_at=T0, energy={"translator": 0.6})
    add_node(conn, "test_b", "test_b", created_at=T0 + timedelta(days=1), energy={"translator": 0.3, "architect": 0.4})
    merge_nodes(conn, *choose_canonical(conn, "test_a", "test_b", "prefer_older"), now=T0 + timedelta(days=2))
    energy = json.loads(conn.execute("SELECT energy FROM kg_nodes WHERE node_id = 'test_a'").fetchone()[0])
    # summed with tanh saturation where energies add (see node_merging): more than either, below 1
    assert energy["translator"] == pytest.approx(math.tanh(math.atanh(0.6) + math.atanh(0.3)), abs=1e-6)
    assert 0.6 < energy["translator"] < 1.0
    assert energy["architect"] == pytest.approx(0.4)  # transferred unchanged: only the duplicate had it
    assert merge_energy({"s": 0.0}, {"s": 0.5}) == {"s": 0.5}
    assert merge_energy({"s": 1.0}, {"s": 1.0})["s"] < 1.0 + 1e-9  # saturated, never beyond 1


def test_merge_redirects_links(conn):
    add_node(conn, "duplicate_a", "duplicate_a", created_at=T0)
    add_node(conn, "duplicate_b", "duplicate_b", created_at=T0 + timedelta(hours=1))
    add_node(conn, "other_node", "other_node")
    add_edge(conn, "other_node", "duplicate_a", 0.5)
    add_edge(conn, "duplicate_b", "other_node", 0.6)
    outcome = merge_nodes(conn, "duplicate_a", "duplicate_b", now=T0 + timedelta(days=1))
    assert find_link(conn, "other_node", "duplicate_a") == 0.5
    assert find_link(conn, "duplicate_a", "other_node") == 0.6
    assert conn.execute("SELECT count(*) FROM kg_nodes WHERE node_id = 'duplicate_b'").fetchone()[0] == 0
    assert (
        conn.execute(
            "SELECT count(*) FROM kg_edges WHERE source_id = 'duplicate_b' OR target_id = 'duplicate_b'"
        ).fetchone()[0]
        == 0
    )
    assert outcome.edges_redirected == 1


def test_existing_link_weights_average_and_no_self_loops(conn):
    add_node(conn, "a", "alpha", created_at=T0)
    add_node(conn, "b", "alpha2", created_at=T0 + timedelta(hours=1))
    add_node(conn, "x", "x")
    add_edge(conn, "x", "a", 0.5, activations=2)
    add_edge(conn, "x", "b", 0.7, activations=3)  # the canonical already has x -> a: averaged
    add_edge(conn, "a", "b", 0.9)  # would become a -> a
    add_edge(conn, "b", "x", 0.4, edge_type="MENTIONS")  # another type: redirected, not folded
    outcome = merge_nodes(conn, "a", "b", now=T0 + timedelta(days=1))
    assert find_link(conn, "x", "a") == pytest.approx(0.6)
    assert conn.execute("SELECT activation_count FROM kg_edges WHERE edge_id = 'RELATED:x->a'").fetchone()[0] == 5
    assert conn.execute("SELECT count(*) FROM kg_edges WHERE source_id = target_id").fetchone()[0] == 0
    assert find_link(conn, "a", "x") == 0.4
    assert (outcome.edges_combined, outcome.self_loops_dropped, outcome.edges_redirected) == (1, 1, 1)


def test_merge_fields_history_and_strategies(conn):
    add_node(conn, "old", "Old", created_at=T0, base_weight=1.0, metadata={"source": "a", "x": 1})
    add_node(conn, "heavy", "Heavy", created_at=T0 + timedelta(days=3), base_weight=3.0, metadata={"source": "b"})
    add_node(conn, "x", "x")
    add_edge(conn, "heavy", "x", 0.5)
    assert choose_canonical(conn, "old", "heavy", "prefer_older") == ("old", "heavy")
    assert choose_canonical(conn, "old", "heavy", "prefer_higher_weight") == ("heavy", "old")
    assert choose_canonical(conn, "old", "heavy", "prefer_more_links") == ("heavy", "old")
    with pytest.raises(MergeError):
        choose_canonical(conn, "old", "heavy", "prefer_nothing")
    outcome = merge_nodes(conn, "heavy", "old", now=T0 + timedelta(days=5), score=0.97, strategy="prefer_more_links")
    row = warehouse.fetch_dicts(conn, "SELECT * FROM kg_nodes WHERE node_id = 'heavy'")[0]
    assert row["base_weight"] == 2.0
    assert json.loads(row["metadata"]) == {"source": "b", "x": 1}  # union, the canonical wins
    assert row["created_at"] == T0  # the oldest
    history = json.loads(row["merge_history"])
    assert history[-1]["merged_node_id"] == "old" and history[-1]["merged_node_name"] == "Old"
    assert history[-1]["similarity_score"] == 0.97 and history[-1]["merge_id"] == outcome.merge_id
    add_node(conn, "t", "t", node_type="other")
    with pytest.raises(MergeError, match="one type"):
        merge_nodes(conn, "heavy", "t", now=T0)


# -- chains, exclusions, the grey zone -------------------------------------------------------------
def test_merge_chains_resolve_transitively(conn):
    for i, node_id in enumerate("ABC"):
        add_node(conn, node_id, node_id, created_at=T0 + timedelta(days=i))
    add_edge(conn, "A", "C", 0.5)
    first = merge_nodes(conn, "B", "A", now=T0 + timedelta(days=5))
    second = merge_nodes(conn, "C", "B", now=T0 + timedelta(days=6))
    aliases = dict(conn.execute("SELECT alias_id, canonical_id FROM node_aliases").fetchall())
    assert aliases == {"A": "C", "B": "C"}
    history = json.loads(conn.execute("SELECT merge_history FROM kg_nodes WHERE node_id = 'C'").fetchone()[0])
    assert [h["merged_node_id"] for h in history] == ["A", "B"]
    assert conn.execute("SELECT count(*) FROM kg_edges").fetchone()[0] == 0  # A -> C became C -> C: dropped
    with pytest.raises(MergeError, match=second.merge_id):
        unmerge(conn, first.merge_id, T0 + timedelta(days=7))
    unmerge(conn, second.merge_id, T0 + timedelta(days=7))
    assert dict(conn.execute("SELECT alias_id, canonical_id FROM node_aliases").fetchall()) == {"A": "B"}


def test_never_merge_and_rejected_pairs_are_refused(conn, store, tmp_path):
    add_node(conn, "c1", "consciousness")
    add_node(conn, "c2", "consciousness_engine")
    add_node(conn, "p1", "Metformin", node_type="compound")
    add_node(conn, "p2", "Metformine", node_type="compound")
    add_node(conn, "q1", "Rapamycin", node_type="compound")
    add_node(conn, "q2", "Rapamycine", node_type="compound")
    sync_node_vectors(
        conn,
        store,
        NameEmbedder({"consciousness engine": "consciousness", "metformine": "metformin", "rapamycine": "rapamycin"}),
    )
    data = tmp_path / "data"
    data.mkdir()
    (data / "never_merge.txt").write_text(
        "# seed examples\nconsciousness | consciousness_engine\nentity | sub_entity\n"
    )
    (data / "decisions.csv").write_text(
        "node_a,node_b,name_a,name_b,score,decision,note\nq1,q2,,,,distinct,two drugs\n"
    )
    exclusions = load_exclusions(data, "never_merge.txt", "decisions.csv")
    pairs = {(p.node_a.node_id, p.node_b.node_id): p for p in detect_duplicates(conn, store, exclusions).pairs}
    assert pairs[("c1", "c2")].decision == KEEP_APART and pairs[("c1", "c2")].stage == "never_merge"
    assert pairs[("q1", "q2")].decision == KEEP_APART and pairs[("q1", "q2")].stage == "person"
    assert pairs[("p1", "p2")].decision == MERGE
    # without the files the same pairs would merge
    unguarded = {(p.node_a.node_id, p.node_b.node_id): p for p in detect_duplicates(conn, store, NONE).pairs}
    assert unguarded[("q1", "q2")].decision == MERGE
    (data / "never_merge.txt").write_text("just one name\n")
    with pytest.raises(ExclusionFileError, match="never_merge.txt:1"):
        read_never_merge(data / "never_merge.txt")


def test_grey_zone_goes_to_a_person_offline_and_their_answer_counts(graph_settings, conn, store):
    settings = graph_settings
    add_node(conn, "g1", "Sirtuin one")
    add_node(conn, "g2", "Sirtuin 1")
    sync_node_vectors(conn, store, NameEmbedder({"sirtuin 1": "sirtuin one x"}))
    report = plan_duplicates(conn, store, settings, T0, threshold=0.95)
    (pair,) = report.pairs
    assert 0.85 <= pair.score < 0.95 and pair.decision == NEEDS_REVIEW
    path = settings.data_dir / settings.dedup.decisions_file
    assert "g1,g2" in path.read_text()
    assert merge_planned(conn, store, settings, T0).merges == []
    path.write_text(path.read_text().replace(",,grey zone", ",same,grey zone"))  # what a person writes
    report = plan_duplicates(conn, store, settings, T0, threshold=0.95)
    assert report.pairs[0].decision == MERGE and report.pairs[0].stage == "person"
    assert len(merge_planned(conn, store, settings, T0).merges) == 1
    assert append_review_pairs(path, [dict(node_a="g1", node_b="g2", name_a="", name_b="", score=0.9)]) == 0


def test_grey_zone_goes_to_the_llm_when_one_is_configured(conn, store, fake_openai):
    from kg_pipelines.llm.client import LLMClient
    from kg_pipelines.llm.openai_provider import OpenAIProvider
    from tests.fake_openai import http_error, json_content

    add_node(conn, "g1", "Sirtuin one")
    add_node(conn, "g2", "Sirtuin 1")
    sync_node_vectors(conn, store, NameEmbedder({"sirtuin 1": "sirtuin one x"}))
    fake_openai.push(json_content({"same": True, "reason": "1 and one name the same sirtuin"}))
    llm = LLMClient(OpenAIProvider("gpt-5-mini", "test", base_url=fake_openai.base_url, timeout_s=5), ("gene",))
    (pair,) = detect_duplicates(conn, store, NONE, llm=llm).pairs
    assert (pair.stage, pair.decision) == ("llm", MERGE)
    assert "same sirtuin" in pair.reason
    body = fake_openai.requests_to("chat")[0].body
    assert body["response_format"]["json_schema"]["name"] == "same_entity_verdict"
    # the LLM failing (HTTP 500, then an answer outside the schema) leaves the pair for a person
    for failure in (http_error(500), json_content({"same": "perhaps"})):
        fake_openai.push(failure)
        (pair,) = detect_duplicates(conn, store, NONE, llm=llm).pairs
        assert pair.decision == NEEDS_REVIEW and "the LLM failed" in pair.reason


# -- formation time, aliases, provenance -------------------------------------------------------------
EMBED = NameEmbedder({"metformine": "metformin"})


def ingest(conn, store, docs, now):
    update_graph(conn, docs, now)
    sync_node_vectors(conn, store, EMBED)
    return absorb_new_nodes(conn, store, NONE, now)


def test_formation_time_absorbs_a_new_duplicate(conn, store):
    put_document(conn, "d1", "c1", [("Metformin", "compound"), ("AMPK", "protein")], [("Metformin", "AMPK")])
    first = ingest(conn, store, ["d1"], T0)
    assert first.merges == []
    put_document(conn, "d2", "c2", [("Metformine", "compound"), ("Liver", "tissue")], [("Metformine", "Liver")])
    second = ingest(conn, store, ["d2"], T0 + timedelta(days=1))
    (merge,) = second.merges
    metformin, metformine = entity_node_id("Metformin", "compound"), entity_node_id("Metformine", "compound")
    assert (merge.canonical_id, merge.duplicate_id) == (metformin, metformine)
    assert metformine not in nodes_named(conn).values()
    row = warehouse.fetch_dicts(conn, "SELECT strategy, origin FROM node_merges")[0]
    assert row == {"strategy": "formation_time", "origin": "graph"}
    liver = entity_node_id("Liver", "tissue")
    assert conn.execute(f"SELECT count(*) FROM kg_edges WHERE edge_id = 'RELATED:{metformin}->{liver}'").fetchone()[0]
    supports = {
        r[0] for r in conn.execute("SELECT document_id FROM kg_node_support WHERE node_id = ?", [metformin]).fetchall()
    }
    assert supports == {"d1", "d2"}
    assert metformine not in NodeVectors.hashes(store)
    # checked once: the next run does not look at these nodes again
    assert ingest(conn, store, [], T0 + timedelta(days=2)).new_nodes == 0


def test_alias_survives_reingestion_and_removal(conn, store):
    put_document(conn, "d1", "c1", [("Metformin", "compound")], [])
    ingest(conn, store, ["d1"], T0)
    put_document(conn, "d2", "c1", [("Metformine", "compound"), ("Liver", "tissue")], [("Metformine", "Liver")])
    ingest(conn, store, ["d2"], T0 + timedelta(days=1))
    metformin, metformine = entity_node_id("Metformin", "compound"), entity_node_id("Metformine", "compound")
    # the duplicate's document again (edited): its entity still supports the canonical node
    put_document(conn, "d2", "c1", [("Metformine", "compound"), ("Liver", "tissue")], [("Metformine", "Liver")])
    update_graph(conn, ["d2"], T0 + timedelta(days=2))
    assert metformine not in nodes_named(conn).values()
    assert conn.execute("SELECT count(*) FROM kg_nodes WHERE node_id = ?", [metformine]).fetchone()[0] == 0
    assert conn.execute("SELECT support_count FROM kg_nodes WHERE node_id = ?", [metformin]).fetchone()[0] == 2
    # removing the duplicate's document takes its support away, the canonical node stays on d1
    drop_document(conn, "d2")
    update_graph(conn, ["d2"], T0 + timedelta(days=3))
    docs = conn.execute("SELECT DISTINCT document_id FROM kg_node_support WHERE node_id = ?", [metformin]).fetchall()
    assert docs == [("d1",)]
    assert conn.execute("SELECT count(*) FROM kg_edges WHERE source_id = ?", [metformin]).fetchone()[0] == 0
    # removing the canonical's own document too: nothing supports it any more, it goes
    drop_document(conn, "d1")
    update_graph(conn, ["d1"], T0 + timedelta(days=4))
    assert conn.execute("SELECT count(*) FROM kg_nodes WHERE node_id = ?", [metformin]).fetchone()[0] == 0


# -- unmerge and crash safety ------------------------------------------------------------------------
def test_unmerge_restores_the_graph_exactly(conn, store):
    put_document(conn, "d1", "c1", [("Metformin", "compound"), ("AMPK", "protein")], [("Metformin", "AMPK")])
    put_document(
        conn,
        "d2",
        "c1",
        [("Metformine", "compound"), ("AMPK", "protein"), ("Liver", "tissue")],
        [("Metformine", "AMPK"), ("Metformine", "Liver")],
    )
    update_graph(conn, ["d1", "d2"], T0)
    metformin, metformine = entity_node_id("Metformin", "compound"), entity_node_id("Metformine", "compound")
    add_edge(conn, metformin, metformine, 0.9)  # a user's edge between the two: dropped as a self-loop
    before = graph_state(conn)
    with warehouse.transaction(conn):
        outcome = merge_nodes(conn, metformin, metformine, now=T0 + timedelta(days=1), score=0.98)
    assert (outcome.edges_combined, outcome.edges_redirected, outcome.self_loops_dropped) == (1, 2, 1)
    assert graph_state(conn) != before
    with warehouse.transaction(conn):
        unmerge(conn, outcome.merge_id, T0 + timedelta(days=2))
    assert graph_state(conn) == before
    assert conn.execute("SELECT undone_at IS NOT NULL FROM node_merges").fetchone()[0]
    with pytest.raises(MergeError, match="already undone"):
        unmerge(conn, outcome.merge_id, T0)
    with pytest.raises(MergeError, match="unknown merge"):
        unmerge(conn, "merge-nothing", T0)


def test_a_crash_in_the_middle_of_a_merge_pass_changes_nothing(graph_settings, conn, store):
    for i, (a, b) in enumerate([("Metformin", "Metformine"), ("Rapamycin", "Rapamycine"), ("Aspirin", "Aspirine")]):
        add_node(conn, f"x{i}", a, created_at=T0)
        add_node(conn, f"y{i}", b, created_at=T0 + timedelta(hours=1))
        add_edge(conn, f"y{i}", f"x{i}", 0.5)
    sync_node_vectors(
        conn, store, NameEmbedder({"metformine": "metformin", "rapamycine": "rapamycin", "aspirine": "aspirin"})
    )
    plan = plan_duplicates(conn, store, graph_settings, T0)
    assert sum(p.decision == MERGE for p in plan.pairs) == 3
    before = graph_state(conn)
    with pytest.raises(RuntimeError, match="simulated crash"):
        merge_planned(conn, store, graph_settings, T0 + timedelta(days=1), fail_after=2)
    assert graph_state(conn) == before
    assert conn.execute("SELECT count(*) FROM node_merges").fetchone()[0] == 0
    done = merge_planned(conn, store, graph_settings, T0 + timedelta(days=1))
    assert len(done.merges) == 3
    assert conn.execute("SELECT count(*) FROM kg_nodes").fetchone()[0] == 3


@pytest.fixture
def graph_settings(tmp_path):
    from kg_pipelines.config import load_settings

    data = tmp_path / "data"
    data.mkdir(exist_ok=True)
    return load_settings(data)


def test_a_pass_never_merges_through_a_chain_what_never_merge_keeps_apart(graph_settings, conn, store):
    add_node(conn, "a", "entity", created_at=T0)
    add_node(conn, "b", "entity_", created_at=T0 + timedelta(hours=1))
    add_node(conn, "c", "sub_entity", created_at=T0 + timedelta(hours=2))
    (graph_settings.data_dir / "never_merge.txt").write_text("entity | sub_entity\n")
    plan = [("a", "b", 0.99), ("b", "c", 0.96)]  # b ~ c, but b resolves to a first
    warehouse.insert_rows(
        conn,
        "duplicate_candidates",
        [
            dict(
                node_a=a,
                node_b=b,
                node_type="concept",
                name_a=a,
                name_b=b,
                embedding_similarity=1.0,
                name_similarity=1.0,
                metadata_overlap=1.0,
                score=s,
                stage="score",
                decision=MERGE,
                detected_at=T0,
            )
            for a, b, s in plan
        ],
    )
    done = merge_planned(conn, store, graph_settings, T0 + timedelta(days=1))
    assert [(m.canonical_id, m.duplicate_id) for m in done.merges] == [("a", "b")]
    assert sorted(r[0] for r in conn.execute("SELECT node_id FROM kg_nodes").fetchall()) == ["a", "c"]


def test_merges_of_one_pass_are_undone_newest_first(conn):
    for node_id in "ABC":
        add_node(conn, node_id, node_id, created_at=T0)
    now = T0 + timedelta(days=1)  # one pass: both merges carry the same time
    first = merge_nodes(conn, "A", "B", now=now)
    second = merge_nodes(conn, "A", "C", now=now)
    with pytest.raises(MergeError, match=second.merge_id):
        unmerge(conn, first.merge_id, now)
    unmerge(conn, second.merge_id, now)
    unmerge(conn, first.merge_id, now)
    assert sorted(r[0] for r in conn.execute("SELECT node_id FROM kg_nodes").fetchall()) == ["A", "B", "C"]


# -- which nodes are compared ------------------------------------------------------------------------
def test_only_entities_and_imported_nodes_are_compared(conn, store):
    add_node(conn, "title:intro-a", "Introduction", node_type="title", node_kind="title")
    add_node(conn, "title:intro-b", "introduction", node_type="title", node_kind="title")
    add_node(conn, "page:w1", "Train_a_model", node_type="Workflow", node_kind="wiki_page")
    add_node(conn, "page:w2", "train a model", node_type="Workflow", node_kind="wiki_page")
    add_node(conn, "n-e", "rapamycin", node_type="compound")
    add_node(conn, "n-i", "Rapamycin", node_type="compound", node_kind="imported")
    sync_node_vectors(conn, store, NameEmbedder())
    found = {(p.node_a.node_id, p.node_b.node_id) for p in detect_duplicates(conn, store, NONE).pairs}
    assert found == {("n-e", "n-i")}  # two documents' titles and the merger's pages stay apart
    every_kind = ("entity", "imported", "title", "wiki_page")
    found = {
        (p.node_a.node_id, p.node_b.node_id) for p in detect_duplicates(conn, store, NONE, node_kinds=every_kind).pairs
    }
    assert {("title:intro-a", "title:intro-b"), ("page:w1", "page:w2")} <= found  # what the setting keeps out


def test_nodes_of_other_kinds_take_no_place_among_the_k_neighbours(conn, store):
    from kg_pipelines.graph.duplicate_detection import load_named_nodes, neighbour_pairs

    add_node(conn, "n-a", "sirtuin 1")
    add_node(conn, "n-b", "sirtuin 1s")
    add_node(conn, "page:p", "sirtuin 1", node_kind="wiki_page")  # the same vector as n-a, another kind
    sync_node_vectors(conn, store, NameEmbedder())
    nodes = load_named_nodes(conn)
    assert set(nodes) == {"n-a", "n-b"}
    vectors = store.vectors(["n-a", "n-b"])
    assert neighbour_pairs(store, {"n-a": nodes["n-a"]}, vectors, k=1) == {("n-a", "n-b")}


def test_formation_time_dedup_leaves_titles_alone(conn, store, tmp_path):
    add_node(conn, "title:a", "Autophagy", node_type="title", node_kind="title", created_at=T0)
    add_node(conn, "title:b", "autophagy", node_type="title", node_kind="title", created_at=T0 + timedelta(days=1))
    add_node(conn, "n-old", "autophagy", node_type="process", created_at=T0)
    add_node(conn, "n-new", "Autophagy", node_type="process", created_at=T0 + timedelta(days=1))
    sync_node_vectors(conn, store, NameEmbedder())
    report = absorb_new_nodes(conn, store, NONE, T0 + timedelta(days=2))
    assert [(m.duplicate_id, m.canonical_id) for m in report.merges] == [("n-new", "n-old")]
    assert {r[0] for r in conn.execute("SELECT node_id FROM kg_nodes WHERE node_kind = 'title'").fetchall()} == {
        "title:a",
        "title:b",
    }


def test_neighbours_without_an_index_are_lancedbs_k_nearest(conn, store):
    """Without a vector index the k nearest come from one matrix product per type instead of a
    LanceDB query per node: the same neighbours as LanceDB's own exact search."""
    from kg_pipelines.graph.duplicate_detection import load_named_nodes, neighbour_pairs

    # every pair shares some trigrams (no tie at a cosine of 0 to be broken either way)
    names = ["sirtuin 1", "sirtuin 1s", "sirtuin 2", "rapamycin", "rapamycine", "rapalog", "sirtuins", "sirt1 in"]
    for i, name in enumerate(names):
        add_node(conn, f"n-{i}", name, node_type="compound" if "rapa" in name else "protein")
    sync_node_vectors(conn, store, NameEmbedder())
    nodes = load_named_nodes(conn)
    vectors = store.vectors(sorted(nodes))
    k = 2
    expected = set()
    for node_id, node in nodes.items():
        rows = (
            store.table()
            .search(vectors[node_id])
            .metric("cosine")
            .limit(k + 1)
            .where(f"node_type = '{node.node_type}'", prefilter=True)
            .select(["node_id"])
            .to_arrow()
        )
        found = rows.column("node_id").to_pylist()
        expected |= {(min(node_id, other), max(node_id, other)) for other in found if other != node_id}
    assert not store.table().list_indices()
    assert neighbour_pairs(store, nodes, vectors, k=k) == expected
    assert ("n-3", "n-4") in expected and not any({a, b} == {"n-0", "n-3"} for a, b in expected)  # types apart


def test_the_top_columns_are_argpartitions_choice_ties_included():
    from kg_pipelines.graph.duplicate_detection import _top_columns

    rng = np.random.default_rng(7)
    for trial in range(40):
        n, take = int(rng.integers(12, 200)), int(rng.integers(1, 12))
        cosines = rng.standard_normal((int(rng.integers(1, 30)), n)).astype(np.float32)
        if trial % 2:  # ties at the boundary: repeated columns, coarse values
            cosines = np.round(cosines, 1)
            cosines[:, : n // 3] = cosines[:, n // 3 : 2 * (n // 3)]
        chosen = np.argpartition(-cosines, take - 1, axis=1)[:, :take]
        rows, columns = _top_columns(cosines, take)
        got: list[set] = [set() for _ in range(len(cosines))]
        for row, column in zip(rows.tolist(), columns.tolist()):
            got[row].add(column)
        assert got == [set(c) for c in chosen.tolist()]
