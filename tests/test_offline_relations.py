"""What the offline extractor relates, through the real LLMClient (so every answer passes the real
schemas): only what the text states, in its direction, never negated, never list items with each
other, and a document's title is no entity of its own. Sentences written here, in several domains."""

from __future__ import annotations

import pytest

from kg_pipelines.entity_types import BASE_ENTITY_TYPES
from kg_pipelines.llm.client import LLMClient
from kg_pipelines.llm.offline_provider import OfflineProvider


def extract(text: str):
    return LLMClient(OfflineProvider(), entity_types=BASE_ENTITY_TYPES).extract("t", text)


def pairs(text: str) -> dict[tuple[str, str], list[str]]:
    return {(r.source_entity, r.target_entity): r.relationship_keywords for r in extract(text).relationships}


def linked(found: dict, a: str, b: str) -> bool:
    return (a, b) in found or (b, a) in found


# -- negation --------------------------------------------------------------------------------------

NEGATED = [
    ("Resveratrol did not increase SIRT1 activity in muscle.", "Resveratrol", "SIRT1"),
    ("There was no effect of spermidine on IL-6 in older adults.", "Spermidine", "IL-6"),
    ("Quercetin fails to activate AMPK in adipocytes.", "Quercetin", "AMPK"),
    ("Vitamin D was not associated with dementia in the cohort.", "Vitamin D", "Dementia"),
    ("Neither metformin nor acarbose reduced IL-6 in the trial.", "Acarbose", "IL-6"),
    ("Lithium was not found to extend lifespan in flies.", "Lithium", "Lifespan"),
    ("The Rhine does not flow into the Black Sea.", "Rhine", "Black Sea"),
    ("SIRT1 is not activated by resveratrol in this assay.", "Resveratrol", "SIRT1"),
]


@pytest.mark.parametrize("text, a, b", NEGATED)
def test_a_negated_statement_is_no_relation(text, a, b):
    result = extract(text)
    names = {e.entity_name for e in result.entities}
    assert {a, b} <= names  # both are found: only the relation is left out
    found = {(r.source_entity, r.target_entity) for r in result.relationships}
    assert not linked(found, a, b), found


@pytest.mark.parametrize(
    "text, source, target",
    [
        ("Resveratrol increases SIRT1 activity in muscle.", "Resveratrol", "SIRT1"),
        ("Quercetin activates AMPK in adipocytes.", "Quercetin", "AMPK"),
        ("The Rhine flows into the North Sea.", "Rhine", "North Sea"),
        ("Rapamycin not only inhibits mTORC1 but also reduces IL-6.", "Rapamycin", "mTORC1"),  # "not only"
        ("In mice with no SIRT3, metformin lowers glucose.", "Metformin", "Glucose"),  # another clause's "no"
    ],
)
def test_the_same_statements_without_negation_are_relations(text, source, target):
    assert (source, target) in pairs(text)


# -- direction -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, source, target, keyword",
    [
        ("Metformin activates AMPK in hepatocytes.", "Metformin", "AMPK", "activates"),
        ("AMPK is activated by metformin in hepatocytes.", "Metformin", "AMPK", "activates"),
        ("AMPK activation by metformin lowers hepatic glucose output.", "Metformin", "AMPK", "activates"),
        ("AMPK activation by exercise or by metformin inhibits mTORC1.", "Metformin", "AMPK", "activates"),
        ("The inhibition of mTORC1 by rapamycin extends lifespan in mice.", "Rapamycin", "mTORC1", "inhibits"),
        (
            "Propionate is produced by Bacteroides thetaiotaomicron.",
            "Bacteroides Thetaiotaomicron",
            "Propionate",
            "produces",
        ),
        (
            "Palmitoylethanolamide is a lipid mediator produced by mast cells.",
            "Mast Cells",
            "Palmitoylethanolamide",
            "produces",
        ),
        (
            "Butyrate is produced by Roseburia intestinalis and Eubacterium rectale.",
            "Eubacterium Rectale",
            "Butyrate",
            "produces",
        ),
        # phrasal forms of a verb the lexicon knows (data/relation_cues.tsv)
        ("SIRT1 removes acetyl groups from FOXO3.", "SIRT1", "FOXO3", "deacetylates"),
        ("AMPK adds phosphate groups to TSC2.", "AMPK", "TSC2", "phosphorylates"),
        ("In adipocytes, PPARG drives the expression of adiponectin.", "PPARγ", "Adiponectin", "promotes"),
    ],
)
def test_the_source_is_the_subject_of_the_verb_active_or_passive(text, source, target, keyword):
    found = pairs(text)
    assert keyword in found.get((source, target), []), found
    assert (target, source) not in found


