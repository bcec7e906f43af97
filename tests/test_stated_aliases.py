"""Aliases the text states: the Schwartz-Hearst rule and the cue phrases (graph/stated_aliases.py),
and the graph step that merges their nodes (graph/alias_merging.py), through the real pipeline."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from kg_pipelines.graph.alias_merging import merge_stated_aliases
from kg_pipelines.graph.merge_exclusions import MergeExclusions
from kg_pipelines.graph.node_merging import PlannedMerge, merge_pairs, unmerge
from kg_pipelines.graph.stated_aliases import (
    ABBREVIATION,
    CUE,
    find_abbreviations,
    find_stated_aliases,
    load_cues,
)
from kg_pipelines.stores import warehouse
from kg_pipelines.stores.warehouse import insert_rows, transaction


def pairs(text: str) -> list[tuple[str, str, str]]:
    return [(a.name_a, a.name_b, a.kind) for a in find_stated_aliases(text)]


# -- the rule ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "sentence, long, short",
    [
        ("Hepatocyte nuclear factor-6 (HNF-6) is expressed in the liver.", "Hepatocyte nuclear factor-6", "HNF-6"),
        ("In the liver, HNF-6 (hepatocyte nuclear factor 6) activates FOXA2.", "hepatocyte nuclear factor 6", "HNF-6"),
        ("Macrophages release tumour necrosis factor alpha (TNF-α) early.", "tumour necrosis factor alpha", "TNF-α"),
        (
            "Patients with non-alcoholic fatty liver disease (NAFLD) were enrolled.",
            "non-alcoholic fatty liver disease",
            "NAFLD",
        ),
        (
            "The glucagon-like peptide 1 receptor (GLP1R) binds semaglutide.",
            "glucagon-like peptide 1 receptor",
            "GLP1R",
        ),
        ("Sales of the Nimbus Tablet 7 (NT7) doubled last year.", "Nimbus Tablet 7", "NT7"),
        ("She joined the Northern Rail Authority (NRA, the regulator) in Leeds.", "Northern Rail Authority", "NRA"),
    ],
)
def test_abbreviation_definitions_in_either_order(sentence, long, short):
    assert find_abbreviations(sentence) == [(long, short)]
    (alias,) = find_stated_aliases(sentence)
    assert (alias.name_a, alias.name_b, alias.kind, alias.evidence) == (long, short, ABBREVIATION, sentence)


def test_the_long_form_is_the_shortest_run_of_words_that_spells_the_short_form():
    # "in patients with" spell nothing of ACE: the long form starts at the word that gives its A
    assert find_abbreviations("Blood pressure fell in patients with angiotensin converting enzyme (ACE) variants.") == [
        ("angiotensin converting enzyme", "ACE")
    ]
    # the first letter must start a word: the "c" inside "vascular" is not the start of "CAM"
    assert find_abbreviations("Levels of vascular adhesion molecule (CAM) rose.") == []


@pytest.mark.parametrize(
    "sentence",
    [
        "Glucose fell in both groups of treated mice (p < 0.05).",
        "Twelve animals were treated with the compound each day (n = 12).",
        "Mortality was highest in the southern districts (Smith et al.).",
        "The dose was doubled in the second week (see below).",
        # the published rule takes each of these for a definition: its letters spell the "short form"
        "Tumours were seen in small mice in the third month (Smith, 2020).",
        "Tumours were seen in small mice in the third month (Smith 2020).",
        "Fat intake grew under restricted feeding at week 2 (Figure 2).",
        "Patients received a low-fat diet, metformin, and exercise (alone).",
        "Acids were measured in serum and urine (sera).",
    ],
)
def test_parentheticals_that_define_nothing(sentence):
    assert find_abbreviations(sentence) == []
    assert find_stated_aliases(sentence) == []


def test_a_definition_beside_a_figure_reference_is_still_found():
    assert find_abbreviations("Oleoylethanolamide (OEA) was given daily (Figure 3).") == [("Oleoylethanolamide", "OEA")]


def test_a_short_form_over_ten_characters_or_a_long_form_too_long_is_refused():
    assert find_abbreviations("We measured the hormone (ABCDEFGHIJK) in serum.") == []
    # |A| = 2: at most four words; the letters spell AD only from "Ancient" on, ten words back
    assert find_abbreviations("Ancient walls were built in the deep rocky valleys here (AD).") == []


def test_cue_phrases_state_aliases_and_which_name_is_current():
    assert pairs("Clostridioides difficile, formerly Clostridium difficile, causes colitis.") == [
        ("Clostridioides difficile", "Clostridium difficile", CUE)
    ]
    # "now called": the name after the cue is the current one
    (alias,) = find_stated_aliases("The bacterium Clostridium difficile, now called Clostridioides difficile, grew.")
    assert (alias.name_a, alias.keys_a[0]) == ("Clostridioides difficile", "clostridioides difficile")
    # the side before the cue has no marked start: its word runs, longest first, go to the caller
    assert alias.keys_b[:2] == ("bacterium clostridium difficile", "clostridium difficile")
    assert pairs("Acetylsalicylic acid (also known as aspirin) inhibits COX-1.") == [
        ("Acetylsalicylic acid", "aspirin", CUE)
    ]
    assert pairs("It leads to chronic sleep loss, often called sleep debt.") == [
        ("It leads to chronic sleep loss", "sleep debt", CUE)
    ]
    assert pairs("The Orion 5 handset, also called the O5 Pro, sold well.") == [
        ("The Orion 5 handset", "the O5 Pro", CUE)
    ]
    assert find_stated_aliases("The Orion 5 handset, also called the O5 Pro, sold well.")[0].keys_b == (
        "o5 pro",
        "o5",
    )  # no variant starts with "the"


def test_the_cue_list_ships_with_the_package_and_longer_cues_win():
    phrases = [c.phrase for c in load_cues()]
    assert {"also known as", "formerly", "formerly known as", "now called"} <= set(phrases)
    assert phrases.index("formerly known as") < phrases.index("formerly")
    # one statement, not a second one for the "formerly" inside "formerly known as"
    assert len(find_stated_aliases("Metformin, formerly known as dimethylbiguanide, lowers glucose.")) == 1


# -- the merge step on a hand-made graph -------------------------------------------------------------
T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


class NoVectors:
    def __init__(self):
        self.deleted: list[str] = []

    def delete(self, node_ids):
        self.deleted += list(node_ids)


def _node(node_id: str, name: str, created_at=T0) -> dict:
    return {
        "node_id": node_id,
        "node_kind": "entity",
        "node_type": node_id.split(":", 1)[0],
        "name": name,
        "description": name,
        "topic_key": "type:" + node_id.split(":", 1)[0],
        "energy": "{}",
        "base_weight": 1.0,
        "support_count": 1,
        "created_by": "pipeline",
        "created_at": created_at,
        "updated_at": created_at,
        "metadata": "{}",
        "merge_history": "[]",
    }


def _chunk(document_id: str, text: str) -> dict:
    return {
        "chunk_id": document_id + "#0",
        "document_id": document_id,
        "collection": "c",
        "seq": 0,
        "text": text,
        "token_count": len(text.split()),
        "text_hash": str(hash(text)),
    }


@pytest.fixture
def conn(tmp_path):
    connection = warehouse.connect(tmp_path / "w.duckdb")
    yield connection
    connection.close()


def _setup(conn, nodes: list[dict], chunks: list[dict]) -> None:
    with transaction(conn):
        insert_rows(conn, "kg_nodes", nodes)
        insert_rows(conn, "chunks", chunks)


def test_an_abbreviation_defined_with_two_long_forms_joins_nothing(conn):
    _setup(
        conn,
        [
            _node("protein:er", "ER"),
            _node("protein:estrogen receptor", "Estrogen Receptor"),
            _node("protein:endoplasmic reticulum", "Endoplasmic Reticulum"),
        ],
        [
            _chunk("d1", "The estrogen receptor (ER) binds estradiol."),
            _chunk("d2", "Misfolded proteins accumulate in the endoplasmic reticulum (ER) of beta cells."),
        ],
    )
    report = merge_stated_aliases(conn, NoVectors(), MergeExclusions(), ["d1", "d2"], T0)
    assert report.statements == 2 and report.merges == [] and report.ambiguous == ["er"]
    assert conn.execute("SELECT count(*) FROM kg_nodes").fetchone()[0] == 3


def test_one_long_form_spelled_two_ways_is_no_ambiguity(conn):
    _setup(
        conn,
        [
            _node("protein:tnf α", "TNF-α"),
            _node("protein:tumour necrosis factor alpha", "Tumour Necrosis Factor Alpha"),
        ],
        [
            _chunk("d1", "Macrophages release tumour necrosis factor alpha (TNF-α) early."),
            _chunk("d2", "Serum tumor necrosis factor-alpha (TNF-α) was measured."),
        ],
    )
    report = merge_stated_aliases(conn, NoVectors(), MergeExclusions(), ["d1", "d2"], T0)
    assert [(m.canonical_name, m.duplicate_name) for m in report.merges] == [("Tumour Necrosis Factor Alpha", "TNF-α")]


def test_names_of_different_types_are_counted_not_merged_and_never_merge_holds(conn):
    never = MergeExclusions(never_merge={(None, "acetylsalicylic acid", "aspirin")})
    _setup(
        conn,
        [
            _node("gene:hnf 6", "HNF-6"),
            _node("protein:hepatocyte nuclear factor 6", "Hepatocyte Nuclear Factor 6"),
            _node("compound:aspirin", "Aspirin"),
            _node("compound:acetylsalicylic acid", "Acetylsalicylic Acid"),
        ],
        [
            _chunk(
                "d1",
                "Hepatocyte nuclear factor 6 (HNF-6) is expressed in the liver. "
                "Acetylsalicylic acid, also known as aspirin, inhibits COX-1.",
            )
        ],
    )
    store = NoVectors()
    report = merge_stated_aliases(conn, store, never, ["d1"], T0)
    assert report.merges == [] and store.deleted == []
    assert report.type_conflicts == [("Hepatocyte nuclear factor 6", "HNF-6")]
    assert report.kept_apart == [("Acetylsalicylic Acid", "Aspirin")]
    # without the never_merge line the same statement merges them, the current name staying
    report = merge_stated_aliases(conn, store, MergeExclusions(), ["d1"], T0 + timedelta(hours=1))
    assert [(m.canonical_id, m.duplicate_id) for m in report.merges] == [
        ("compound:acetylsalicylic acid", "compound:aspirin")
    ]
    assert store.deleted == ["compound:aspirin"]


def test_a_definition_read_earlier_joins_a_node_created_later(conn):
    _setup(
        conn,
        [_node("protein:glucagon like peptide 1 receptor", "Glucagon-Like Peptide 1 Receptor")],
        [_chunk("d1", "The glucagon-like peptide 1 receptor (GLP1R) binds semaglutide.")],
    )
    assert merge_stated_aliases(conn, NoVectors(), MergeExclusions(), ["d1"], T0).merges == []
    later = T0 + timedelta(days=1)
    _setup(conn, [_node("protein:glp1r", "GLP1R", created_at=later)], [_chunk("d2", "GLP1R agonists lower glucose.")])
    report = merge_stated_aliases(conn, NoVectors(), MergeExclusions(), ["d2"], later)
    (merge,) = report.merges
    assert (merge.canonical_name, merge.duplicate_name) == ("Glucagon-Like Peptide 1 Receptor", "GLP1R")
    evidence = conn.execute("SELECT evidence FROM node_merges WHERE merge_id = ?", [merge.merge_id]).fetchone()[0]
    assert evidence == "The glucagon-like peptide 1 receptor (GLP1R) binds semaglutide."


def test_a_merge_pass_records_the_evidence_of_each_pair(conn):
    _setup(conn, [_node("compound:aspirin", "Aspirin"), _node("compound:acetylsalicylic acid", "ASA")], [])
    with transaction(conn):
        (merge,) = merge_pairs(
            conn,
            [PlannedMerge("compound:aspirin", "compound:acetylsalicylic acid", None, "stated_alias", "It says so.")],
            T0,
        )
    row = conn.execute("SELECT decision, evidence FROM node_merges WHERE merge_id = ?", [merge.merge_id]).fetchone()
    assert row == ("stated_alias", "It says so.")


def test_an_older_warehouse_gains_the_evidence_column(tmp_path):
    import duckdb

    path = tmp_path / "old.duckdb"
    old = duckdb.connect(str(path))
    old.execute(f"CREATE TABLE node_merges ({warehouse.SCHEMA['node_merges'].replace(', evidence VARCHAR', '')})")
    old.close()
    conn = warehouse.connect(path)
    try:
        assert "evidence" in dict(warehouse.column_types(conn, "node_merges"))
    finally:
        conn.close()


# -- through the real pipeline ----------------------------------------------------------------------
DEFINES = """# Incretin receptors

