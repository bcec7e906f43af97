"""The grounding rule (kg_pipelines.llm.grounding) and its use by LLMClient.extract.

Fixture texts are written here; nothing is read from disk.
"""

from __future__ import annotations

import pytest

from kg_pipelines.entity_types import BASE_ENTITY_TYPES
from kg_pipelines.llm import grounding
from kg_pipelines.llm.client import LLMClient, LLMError
from kg_pipelines.llm.grounding import (
    ChunkText,
    check_extraction,
    content_stems,
    description_support,
    gazetteer_aliases,
    name_occurs,
    stem,
    words,
)
from kg_pipelines.llm.offline_provider import OfflineProvider
from kg_pipelines.llm.schemas import EntitiesRelationships

CHUNK = (
    "Metformin activates AMPK in hepatocytes. Oleoylethanolamide supplementation increased the "
    "abundance of Akkermansia muciniphila in people with diet-induced obesity. TNFα levels fell."
)


def entity(name: str, description: str, etype: str = "compound") -> dict:
    return {"entity_name": name, "entity_type": etype, "entity_description": description}


def relationship(source: str, target: str, description: str) -> dict:
    return {
        "source_entity": source,
        "target_entity": target,
        "relationship_keywords": ["x"],
        "relationship_description": description,
    }


def answer(entities: list[dict], relationships: list[dict] = ()) -> EntitiesRelationships:
    return EntitiesRelationships.model_validate({"entities": entities, "relationships": list(relationships)})


# -- words and stems -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "a, b",
    [
        ("activates", "activation"),
        ("Activated", "activating"),
        ("cells", "cell"),
        ("studies", "study"),
        ("Alzheimer's", "alzheimer"),
        ("increased", "increase"),
    ],
)
def test_simple_inflections_share_a_stem(a, b):
    assert stem(words(a)[0]) == stem(words(b)[0])


@pytest.mark.parametrize("a, b", [("metformin", "metoprolol"), ("il-6", "il-8"), ("2019", "2018"), ("mouse", "mice")])
def test_different_words_have_different_stems(a, b):
    assert [stem(w) for w in words(a)] != [stem(w) for w in words(b)]


def test_words_are_a_list_of_their_own_each_call():
    # words() is cached; a caller that shortens its list (rationale's _head pops trailing numbers)
    # must not change what the next caller gets
    first = grounding.words("Sirtuin's activity on FOXO3 targets")
    assert first == ["sirtuin", "activity", "on", "foxo3", "targets"]
    first.pop()
    assert grounding.words("Sirtuin's activity on FOXO3 targets") == ["sirtuin", "activity", "on", "foxo3", "targets"]


def test_content_stems_drop_stop_words_and_keep_numbers():
    assert content_stems("It was shown in 2019 that the IL-6 of mice is high") == [
        "shown",
        "2019",
        "il",
        "6",
        "mice",
        "high",
    ]


# -- descriptions ----------------------------------------------------------------------------------
def test_a_verbatim_or_closely_paraphrased_description_is_grounded():
    chunk = ChunkText.of(CHUNK)
    assert description_support("Metformin activates AMPK in hepatocytes.", chunk).grounded()
    # inflected and re-ordered: "activation", "hepatocyte", "supplemented"
    assert description_support("Activation of AMPK by metformin in a hepatocyte.", chunk).grounded()


def test_a_made_up_description_is_not_grounded_and_says_what_is_missing():
    support = description_support("Metformin cures influenza in horses and reverses baldness.", ChunkText.of(CHUNK))
    assert not support.grounded()
    assert support.found == 1 and support.total == 6
    assert set(support.missing) == {"cures", "influenza", "horses", "reverses", "baldness"}


def test_the_share_threshold_is_sixty_percent():
    chunk = ChunkText.of("alpha beta gamma delta epsilon")
    assert description_support("alpha beta gamma zzzz yyyy", chunk).grounded()  # 3 of 5
    assert not description_support("alpha beta zzzz yyyy", chunk).grounded()  # 2 of 4
    assert description_support("alpha beta zzzz yyyy", chunk).grounded(min_share=0.5)


def test_a_description_without_content_words_is_not_grounded():
    support = description_support("It is what it is.", ChunkText.of(CHUNK))
    assert support.total == 0 and not support.grounded()