# -- lists -----------------------------------------------------------------------------------------


def test_items_of_one_list_are_not_related_even_with_unknown_items_between_them():
    found = pairs("- Metformin, green tea, dietary polyphenols and quercetin increase its abundance in mice.")
    assert not linked(found, "Metformin", "Quercetin"), found
    found = pairs("Rapamycin, low-dose lithium and acarbose extend lifespan in male mice.")
    assert not linked(found, "Rapamycin", "Acarbose"), found
    for drug in ("Rapamycin", "Acarbose"):
        assert "extends" in found.get((drug, "Lifespan"), []), found
    # a clause is no list item: "which" starts one, so the two are related by what it says
    found = pairs("Fisetin, which clears senescent cells, and quercetin reduce IL-6.")
    assert ("Fisetin", "IL-6") in found or ("Quercetin", "IL-6") in found


def test_items_of_a_bullet_list_are_not_related():
    text = "Outcomes of the trial:\n\n- hypertension\n- type 2 diabetes\n- dementia\n- atherosclerosis\n"
    found = pairs(text)
    assert found == {}, found


# -- comparison baselines --------------------------------------------------------------------------

# (sentence, baseline, the relation the sentence states)
BASELINES = [
    (
        "In the trial, nicotinamide riboside raised NAD+ levels in skeletal muscle compared with placebo.",
        "Placebo",
        ("Nicotinamide Riboside", "NAD+"),
    ),
    (
        "Dapagliflozin reduced heart failure admissions versus placebo in patients with chronic kidney disease.",
        "Placebo",
        ("Dapagliflozin", "Heart Failure"),
    ),
    (
        "Semaglutide lowered body weight by 15 percent relative to liraglutide.",
        "Liraglutide",
        ("Semaglutide", "Body Weight"),
    ),
    (
        "In comparison with cisplatin, oxaliplatin caused less nephrotoxicity.",
        "Cisplatin",
        ("Oxaliplatin", "Nephrotoxicity"),
    ),
    ("Sirolimus reduced IL-6 vs. tacrolimus in kidney transplant recipients.", "Tacrolimus", ("Rapamycin", "IL-6")),
    (
        "Compared with sitagliptin or acarbose, metformin reduced IL-6 in older adults.",
        "Acarbose",
        ("Metformin", "IL-6"),
    ),
]


@pytest.mark.parametrize("text, baseline, stated", BASELINES)
def test_a_comparison_baseline_is_related_to_nothing_but_the_statement_stays(text, baseline, stated):
    found = pairs(text)
    assert not any(baseline in pair for pair in found), found
    assert stated in found, found


def test_a_comparison_list_ends_at_its_and_or_item():
    found = pairs("Compared with sitagliptin or acarbose, metformin reduced IL-6 in older adults.")
    assert "Sitagliptin" not in {name for pair in found for name in pair}, found
    assert "reduces" in found[("Metformin", "IL-6")], found


def test_a_comparative_is_no_baseline():
    # "more effective than" states how the two compare: left to the other rules
    found = pairs("Canagliflozin is more effective than sitagliptin at lowering HbA1c.")
    assert linked(found, "Canagliflozin", "Sitagliptin"), found


# -- the sentence that states a pair describes it -------------------------------------------------

TRIAL = "A pilot study asked whether urolithin A supplementation changes the abundance of PINK1 in muscle."


@pytest.mark.parametrize(
    "later",
    [
        "Urolithin A increased the abundance of PINK1 compared with placebo.",
        # PINK1 written twice: the two mentions closest together state it
        "The authors measured PINK1 in biopsies, and they found that urolithin A increased the abundance of PINK1.",
    ],
)
def test_a_pair_named_first_and_stated_later_is_described_by_both_sentences(later):
    # the stating sentence gives the keywords and direction; the description keeps the context
    # that named the pair first, then the statement
    relations = {(r.source_entity, r.target_entity): r for r in extract(f"{TRIAL} {later}").relationships}
    stated = relations[("Urolithin A", "PINK1")]
    assert "increases" in stated.relationship_keywords, relations
    assert stated.relationship_description == f"{TRIAL} {later}"
    assert ("PINK1", "Urolithin A") not in relations


def test_sentences_left_out_between_the_two_are_marked():
    between = "Twenty adults took part for four months."
    later = "Urolithin A increased the abundance of PINK1 compared with placebo."
    relations = {(r.source_entity, r.target_entity): r for r in extract(f"{TRIAL} {between} {later}").relationships}
    assert relations[("Urolithin A", "PINK1")].relationship_description == f"{TRIAL} … {later}"


