"""The offline reasoner on paraphrased one-hop questions, on small texts of our own: the kind asked
for as the text states it, names the text defines, the question's relation in other words, and the
question's own parsing (species prefixes, hyphenated modifiers, possessives, settings). Each answer
the text states is supported, and a sibling the text does not relate stays unsupported."""

from __future__ import annotations

from kg_pipelines.llm.grounding import words
from kg_pipelines.offline.rationale import (
    _calls,
    full_stem,
    read_question,
    reason,
)


def supported_entity(question: str, context: list[str], **kwargs) -> str:
    """The entity a supported answer names (the assertion shows the whole answer when unsupported)."""
    found = reason(question, context, **kwargs)
    assert found.supported and found.answer_entity, found.answer
    return found.answer_entity


def refused(question: str, context: list[str], **kwargs):
    """The answer to a question the text does not support, asserted unsupported."""
    found = reason(question, context, **kwargs)
    assert not found.supported, found.answer
    return found


PEOPLE = [
    "Hans Berger and colleagues named this decline somatopause in 1998, and somatopause is now linked to "
    "frailty and falls. The kinase LKB1 phosphorylates AMPK in muscle."
]


def test_who_asks_for_a_person_and_a_naming_verb_in_other_words():
    # "coined the term" is said "named" in the text (a paraphrase group), and "Who" asks for a person
    assert supported_entity("Who coined the term somatopause?", PEOPLE, known_names=["somatopause"]) == "Hans Berger"
    # a kinase is no person: "Who phosphorylates AMPK?" is not answered by LKB1
    assert refused("Who phosphorylates AMPK?", PEOPLE, known_names=["somatopause"]).answer_entity is None


ROSEBURIA = [
    "Roseburia intestinalis produces propionate and also secretes a protein called roseburia anti-inflammatory "
    "factor (RAF), which inhibits NF-kB signalling in colon cells. Roseburia hominis produces butyrate."
]


def test_a_kind_noun_before_naming_words_calls_the_name_that_kind():
    assert _calls(words("It secretes a protein called RAF, which acts"), ["raf"], "protein", [])
    assert not _calls(words("It secretes RAF, which is called a protein"), ["raf"], "kinase", [])
    found = supported_entity("What protein made by Roseburia intestinalis dampens NF-kB signalling?", ROSEBURIA)
    assert "anti-inflammatory factor" in found.casefold()
    refused("What protein made by Roseburia hominis dampens NF-kB signalling?", ROSEBURIA)


KINASE_DRUGS = [
    "Imatinib is a tyrosine kinase inhibitor approved for chronic myeloid leukaemia. Imatinib also inhibits KIT "
    "in gastrointestinal stromal tumours. Quercetin is a flavonoid found in apples."
]


def test_an_is_a_statement_whose_kind_another_name_modifies():
    # "a tyrosine kinase inhibitor": the name "tyrosine kinase" modifies the kind, it does not end it
    assert (
        supported_entity("Which tyrosine kinase inhibitor is used against chronic myeloid leukaemia?", KINASE_DRUGS)
        == "Imatinib"
    )
    refused("Which flavonoid is used against chronic myeloid leukaemia?", KINASE_DRUGS)


GROWTH_FACTORS = [
    "Membrane-bound beta-Klotho acts mainly in the liver as an obligatory co-receptor for fibroblast growth "
    "factor 21 (FGF21). FGF21 and beta-Klotho together lower plasma triglycerides."
]
NUCLEAR_FACTORS = [
    "Membrane-bound beta-Klotho acts mainly in the liver as an obligatory co-receptor for hepatocyte nuclear "
    "factor 4 (HNF4). HNF4 and beta-Klotho together lower plasma triglycerides."
]


def test_a_name_whose_long_form_ends_in_the_kind_is_of_that_kind():
    # the entity is named HNF4; the long form the text defines for it ends in "factor"
    assert (
        supported_entity("In the liver, which factor needs beta-Klotho as a partner receptor?", NUCLEAR_FACTORS)
        == "HNF4"
    )
    refused("In the liver, which vitamin needs beta-Klotho as a partner receptor?", NUCLEAR_FACTORS)
    # a long form the extractor names the entity by (a named protein head) answers as itself
    assert (
        supported_entity("In the liver, which growth factor needs beta-Klotho as a partner receptor?", GROWTH_FACTORS)
        == "Fibroblast Growth Factor 21"
    )


MEDIATORS = [
    "Palmitoylethanolamide (PEA) is an endogenous lipid mediator made by cells of the small intestine. "
    "Palmitoylethanolamide activates the nuclear receptor PPAR-alpha in the gut, and this promotes satiety. "
    "Anandamide activates the cannabinoid receptor CB1."
]
LPS = [
    "Lipopolysaccharide (LPS) is a component of the outer membrane of gram-negative bacteria. "
    "Lipopolysaccharide activates the receptor TLR4 on macrophages. Flagellin activates the receptor TLR5."
]


