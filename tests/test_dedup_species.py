"""The species rule of duplicate detection (issue 21): a gene or protein name stands for one
species' gene, so two gene nodes found in texts about different organisms are two nodes whatever
their names and vectors say; when only one node's texts name an organism, the pair goes to review
instead of merging on its name. Other types (a disease named in a rat study) are never checked.
Texts and names written for these tests; the real embedder where the cascade runs."""

from datetime import timedelta

import pytest

from kg_pipelines.config import DEFAULT_EMBEDDING_MODEL
from kg_pipelines.graph.duplicate_detection import KEEP_APART, MERGE, NEEDS_REVIEW, detect_duplicates, keep_apart_check
from kg_pipelines.graph.formation_dedup import absorb_new_nodes
from kg_pipelines.graph.merge_exclusions import MergeExclusions
from kg_pipelines.graph.species_context import (
    CONFLICT,
    UNSURE,
    is_species_specific,
    organism_check,
    organism_contexts,
    organisms_in,
)
from kg_pipelines.stores import warehouse
from kg_pipelines.stores.node_vectors import sync_node_vectors
from tests.test_dedup import T0, add_node, conn, store  # noqa: F401


# -- reading organisms ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "organisms"),
    [
        ("Knockout mice lacked the receptor in the murine liver.", {"mouse"}),
        ("Aortic aneurysm was induced in rats with calcium chloride.", {"rat"}),
        ("Serum levels were higher in patients than in healthy volunteers.", {"human"}),
        ("Zebrafish embryos and Drosophila larvae were imaged.", {"zebrafish", "fruit fly"}),
        ("Guinea pigs were sensitised to ovalbumin.", {"guinea pig"}),  # not also "pig"
        ("Orthologues in C. elegans and yeast were found.", {"nematode", "yeast"}),
        ("CAT and RAT activity were measured.", set()),  # all capitals: symbols, not animals
        ("Non-human primates and nonhuman cells were used.", set()),  # not a human
        ("The enzyme was purified to homogeneity.", set()),
    ],
)
def test_organisms_named_in_a_text(text, organisms):
    assert organisms_in(text) == frozenset(organisms)


def test_gene_and_protein_types_are_species_specific_in_any_spelling():
    for node_type in ("gene", "protein", "GeneOrGeneProduct", "gene_or_gene_product", "Enzyme"):
        assert is_species_specific(node_type), node_type
    for node_type in ("disease", "compound", "ChemicalEntity", "process", "organism", "record"):
        assert not is_species_specific(node_type), node_type


def test_organism_check():
    assert organism_check(frozenset({"rat"}), frozenset({"human"}))[0] == CONFLICT
    assert organism_check(frozenset({"rat"}), frozenset())[0] == UNSURE
    assert organism_check(frozenset({"human"}), frozenset({"human"})) is None
    # a paper on rat and human genes: which species' gene its name is, the text does not say
    assert organism_check(frozenset({"rat", "human"}), frozenset({"human"}))[0] == UNSURE
    assert organism_check(frozenset({"rat", "human"}), frozenset({"rat", "human"}))[0] == UNSURE
    # texts that never name an organism do not say the species agree either
    assert organism_check(frozenset(), frozenset())[0] == UNSURE


# -- the cascade, with the real embedder -------------------------------------------------------------------
@pytest.fixture(scope="module")
def real_embedder():
    from kg_pipelines.embedding import embedder_for

    return embedder_for(DEFAULT_EMBEDDING_MODEL)


def found_in(conn, node_id, name, node_type, chunk_text, chunk_id):
    """A node and the chunk that supports it, as graph building writes them."""
    add_node(conn, node_id, name, node_type=node_type)
    sentence = chunk_text.split(". ")[0]
    conn.execute("UPDATE kg_nodes SET description = ? WHERE node_id = ?", [sentence, node_id])
    if not conn.execute("SELECT 1 FROM chunks WHERE chunk_id = ?", [chunk_id]).fetchall():
        warehouse.insert_rows(
            conn,
            "chunks",
            [
                {
                    "chunk_id": chunk_id,
                    "document_id": chunk_id,
                    "collection": "c",
                    "seq": 0,
                    "text": chunk_text,
                    "token_count": len(chunk_text.split()),
                    "text_hash": chunk_id,
                }
            ],
        )
    warehouse.insert_rows(
        conn,
        "kg_node_support",
        [
            {
                "node_id": node_id,
                "document_id": chunk_id,
                "chunk_id": chunk_id,
                "collection": "c",
                "name": name,
                "description": sentence,
            }
        ],
    )