def test_a_pair_stated_first_keeps_its_first_sentence():
    text = "Urolithin A increased PINK1 in muscle. Urolithin A also activates PINK1 in neurons."
    relations = {(r.source_entity, r.target_entity): r for r in extract(text).relationships}
    assert relations[("Urolithin A", "PINK1")].relationship_description.startswith("Urolithin A increased")


# -- coordinated prepositional phrases -------------------------------------------------------------


@pytest.mark.parametrize(
    "text, subject, items",
    [
        ("Quercetin binds to SIRT1 and to PARP1.", "Quercetin", ("SIRT1", "PARP1")),
        (
            "Butyrate was isolated from Faecalibacterium prausnitzii and from Roseburia intestinalis.",
            "Butyrate",
            ("Faecalibacterium Prausnitzii", "Roseburia Intestinalis"),
        ),
        ("Curcumin inhibits NF-kB in macrophages and in microglia.", "NF-κB", ("Macrophages", "Microglia")),
        (
            "SIRT3 activity is raised by NAD+ supplementation, by endurance exercise and by caloric restriction.",
            "SIRT3",
            ("Exercise", "Caloric Restriction"),
        ),
    ],
)
def test_phrases_repeating_one_preposition_are_items_of_one_list(text, subject, items):
    found = pairs(text)
    assert not linked(found, *items), found
    for item in items:
        assert linked(found, subject, item), found


def test_a_verb_after_and_is_no_repeated_preposition():
    found = pairs("Fisetin was extracted from strawberries and inhibits mTOR.")
    assert "inhibits" in found.get(("Fisetin", "mTOR"), []), found


# -- titles ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, inner",
    [
        (
            "# Bacteroides fragilis and Colon Inflammation\n\nBacteroides fragilis is a gut bacterium that "
            "produces a toxin in some strains.",
            "Bacteroides Fragilis",
        ),
        (
            "# Rapamycin and Healthy Ageing\n\nRapamycin inhibits mTORC1 and extends lifespan in mice.",
            "Rapamycin",
        ),
        ("# Lake Baikal and Siberian Winters\n\nLake Baikal is the deepest lake in the world.", "Lake Baikal"),
    ],
)
def test_a_title_is_no_entity_but_the_names_inside_it_are(text, inner):
    names = {e.entity_name.casefold(): e.entity_type for e in extract(text).entities}
    heading = text.split("\n", 1)[0].lstrip("# ").casefold()
    assert heading not in names
    assert inner.casefold() in names


def test_a_heading_written_as_a_name_is_the_documents_entity_even_when_the_body_says_more():
    text = "# Ilse Brandauer\n\nIlse Maria Brandauer (born 1948) is an Austrian ceramicist who works in Graz."
    names = {e.entity_name: e.entity_type for e in extract(text).entities}
    assert names.get("Ilse Brandauer") == "person"
    # a descriptive heading is none, whatever its words
    text = "# Ceramics in Postwar Graz\n\nIlse Maria Brandauer (born 1948) is an Austrian ceramicist."
    assert "Ceramics in Postwar Graz" not in {e.entity_name for e in extract(text).entities}


# -- an organism after "in" is the setting, not a partner --------------------------------------------


@pytest.mark.parametrize(
    "text, actor, setting, partner",
    [
        ("Mice and rats are common models. Metformin activates AMPK in mice and in rats.", "Metformin", "Rats", "AMPK"),
        ("Rats are common models. Acarbose activates AMPK among obese rats.", "Acarbose", "Rats", "AMPK"),
        ("Resveratrol activates SIRT1 in yeast.", "Resveratrol", "Saccharomyces Cerevisiae", "SIRT1"),
        ("In zebrafish, retinoic acid activates FGF20 after amputation.", "Retinoic Acid", "Zebrafish", "FGF20"),
    ],
)
def test_an_organism_after_in_is_related_to_nothing(text, actor, setting, partner):
    found = pairs(text)
    assert not any(setting in pair for pair in found), found
    assert found.get((actor, partner)) == ["activates"], found


def test_an_organism_that_is_acted_on_stays_related():
    # "of mice": the lifespan is the mice's, no setting
    assert linked(pairs("Rapamycin extended the lifespan of mice and reduced cancer."), "Rapamycin", "Mice")


# -- a condition states nothing ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, a, b",
    [
        (
            "If metformin delays these outcomes, regulators could accept similar trials of rapamycin.",
            "Metformin",
            "Rapamycin",
        ),
        ("Whether resveratrol activates SIRT1 in muscle remains unclear.", "Resveratrol", "SIRT1"),
        ("If spermidine induces autophagy, it may protect the heart.", "Spermidine", "Autophagy"),
    ],
)
def test_what_an_opening_condition_names_is_related_to_nothing(text, a, b):
    found = pairs(text)
    assert not linked(found, a, b), found