# -- names -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name",
    [
        "Metformin",
        "AMPK",
        "ampk",
        "Diet-Induced Obesity",
        "Diet Induced Obesity",
        "diet induced  obesity",
        "Akkermansia Muciniphila",
        "Hepatocyte",
        "TNF-α",
        "Oleoylethanolamide Supplementation",
    ],
)
def test_names_that_occur(name):
    assert name_occurs(name, ChunkText.of(CHUNK))


@pytest.mark.parametrize(
    "name",
    [
        "Rapamycin",
        "Akkermansia Municipalis",
        "Muciniphila Akkermansia",
        "Obesity Diet",
        "AMPK Metformin",
        "TNF-β",
        "Met",
    ],
)
def test_names_that_do_not_occur(name):
    assert not name_occurs(name, ChunkText.of(CHUNK))


def test_a_binomial_with_an_abbreviated_genus_grounds_the_full_name():
    chunk = ChunkText.of("A. muciniphila degrades mucin.")
    assert name_occurs("Akkermansia Muciniphila", chunk)
    assert not name_occurs("Bacteroides Muciniphila", chunk)


def test_known_synonyms_ground_a_canonical_name():
    chunk = ChunkText.of("Nicotinamide mononucleotide restores NAD+ in C. elegans and in mice.")
    assert "nicotinamide mononucleotide" in gazetteer_aliases("NMN")
    assert gazetteer_aliases("Not A Gazetteer Entity") == ()
    for name in ("NMN", "Caenorhabditis Elegans", "Mice"):
        assert name_occurs(name, chunk, aliases=gazetteer_aliases), name
    assert not name_occurs("NMN", chunk)  # without the synonyms it does not occur
    assert not name_occurs("Rapamycin", chunk, aliases=gazetteer_aliases)


# -- whole answers -------------------------------------------------------------------------------
def test_a_grounded_answer_has_no_problems():
    result = answer(
        [
            entity("Metformin", "Metformin activates AMPK."),
            entity("AMPK", "AMPK is activated in hepatocytes.", "protein"),
        ],
        [relationship("Metformin", "AMPK", "Metformin activates AMPK in hepatocytes.")],
    )
    assert check_extraction(result, CHUNK) == []


def test_problems_name_the_offending_entity_and_relationship():
    result = answer(
        [
            entity("Metformin", "Metformin cures influenza in horses."),
            entity("Rapamycin", "Rapamycin activates AMPK in hepatocytes."),
            entity("AMPK", "AMPK in hepatocytes.", "protein"),
        ],
        [
            relationship("Metformin", "AMPK", "Metformin was sold to investors on Mars last winter."),
            relationship("Rapamycin", "AMPK", "Rapamycin activates AMPK."),
        ],
    )
    problems = check_extraction(result, CHUNK)
    assert len(problems) == 4
    assert problems[0].startswith("entity 'Metformin': the description is not grounded")
    assert "influenza" in problems[0]
    assert problems[1] == "entity 'Rapamycin': the name does not occur in the chunk"
    assert problems[2].startswith("relationship 'Metformin' -> 'AMPK': the description is not grounded")
    assert problems[3] == "relationship 'Rapamycin' -> 'AMPK': 'Rapamycin' does not occur in the chunk"


# -- through LLMClient -----------------------------------------------------------------------------
class _Canned:
    name = "canned"
    model = "canned-1"

    def __init__(self, answer):
        self.answer = answer

    def generate(self, request):
        return self.answer


def test_client_raises_ungrounded_and_counts_it_apart_from_schema_failures():
    made_up = {"entities": [entity("Metformin", "Metformin cures influenza in horses.")], "relationships": []}
    client = LLMClient(_Canned(made_up), entity_types=("compound",))

    with pytest.raises(LLMError) as info:
        client.extract("c1", CHUNK)

    assert info.value.kind == "ungrounded"
    assert "entity 'Metformin'" in info.value.message and "influenza" in info.value.message
    snap = client.counters.snapshot()
    assert (snap["llm_calls"], snap["llm_ungrounded"], snap["llm_schema_failures"], snap["llm_succeeded"]) == (
        1,
        1,
        0,
        0,
    )


