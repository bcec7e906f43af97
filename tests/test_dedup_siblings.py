"""Siblings are never merged (issue 21): the distinguishing-token rule on families of names, the
node text that identifies a node (not the sentence it shares), the real embedder on sibling
genes sharing one sentence, formation time as strict as the periodic pass, and an unmerge that
sticks (the pair is written ``distinct`` and no later pass, periodic or at formation time, merges
it again)."""

import fnmatch
import json
import tomllib
from datetime import timedelta

import numpy as np
import pytest

from kg_pipelines.config import DEFAULT_EMBEDDING_MODEL
from kg_pipelines.graph.data_files import DATA_DIR
from kg_pipelines.graph.duplicate_detection import KEEP_APART, MERGE, detect_duplicates
from kg_pipelines.graph.formation_dedup import CHECKED_UNTIL, absorb_new_nodes
from kg_pipelines.graph.merge_exclusions import MergeExclusions, load_exclusions, read_decisions
from kg_pipelines.graph.node_merging import merge_nodes, unmerge_as_distinct
from kg_pipelines.graph.periodic_merging import merge_planned, plan_duplicates
from kg_pipelines.graph.sibling_names import name_key, sibling_difference
from kg_pipelines.stores import warehouse
from kg_pipelines.stores.node_vectors import node_text, own_descriptions, sync_node_vectors
from tests.test_dedup import T0, NameEmbedder, add_edge, add_node, conn, graph_settings, graph_state, store  # noqa: F401

SIBLINGS = [
    # genes and proteins
    ("FOXO1", "FOXO4"),
    ("IL-6", "IL-10"),
    ("CDK4", "CDK6"),
    ("GPR41", "GPR43"),
    ("APOE3", "APOE4"),
    ("TIM-1", "TIM-3"),
    ("CARD8", "CARD4"),
    ("AKT-2", "AKT-1"),
    ("GATOR1", "GATOR2"),
    ("ATG5", "ATG7"),
    ("TOR1", "TOR2"),
    ("SIRT1", "SIRT3"),
    ("CYP2C9", "CYP2C19"),
    # Greek letters, spelled, glued or as symbols
    ("PPAR-alpha", "PPAR-gamma"),
    ("PPARα", "PPARγ"),
    ("ERalpha", "ERbeta"),
    ("TNF-α", "TGF-β"),
    ("PKC-delta", "PKC-epsilon"),
    # receptors, subtypes, Roman numerals
    ("angiotensin II receptor type 1a", "angiotensin II receptor type 2"),
    ("Type 1 Diabetes", "Type 2 Diabetes"),
    ("type I interferon", "type II interferon"),
    ("complex I", "complex III"),
    ("5-HT2A receptor", "5-HT2C receptor"),
    ("Hepatitis B", "Hepatitis C"),
    ("vitamin B12", "vitamin B6"),
    ("acute myeloid leukemia", "chronic myeloid leukemia"),
    # signs
    ("CD8+ T cells", "CD8- T cells"),
    ("ER+ breast cancer", "ER- breast cancer"),
    # strains
    ("H1N1", "H3N2"),
    ("influenza A virus", "influenza B virus"),
    ("SARS-CoV-1", "SARS-CoV-2"),
    # product models
    ("iPhone 12", "iPhone 13"),
    ("Galaxy S21", "Galaxy S22"),
    ("Galaxy S21 Plus", "Galaxy S21 Ultra"),
    ("Windows XP Home", "Windows XP Professional"),
    ("Photoshop CS3 for Mac", "Photoshop CS3 for Windows"),
    ("Office 2007", "Office 2010"),
    # a member or subtype added to the family's name
    ("AKT", "AKT1"),
    ("glutathione peroxidase", "glutathione peroxidase 1"),
    ("angiotensin II type 1 receptor", "angiotensin II type 1a receptor"),
    ("SARS-CoV", "SARS-CoV-2"),
    ("hepatitis", "hepatitis B"),
]