def test_an_abbreviation_the_text_defines_names_its_entity():
    # the question writes PEA and describes it as a lipid mediator; the answering sentence writes
    # Palmitoylethanolamide and the description is in the sentence defining PEA
    found = supported_entity("Which nuclear receptor is switched on by the lipid mediator PEA?", MEDIATORS)
    assert found.casefold() in ("pparα", "ppar-alpha")
    refused("Which nuclear receptor is switched on by the lipid mediator AEA?", MEDIATORS)
    assert supported_entity("Which receptor does LPS activate?", LPS) == "TLR4"
    refused("Which receptor does LPS inhibit?", LPS)


SOURCES = [
    "Tacrolimus is a macrolide compound produced by the soil bacterium Streptomyces tsukubaensis. "
    "Cyclosporin inhibits calcineurin in T cells."
]


def test_the_questions_relation_in_other_words_of_a_paraphrase_group():
    assert full_stem("named") == full_stem("name") and full_stem("compounds") != full_stem("component")
    assert (
        supported_entity("Which soil microbe is the natural source of tacrolimus?", SOURCES)
        == "Streptomyces Tsukubaensis"
    )
    # a relation the text does not state in any words stays unsupported
    refused("Which soil microbe degrades tacrolimus?", SOURCES)
    refused("Which soil microbe is the natural source of cyclosporin?", SOURCES)


def test_question_parsing_of_names_in_the_wh_phrase():
    # a species prefix, a hyphenated modifier and a possessive are no name the answer must carry
    assert read_question("Which C. elegans gene codes for the catalytic part of PI3K?").wh_names == []
    assert read_question("Which NAD+-degrading ectoenzyme rises with age?").wh_names == []
    assert read_question("Which FOXO protein does SIRT1 deacetylate?").wh_names == ["foxo"]
    assert "foxo3" in read_question("Which enzyme is among FOXO3's target genes?").anchors
    assert read_question("Who coined the term inflammaging?").wh_noun == "person"
    # a capital inside a word is a name's ("alpha-Klotho"), so it is an anchor an answer must connect
    assert read_question("In the kidney, which growth factor needs alpha-Klotho?").required != ["kidney"]
    # a common noun after a setting preposition narrows where; the other one is what is asked about
    parts = read_question("In the epithelial cells lining the colon, which receptor does butyrate switch on?")
    assert parts.required == ["butyrate"], parts.required
    # a capitalised type noun is a word of a name ("Physiology or Medicine"), no bridge to find
    assert "medicine" not in read_question("Who won the Nobel Prize in Physiology or Medicine?").bridge_nouns
    # a setting at the end of a question that opens with no setting is a setting all the same, and
    # not the name an answer must connect ("in the intestine": where, not what)
    assert read_question("Which receptor does acetate activate in the intestine?").required == ["acetate"]
    # a genus initial is part of the species' name, no anchor of its own ("E. coli" names no "E")
    assert "e" not in read_question("Which enzyme helps E. coli survive bile?").anchors


COLON = [
    "Butyrate activates the nuclear receptor PPAR-gamma in colonocytes. Butyrate is made by Roseburia species "
    "and by Faecalibacterium prausnitzii from dietary fibre. Propionate activates FFAR3 on epithelial cells. "
    "Acetate, propionate and butyrate reach high levels in the colon."
]


def test_a_question_opening_with_a_setting_requires_its_other_names():
    # "the colon" is inside the opening setting: not what must be connected, and the "which" after its
    # comma is the question word, no relative clause describing the colon
    question = "In the epithelial cells lining the colon, which nuclear receptor does butyrate switch on?"
    assert supported_entity(question, COLON).casefold() in ("pparγ", "ppar-gamma")
    refused(question.replace("butyrate", "acetate"), COLON)


BARRIER = [
    "With age, tight junctions become leakier, which allows bacterial products such as lipopolysaccharide (LPS) "
    "to enter the blood. LPS activates the receptor TLR4 on macrophages. Flagellin activates the receptor TLR5 "
    "on epithelial cells."
]


def test_words_describing_an_anchor_are_held_where_the_text_says_them_of_it():
    # "bacterial" describes lipopolysaccharide; the text says it in another sentence than the answer's
    assert (
        supported_entity("Which macrophage receptor responds to bacterial lipopolysaccharide in the blood?", BARRIER)
        == "TLR4"
    )
    parts = read_question("Which macrophage receptor responds to bacterial lipopolysaccharide in the blood?")
    assert "bacte" in parts.anchor_described["lipopolysaccharide"]
    # nothing says flagellin is bacterial or in the blood: not supported
    refused("Which macrophage receptor responds to bacterial flagellin in the blood?", BARRIER)


