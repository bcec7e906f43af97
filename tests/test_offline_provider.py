"""The offline provider through the real LLMClient, so every answer passes the real schemas.

Fixture texts are written here; nothing is read from disk. Each test checks one property of the
no-LLM mode: typed entities and grounded relationships, determinism, consistent names, question
counts, extractive summaries, entity-type restriction, general-domain text, speed.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from kg_pipelines.entity_types import BASE_ENTITY_TYPES
from kg_pipelines.ingestion.sentences import split_sentences
from kg_pipelines.llm.client import LLMClient, LLMRequest
from kg_pipelines.llm.offline_provider import OfflineProvider
from kg_pipelines.offline import entities as offline_entities
from kg_pipelines.offline.lexicon import display_name

OEA_SENTENCE = (
    "Oleoylethanolamide supplementation was investigated for its effect on the abundance of "
    "Akkermansia muciniphila in people with obesity in a randomized clinical trial (Appetite. 2019)."
)
OEA_TEXT = (
    OEA_SENTENCE + " Cross-talk between Akkermansia muciniphila and the intestinal epithelium controls "
    "diet-induced obesity (PNAS. 2013). Metformin activates AMPK in hepatocytes. "
    "A. muciniphila is a mucin-degrading bacterium that produces short-chain fatty acids such as butyrate."
)
LONG_TEXT = """## Nutrient sensing and lifespan

Rapamycin extends lifespan in mice by inhibiting mTORC1, and everolimus has similar effects in aged
animals. Caloric restriction reduces IL-6 levels and is associated with a lower incidence of type 2
diabetes. Metformin activates AMPK, and AMPK phosphorylates the autophagy kinase ULK1 in hepatocytes.
Nicotinamide mononucleotide (NMN) restores NAD+ levels, which decline during aging.