SAME_THING = [
    # written differently, one thing: not the rule's business (left to the score or same tokens)
    ("HNF-6", "HNF6"),
    ("hepatocyte nuclear factor-6", "HNF-6"),
    ("Type II diabetes", "type 2 diabetes"),
    ("TNF-α", "TNF-alpha"),
    ("PPARγ", "PPARgamma"),
    ("Metformin", "Metformine"),
    ("TNF", "TNF-alpha"),
    ("clip art 10 000", "clip art 10000"),
    ("Office X3 Professional", "Office X3 Pro"),
    ("consciousness_substrate", "consciousness substrate"),
]


@pytest.mark.parametrize(("a", "b"), SIBLINGS)
def test_names_that_differ_by_a_distinguishing_token_are_siblings(a, b):
    assert sibling_difference(a, b) is not None
    assert sibling_difference(b, a) is not None


@pytest.mark.parametrize(("a", "b"), SAME_THING)
def test_names_written_differently_are_not_siblings(a, b):
    assert sibling_difference(a, b) is None


def test_same_tokens_key_reads_notation_not_the_thing():
    assert name_key("HNF-6") == name_key("HNF6") == name_key("hnf 6")
    assert name_key("TNF-α") == name_key("TNFalpha") == name_key("TNF alpha")
    assert name_key("Type II diabetes") == name_key("type 2 diabetes")
    assert name_key("FOXO1") != name_key("FOXO4")
    assert name_key("alphabet") != name_key("alpha bet")  # a Greek name is split off an upper-case stem only


def test_the_word_lists_are_data_files_that_ship_with_the_package():
    for name in ("greek_letters.txt", "roman_numerals.txt", "variant_markers.txt"):
        assert (DATA_DIR / name).is_file()
    project = tomllib.loads((DATA_DIR.parents[2] / "pyproject.toml").read_text())
    shipped = project["tool"]["setuptools"]["package-data"]["kg_pipelines"]
    for name in ("greek_letters.txt", "roman_numerals.txt", "variant_markers.txt"):
        assert any(fnmatch.fnmatch(f"graph/data/{name}", pattern) for pattern in shipped), (name, shipped)


# -- the node text ---------------------------------------------------------------------------------
def test_a_shared_sentence_is_not_a_nodes_own_description():
    shared = "FOXO1 and FOXO4 are forkhead transcription factors that control autophagy in muscle."
    own = own_descriptions(
        [("a", shared), ("b", "  " + shared.upper()), ("c", "Metformin lowers glucose."), ("d", None)]
    )
    assert own == {"a": None, "b": None, "c": "Metformin lowers glucose.", "d": None}
    assert node_text("FOXO1", own["a"]) == "FOXO1"
    assert node_text("Metformin", own["c"]) == "Metformin. Metformin lowers glucose."


def _described(conn, node_id, name, node_type, description, metadata=None):
    add_node(conn, node_id, name, node_type=node_type, metadata=metadata)
    conn.execute("UPDATE kg_nodes SET description = ? WHERE node_id = ?", [description, node_id])


@pytest.fixture(scope="module")
def real_embedder():
    from kg_pipelines.embedding import embedder_for

    return embedder_for(DEFAULT_EMBEDDING_MODEL)


SENTENCE = "{} and {} are forkhead transcription factors that control autophagy and stress resistance in muscle."


def sibling_graph(conn):
    """Sibling genes described by the one sentence that names them (as graph building does), and
    one true duplicate: the same compound, once extracted and once imported."""
    for a, b, node_type in (("FOXO1", "FOXO4", "gene"), ("GATOR1", "GATOR2", "protein"), ("AKT-1", "AKT-2", "protein")):
        sentence = SENTENCE.format(a, b)
        _described(conn, a, a, node_type, sentence)
        _described(conn, b, b, node_type, sentence)
    _described(conn, "met-1", "Metformin", "compound", "Metformin lowers hepatic glucose output in the liver.")
    _described(conn, "met-2", "metformin", "compound", "Patients took metformin twice a day for a year.")