def test_a_later_clause_after_a_condition_still_states_its_relation():
    found = pairs("If spermidine induces autophagy, it may protect the heart; rapamycin also induces autophagy.")
    assert found.get(("Rapamycin", "Autophagy")) == ["induces"], found
    # a condition inside the sentence, not opening it, is read as before
    found = pairs("Metformin activates AMPK, and if AMPK is absent, metformin still lowers glucose.")
    assert found.get(("Metformin", "AMPK")) == ["activates"], found


# -- two clauses of one sentence --------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, a, b",
    [
        ("Berberine activates AMPK in the liver, and quercetin inhibits PI3K in the gut.", "AMPK", "Quercetin"),
        ("Berberine activates AMPK in the liver, and quercetin inhibits PI3K in the gut.", "Berberine", "PI3K"),
        ("Spermidine induces autophagy; rapamycin inhibits mTORC1.", "Spermidine", "Rapamycin"),
        ("Metformin lowers glucose, whereas insulin resistance is common in obesity.", "Metformin", "Obesity"),
    ],
)
def test_entities_of_two_clauses_are_not_related(text, a, b):
    found = pairs(text)
    assert not linked(found, a, b), found


def test_a_list_or_a_shared_subject_is_one_clause_and_a_repeated_name_links_both():
    # a list with ", and" before its last item, and verbs sharing one subject, are one clause
    found = pairs("Metformin, acarbose, and rapamycin extend lifespan.")
    assert linked(found, "Rapamycin", "Lifespan") and linked(found, "Metformin", "Lifespan"), found
    found = pairs("Urolithin A was well tolerated, improved muscle endurance, and reduced CRP in older adults.")
    assert linked(found, "Urolithin A", "C-Reactive Protein"), found
    # an entity written in both clauses relates to what each says of it
    found = pairs("Metformin activates AMPK, and AMPK inhibits mTORC1.")
    assert found.get(("AMPK", "mTORC1")) == ["inhibits"] and not linked(found, "Metformin", "mTORC1"), found


def test_a_second_clause_keeps_its_relation_after_a_first_clause_of_many_pairs():
    # the first clause's subjects and objects make many pairs across the two clauses; those are none
    # and leave the second clause's own relation its place among the sentence's pairs
    found = pairs("Quercetin and fisetin inhibit PI3K and AKT1, and resveratrol activates SIRT1.")
    assert found.get(("Resveratrol", "SIRT1")) == ["activates"], found
    assert linked(found, "Fisetin", "AKT1") and not linked(found, "Quercetin", "SIRT1"), found


def test_a_pronoun_opening_the_second_clause_takes_up_the_first_subject():
    found = pairs("Navitoclax cleared senescent stem cells in mice, but it causes thrombocytopenia.")
    assert linked(found, "Navitoclax", "Thrombocytopenia"), found
    assert not linked(found, "Stem Cells", "Thrombocytopenia"), found


@pytest.mark.parametrize(
    "text, agent, middle, target, verb",
    [
        ("Rapamycin blocks mTORC1 by binding FKBP12.", "Rapamycin", "mTORC1", "FKBP12", "binds"),
        ("SIRT1 activates PGC-1alpha by deacetylating FOXO3.", "SIRT1", "PGC-1α", "FOXO3", "deacetylates"),
    ],
)
def test_the_verb_after_by_is_done_by_the_subject_not_by_the_object_before_it(text, agent, middle, target, verb):
    # "A activates B by phosphorylating C": A phosphorylates C; B does nothing to C
    found = pairs(text)
    assert verb in found.get((agent, target), []), found
    assert not linked(found, middle, target), found


def test_a_relative_clause_on_another_noun_phrase_does_not_pair_the_name_before_it():
    # what inhibits the target is the protein the clause opens on, not the metabolite named earlier
    found = pairs(
        "Roseburia hominis produces propionate and also secretes a protein called calming anti-irritation molecule "
        "(CAIM), which inhibits STAT9 signalling in colonocytes."
    )
    assert not linked(found, "Propionate", "STAT9"), found
    # a name right before ", which" is the clause's subject
    found = pairs("LKB9 activates ULK7, which phosphorylates VPS99.")
    assert found.get(("ULK7", "VPS99")) == ["phosphorylates"], found


def test_a_clause_whose_verb_is_amplify_is_its_own_clause():
    found = pairs(
        "FOXQ7 and ZEB9 drive SASP gene expression, and the cGAS-STING pathway, which senses DNA, amplifies it."
    )
    assert not linked(found, "FOXQ7", "STING"), found
