"""Questions asking for a quantity (a year, a share, a dose, an age, a count): the offline reasoner
answers with a quantity of the asked kind from a sentence connecting the question's names, and
refuses a citation's year, a quantity of another kind, and a sentence about something else."""

from __future__ import annotations

import pytest

from kg_pipelines.offline.quantities import Asked, asked, find
from kg_pipelines.offline.rationale import reason


@pytest.mark.parametrize(
    ("question", "kind", "noun"),
    [
        ("In which year did Cornell's nutrition group publish the rat diet result?", "year", ""),
        ("Approximately what share of the bile acid pool is reabsorbed in the ileum?", "percent", ""),
        ("What daily dose of nicotinamide riboside did the volunteers take?", "dose", ""),
        ("At what age were the mice first given acarbose?", "age", ""),
        ("How many new genera did the reclassification create?", "count", "genera"),
        ("How long did the dietary intervention last?", "duration", ""),
        ("How often did the volunteers take the capsule?", "", ""),  # no sentence's quantity says it
        ("Which protein declines with age in the kidney?", None, None),  # "age" there is no wh-noun
        ("Which age-related disease does klotho protect against?", None, None),
        ("Which kinase shares a scaffold with AMPK?", None, None),
    ],
)
def test_the_quantity_a_question_asks(question, kind, noun):
    found = asked(question)
    assert (found.kind, found.noun) == (kind, noun) if kind is not None else found is None


def test_quantities_of_a_kind_in_a_sentence():
    text = (
        "The Wisconsin colony of rhesus monkeys, begun in 1989, was restricted by about 30 percent "
        "(Colman et al., 2009); older animals aged 16 to 23 years received 2 mg of the supplement "
        "for twelve weeks, and the 2,000 survivors were sampled at 20 years of age."
    )

    def keys(kind, noun=""):
        return [q.key for q in find(text, Asked(kind, noun))]

    assert keys("year") == ["1989"]  # the citation's 2009 is when it was published
    assert keys("percent") == ["30 percent"]
    assert keys("dose") == ["2 mg"]
    assert keys("duration") == ["twelve weeks"]  # not the ages
    assert keys("age") == ["16 to 23 years", "20 years of age"]
    assert keys("count", "survivors") == ["2,000 survivors"]
    assert find(text, Asked("percent"))[0].name == "about 30 percent"  # the hedge is shown


RESTRICTION = [
    "Clive McCay's group at Cornell reported in 1935 that rats kept on a restricted diet lived "
    "longer than rats fed freely (J Nutr. 1935). The Wisconsin study of rhesus monkeys found less "
    "diabetes with caloric restriction (Science. 2009).",
    "In CALERIE 2, healthy non-obese volunteers were assigned to two years of caloric restriction. "
    "Volunteers achieved an average caloric restriction of about 12 percent, well short of the 25 percent goal.",
    "In a Tabriz trial, 60 obese adults took 250 milligrams of oleoylethanolamide per day or a placebo "
    "for eight weeks.",
]


@pytest.mark.parametrize(
    ("question", "entity"),
    [
        ("In what year did McCay's group report that restricted rats outlived rats allowed to eat freely?", "1935"),
        # the sentence after the trial's goes on about it; of its two shares, the one beside "average"
        ("By roughly what percentage did the CALERIE 2 volunteers restrict their calories on average?", "12 percent"),
        ("What daily dose of oleoylethanolamide did the obese adults of the Tabriz trial take?", "250 milligrams"),
        ("How many obese adults took part in the Tabriz trial of oleoylethanolamide?", "60 obese adults"),
    ],
)
def test_a_quantity_answers_from_the_sentence_connecting_the_names(question, entity):
    found = reason(question, RESTRICTION)
    assert found.supported, found.reason
    assert entity in found.answer_entity


@pytest.mark.parametrize(
    "question",
    [
        # only the report's citation dates it: when it was published, not when the study began
        "In what year did the Wisconsin study begin to find less diabetes in rhesus monkeys on caloric restriction?",
        # no dose of oleoylethanolamide's kind is written for this trial, only a count and a duration
        "What daily dose of metformin did the CALERIE 2 volunteers take?",
        # a quantity of the asked kind, but in a sentence that does not name the trial asked about
        "How many obese adults took part in the CALERIE 2 trial?",
        "How often did the Tabriz adults take oleoylethanolamide?",
    ],
)
def test_no_quantity_answers_a_question_the_text_does_not(question):
    found = reason(question, RESTRICTION)
    assert not found.supported, found.answer


KINASES = [
    "LKB1 phosphorylates threonine 172 of the AMPK alpha subunit, which switches AMPK on. "
    "SIRT1 deacetylates LKB1 and so raises its activity.",
    "mTORC2 phosphorylates AKT at serine 473 and also acts on SGK1. Rapamycin binds FKBP12.",
]


def test_a_residue_answers_which_residue_one_hop_and_through_a_bridge():
    found = reason("Which residue of AKT does mTORC2 phosphorylate?", KINASES)
    assert found.supported and found.answer_entity == "serine 473", found.answer
    # the kinase SIRT1 deacetylates is LKB1, and LKB1's sentence writes the residue
    found = reason("Which residue of AMPK is phosphorylated by the kinase that SIRT1 deacetylates?", KINASES)
    assert found.supported and found.answer_entity == "threonine 172", found.answer
    # no sentence writes a residue AKT is phosphorylated at by LKB1
    found = reason("Which residue of AKT does LKB1 phosphorylate?", KINASES)
    assert not found.supported, found.answer