def test_client_reports_at_most_three_problems_and_how_many_more():
    made_up = {"entities": [entity(f"Drug{i}", "Cures influenza.") for i in range(5)], "relationships": []}
    with pytest.raises(LLMError) as info:
        LLMClient(_Canned(made_up), entity_types=("compound",)).extract("c1", CHUNK)
    assert info.value.message.count("entity 'Drug") == 3
    assert "(and 7 more)" in info.value.message  # 5 names + 5 descriptions


def test_schema_is_checked_before_grounding():
    bad = {"entities": [entity("Rapamycin", "Made up.", etype="spaceship")], "relationships": []}
    with pytest.raises(LLMError) as info:
        LLMClient(_Canned(bad), entity_types=("compound",)).extract("c1", CHUNK)
    assert info.value.kind == "schema"


# -- the offline provider always passes ------------------------------------------------------------
PASSAGES = {
    "biomedical": (
        "Nicotinamide mononucleotide (NMN) restores NAD+ levels in aged mice, and NMN supplementation "
        "improved insulin sensitivity. Rapamycin extends lifespan in C. elegans and in mice by inhibiting "
        "mTORC1. Tumor necrosis factor alpha and interleukin-6 rise with age (inflammaging)."
    ),
    "microbiome": (
        "Akkermansia muciniphila is a mucin-degrading bacterium. A. muciniphila abundance was lower in "
        "people with obesity, and metformin increased it. Faecalibacterium prausnitzii produces butyrate, "
        "which strengthens the gut barrier in older adults."
    ),
    "markdown": (
        "# Senolytics\n\n## Dasatinib and quercetin\n\n- **Dasatinib** and quercetin clear senescent cells in "
        "old mice.\n- Fisetin reduced senescence markers (p16INK4a) in human adipose tissue.\n\n"
        "1. Senescent cells secrete IL-6 and TNF-α.\n2. The SASP promotes chronic inflammation."
    ),
    "general": (
        "The Danube is the second-longest river in Europe. It flows through Vienna, Bratislava and "
        "Budapest before it empties into the Black Sea. Silas Daniels is an American football wide "
        "receiver who played for the University of Oxford Wine Circle in the United Kingdom."
    ),
    "long sentence": "Metformin, "
    + ", ".join(f"compound number {i} in trial {i}" for i in range(60))
    + " and AMPK were studied together in hepatocytes of mice.",
}


@pytest.mark.parametrize(
    "entity_types", [BASE_ENTITY_TYPES, ("gene", "compound", "disease", "concept")], ids=["base-types", "few-types"]
)
def test_offline_answers_are_always_grounded(entity_types):
    client = LLMClient(OfflineProvider(), entity_types=entity_types)
    only_by_synonym = []
    for label, text in PASSAGES.items():
        result = client.extract(f"doc:{label}", text)  # raises LLMError("ungrounded") otherwise
        assert result.entities, label
        chunk = ChunkText.of(text)
        only_by_synonym += [e.entity_name for e in result.entities if not name_occurs(e.entity_name, chunk)]
    snap = client.counters.snapshot()
    assert snap["llm_succeeded"] == len(PASSAGES) and snap["llm_ungrounded"] == 0
    # the passages exercise the synonym path: canonical names that the text only has as synonyms
    assert only_by_synonym, "no canonical-only name: the synonym path was not exercised"
    assert all(
        name_occurs(n, ChunkText.of(" ".join(PASSAGES.values())), grounding.gazetteer_aliases) for n in only_by_synonym
    )


def test_a_chunk_and_each_of_its_descriptions_are_prepared_once(monkeypatch):
    # the provider checks its answer and the client checks it again; descriptions repeat (the
    # entities of one sentence are described by it): each is worked out once per chunk
    calls: list[str] = []
    support = grounding._support

    def counting(description, chunk):
        calls.append(description)
        return support(description, chunk)

    monkeypatch.setattr(grounding, "_support", counting)
    text = CHUNK + " A sentence seen only by this test."
    chunk = ChunkText.of(text)
    assert ChunkText.of(text) is chunk
    sentence = "Metformin activates AMPK in hepatocytes."
    first = description_support(sentence, chunk)
    again = description_support(sentence, ChunkText.of(text))
    assert again == first and first.grounded() and calls == [sentence]
    # another chunk judges the same description afresh
    other = ChunkText.of("TNFα levels fell. Nothing else here.")
    assert not description_support(sentence, other).grounded() and calls == [sentence, sentence]