RAT = "Gelatinase activity and {} expression rose in the aortic wall of rats fed salt. Rats were treated for six weeks."
HUMAN = "Plasma {} was higher in patients with abdominal aortic aneurysm than in healthy volunteers."
MOUSE = "In mice fed a high-fat diet, hepatic {} rose twofold. Knockout mice were protected."
SILENT = "Cytokine signalling induced {} together with other negative-feedback regulators."


def species_graph(conn):
    # one gene in two notations, in a rat study and a human one: two species' genes
    found_in(conn, "g-rat", "MMP-2", "gene", RAT.format("MMP-2"), "doc-rat")
    found_in(conn, "g-human", "MMP2", "gene", HUMAN.format("MMP2"), "doc-human")
    # one gene in two notations, both in mouse studies: one gene
    found_in(conn, "i-1", "IL-6", "gene", MOUSE.format("IL-6"), "doc-mouse-1")
    found_in(conn, "i-2", "IL6", "gene", MOUSE.format("IL6").replace("hepatic", "adipose"), "doc-mouse-2")
    # a rat study and a text that names no organism: nothing says the species agree
    found_in(conn, "s-rat", "SOCS-3", "protein", RAT.format("SOCS-3"), "doc-rat")
    found_in(conn, "s-any", "SOCS3", "protein", SILENT.format("SOCS3"), "doc-silent")
    # a disease is the same disease in a rat study and a human one
    found_in(conn, "d-rat", "type II diabetes", "disease", RAT.format("type II diabetes"), "doc-rat")
    found_in(conn, "d-human", "type 2 diabetes", "disease", HUMAN.format("type 2 diabetes"), "doc-human")


def test_real_embedder_genes_of_two_species_stay_apart_one_species_merges(conn, store, real_embedder):
    species_graph(conn)
    sync_node_vectors(conn, store, real_embedder)
    pairs = {
        frozenset((p.node_a.node_id, p.node_b.node_id)): p
        for p in detect_duplicates(conn, store, MergeExclusions()).pairs
    }
    rat_human = pairs[frozenset(("g-rat", "g-human"))]
    assert (rat_human.decision, rat_human.stage) == (KEEP_APART, "organism_conflict")
    assert "human / rat" in rat_human.reason and "same_tokens" in rat_human.reason
    unknown = pairs[frozenset(("s-rat", "s-any"))]
    assert (unknown.decision, unknown.stage) == (NEEDS_REVIEW, "organism_unknown")
    assert pairs[frozenset(("i-1", "i-2"))].decision == MERGE
    assert pairs[frozenset(("d-rat", "d-human"))].decision == MERGE  # not a species-specific type


def test_formation_time_merges_one_species_only(conn, store, real_embedder):
    species_graph(conn)
    sync_node_vectors(conn, store, real_embedder)
    merged = absorb_new_nodes(conn, store, MergeExclusions(), T0 + timedelta(days=1)).merges
    assert sorted(sorted((m.canonical_name, m.duplicate_name)) for m in merged) == [
        ["IL-6", "IL6"],
        ["type 2 diabetes", "type II diabetes"],
    ]
    left = {r[0] for r in conn.execute("SELECT name FROM kg_nodes").fetchall()}
    assert {"MMP-2", "MMP2", "SOCS-3", "SOCS3"} <= left


def test_a_merge_pass_checks_the_organisms_of_what_a_chain_resolves_to(conn):
    species_graph(conn)
    keep_apart = keep_apart_check(conn, MergeExclusions())
    assert keep_apart("g-rat", "g-human") and keep_apart("s-rat", "s-any")
    assert not keep_apart("i-1", "i-2") and not keep_apart("d-rat", "d-human")
    # the IL-6 node later also holds the support of a human study: the mouse one's IL6 may be
    # either species' gene now, so the pass leaves the pair (review, not a merge)
    warehouse.insert_rows(
        conn,
        "kg_node_support",
        [{"node_id": "i-1", "document_id": "doc-human", "chunk_id": "doc-human", "collection": "c", "name": "IL-6"}],
    )
    assert organism_contexts(conn, ["i-1"])["i-1"] == frozenset({"mouse", "human"})
    assert keep_apart("i-1", "i-2")
    assert not keep_apart_check(conn, MergeExclusions(decisions={("g-human", "g-rat"): "same"}))("g-rat", "g-human")


def test_the_organism_and_type_lists_are_data_files_that_ship_with_the_package():
    import fnmatch
    import tomllib

    from kg_pipelines.graph.data_files import DATA_DIR

    project = tomllib.loads((DATA_DIR.parents[2] / "pyproject.toml").read_text())
    shipped = project["tool"]["setuptools"]["package-data"]["kg_pipelines"]
    for name in ("organisms.txt", "species_specific_types.txt"):
        assert (DATA_DIR / name).is_file()
        assert any(fnmatch.fnmatch(f"graph/data/{name}", pattern) for pattern in shipped), (name, shipped)