The glucagon-like peptide 1 receptor (GLP1R) is the target of semaglutide in pancreatic beta cells.
Acetylsalicylic acid, also known as aspirin, inhibits COX-1 in platelets.
"""
USES = """# Incretin drugs

GLP1R agonists lower glucose in patients with diabetes. Aspirin lowers the risk of thrombosis.
"""


def _entities(graph) -> dict[str, str]:
    return dict(graph.rows("SELECT node_id, name FROM kg_nodes WHERE node_kind = 'entity'"))


def test_a_stated_alias_makes_one_node_with_its_evidence_and_unmerge_keeps_them_apart(graph):
    graph.write("a/defines.md", DEFINES)
    graph.write("a/uses.md", USES)
    assert graph.ingest("a").failed_runs == 0
    nodes = _entities(graph)
    assert "protein:glucagon like peptide 1 receptor" in nodes and "protein:glp1r" not in nodes
    assert "compound:acetylsalicylic acid" in nodes and "compound:aspirin" not in nodes
    merges = graph.rows(
        "SELECT merge_id, canonical_id, duplicate_id, decision, origin, evidence FROM node_merges ORDER BY duplicate_id"
    )
    assert [m[1:5] for m in merges] == [
        ("compound:acetylsalicylic acid", "compound:aspirin", "stated_alias", "graph"),
        ("protein:glucagon like peptide 1 receptor", "protein:glp1r", "stated_alias", "graph"),
    ]
    assert (
        merges[1][5]
        == "The glucagon-like peptide 1 receptor (GLP1R) is the target of semaglutide in pancreatic beta cells."
    )
    # the short form's chunk mentions the merged node
    assert (
        graph.one(
            "SELECT count(*) FROM kg_edges WHERE edge_type = 'MENTIONS' AND target_id = ? "
            "AND source_id LIKE 'chunk:a/uses%'",
            ["protein:glucagon like peptide 1 receptor"],
        )
        == 1
    )

    conn = warehouse.connect(graph.settings.warehouse_path)
    try:
        with transaction(conn):
            unmerge(conn, merges[1][0], datetime.now(UTC))
    finally:
        conn.close()
    # the next run reads the definition again (the document changed): the pair stays apart
    graph.write("a/defines.md", DEFINES + "\nSemaglutide lowers body weight.\n")
    assert graph.ingest("a").failed_runs == 0
    nodes = _entities(graph)
    assert {"protein:glp1r", "protein:glucagon like peptide 1 receptor"} <= set(nodes)
    assert "compound:aspirin" not in nodes
    assert graph.one("SELECT count(*) FROM node_merges WHERE undone_at IS NULL AND duplicate_id = 'protein:glp1r'") == 0


def test_the_names_a_nodes_own_description_states_for_it():
    from kg_pipelines.graph.stated_aliases import stated_names

    description = "Osteocytes secrete fibroblast growth factor 23 (FGF23), also known as phosphatonin."
    assert stated_names("Fibroblast Growth Factor 23", description) == ["FGF23"]
    assert stated_names("FGF23", description) == ["fibroblast growth factor 23"]
    assert stated_names("Osteocytes", description) == []  # the definition is another node's
    assert stated_names("Fibroblast Growth Factor 23", "Osteocytes secrete it.") == []