BACTEROIDES = [
    "Bacteroides thetaiotaomicron produces acetate and also secretes a protein called secreted anti-adhesion "
    "molecule (SAM), which blocks TLR5 signalling in colon cells. Bacteroides fragilis produces propionate, "
    "which activates FFAR2."
]


def test_a_name_the_text_introduces_after_a_kind_noun_is_a_candidate():
    # no recogniser knows "secreted anti-adhesion molecule"; the text introduces it as a protein
    assert (
        supported_entity("What protein made by Bacteroides thetaiotaomicron dampens TLR5 signalling?", BACTEROIDES)
        == "secreted anti-adhesion molecule"
    )
    # the sibling species makes no such protein
    refused("What protein made by Bacteroides fragilis dampens TLR5 signalling?", BACTEROIDES)


SECRETED = [
    "Lactobacillus rhamnosus GG produces lactate and also secretes a protein called soluble factor p40, "
    "which blocks TNF-alpha signalling in intestinal cells."
]


def test_the_answer_the_text_calls_the_asked_kind_outranks_one_only_typed_as_it():
    # TNF-alpha is a protein by its type; the sentence calls the secreted factor "a protein"
    assert (
        supported_entity("What protein does Lactobacillus rhamnosus GG secrete?", SECRETED).casefold()
        == "soluble factor p40"
    )


def test_a_copular_question_asks_for_the_kind_its_subject_names():
    # "What is the protein ... called?": the subject after "is the" says what the answer is, so a
    # compound of the same sentence (propionate) is no answer, however well its words fit
    parts = read_question("What is the anti-inflammatory protein secreted by Roseburia intestinalis called?")
    assert parts.wh_noun == "protein"
    assert read_question("What is the worm gene for the scaffold protein of mTORC1 called?").wh_noun == "gene"
    found = supported_entity(
        "What is the anti-inflammatory protein secreted by Roseburia intestinalis called?", ROSEBURIA
    )
    assert "roseburia anti-inflammatory factor" in found.casefold()
    compound = reason("What is the short-chain fatty acid produced by Roseburia intestinalis?", ROSEBURIA)
    assert compound.answer_entity is None or "factor" not in compound.answer_entity.casefold(), compound.answer


def test_a_setting_answers_where_and_the_thing_secreted_answers_what():
    # "RAF, which inhibits NF-kB signalling in colon cells": RAF is both what R. intestinalis secretes
    # and what inhibits NF-kB (each anchor's relation to it counts); colon is only where, the answer
    # to a "where" question and to no other
    what = supported_entity("What does Roseburia intestinalis secrete to inhibit NF-kB?", ROSEBURIA)
    assert "factor" in what.casefold()
    where = supported_entity(
        "Where does the protein secreted by Roseburia intestinalis inhibit NF-kB signalling?", ROSEBURIA
    )
    assert where.casefold() == "colon"


def test_a_symbol_spelled_by_the_first_letters_of_the_kind_asked_is_of_that_kind():
    # "fibroblast growth factor" is no type of the graph; FGF21's letters are its words' first letters
    fasting = ["Prolonged fasting raises FGF21 in the liver of mice, and FGF21 then acts on adipose tissue."]
    assert supported_entity("Which fibroblast growth factor does fasting raise in the liver?", fasting) == "FGF21"
    binding = ["Prolonged fasting raises IGFBP1 in the liver of mice, and IGFBP1 then binds IGF1 in the blood."]
    refused("Which fibroblast growth factor does fasting raise in the liver?", binding)


def test_a_protein_the_text_calls_no_kinase_needs_the_words_describing_the_kinase_asked():
    # p53 is a protein, which a kinase is too; but no sentence calls it a kinase and none holds
    # "upstream": beside the bridge AMPK it is no answer, where the text's "the kinase LKB1" is
    question = "Which upstream kinase activates the energy sensor that lithocholic acid switches on?"
    sensor = "AMPK is the main energy sensor of the cell. Lithocholic acid activates AMPK in worms. "
    refused(question, [sensor + "DNA damage raises p53 levels, and p53 activates AMPK in cultured fibroblasts."])
    lkb1 = "In hepatocytes, the kinase LKB1 activates AMPK when energy is low."
    assert supported_entity(question, [sensor + lkb1]) == "LKB1"


def test_a_word_ending_as_an_enzyme_name_calls_its_subject_an_enzyme():
    # "the manganese superoxide dismutase": an enzyme, though no sentence writes "enzyme" (nor
    # "antioxidant": the text itself must call SOD2 one of the kind, as above)
    text = [
        "Caloric restriction raises SIRT3 in mouse tissues. SIRT3 deacetylates and activates SOD2, the manganese "
        "superoxide dismutase of mitochondria."
    ]
    question = "Which antioxidant enzyme is activated by the sirtuin that caloric restriction raises?"
    assert supported_entity(question, text) == "SOD2"