SIRT7 deficiency shortens lifespan in mice. Spermidine induces autophagy in yeast, worms and flies.
Senescent cells secrete inflammatory factors that promote inflammaging, and fisetin clears senescent
cells in old mice. Bacteroides fragilis and Faecalibacterium prausnitzii were less abundant in
patients with inflammatory bowel disease. Atorvastatin lowers LDL cholesterol in people with
atherosclerosis. Smith et al. reported that Klotho deficiency causes premature aging.
"""
RIVER_TEXT = (
    "The Danube is the second-longest river in Europe. It flows through Vienna, Bratislava and "
    "Budapest before it empties into the Black Sea. The Danube River was once a frontier of the "
    "Roman Empire, and today the University of Vienna studies its ecology."
)


def make_client(entity_types=BASE_ENTITY_TYPES, low: int = 5, high: int = 10) -> LLMClient:
    return LLMClient(OfflineProvider(), entity_types=entity_types, questions_min=low, questions_max=high)


def by_name(result) -> dict[str, str]:
    return {e.entity_name: e.entity_type for e in result.entities}


def test_oleoylethanolamide_example_gives_typed_entities_and_the_seed_relationship():
    result = make_client().extract("doc:0", OEA_TEXT)
    types = by_name(result)
    assert types["Oleoylethanolamide"] == "compound"
    assert types["Akkermansia Muciniphila"] == "microbe"
    assert types["Diet-Induced Obesity"] == "disease"
    assert types["Metformin"] == "compound" and types["AMPK"] == "protein"
    # "A. muciniphila" is the same entity, not a second one
    assert sum(1 for name in types if "muciniphila" in name.lower()) == 1
    rel = {(r.source_entity, r.target_entity): r for r in result.relationships}
    seed = rel[("Oleoylethanolamide", "Akkermansia Muciniphila")]
    assert seed.relationship_description == OEA_SENTENCE
    assert "supplementation" in seed.relationship_keywords
    assert rel[("Metformin", "AMPK")].relationship_keywords == ["activates"]
    # descriptions are grounded: the first sentence that mentions the entity, verbatim
    oea = next(e for e in result.entities if e.entity_name == "Oleoylethanolamide")
    assert oea.entity_description == OEA_SENTENCE


def test_relationships_have_no_self_loops_or_duplicates_and_name_extracted_entities():
    result = make_client().extract("doc:1", LONG_TEXT)
    names = {e.entity_name for e in result.entities}
    pairs = [(r.source_entity, r.target_entity) for r in result.relationships]
    assert len(pairs) == len(set(pairs)) > 5
    assert all(s != t and s in names and t in names for s, t in pairs)
    assert all(r.relationship_keywords for r in result.relationships)
    # one name, one type, per chunk
    assert len(names) == len(result.entities)
    # nothing comes from the heading
    assert all(not r.relationship_description.startswith("#") for r in result.relationships)


def test_patterns_find_entities_outside_the_gazetteer_and_skip_common_acronyms():
    text = (
        "SIRT7 knockout mice developed hepatitis. Bacteroides fragilis colonised the colon. "
        "Atorvastatin lowered cholesterol in patients with autoimmune thyroid disease. "
        "The study used DNA from the USA."
    )
    types = by_name(make_client().extract("doc:2", text))
    assert types["SIRT7"] in ("gene", "protein")
    assert types["Bacteroides Fragilis"] == "microbe"
    assert types["Atorvastatin"] == "compound"
    assert types["Hepatitis"] == "disease"
    assert types["Autoimmune Thyroid Disease"] == "disease"
    assert types.get("United States") == "location"
    assert "The Study" not in types and "DNA" not in {n for n, t in types.items() if t in ("gene", "protein")}


def test_same_input_gives_the_same_output_every_time():
    client = make_client()
    first = (
        client.summarize("c", LONG_TEXT, "prior").model_dump(),
        client.extract("c", LONG_TEXT).model_dump(),
        client.atomic_questions("c", LONG_TEXT).model_dump(),
    )
    offline_entities.analyze.cache_clear()
    offline_entities.extract.cache_clear()
    second = (
        make_client().summarize("c", LONG_TEXT, "prior").model_dump(),
        make_client().extract("c", LONG_TEXT).model_dump(),
        make_client().atomic_questions("c", LONG_TEXT).model_dump(),
    )
    assert first == second


def test_entity_names_are_normalised_consistently_across_texts():
    one = "AKKERMANSIA MUCINIPHILA aside, Akkermansia muciniphila raised NAD+ and SIRT1 in diet-induced obesity."
    two = (
        "Diet-induced obesity lowered SIRT1. In another cohort, A. muciniphila and nicotinamide "
        "adenine dinucleotide were measured, and akkermansia muciniphila was abundant."
    )
    client = make_client()
    names_one = set(by_name(client.extract("a", one)))
    names_two = set(by_name(client.extract("b", two)))
    for name in ("Akkermansia Muciniphila", "NAD+", "SIRT1", "Diet-Induced Obesity"):
        assert name in names_one and name in names_two
    # symbols keep their casing, ordinary words are title-cased, and names are already normalised
    assert display_name("mTORC1") == "mTORC1" and display_name("p16INK4a") == "p16INK4a"
    assert all(display_name(n) == n for n in names_one | names_two)


@pytest.mark.parametrize("low,high", [(5, 10), (1, 1), (3, 4), (8, 8)])
def test_question_count_is_within_bounds_for_a_one_sentence_text(low, high):
    questions = make_client(low=low, high=high).atomic_questions("q", "Metformin activates AMPK.").questions
    assert low <= len(questions) <= high
    assert all(q.endswith("?") and q[0].isupper() for q in questions)
    assert len({q.casefold() for q in questions}) == len(questions)
    assert "What does metformin activate?" in questions or low == high == 1


@pytest.mark.parametrize("text", ["", "Hello.", "# Heading", "1234 5678"])
def test_degenerate_texts_still_get_valid_answers(text):
    client = make_client(low=5, high=10)
    assert client.summarize("d", text, "").summary.strip()
    assert 5 <= len(client.atomic_questions("d", text).questions) <= 10
    assert client.extract("d", text).entities is not None


def test_long_text_questions_name_their_subjects_and_stay_in_bounds():
    questions = make_client(low=5, high=10).atomic_questions("l", LONG_TEXT).questions
    assert 5 <= len(questions) <= 10
    assert len({q.casefold() for q in questions}) == len(questions)
    assert all(q.endswith("?") for q in questions)
    assert "What does rapamycin extend?" in questions
    assert "What does caloric restriction reduce?" in questions
    assert not any(q.lower().startswith(("what does it ", "what does this ")) for q in questions)
    wide = make_client(low=2, high=3).atomic_questions("l", LONG_TEXT).questions
    assert len(wide) == 3


def test_summary_is_extractive_short_and_new_relative_to_the_prior_summary():
    client = make_client()
    first = client.summarize("s", LONG_TEXT, "").summary
    assert first and len(first) <= 400 and "#" not in first
    flat = " ".join(LONG_TEXT.split())
    parts = [s.text for s in split_sentences(first)]
    assert 2 <= len(parts) <= 3
    assert all(part in flat for part in parts)
    # the same block after a previous block that already said this: the summary moves on
    second = client.summarize("s", LONG_TEXT, first).summary
    assert second != first
    assert all(s.text in flat for s in split_sentences(second))
    assert len(set(parts) & {s.text for s in split_sentences(second)}) < len(parts)


def test_summary_of_one_long_sentence_is_cut_at_a_word_boundary():
    text = "Rapamycin " + " ".join(f"modulates pathway{i} signalling" for i in range(60)) + "."
    summary = make_client().summarize("s", text, "").summary
    assert len(summary) <= 400 and summary.endswith("...")
    body = summary[:-3]
    assert text.startswith(body) and text[len(body)] == " "
    assert make_client().summarize("s", "   ", "").summary.strip()


def test_restricted_entity_types_are_never_exceeded():
    result = make_client(entity_types=("compound", "concept")).extract("r", OEA_TEXT)
    types = by_name(result)
    assert set(types.values()) <= {"compound", "concept"}
    assert types["Oleoylethanolamide"] == "compound"
    assert types["Akkermansia Muciniphila"] == "concept"  # a microbe, typed as the allowed fallback
    only = make_client(entity_types=("compound",)).extract("r", OEA_TEXT)
    assert {e.entity_type for e in only.entities} == {"compound"}
    assert "AMPK" not in by_name(only)
    names = {e.entity_name for e in only.entities}
    assert all(r.source_entity in names and r.target_entity in names for r in only.relationships)


def test_general_domain_passage_yields_entities_and_questions():
    client = make_client(low=5, high=10)
    types = by_name(client.extract("g", RIVER_TEXT))
    assert types["Vienna"] == "location" and types["Black Sea"] == "location"
    assert types["Bratislava"] == "location"  # listed with places
    assert types["University of Vienna"] == "organization"
    assert "Roman Empire" in types
    questions = client.atomic_questions("g", RIVER_TEXT).questions
    assert 5 <= len(questions) <= 10
    assert "What is the Danube?" in questions
    summary = client.summarize("g", RIVER_TEXT, "").summary
    assert summary.startswith("The Danube is the second-longest river in Europe.")


def test_unknown_task_is_refused():
    request = LLMRequest("translate", "c", "", "", "x", {}, {"text": "x"})  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        OfflineProvider().generate(request)


def test_offline_provider_never_imports_dagster():
    code = "import sys, kg_pipelines.llm.offline_provider; assert not any(m.startswith('dagster') for m in sys.modules)"
    subprocess.run([sys.executable, "-c", code], check=True)


# -- the rules of issue 6 (own passages; nothing here is in any lexicon) ----------------------------


def relations_of(result) -> dict[tuple[str, str], list[str]]:
    return {(r.source_entity, r.target_entity): r.relationship_keywords for r in result.relationships}


def test_a_passive_verb_reverses_the_direction():
    text = "In the colon, propionate is produced by Veillonella parvula. Lactate is consumed by the same microbe."
    rel = relations_of(make_client().extract("p", text))
    assert rel[("Veillonella Parvula", "Propionate")] == ["produces"]
    assert ("Propionate", "Veillonella Parvula") not in rel


def test_relation_cues_come_from_between_the_two_mentions_only():
    text = "In a double-blind study that lasted two years, metformin was given to volunteers with obesity."
    result = make_client().extract("c", text)
    rel = relations_of(result)
    assert rel[("Metformin", "Obesity")] == ["co-occurrence"]  # "double-blind" is no cue, and not between them
    assert all("increases" not in kw for kw in rel.values())


def test_list_items_are_not_relations_of_each_other():
    text = "Obesity raises the risk of gout, asthma and colorectal cancer."
    rel = relations_of(make_client().extract("l", text))
    items = ("Gout", "Asthma", "Colorectal Cancer")
    for item in items:
        assert "risk" in rel[("Obesity", item)]
    assert not any(s in items and t in items for s, t in rel)


def test_a_pair_without_cue_is_a_co_occurrence():
    rel = relations_of(make_client().extract("o", "Quercetin and fisetin were both measured in the liver of old rats."))
    assert rel and all(kw == ["co-occurrence"] for (s, t), kw in rel.items() if {s, t} != {"Quercetin", "Fisetin"})
    assert ("Quercetin", "Fisetin") not in rel  # a list


def test_names_keep_their_initials_and_particles():
    text = (
        "The screenplay was written by Robert A. Stemmle in 1949. Ludwig van Beethoven dedicated a sonata to "
        "a patron, and Charles de Gaulle was born in Lille. J. R. R. Tolkien taught at Oxford."
    )
    types = by_name(make_client().extract("n", text))
    for name in ("Robert A. Stemmle", "Ludwig van Beethoven", "Charles de Gaulle", "J. R. R. Tolkien"):
        assert types.get(name) == "person", name
    assert not {"Robert", "Stemmle", "Ludwig", "Beethoven", "Charles", "Gaulle"} & set(types)


def test_suffix_and_shape_rules_do_not_misfire_on_ordinary_names():
    text = (
        "Magazine editors from Nigeria and Virginia met in Lagos. Thomas wrote the opening column. "
        "Passionate readers followed on iOS and in Web3 forums, and Samantha Chen answered them."
    )
    types = by_name(make_client().extract("m", text))
    assert types.get("Nigeria") == "location" and types.get("Virginia") == "location"
    wrong = {"compound", "disease", "microbe", "protein", "gene"}
    for name in ("Magazine", "Thomas", "Passionate", "Nigeria", "Virginia", "iOS", "Web3", "WEB3"):
        assert types.get(name) not in wrong, name


def test_greek_letters_in_symbols_are_kept():
    text = "Macrophages released TNF-α and IL-1β after stimulation, while NF-κB stayed in the cytoplasm."
    names = set(by_name(make_client().extract("g", text)))
    assert {"TNF-α", "IL-1β", "NF-κB"} <= names
    assert not any("Α" in n or "Β" in n for n in names)


def test_a_documents_title_is_one_of_its_entities():
    text = "# Harrow Fell (novel)\n\nHarrow Fell is a 1987 novel by Margaret Ellison about a mining village in Cumbria."
    types = by_name(make_client().extract("t", text))
    assert "Harrow Fell" in types
    assert types["Margaret Ellison"] == "person"
    person = "# Tomas Varga\n\nTomas Varga (born 12 May 1961) is a Hungarian cellist who teaches in Szeged."
    assert by_name(make_client().extract("t2", person)).get("Tomas Varga") == "person"
    # a descriptive heading that pairs two entities is no entity of its own
    review = "# Metformin and AMPK\n\nMetformin activates AMPK in hepatocytes."
    assert "Metformin and AMPK" not in by_name(make_client().extract("t3", review))


def test_an_abbreviation_is_the_entity_its_definition_names():
    text = (
        "Patients with systemic sclerosis (SSc) often develop Raynaud phenomenon. In SSc, fibroblasts "
        "deposit collagen in the skin."
    )
    result = make_client().extract("a", text)
    types = by_name(result)
    assert types.get("Systemic Sclerosis") == "disease"
    assert "SSc" not in types  # the abbreviation is a mention of the long form, not a second entity
    mentions = [m for m in offline_entities.analyze(text).mentions if m.name == "Systemic Sclerosis"]
    assert [m.surface for m in mentions] == ["systemic sclerosis", "SSc", "SSc"]


def test_questions_cover_the_chunks_different_entities():
    text = (
        "Rapamycin inhibits mTORC1. Rapamycin extends lifespan in mice. Rapamycin reduces tumour growth. "
        "Rapamycin impairs glucose tolerance. Spermidine induces autophagy. Acarbose lowers blood glucose."
    )
    questions = make_client(low=5, high=7).atomic_questions("q", text).questions
    assert 5 <= len(questions) <= 7
    about_rapamycin = [q for q in questions if "rapamycin" in q.lower()]
    assert len(about_rapamycin) <= 2
    for subject in ("spermidine", "acarbose"):
        assert any(subject in q.lower() for q in questions), subject