def test_real_embedder_siblings_sharing_a_sentence_stay_apart_an_exact_duplicate_merges(conn, store, real_embedder):
    sibling_graph(conn)
    sync_node_vectors(conn, store, real_embedder)
    vectors = store.vectors(["FOXO1", "FOXO4"])
    # each sibling is embedded from its name, not from the sentence they share (cosine ~0.99 then)
    assert np.allclose(vectors["FOXO1"], real_embedder.embed(["FOXO1"])[0], atol=1e-5)
    report = detect_duplicates(conn, store, MergeExclusions())  # the default threshold, 0.95
    by_pair = {frozenset((p.node_a.node_id, p.node_b.node_id)): p for p in report.pairs}
    merged = {pair for pair, p in by_pair.items() if p.decision == MERGE}
    assert merged == {frozenset(("met-1", "met-2"))}
    for pair in (("FOXO1", "FOXO4"), ("GATOR1", "GATOR2"), ("AKT-1", "AKT-2")):
        found = by_pair.get(frozenset(pair))
        assert found is None or found.decision == KEEP_APART


def test_real_embedder_the_rule_holds_even_on_vectors_of_the_shared_sentence(conn, store, real_embedder):
    """The old node text (name. shared sentence) gives siblings cosine ~0.99: the rule alone keeps them apart."""

    class SentenceEmbedder:
        model_name = "sentence-only"

        def embed(self, texts):
            return real_embedder.embed([SENTENCE.format("FOXO1", "FOXO4")] * len(texts))

    _described(conn, "FOXO1", "FOXO1", "gene", None)
    _described(conn, "FOXO4", "FOXO4", "gene", None)
    sync_node_vectors(conn, store, SentenceEmbedder())
    (pair,) = detect_duplicates(conn, store, MergeExclusions()).pairs
    assert pair.similarity.embedding > 0.99
    assert (pair.decision, pair.stage) == (KEEP_APART, "sibling_names")


def test_records_with_the_same_title_and_different_years_stay_apart(conn, store):
    add_node(conn, "p1", "Guest editorial", node_type="paper", metadata={"venue": "VLDB J.", "year": "2001"})
    add_node(conn, "p2", "Guest editorial", node_type="paper", metadata={"venue": "vldb j.", "year": "2003"})
    add_node(conn, "p3", "Guest Editorial", node_type="paper", metadata={"venue": "VLDB J", "year": "2001"})
    sync_node_vectors(conn, store, NameEmbedder())
    by_pair = {(p.node_a.node_id, p.node_b.node_id): p for p in detect_duplicates(conn, store, MergeExclusions()).pairs}
    assert by_pair[("p1", "p2")].stage == "metadata_conflict" and by_pair[("p1", "p2")].decision == KEEP_APART
    assert by_pair[("p1", "p3")].decision == MERGE  # venue agrees (punctuation, case), the year too


# -- formation time: the same cascade; its merges can be undone ----------------------------------------
def test_formation_time_keeps_siblings_apart_with_the_real_embedder(conn, store, real_embedder):
    sibling_graph(conn)
    sync_node_vectors(conn, store, real_embedder)
    report = absorb_new_nodes(conn, store, MergeExclusions(), T0 + timedelta(days=1))
    assert [(m.canonical_name, m.duplicate_name) for m in report.merges] == [("Metformin", "metformin")]
    names = {r[0] for r in conn.execute("SELECT name FROM kg_nodes").fetchall()}
    assert {"FOXO1", "FOXO4", "GATOR1", "GATOR2", "AKT-1", "AKT-2"} <= names


def test_formation_time_never_merges_what_a_person_or_the_rule_keeps_apart(conn, store, tmp_path):
    """Formation time is never looser than the periodic pass: a rigged embedder that reads SIRT3 as
    SIRT1 and Rapamycine as Rapamycin; a person said Rapamycin / Rapamycine are distinct."""
    add_node(conn, "s1", "SIRT1", node_type="protein")
    add_node(conn, "s3", "SIRT3", node_type="protein")
    add_node(conn, "r1", "Rapamycin", node_type="compound")
    add_node(conn, "r2", "Rapamycine", node_type="compound")
    sync_node_vectors(conn, store, NameEmbedder({"sirt3": "sirt1", "rapamycine": "rapamycin"}))
    (tmp_path / "decisions.csv").write_text("node_a,node_b,name_a,name_b,score,decision,note\nr1,r2,,,,distinct,\n")
    exclusions = load_exclusions(tmp_path, "never_merge.txt", "decisions.csv")
    assert absorb_new_nodes(conn, store, exclusions, T0 + timedelta(days=1)).merges == []
    # the same graph without a person's word: Rapamycin / Rapamycine merge, SIRT1 / SIRT3 still do not
    conn.execute("DELETE FROM dedup_state")
    merged = absorb_new_nodes(conn, store, MergeExclusions(), T0 + timedelta(days=2)).merges
    assert [(m.canonical_id, m.duplicate_id) for m in merged] == [("r1", "r2")]


def _settings_with_graph(graph_settings, conn, store):
    add_node(conn, "m1", "Metformin", node_type="compound", created_at=T0)
    add_node(conn, "m2", "Metformine", node_type="compound", created_at=T0 + timedelta(days=1))
    add_node(conn, "a1", "AMPK", node_type="protein")
    add_edge(conn, "m2", "a1", 0.5)
    sync_node_vectors(conn, store, NameEmbedder({"metformine": "metformin"}))
    return graph_settings.data_dir / graph_settings.dedup.decisions_file


def test_unmerge_sticks_for_the_periodic_pass_and_formation_time(graph_settings, conn, store):
    decisions = _settings_with_graph(graph_settings, conn, store)
    before = graph_state(conn)
    plan_duplicates(conn, store, graph_settings, T0)
    (merge,) = merge_planned(conn, store, graph_settings, T0 + timedelta(days=2)).merges
    (undone,) = unmerge_as_distinct(conn, [merge.merge_id], T0 + timedelta(days=3), decisions)
    assert undone["merge_id"] == merge.merge_id and graph_state(conn) == before
    decided, rows = read_decisions(decisions)
    assert decided == {("m1", "m2"): "distinct"} and merge.merge_id in rows[0]["note"]
    sync_node_vectors(conn, store, NameEmbedder({"metformine": "metformin"}))
    # the next periodic pass: the pair is planned as kept apart, nothing merges
    (pair,) = plan_duplicates(conn, store, graph_settings, T0 + timedelta(days=4)).pairs
    assert (pair.decision, pair.stage) == (KEEP_APART, "person")
    assert merge_planned(conn, store, graph_settings, T0 + timedelta(days=4)).merges == []
    # a formation-time pass over every node again: nothing merges either
    conn.execute("DELETE FROM dedup_state WHERE name = ?", [CHECKED_UNTIL])
    exclusions = load_exclusions(graph_settings.data_dir, "never_merge.txt", graph_settings.dedup.decisions_file)
    assert absorb_new_nodes(conn, store, exclusions, T0 + timedelta(days=5)).merges == []
    assert conn.execute("SELECT count(*) FROM kg_nodes").fetchone()[0] == 3


def test_a_formation_time_merge_is_recorded_and_can_be_undone(graph_settings, conn, store):
    decisions = _settings_with_graph(graph_settings, conn, store)
    before = graph_state(conn)
    (merge,) = absorb_new_nodes(conn, store, MergeExclusions(), T0 + timedelta(days=2)).merges
    row = warehouse.fetch_dicts(conn, "SELECT merge_id, strategy, snapshot FROM node_merges")[0]
    assert (row["merge_id"], row["strategy"]) == (merge.merge_id, "formation_time") and json.loads(row["snapshot"])
    unmerge_as_distinct(conn, [merge.merge_id], T0 + timedelta(days=3), decisions)
    assert graph_state(conn) == before
    assert read_decisions(decisions)[0] == {("m1", "m2"): "distinct"}


def test_a_failed_unmerge_changes_neither_the_graph_nor_the_decisions(graph_settings, conn, store):
    decisions = _settings_with_graph(graph_settings, conn, store)
    with warehouse.transaction(conn):
        first = merge_nodes(conn, "m1", "m2", now=T0 + timedelta(days=2))
    state = graph_state(conn)
    with pytest.raises(Exception, match="unknown merge"):
        unmerge_as_distinct(conn, [first.merge_id, "merge-nope"], T0 + timedelta(days=3), decisions)
    assert graph_state(conn) == state and not decisions.exists()
