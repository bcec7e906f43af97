"""The offline reasoner's support check on small texts of our own: what the wh-phrase asks for, a
negation stated from any anchor, and what a sentence calls which name."""

from __future__ import annotations

import os
import subprocess
import sys

from kg_pipelines.llm.grounding import words
from kg_pipelines.offline.rationale import (
    NO_ANSWER,
    _abbreviates,
    _bridge_described,
    _calls,
    _chains,
    _described_as,
    _described_in_other_words,
    _full_stems,
    _held_in,
    _is_kind,
    _main_and_described,
    _named_without_number,
    _names_the_kind,
    _same_symbol,
    _spelled_out,
    _verdict,
    _wrong_role,
    build_context_graph,
    propose_sub_questions,
    read_question,
    reason,
    relation_by_meaning,
    stem,
)
from tests.conftest import REPO_ROOT

SIRTUINS = [
    "SIRT3 deacetylates and activates SOD2, the manganese superoxide dismutase of the mitochondria. "
    "FOXO3 target genes include SOD2 and catalase. SIRT1 deacetylates FOXO3 in the nucleus."
]


def test_a_name_in_the_wh_phrase_must_be_the_answers_own():
    # SOD2 is of the asked type (a protein) and SIRT3 deacetylates it, but it is no FOXO protein
    wrong = reason("Which FOXO protein does SIRT3 deacetylate?", SIRTUINS)
    assert not wrong.supported and wrong.answer.startswith(NO_ANSWER) and "foxo" in wrong.answer.casefold()
    right = reason("Which FOXO protein does SIRT1 deacetylate?", SIRTUINS)
    assert right.supported and right.answer_entity == "FOXO3", right.answer


BILE = [
    "A trial tested whether oleoylethanolamide changes the abundance of Akkermansia muciniphila in the gut. "
    "Oleoylethanolamide activates the nuclear receptor PPAR-alpha in the small intestine. "
    "Lithocholic acid activates the bile acid receptor TGR5 in L cells."
]


def test_the_kind_asked_is_the_last_noun_of_a_compound():
    assert read_question("Which bile acid receptor does Akkermansia muciniphila activate?").wh_noun == "receptor"
    assert read_question("Which kinase complex initiates autophagy?").wh_noun == "kinase"
    # a receptor reached through a drug the question never describes is no answer
    found = reason("Which bile acid receptor does Akkermansia muciniphila activate?", BILE)
    assert not found.supported and found.answer_entity is None, found.answer
    stated = reason("Which bile acid receptor does lithocholic acid activate?", BILE)
    assert stated.supported and stated.answer_entity == "TGR5", stated.answer


PLACIDE = [
    "In the large PLACIDE trial, a mix of two Lactobacillus strains and two Bifidobacterium strains given to "
    "older inpatients did not prevent antibiotic-associated diarrhoea or Clostridioides difficile diarrhoea."
]


def test_a_negation_stated_from_any_anchor_of_the_sentence_denies_the_hop():
    question = "Which Lactobacillus strain prevented Clostridioides difficile diarrhoea in the PLACIDE trial?"
    found = reason(question, PLACIDE)
    assert not found.supported and "negated" in found.answer, found.answer
    # which anchor a hop starts from must not depend on set order: the same verdict under other
    # string hash seeds (the negation sits on Lactobacillus -> C. difficile, not on PLACIDE)
    script = (
        "import sys; from kg_pipelines.offline.rationale import reason; "
        f"found = reason({question!r}, {PLACIDE!r}); print(found.supported, 'negated' in found.answer)"
    )
    for seed in ("1", "2", "5"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO_ROOT)}
        out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
        assert out.stdout.strip().splitlines()[-1] == "False True", (seed, out.stdout)


WINDOWS = [
    "Caloric restriction, the hormone Klotho and the transport protein APOE are three windows on the biology of aging."
]


def test_a_type_noun_before_another_name_describes_that_name():
    graph = build_context_graph(WINDOWS)
    assert _described_as(graph, "klotho", "hormone") is not None
    assert _described_as(graph, "caloric restriction", "hormone") is None  # apposition
    # "repress" is no relation the lexicon knows, and the sentence only lists the names together
    # (the question's other words are all in that sentence, so only the relation can tell)
    for question in ("What does the hormone Klotho repress?", "What does Klotho repress in the biology of aging?"):
        found = reason(question, WINDOWS)
        assert not found.supported and found.answer_entity is None, found.answer


LIPIDS = [
    "Oleic acid activates the nuclear receptor PPAR-delta in skeletal muscle. "
    "Palmitate inhibits the kinase AMPK in liver cells."
]


def test_a_paraphrased_relation_verb_is_matched_by_meaning():
    # "switch on" is no verb of the lexicon: the packaged embedder reads it as "activate", so the
    # sentence stating "activates" answers it (without the match its words are missing from the chain)
    assert relation_by_meaning("switch on") == "activates"
    found = reason("Which nuclear receptor does oleic acid switch on?", LIPIDS)
    assert found.supported and found.answer_entity.casefold() == "ppar-delta", found.answer
    # the meaning must be the one the sentence states: palmitate inhibits AMPK, it does not switch it on
    other = reason("Which kinase does palmitate switch on?", LIPIDS)
    assert not other.supported and other.answer_entity is None, other.answer
    # a phrase near no verb, or near two relations of opposite sense, means none
    assert relation_by_meaning("skeletal muscle") is None


# own text: a clause before the question word, a family member by its symbol, a description elsewhere
FASTING = [
    "Resveratrol raises the expression of SIRT5 in the liver of rats. "
    "SIRT5 activates the synthetase CPS1 in the urea cycle. "
    "Resveratrol also lowers insulin in rats."
]


def test_a_question_word_after_a_clause_starts_the_wh_phrase():
    graph = build_context_graph(FASTING)
    q = read_question("Resveratrol raises a liver sirtuin; which synthetase does that sirtuin activate?", graph)
    assert q.wh_noun == "synthetase" and "resveratrol" in q.anchors  # the clause's name is still an anchor
    q = read_question("The sirtuin that resveratrol raises activates which synthetase?", graph)
    assert q.wh_noun == "synthetase" and "resveratrol" in q.anchors and "activates" in q.relations


def test_a_numbered_symbol_is_a_member_of_the_family_its_letters_begin():
    # "SIRT5" is a sirtuin (its letters begin the noun), so the second hop may follow it; no text
    # calls SIRT5 a sirtuin, and CPS1 is no sirtuin
    found = reason("Resveratrol raises a liver sirtuin; which synthetase does that sirtuin activate?", FASTING)
    assert found.supported and found.answer_entity == "CPS1" and found.bridges == ["SIRT5"], found.answer
    graph = build_context_graph(FASTING)
    assert _is_kind(graph, "sirt5", "sirtuin", frozenset())
    assert not _is_kind(graph, "cps1", "sirtuin", frozenset())
    assert not _abbreviates("cdk4", "cdkinase") and not _abbreviates("sirt", "sirtuin")  # 3 letters; no number


POLYAMINE = [
    "In cultured cells, cadaverine inhibits the acetyltransferase KAT8. "
    "The bacterial enzyme CadA produces cadaverine from lysine in the gut."
]


def test_what_an_entity_is_may_come_from_its_node_description():
    # the gathered text never says cadaverine is a polyamine; the graph's description of its node does
    question = "Which acetyltransferase is inhibited by the polyamine that CadA produces?"
    known = ["Cadaverine", "KAT8", "CadA"]  # the graph's names in these chunks, as the loop passes them
    without = reason(question, POLYAMINE, known_names=known)
    assert not without.supported, without.answer
    described = {"Cadaverine": "Cadaverine is a foul-smelling polyamine found in decaying tissue."}
    found = reason(question, POLYAMINE, known_names=known, descriptions=described)
    assert found.supported and found.answer_entity == "KAT8" and found.bridges == ["Cadaverine"], found.answer
    # a description that says something else is no help
    other = reason(question, POLYAMINE, known_names=known, descriptions={"Cadaverine": "Cadaverine smells of decay."})
    assert not other.supported


REPAIR = ["AMPK stimulates SIRT6 in fibroblasts. SIRT6 deacetylates TP53 and thereby dampens p53-dependent apoptosis."]


def test_a_gene_symbol_and_its_protein_name_are_one_answer_not_two():
    # p53 is TP53 written as the protein: the question names it, so it is no answer to it
    found = reason("Which protein downstream of AMPK does the sirtuin that deacetylates TP53 deacetylate?", REPAIR)
    assert found.answer_entity != "p53" and not found.answer.startswith("p53"), found.answer
    assert _same_symbol("tp53", "p53") and not _same_symbol("cdk4", "cdk6") and not _same_symbol("sirt1", "sirt1")


# a thing the question describes by a relative clause and names by no type noun
KETONES = [
    "During fasting, ketone bodies switch on the cellular energy gauge SNF1 in yeast. "
    "The kinase Elm1 phosphorylates and activates SNF1. "
    "Glucose starvation turns on the transcription factor Msn2 in the nucleus."
]


def test_a_thing_the_question_describes_between_its_names_and_the_answer_is_not_the_answer():
    # ketone bodies -> SNF1 is one sentence; SNF1 is the thing described, Elm1 the answer
    q = "Which kinase activates the energy gauge that ketone bodies switch on?"
    assert read_question(q).described == [frozenset({"energ", "gauge"})]
    names = ["ketone bodies", "SNF1", "Elm1", "Msn2"]
    # the text calls SNF1 the energy gauge: the answer is one hop further, Elm1
    two_hops = reason(
        "Which kinase activates the energy gauge that ketone bodies switch on?", KETONES, known_names=names
    )
    assert two_hops.supported and two_hops.answer_entity.casefold() == "elm1" and two_hops.bridges == ["SNF1"], (
        two_hops.answer
    )
    # the text never calls SNF1 a sensor: neither SNF1 (the thing described) nor Elm1 is supported
    unsaid = reason("Which kinase activates the fuel sensor that ketone bodies switch on?", KETONES, known_names=names)
    assert not unsaid.supported, unsaid.answer


STARCH = [
    "Butyrate is produced by gut bacteria from resistant starch in legumes. "
    "Butyrate is produced from resistant starch by Roseburia intestinalis, an anaerobic bacterium of the colon."
]


def test_a_community_is_no_member_of_the_kind_asked():
    q = "Which gut bacterial species turns the resistant starch of legumes into butyrate?"
    found = reason(q, STARCH)
    assert found.supported and found.answer_entity == "Roseburia Intestinalis", found.answer
    # "gut bacteria" (the node Gut Microbiota) produces it too, but a community is no species
    only_community = reason(q, [STARCH[0].split(". ")[0] + "."])
    assert not only_community.supported, only_community.answer


SIGNALLING = ["The kinase LKB1 phosphorylates AMPK at threonine 172. AMPK phosphorylates TSC2 in the cytoplasm."]


def test_the_answer_stands_where_the_question_puts_it_to_the_verb():
    upstream = "Which protein phosphorylates AMPK?"
    assert reason(upstream, SIGNALLING).answer_entity == "LKB1"
    assert reason("Which protein does AMPK phosphorylate?", SIGNALLING).answer_entity == "TSC2"
    assert reason("Which protein is phosphorylated by AMPK?", SIGNALLING).answer_entity == "TSC2"
    # only the downstream sentence: TSC2 is phosphorylated by AMPK, it does not phosphorylate AMPK
    downstream_only = reason(upstream, [SIGNALLING[0].split(". ")[1]])
    assert not downstream_only.supported and "other way round" in downstream_only.reason, downstream_only.answer


GAUGE = [
    "Metformin activates the cellular energy gauge AMPK in the liver. "
    "Reviews of energy signalling discuss AMPK, SIRT1 and PGC-1alpha together."
]


def test_the_hop_to_the_answer_must_state_the_questions_verb_not_only_name_both():
    # AMPK is the gauge metformin switches on; the list sentence names PGC-1alpha beside it, no more
    found = reason("Which protein activates the energy gauge that metformin switches on?", GAUGE)
    assert not found.supported and "by no verb" in found.reason, found.answer


def test_only_a_verb_after_a_bracketed_abbreviation_makes_a_description():
    # "Nicotinamide riboside (NR) is an NAD+ precursor" calls the riboside a precursor
    assert _calls("nicotinamide riboside nr is an nad precursor".split(), ["nicotinamide", "riboside"], "precursor", [])
    # "ATP on the gamma subunit, and the upstream kinase ..." does not call ATP a kinase
    sentence = "amp and adp displace atp on the gamma subunit and the upstream kinase phosphorylates it".split()
    assert not _calls(sentence, ["atp"], "kinase", [])


GRAPES = [
    "Grapevines produce resveratrol in the skins of their berries, and apples store quercetin. "
    "In muscle cells, resveratrol activates AMPK."
]


def test_a_bridge_is_followed_when_its_first_sentence_states_the_clause_describing_it():
    # no sentence calls resveratrol a polyphenol, but "that grapevines make" is what the first sentence
    # says of it ("produce", the same meaning: a paraphrase group)
    names = ["grapevines", "apples"]
    found = reason("Which kinase is activated by the polyphenol that grapevines make?", GRAPES, known_names=names)
    assert found.supported and found.answer_entity == "AMPK", found.answer
    # a clause no sentence states leaves the thing between unknown
    assert not reason(
        "Which kinase is activated by the polyphenol that grapevines break down?", GRAPES, known_names=names
    ).supported
    # the sentence says "produce" of grapevines, not of apples, which it writes far from resveratrol
    assert not reason(
        "Which kinase is activated by the polyphenol that apples make?", GRAPES, known_names=names
    ).supported


DEACETYLASES = [
    "In human cells, SIRT1 deacetylates FOXO3 in the nucleus. "
    "In the nematode Caenorhabditis elegans, SIR-2.1 deacetylates DAF-16 and extends lifespan."
]


def test_an_organism_the_wh_phrase_asks_for_must_be_named_by_the_answering_sentence():
    # FOXO3 is a protein SIRT1 deacetylates, but in human cells: the question asks for the worm's
    wrong = reason("Which worm protein does SIRT1 deacetylate?", DEACETYLASES)
    assert not wrong.supported and "nematode" in wrong.answer, wrong.answer
    right = reason("Which human protein does SIRT1 deacetylate?", DEACETYLASES)
    assert right.supported and right.answer_entity == "FOXO3", right.answer


BUTYRATE = [
    "In colonic epithelial cells, butyrate activates the nuclear receptor PPAR-gamma. "
    "Propionate reaches the liver through the portal vein."
]


def test_a_common_noun_the_text_writes_otherwise_does_not_block_a_found_name():
    # "colon lining cells" is the text's "colonic epithelial cells": its words are still asked for,
    # the named things of the question (butyrate) must still be found
    found = reason("Which receptor does butyrate activate in colon lining cells?", BUTYRATE)
    assert found.supported and found.answer_entity == "PPARγ", found.answer
    # a name the text never writes means the answer was not gathered
    unnamed = reason("Which receptor does butyrate activate in HT-29 cells?", BUTYRATE)
    assert not unnamed.supported and "HT-29" in unnamed.answer, unnamed.answer


ISOLATION = [
    "The microbiologist Maria Lopes isolated the bacterium Veillonella atypica from the stool of marathon "
    "runners. Veillonella atypica converts lactate into propionate."
]


def test_a_scientist_is_a_person_and_a_single_letter_modifies_the_kind():
    found = reason("Which scientist isolated Veillonella atypica?", ISOLATION)
    assert found.supported and found.answer_entity == "Maria Lopes", found.answer
    assert read_question("Through which G protein-coupled receptor does butyrate act?").wh_names == []


def assert_answers(question: str, context: list[str], entity: str, **kwargs) -> None:
    """The reasoner answers ``question`` from ``context`` with ``entity`` (case aside), supported."""
    found = reason(question, context, **kwargs)
    assert found.supported and found.answer_entity.casefold() == entity.casefold(), found.answer


def assert_refuses(question: str, context: list[str], **kwargs) -> None:
    """The reasoner finds no supported answer to ``question`` in ``context``."""
    found = reason(question, context, **kwargs)
    assert not found.supported, found.answer


def test_a_name_is_a_researchers_when_colleagues_or_a_prize_follow_it():
    from kg_pipelines.offline.entities import analyze

    def types_of(text: str, name: str) -> tuple[str, ...]:
        return next(m.types for m in analyze(text).mentions if m.name == name)

    assert types_of("Zdenko Hrabal and colleagues reported that old worms move less.", "Zdenko Hrabal") == ("person",)
    assert types_of("Ayodele Okonkwo et al. measured the effect.", "Ayodele Okonkwo") == ("person",)
    assert types_of("In 2003, Ayodele Okonkwo received the Lasker Prize for it.", "Ayodele Okonkwo") == ("person",)
    assert types_of("In 2003, Ayodele Okonkwo measured it.", "Ayodele Okonkwo") == ("concept",)


PXR = [
    "The synthetic PXR agonist rifampicin induces CYP3A4 in hepatocytes. "
    "The PXR antagonist ketoconazole blocks the induction of CYP3A4. "
    "In quiescent cells, FOXO3 induces the cyclin-dependent kinase inhibitor p21. "
    "In quiescent cells, FOXO3 also induces the kinase inhibitor TRIB3."
]


def test_a_kind_may_be_named_in_other_words():
    # an agonist is an activator, an antagonist an inhibitor (data/kind_synonyms.txt)
    assert_answers("Which activator of PXR induces CYP3A4?", PXR, "rifampicin", known_names=["rifampicin"])
    assert_answers("Which inhibitor of PXR blocks the induction of CYP3A4?", PXR, "ketoconazole")


def test_an_abbreviation_in_the_wh_phrase_is_carried_by_the_initials_before_the_answer():
    # "cyclin-dependent kinase inhibitor p21" is a CDK inhibitor; "kinase inhibitor TRIB3" is none
    q = read_question("Which CDK inhibitor does FOXO3 induce in quiescent cells?")
    assert q.wh_names == ["cdk"]
    assert_answers("Which CDK inhibitor does FOXO3 induce in quiescent cells?", PXR, "p21")
    only_trib3 = [PXR[0].replace("the cyclin-dependent kinase inhibitor p21", "the protein p21")]
    assert_refuses("Which CDK inhibitor does FOXO3 induce in quiescent cells?", only_trib3)


NAMING = [
    "Old mice develop a chronic, sterile inflammation of the liver. "
    "Jorge Amaral and colleagues named this condition hepatoflammation in 2009, and the name spread quickly."
]


def test_a_verb_after_a_comma_is_the_questions_and_this_refers_to_the_sentence_before():
    # "coined" follows "with colleagues," (a comma ends that noun phrase); "this condition" is the
    # inflammation the sentence before describes, so its words count for the answer
    q = read_question("Who, together with colleagues, coined a name in 2009 for the sterile inflammation of the liver?")
    assert frozenset({"coin"}) in q.phrase_stems, q.phrase_stems
    assert_answers(
        "Who, together with colleagues, coined a name in 2009 for the chronic sterile inflammation?",
        NAMING,
        "Jorge Amaral",
    )
    # without the sentence before, little of the question is said of Jorge Amaral
    assert_refuses(
        "Who, together with colleagues, coined a name in 2009 for the chronic sterile inflammation?",
        [NAMING[0].split(". ", 1)[1]],
    )


PRIZE = [
    "Ayodele Okonkwo received the 2003 Lasker Prize for identifying the genes that control mating in yeast. "
    "In the gut, PXR induces fibroblast growth factor 21 (FGF21) in enterocytes."
]


def test_the_answering_sentence_may_write_the_thing_the_question_describes():
    assert_answers(
        "Who received the 2003 Lasker Prize for identifying the genes that control yeast mating?",
        PRIZE,
        "Ayodele Okonkwo",
    )
    # a noun inside the answer's own name is not the thing between ("growth factor" of FGF21)
    assert_refuses("Which liver receptor is bound by the growth factor that PXR induces in enterocytes?", PRIZE)


GUT = [
    "Gut bacteria make secondary bile acids from cholic acid. "
    "Clostridium scindens produces deoxycholic acid from cholic acid. "
    "Bacteria of many genera live in the colon, and Bacteroides fragilis is one of them."
]


def test_the_kind_asked_is_neither_the_answer_nor_the_way_to_it():
    # "bile acids" is the class "Which secondary bile acid" asks about, not one of its members
    q = read_question("Which secondary bile acid do gut bacteria make from cholic acid?")
    assert _names_the_kind(q, "bile acids") and not _names_the_kind(q, "deoxycholic acid")
    assert_answers(
        "Which secondary bile acid does Clostridium scindens produce from cholic acid?", GUT, "deoxycholic acid"
    )
    assert_refuses(
        "Which secondary bile acid does FXR control in the liver?", ["FXR controls bile acids in the liver."]
    )
    # through "bacteria" any bacterium the text names would link to the question's names
    q = read_question("Which bacterium lives in the colon and makes secondary bile acids?")
    assert _names_the_kind(q, "bacteria")


def test_a_demonym_before_the_kind_noun_is_carried_by_the_answer():
    text = ["Researchers named the yeast genus Kloeckera after the Danish microbiologist Jorgen Kloecker in 1896."]
    assert_answers(
        "Which Danish microbiologist is the genus Kloeckera named after?",
        text,
        "Jorgen Kloecker",
        known_names=["Jorgen Kloecker"],
    )
    assert_refuses(
        "Which Swiss microbiologist is the genus Kloeckera named after?", text, known_names=["Jorgen Kloecker"]
    )


def test_a_pace_is_no_rate_limiting_step_unless_something_sets_it():
    q = read_question("Which enzyme is rate-limiting in the NAD+ salvage pathway?")
    assert not _held_in(q, [_full_stems("The network of NAD+ and SIRT1 shapes the pace of aging.")])
    assert _held_in(q, [_full_stems("NAMPT sets the pace of the NAD+ salvage pathway.")])


NETWORK = [
    "SIRT1 activity and NAD+ levels feed into the acetylation of autophagy proteins. "
    "Autophagy, IRS2 and body temperature all change with caloric restriction."
]


def test_a_bridge_only_typed_as_the_kind_described_needs_a_verb_to_the_answer():
    # autophagy is a "pathway" only by its type, and the second sentence lists IRS2 beside it
    graph = build_context_graph(NETWORK)
    q = read_question("Which enzyme is rate-limiting in the NAD+ salvage pathway?", graph)
    chain = next(c for c in _chains(q, graph) if c.bridge == "autophagy" and c.candidate == "irs2")
    assert (
        _verdict(q, graph, chain)
        == "the second sentence names the answer beside the bridge but relates them by no verb"
    )
    assert not reason("Which enzyme is rate-limiting in the NAD+ salvage pathway?", NETWORK).supported


OSLO = [
    "In a placebo-controlled trial from Oslo, 40 adults took spermidine for twelve weeks. "
    "The investigators reported that spermidine increased the abundance of Lactobacillus reuteri in stool."
]


def test_a_sentence_opening_on_a_common_noun_goes_on_about_the_sentence_before():
    # "The investigators" are those of the Oslo trial: the name of the sentence before counts
    assert_answers("Which bacterium did spermidine increase in the Oslo trial?", OSLO, "lactobacillus reuteri")
    assert_refuses("Which bacterium did spermidine increase in the Bergen trial?", OSLO)


def test_a_capital_opening_a_later_sentence_of_the_question_is_no_name():
    q = read_question("FXR induces a hormone in the ileum. Apart from FGF19, which factor does FXR induce?")
    assert "apart" not in q.anchors and {"fxr", "fgf19"} <= set(q.anchors), q.anchors


COHORTS = [
    "The NORDAGE study of older adults in Norway found that the gut microbiota differed between people "
    "living independently and people living in care facilities."
]


def test_a_study_named_in_capitals_answers_a_question_its_sentence_says_almost_word_for_word():
    from kg_pipelines.offline.entities import analyze

    # capitals before a study noun name a study, not a gene
    assert [(m.name, m.types) for m in analyze(COHORTS[0]).mentions][0] == ("NORDAGE", ("concept",))
    # "the NORDAGE study" calls it a study; the sentence holds nearly every word the question asks
    # about, though no verb of the question ("compared") relates the two
    assert_answers(
        "Which study of older adults in Norway compared the gut microbiota of people living independently with "
        "that of people living in care facilities?",
        COHORTS,
        "NORDAGE",
    )
    assert_refuses("Which study of older adults in Norway measured blood pressure?", COHORTS)


COMPLEXES = [
    "Insulin receptor substrate 2 (IRS2) carries the adaptor domain PTB, together with a PH domain. "
    "IRS2 is strongly phosphorylated after insulin binds its receptor."
]


def test_a_bridge_named_without_its_number_is_the_thing_the_question_describes():
    # "the insulin receptor substrate that ..." names IRS2 by its long form without the number
    question = "Which adaptor domain belongs to the insulin receptor substrate that is strongly phosphorylated?"
    graph = build_context_graph(COMPLEXES, ["PTB"])
    q = read_question(question, graph)
    assert _named_without_number(q, graph, "irs2") and _bridge_described(q, graph, "irs2")
    assert not _named_without_number(
        read_question("Which domain belongs to the insulin receptor?", graph), graph, "irs2"
    )


PHOSPHATE = [
    "Membrane-bound Klotho acts in the kidney as a co-receptor for FGF23. "
    "FGF23 and Klotho together promote phosphate excretion and suppress the synthesis of active vitamin D."
]


def test_the_answer_is_the_one_the_questions_verb_is_written_before():
    # one sentence promotes one thing and suppresses another: the verb written before each says which
    assert_answers("What do FGF23 and Klotho promote together in the kidney?", PHOSPHATE, "phosphate")
    assert_answers("What do FGF23 and Klotho suppress together in the kidney?", PHOSPHATE, "vitamin D")


WORM_GENE = [
    "Mice carrying a knock-in mutation in Beclin 1 (K108E) that increases basal autophagy lived longer. "
    "In C. elegans, the lifespan extension caused by reduced daf-2 signalling and by dietary restriction "
    "requires autophagy genes such as bec-1, the worm Beclin 1 gene."
]


def test_a_sentence_that_answers_equally_well_with_several_names_is_no_answer():
    # nothing in the question picks one of the second sentence's names: daf-2, dietary restriction ...
    assert_refuses(
        "Mice with a K108E knock-in mutation that raises basal autophagy lived longer; what is the name of the "
        "C. elegans counterpart of the gene carrying that mutation?",
        WORM_GENE,
    )


SENOLYTIC = [
    "Saracatinib is a tyrosine kinase inhibitor developed for Ewing sarcoma. "
    "Saracatinib destroys senescent fibroblasts in culture. "
    "JNK phosphorylates FOXO proteins under oxidative stress and promotes their nuclear entry. "
    "AKT phosphorylates FOXO1 and FOXO3, and the phosphorylated FOXO proteins leave the nucleus. "
    "LKB1 phosphorylates threonine 172 of AMPK, and CaMKK2 also phosphorylates threonine 172 of AMPK."
]


def test_the_questions_verb_may_be_said_in_other_words_and_by_the_next_sentence_about_the_answer():
    # "clears" is said as "destroys" (data/paraphrase_groups.txt), in the sentence after the one that
    # says what saracatinib is; both open on saracatinib, so both describe it
    question = "Which tyrosine kinase inhibitor, developed for Ewing sarcoma, clears senescent fibroblasts?"
    assert_answers(question, SENOLYTIC, "saracatinib")
    # a sentence after another about something else does not describe it
    assert_refuses(question, [SENOLYTIC[0].replace("Saracatinib destroys", "Dasatinib destroys")])


def test_one_asked_verb_linking_the_pair_lets_the_sentence_say_the_others():
    # "drives them into the nucleus" is said by the same sentence's "promotes their nuclear entry"
    assert_answers(
        "During oxidative stress, which kinase phosphorylates FOXO proteins and drives them into the nucleus?",
        SENOLYTIC,
        "JNK",
    )


def test_a_name_set_apart_from_the_answer_need_not_be_connected():
    q = read_question("Apart from LKB1, which kinase phosphorylates threonine 172 of AMPK?")
    assert q.required == ["ampk"], q.required
    q = read_question("Which kinase phosphorylates threonine 172 of AMPK, besides LKB1?")
    assert "lkb1" not in q.required and "172" not in q.required, q.required


SECRETED = [
    "Roseburia hominis produces butyrate and also secretes a protein called flagellin A1 (FlaA1), which inhibits "
    "NF-kB signalling in gut cells. Roseburia hominis is strictly anaerobic and lives in the colon. "
    "Nicotinamide raises NAD+ turnover at least in part by inhibiting the deacetylase SIRT1, which normally "
    "deacetylates several repair proteins."
]


def test_what_a_verb_acts_on_is_not_the_sentences_subject():
    # the bacterium opens both sentences about it: it secretes, it is not what is secreted
    assert_answers(
        "What does the strictly anaerobic butyrate producer of the colon secrete to inhibit NF-kB?",
        SECRETED,
        "flagellin A1",
    )
    # "by inhibiting the deacetylase SIRT1": a verb in -ing is the verb written before the answer
    assert_answers("Which deacetylase is inhibited by nicotinamide?", SECRETED, "SIRT1")
    # after a preposition ("Through which receptor ..."), the answer is no object of the verb
    from kg_pipelines.offline.rationale import Chain, _wrong_role, build_context_graph

    graph = build_context_graph(["FlaA1 improved the gut barrier by signalling through the receptor TLR5."])
    chain = Chain((0,), "tlr5", None, other_verb_before=True)
    assert not _wrong_role(read_question("Through which receptor does FlaA1 reinforce the gut barrier?"), graph, chain)
    assert _wrong_role(read_question("Which receptor does FlaA1 reinforce?"), graph, chain)


def test_name_the_asks_which():
    # data/question_openings.tsv: "Name the ...", "what is the name of the ..." ask "which"
    assert read_question("Name the nuclear lamina protein that senescent cells often lose.").wh_noun == "protein"
    q = read_question("Mice with it lived longer; what is the name of the worm gene carrying that mutation?")
    assert q.wh_noun == "gene", q.wh_noun
    assert_answers(
        "Name the study that followed the gut bacteria of older people in Denmark.",
        ["The NORDMET study of older adults in Denmark followed the gut bacteria of older people for ten years."],
        "NORDMET",
    )


def test_a_verb_whose_object_names_nothing_describes_and_relates_nothing():
    # "controls the slowest step": no entity follows the verb, so no sentence need state "controls"
    question = "Which gene codes for the enzyme that controls the slowest step of bile acid synthesis?"
    assert read_question(question).relations == [], read_question(question).relations
    assert read_question("Which senolytic drug inhibits BCL-2 and BCL-xL?").relations == ["inhibits"]
    text = [
        "In hepatocytes, the enzyme cholesterol 7-alpha-hydroxylase, the product of CYP7A1, catalyses the "
        "rate-limiting step of bile acid synthesis."
    ]
    assert_answers(question, text, "CYP7A1", known_names=["bile acid"])


def test_a_relation_the_question_gives_a_subject_is_stated_from_that_subject():
    from kg_pipelines.offline.rationale import _chains, build_context_graph

    question = "Name the autophagy protein that mTORC1 phosphorylates, together with the kinase AMPK."
    q = read_question(question)
    assert q.relation_subjects == {"phosphorylates": "mtorc1"}
    # AMPK, not mTORC1, phosphorylates Raptor: that says nothing of what mTORC1 phosphorylates
    graph = build_context_graph(["AMPK phosphorylates Raptor directly. mTORC1 phosphorylates ATG13 and ULK1."])
    hits = {c.candidate: c.relations_hit for c in _chains(read_question(question, graph), graph) if c.bridge is None}
    assert "phosphorylates" not in hits["raptor"] and "phosphorylates" in hits["atg13"], hits
    # a name after a preposition or a comma is no subject of the verb
    assert read_question("Which inhibitor of PXR blocks the induction of CYP3A4?").relation_subjects == {}


def test_the_questions_own_verb_is_the_one_written_before_a_two_hop_answer():
    from kg_pipelines.offline.rationale import _chains, _wrong_role, build_context_graph

    # "repress" is no verb of the lexicon; FGFR4 is what the hormone binds, not what it represses
    graph = build_context_graph(
        [
            "Beta-Klotho serves as the co-receptor for the hormone FGF15 in the liver. "
            "FGF15 binds the receptor FGFR4 together with beta-Klotho, and this signal represses CYP8B1."
        ]
    )
    q = read_question("What does the hormone whose co-receptor is beta-Klotho repress?", graph)
    wrong = {c.candidate: _wrong_role(q, graph, c) for c in _chains(q, graph) if c.bridge == "fgf15"}
    assert wrong["fgfr4"] and not wrong["cyp8b1"], wrong


def test_a_verb_the_lexicon_does_not_know_holds_the_answer_only_where_the_sentence_writes_it():
    # "turn on" is read by meaning as activates; "induces" before p21 is no other verb to refuse it by
    text = ["Oxidative damage activates FOXO3, and FOXO3 induces the cyclin-dependent kinase inhibitor p21."]
    assert_answers("Which CDK inhibitor does FOXO3 turn on?", text, "p21")


def test_a_copula_before_a_preposition_calls_the_name_nothing():
    # "is beneficial for every older person" says nothing of what metformin is: no person answers "Who"
    context = [
        "The TAME trial will test whether metformin postpones several diseases of old age. "
        "It is not certain that metformin is beneficial for every older person."
    ]
    answer = reason("Who runs the trial testing whether metformin postpones diseases of old age?", context)
    assert not answer.supported and answer.answer_entity is None
    assert not _calls("metformin is beneficial for every older person".split(), ["metformin"], "person", [])
    assert _calls("metformin is a biguanide drug for diabetes".split(), ["metformin"], "drug", [])


def test_a_when_adverb_is_no_part_of_the_questions_relation_phrase():
    q = read_question("Which microbiologist is honoured by the bacterium first isolated from faeces in 2004?")
    assert frozenset({"isola"}) in q.phrase_stems and not any("first" in p for p in q.phrase_stems)


def test_a_relation_verb_from_the_clause_subject_describes_the_bridge():
    # "the tumour suppressor that SIRT1 deacetylates": no type noun, but the first sentence states the
    # clause's verb from SIRT1 to TP53, so TP53 is the thing described
    context = [
        "SIRT1 deacetylates TP53, which weakens apoptosis. After DNA damage, TP53 induces the "
        "cyclin-dependent kinase inhibitor p21."
    ]
    answer = reason(
        "Which cyclin-dependent kinase inhibitor is induced by the tumour suppressor that SIRT1 deacetylates?", context
    )
    assert answer.supported and answer.answer_entity == "p21"
    # the clause's verb stated from another subject describes nothing
    other = [
        "AMPK deacetylates TP53 in some cells. "
        "After DNA damage, TP53 induces the cyclin-dependent kinase inhibitor p21."
    ]
    assert not reason(
        "Which cyclin-dependent kinase inhibitor is induced by the tumour suppressor that SIRT1 deacetylates?", other
    ).supported


def test_a_bracketed_gloss_by_the_bridge_picks_one_of_tied_answers():
    context = [
        "mTORC1 is built around the scaffold protein Raptor, with mLST8 and DEPTOR.",
        "In the nematode C. elegans, RNA interference against let-363 (the worm TOR gene) or daf-15 "
        "(the worm Raptor gene) extends lifespan.",
    ]
    known = ["Raptor", "mTORC1", "TOR", "let-363", "daf-15"]  # the graph's names, as the loop passes them
    question = (
        "RNA interference against which worm gene, the counterpart of the scaffold protein that defines "
        "mTORC1, extends lifespan?"
    )
    answer = reason(question, context, known_names=known)
    assert answer.supported and answer.answer_entity == "daf-15"


def test_the_thing_described_may_be_named_beside_the_answer_in_its_sentence():
    # "the hormone whose co-receptor is beta-Klotho" is FGF19, which the answering sentence names
    context = [
        "FGF19 is a hormone made in the small intestine after a meal.",
        "FGF19 reaches the liver and binds FGFR4 with the co-receptor beta-Klotho, and this signal represses CYP7A1.",
    ]
    answer = reason("What does the hormone whose co-receptor is beta-Klotho repress?", context)
    assert answer.supported and answer.answer_entity == "CYP7A1"


def test_a_symbol_and_its_spelled_out_name_are_one_thing():
    assert _spelled_out("fgf19", "fibroblast growth factor 19")
    assert not _spelled_out("fgf15", "fibroblast growth factor 19")  # another number: a sibling
    assert not _spelled_out("fgf19", "fgf21")


def named_answer(question: str, context: list[str]) -> str | None:
    """The entity a supported answer names, None when the answer is unsupported."""
    answer = reason(question, context)
    return answer.answer_entity if answer.supported else None


def test_a_nationality_in_the_wh_phrase_is_the_place_the_answers_sentence_names():
    question = (
        "Which Irish study compared the microbiota of older people living at home with that of people in care homes?"
    )
    irish = (
        "The ELDERMET study of older adults in Ireland compared the microbiota of older people living at "
        "home with that of people in care homes."
    )
    assert named_answer(question, [irish]) == "ELDERMET"
    assert named_answer(question, [irish.replace("Ireland", "Denmark")]) is None  # no Irish study


def test_the_questions_own_verb_between_bridge_and_answer_relates_them():
    # "belong" is no verb of the relation lexicon: the last sentence writes it between the two ends
    question = "To which phylum does the bacterium that metformin increases belong?"
    bridge = "Metformin increases Akkermansia muciniphila, a mucin-degrading bacterium of the gut."
    stated = "Akkermansia muciniphila belongs to the phylum Verrucomicrobiota, like few other gut bacteria."
    assert named_answer(question, [bridge, stated]) == "Verrucomicrobiota"
    listed = "Akkermansia muciniphila and the phylum Verrucomicrobiota were both counted."
    assert named_answer(question, [bridge, listed]) is None


def test_a_modal_before_the_verb_keeps_the_answer_its_subject():
    # "Which kinase can phosphorylate X?" asks for what phosphorylates X, as "Which kinase phosphorylates X?"
    assert read_question("Which kinase can phosphorylate ERK2?").answer_role == "source"
    assert read_question("Which kinase can ERK2 phosphorylate?").answer_role == "target"
    assert read_question("Which kinase can be activated by ERK2?").answer_role == "target"
    context = [
        "A study reported that the drug lovastatin, given to aged rats, activates PKD1 and improves memory. "
        "PKD1 phosphorylates HDAC5 in neurons."
    ]
    # PKD1 phosphorylates HDAC5, not the other way round: HDAC5 phosphorylates nothing here
    assert (
        named_answer("Which protein can phosphorylate the kinase that the drug lovastatin switches on?", context)
        is None
    )
    assert named_answer(
        "Which protein can the kinase that the drug lovastatin switches on phosphorylate?", context
    ) == ("HDAC5")


def test_the_thing_described_beside_the_answer_is_in_a_sentence_with_what_the_question_names():
    context = [
        "A study reported that the drug lovastatin, given to aged rats, activates PKD1 and improves memory. "
        "PKD1 phosphorylates HDAC5 in neurons."
    ]
    # PKD1 is the kinase lovastatin switches on, not what phosphorylates it; HDAC5, in the next sentence
    # only, is not described by the drug
    assert (
        named_answer("Which protein phosphorylates the kinase that the drug lovastatin switches on?", context) is None
    )


def test_a_count_before_a_kind_noun_does_not_call_the_next_name_that_kind():
    # "multi-strain Streptococcus products": products of several strains, Streptococcus is not called a strain
    assert _calls("the probiotic strain streptococcus thermophilus".split(), ["streptococcus"], "strain", [])
    assert not _calls("a multi strain streptococcus product".split(), ["streptococcus"], "strain", [])
    assert not _calls("two strain streptococcus mixtures".split(), ["streptococcus"], "strain", [])


def test_an_answer_listed_beside_the_named_thing_is_an_alternative_not_its_answer():
    context = [
        "Small trials in adults with irritable bowel syndrome reported improvements in bloating after "
        "supplementation with Bacillus subtilis or a multi-strain Lactococcus lactis mixture. "
        "Lactococcus lactis strains are used to make cheese."
    ]
    # Lactococcus lactis is the other option, not a strain of Bacillus subtilis
    question = "Which strain of Bacillus subtilis was used in the trials in adults with irritable bowel syndrome?"
    assert named_answer(question, context) is None
    # asked for what went with it, the list is the answer
    question = "Which bacterium was given with Bacillus subtilis to adults with irritable bowel syndrome?"
    assert (named_answer(question, context) or "").casefold() == "lactococcus lactis"


def test_a_sentence_opening_on_since_then_goes_on_about_the_one_before():
    context = [
        "Alexander Fleming and colleagues reported in 1929 that a mould killed staphylococci on a culture plate. "
        "Since then, the drug penicillin has been used to treat many bacterial infections. "
        "Penicillin inhibits PBP3 in the bacterial cell wall."
    ]
    graph = build_context_graph(context)
    assert graph.sentences[1].continues and not graph.sentences[2].continues
    question = "Which protein is inhibited by the drug whose mould Alexander Fleming's colleagues reported in 1929?"
    assert named_answer(question, context) == "PBP3"


def test_two_sentences_answering_equally_well_leave_the_answer_open():
    context = ["Energy stress activates the kinase LKB1 in liver cells. LKB1 phosphorylates MARK2 in neurons."]
    question = "Which protein does the kinase LKB1 phosphorylate?"
    assert named_answer(question, context) == "MARK2"
    both = [context[0] + " LKB1 phosphorylates SIK1 in adipocytes."]
    answer = reason(question, both)
    assert not answer.supported and "MARK2, SIK1" in answer.answer, answer.answer


def test_a_sentence_opening_on_the_answer_of_the_asked_kind_needs_only_half_the_words():
    context = [
        "The HOLBAEK study of older adults in Denmark found that the make-up of the microbiota differed between "
        "people living in the community and people living in residential care."
    ]
    # no verb of the lexicon, nor the question's own ("compared"): the sentence opening on the study
    # says what it did, with most of the question's other words
    question = "Name the Danish study that compared the gut bacteria of older people living at home with those of {}."
    assert named_answer(question.format("people in residential care"), context) == "HOLBAEK"
    # the question's own words, most of them missing, still leave it unanswered
    assert (
        named_answer(question.format("infants in day nurseries").replace("older people living", "infants"), context)
        is None
    )


def test_two_required_names_in_one_sentence_pin_the_question_down():
    context = ["Sorafenib (BAY 43-9006) inhibits RAF1 and VEGFR2. Sorafenib is taken twice a day."]
    assert named_answer("Which cancer drug blocks RAF1 and VEGFR2 but causes sore hands and feet?", context) == (
        "Sorafenib"
    )
    # one name only: the other words must be there
    assert named_answer("Which cancer drug blocks RAF1 but causes sore hands and feet?", context) is None


def test_a_verb_before_a_clause_or_an_object_ends_the_wh_phrase():
    q = read_question("What blood test algorithm showed that fasting slowed the decline of kidney function?")
    assert q.wh_noun == "algorithm", q.wh_noun
    assert read_question("Which protein encoded by FOXO3 binds DNA?").wh_noun == "protein"
    # a present verb before its object's article ends it too; a plural before a verb does not
    assert read_question("What skin side effect limits the use of isotretinoin?").wh_noun == "effect"
    assert read_question("What side effects does isotretinoin cause?").wh_noun == "effect"


ANTIFUNGALS = (
    "## {heading}\n\n"
    "- Itraconazole inhibits CYP51 and P-glycoprotein. Itraconazole can cause heart failure in older patients.\n"
    "- Terbinafine inhibits squalene epoxidase and is taken for nail infections.\n"
)


def test_a_list_items_subject_is_of_the_kind_its_section_heading_names():
    question = "Which antifungal blocks CYP51 and P-glycoprotein?"
    assert named_answer(question, [ANTIFUNGALS.format(heading="Antifungal drugs")]) == "Itraconazole"
    # a heading naming another kind calls it nothing
    assert named_answer(question, [ANTIFUNGALS.format(heading="Drugs studied in older adults")]) is None


def test_a_passage_goes_on_from_the_chunk_before_it_in_its_document():
    first, second = ANTIFUNGALS.format(heading="Antifungal drugs").split(" Itraconazole can")
    context = [second.join(["Itraconazole can", ""]).strip(), first]  # gathered in the other order
    question = "Which antifungal that blocks CYP51 can weaken the heart and cause heart failure in the old?"
    # the item's second sentence goes on from its first, in the chunk before
    joined = build_context_graph(context, follows={0: 1})
    assert joined.before(0) == len(joined.sentences) - 1 and joined.after(len(joined.sentences) - 1) == 0
    assert build_context_graph(context).before(0) is None  # not known to follow: it stands alone
    found = reason(question, context, follows={0: 1})
    assert found.supported and found.answer_entity == "Itraconazole", found.answer


def test_a_noun_phrase_after_the_wh_phrase_describes_the_answer():
    question = "Which antifungal drug, an inhibitor of CYP51 and P-glycoprotein, can cause heart failure?"
    assert read_question(question).bridge_nouns == []
    assert named_answer(question, [ANTIFUNGALS.format(heading="Antifungal drugs")]) == "Itraconazole"
    # a noun phrase after a verb still describes another thing
    assert read_question("Which drug blocks an enzyme, the inhibitor of CYP51?").bridge_nouns


STRESS = [
    "Repeated activation of the HPA axis raises cortisol and contributes to chronic systemic inflammation, "
    "often called allostatic load.",
    "Bruce McEwen and colleagues named this burden allostatic load in 1993, and allostatic load predicts "
    "cardiovascular disease in older adults.",
]
STRESS_NAMES = ["allostatic load", "Bruce McEwen", "cortisol"]  # the graph's names, as the loop passes them


def test_a_name_the_text_states_for_what_the_question_names_is_looked_up_and_followed():
    question = "Who named the chronic systemic inflammation to which repeated activation of the HPA axis contributes?"
    asked = propose_sub_questions(question, STRESS[:1], [], 3, known_names=STRESS_NAMES)
    assert asked[0] == question.replace("chronic systemic inflammation", "allostatic load"), asked
    found = reason(question, STRESS, known_names=STRESS_NAMES)
    assert found.supported and found.answer_entity == "Bruce McEwen", found.answer
    # named beside it, not as its other name: the burden McEwen named is another thing
    listed = [STRESS[0].replace(", often called allostatic load", " and to allostatic load"), STRESS[1]]
    assert question.replace("chronic systemic inflammation", "allostatic load") not in propose_sub_questions(
        question, listed[:1], [], 3, known_names=STRESS_NAMES
    )
    assert not reason(question, listed, known_names=STRESS_NAMES).supported


def test_who_leads_the_team_behind_a_study_is_the_person_it_is_led_by():
    context = [
        "The FinnTwin16 study followed twins born in Finland in the late 1970s. The investigators, led by "
        "Jaakko Kaprio, enrolled about 5,000 twin pairs at the age of 16."
    ]
    assert named_answer("Who heads the team of investigators behind the FinnTwin16 study?", context) == (
        "Jaakko Kaprio"
    )
    # what the team did is asked, not who leads it
    assert named_answer("Who funds the team of investigators behind the FinnTwin16 study?", context) is None


def test_the_thing_a_later_clause_describes_is_neither_the_answer_nor_the_way_to_another():
    context = [
        "In quiescent cells, the CDKN1B locus produces p27Kip1, which inhibits CDK2. "
        "In the FUCCI-K mouse, a fluorescent reporter gene is expressed from the p27Kip1 promoter."
    ]
    graph = build_context_graph(context)
    q = read_question("Which kinase is blocked by the protein that the CDKN1B locus produces?", graph)
    chains = _chains(q, graph)
    # p27Kip1 is the protein the CDKN1B locus produces: the thing described, not the kinase asked
    described = next(c for c in chains if c.candidate == "p27kip1" and c.bridge is None)
    assert "describes" in _wrong_role(q, graph, described)
    # through p27Kip1 to what the second sentence expresses: the first sentence says what it blocks
    onward = [c for c in chains if c.bridge == "p27kip1"]
    assert onward and all("another answer" in _verdict(q, graph, c) for c in onward)
    assert _wrong_role(q, graph, next(c for c in chains if c.candidate == "cdk2" and c.bridge is None)) == ""


def test_a_gloss_in_brackets_by_the_bridge_relates_the_answer_to_it():
    context = [
        "The BORC complex contains the adaptor protein Myrlysin, together with Lyspersin and Diaskedin.",
        "In the nematode C. elegans, loss of sam-4 (the worm Myrlysin gene) or blos-1 (the worm BLOC1S1 gene) "
        "mislocalises lysosomes in neurons.",
    ]
    known = ["Myrlysin", "BORC", "sam-4", "blos-1", "BLOC1S1"]  # the graph's names, as the loop passes them
    question = "Which worm gene encodes the counterpart of the adaptor protein of the BORC complex?"
    found = reason(question, context, known_names=known)
    assert found.supported and found.answer_entity == "sam-4", found.answer
    # listed beside the bridge without the gloss, the gene is no counterpart of it
    plain = [context[0], context[1].replace(" (the worm Myrlysin gene)", "").replace(" (the worm BLOC1S1 gene)", "")]
    assert not reason(question, plain, known_names=known).supported


def test_the_main_verb_is_the_first_no_relative_word_comes_before():
    # the main verb after a relative clause ("the drug that binds FKBP12 reduce"): the last one
    main, described = _main_and_described(read_question("Which cytokine does the drug that binds FKBP12 reduce?"))
    assert (main, described) == ({"decreases"}, {"binds"})
    main, described = _main_and_described(
        read_question("Which kinases are blocked by the protein that the CDKN1B locus produces?")
    )
    assert (main, described) == ({"inhibits"}, {"produces"})
    # a copula asks: no verb of the lexicon is the main one, a relative clause's is none
    question = "Which sirtuin is the closest relative of the yeast gene whose extra copy increased lifespan in yeast?"
    assert _main_and_described(read_question(question)) == (frozenset(), frozenset())


def test_a_known_name_written_only_inside_a_longer_one_is_not_written():
    graph = build_context_graph(["FGF21 signals through the co-receptor beta-Klotho."], known_names=["Klotho"])
    assert "klotho" not in graph.sentences[0].entities and "beta klotho" in graph.sentences[0].entities
    graph = build_context_graph(["Klotho and beta-Klotho are both co-receptors."], known_names=["Klotho"])
    assert "klotho" in graph.sentences[0].entities


def test_an_answer_that_is_the_bridge_written_another_way_is_none():
    context = ["In ileal enterocytes, FXR induces fibroblast growth factor 19 (FGF19). FGF19 binds FGFR4 in the liver."]
    graph = build_context_graph(context, known_names=["fibroblast growth factor 19", "FGF19", "FGFR4", "FXR"])
    q = read_question("Which growth factor binds FGFR4 after the hormone that FXR induces?", graph)
    same = [c for c in _chains(q, graph) if c.bridge == "fgf19" and c.candidate == "fibroblast growth factor 19"]
    assert same and all("written another way" in _verdict(q, graph, c) for c in same)


ANTIHYPERTENSIVES = [
    "Captopril inhibits ACE in the lung and kidney. Losartan blocks AT1R in vascular smooth muscle.",
    "In hypertensive rats, captopril increases the abundance of Lactobacillus. Losartan reduces the abundance "
    "of Lactobacillus, which raises the level of indole.",
]


def test_two_sentences_each_state_one_thing_the_question_asks_of_the_answer():
    # "that inhibits ACE" and "increases ... Lactobacillus" are said of captopril in two sentences
    assert_answers(
        "Which drug that inhibits ACE increases the abundance of Lactobacillus?", ANTIHYPERTENSIVES, "captopril"
    )
    # losartan blocks AT1R but reduces Lactobacillus; captopril increases it but blocks no AT1R
    assert_refuses("Which drug that blocks AT1R increases the abundance of Lactobacillus?", ANTIHYPERTENSIVES)
    assert_refuses("Which drug that inhibits ACE reduces the abundance of Lactobacillus?", ANTIHYPERTENSIVES)


def test_a_verb_of_a_later_clause_is_not_what_the_sentence_says_of_its_subject():
    # "Losartan reduces ... Lactobacillus, which raises ...": losartan raises nothing of Lactobacillus
    context = [ANTIHYPERTENSIVES[1].replace("captopril increases", "captopril is given with")]
    assert_refuses("Which drug increases the abundance of Lactobacillus?", context)
    assert_answers("Which drug reduces the abundance of Lactobacillus?", context, "losartan")


def test_an_answer_written_only_as_the_object_of_the_asked_verb_is_not_its_subject():
    # the extractor reads "which raises the level of indoxyl sulfate" as something raising indoxyl
    # sulfate: indoxyl sulfate raises nothing, least of all Lactobacillus reuteri
    context = [
        "Captopril reduces the abundance of Lactobacillus reuteri in the gut of people with hypertension, which "
        "raises the level of indoxyl sulfate, and indoxyl sulfate damages the kidney."
    ]
    assert_refuses("Which compound increases the abundance of Lactobacillus reuteri?", context)


def test_a_question_the_text_asks_states_nothing():
    context = ["How does losartan inhibit Lactobacillus in older rats? Captopril inhibits ACE."]
    assert_refuses("Which drug inhibits Lactobacillus?", context)


def test_a_lower_case_drug_name_must_be_connected_like_a_capitalised_one():
    # "losartan" is written in lower case and is still a name the answer must connect to, as ASPIRE is
    context = [
        "The ASPIRE trial tested captopril in adults over 70. The trial gave captopril together with furosemide.",
        "Losartan lowers blood pressure in older adults.",
    ]
    question = "Which drug was given together with losartan in the ASPIRE trial?"
    assert set(read_question(question, build_context_graph(context)).required) == {"aspire", "losartan"}
    assert_refuses(question, context)


def test_the_question_word_may_open_the_questions_second_sentence():
    # the first sentence sets the scene; the kind asked for is the second's ("Who": a person)
    q = read_question(
        "Chronic stress wears the body down through a burden that has a well-known name. Who, with colleagues, "
        "coined that name?"
    )
    assert q.wh_noun == "person", q.wh_noun
    assert_refuses(
        "Chronic stress raises cortisol through a burden that has a well-known name. Who, with colleagues, coined "
        "that name?",
        [
            "Repeated activation of the HPA axis raises cortisol and contributes to a burden often called "
            "allostatic load."
        ],
    )


def test_a_question_asking_for_a_quantity_gets_no_named_thing_for_an_answer():
    # "two" is close to "many" by meaning, and the sentence names the trial and one thing randomized to
    context = [
        "In humans, the ASPIRE 2 trial randomized healthy non-obese adults to two years of caloric restriction or "
        "to their usual diet."
    ]
    assert_refuses("How many participants were randomized in the ASPIRE 2 trial?", context)
    assert_refuses("How much caloric restriction did the ASPIRE 2 trial give?", context)


RENAMED = [
    "In a trial in Danish men aged 60 to 70, Lactobacillus gasseri reduced the loss of hip bone density. "
    "Lactobacillus casei is now Lacticaseibacillus casei, and Lactobacillus gasseri is now formally called "
    "Paralactobacillus gasseri.",
    "Bifidobacterium longum produces acetate in the colon. Acetate strengthens the gut barrier.",
]


def test_a_question_asking_for_a_things_current_name_is_answered_with_the_name_the_text_gives_it_now():
    # the adjective before "name" says no kind; the kind is that of the thing named ("the probiotic species")
    question = "What is the current name of the probiotic species that reduced hip bone loss in Danish men?"
    assert read_question(question).wh_noun == "specy"
    assert_answers(question, RENAMED, "Paralactobacillus gasseri")
    assert_answers("What is the current name of Lactobacillus casei?", RENAMED, "Lacticaseibacillus casei")
    assert_answers("What is Lactobacillus casei formally called today?", RENAMED, "Lacticaseibacillus casei")
    assert not read_question("Which microbiologist was Lactobacillus casei named after?").asks_name
    # the text gives the new name only: nothing answers the old one, nor a name it never renames
    assert_refuses("What was the former name of Lacticaseibacillus casei?", RENAMED)
    assert_refuses("What is the current name of Bifidobacterium longum?", RENAMED)
    assert_refuses("What was the former name of Bifidobacterium longum?", RENAMED)  # not "Acetate"


def test_a_run_of_sentences_opening_on_they_goes_on_about_the_subject_before_them():
    # "They ... They often lose ...": both take up "Quiescent stem cells" two sentences back
    context = [
        "Quiescent stem cells share several other features. They keep low levels of reactive oxygen species. "
        "They often lose expression of the nuclear pore protein NUP93 and divide rarely."
    ]
    question = "Which nuclear pore protein do quiescent stem cells often lose?"
    assert_answers(question, context, "NUP93")
    # a sentence about other cells between them breaks the run: "They" are those cells
    broken = [context[0].replace("They keep low", "Tumour cells keep low")]
    assert_refuses(question, broken)


SOIL_BACTERIUM = [
    "Bleomycin is a glycopeptide antibiotic made by the soil bacterium Streptomyces verticillus. Researchers in "
    "Tokyo isolated the bacterium from a soil sample collected in Japan in 1962. Clinicians use bleomycin "
    "against testicular cancer."
]


def test_the_kind_noun_a_sentence_before_wrote_a_name_after_refers_to_that_name():
    # "the bacterium" of the second sentence is the soil bacterium the first one names: the place it
    # was found and the drug it makes are said of one microorganism, and both sentences are shown
    found = reason(
        "Which soil microorganism, isolated from a sample collected in Japan, makes bleomycin?", SOIL_BACTERIUM
    )
    assert found.supported and found.answer_entity == "Streptomyces Verticillus", found.answer
    assert [text for _p, text in found.sentences] == [
        "Bleomycin is a glycopeptide antibiotic made by the soil bacterium Streptomyces verticillus.",
        "Researchers in Tokyo isolated the bacterium from a soil sample collected in Japan in 1962.",
    ]
    # a noun the sentence before writes no name after ("antibiotic") refers to nothing named
    assert not reason("Which antibiotic was isolated from a sample collected in Japan?", SOIL_BACTERIUM).supported


def test_the_kind_noun_a_sentence_before_calls_a_name_refers_to_it_with_what_that_sentence_states():
    # "the compound" is nystatin, which the sentence before calls a compound; "the bacterium" is the
    # bacterium it names after that noun: the second sentence names both, and the first's relation
    # between them holds there too
    graph = build_context_graph(
        [
            "Nystatin is a polyene compound produced by the soil bacterium Streptomyces noursei. Elizabeth Hazen "
            "and Rachel Brown isolated the bacterium from a farm in Virginia and named the compound after New York "
            "State."
        ]
    )
    second = graph.sentences[1]
    assert {"nystatin", "streptomyces noursei"} <= second.entities.keys() and second.continues
    assert second.relations[frozenset({"nystatin", "streptomyces noursei"})] == ("produces",)
    assert stem("polyene") in second.referred  # what the compound is, said in the sentence before


FERMENTATION = [
    "Colonic bacteria ferment dietary fibre. The main short-chain fatty acids are acetate, propionate and butyrate. "
    "Eubacterium rectale produces butyrate from starch. Butyrate activates the receptor HCAR2 on colonic "
    "macrophages. Bacteroides thetaiotaomicron produces succinate, and succinate activates the receptor SUCNR1 on "
    "tuft cells."
]


def test_a_class_the_question_describes_as_one_thing_is_reached_through_a_member_the_text_lists():
    # "the short-chain fatty acid that E. rectale produces" is butyrate: the text lists it among them
    found = reason(
        "Which receptor is switched on by the short-chain fatty acid that Eubacterium rectale produces?", FERMENTATION
    )
    assert found.supported and found.answer_entity == "HCAR2", found.answer
    assert found.bridges == ["Butyrate"]
    # succinate is no short-chain fatty acid the text lists: SUCNR1 does not answer
    refused = reason(
        "Which receptor is switched on by the short-chain fatty acid that Bacteroides thetaiotaomicron produces?",
        FERMENTATION,
    )
    assert not refused.supported, refused.answer


NYSTATIN = [
    "Nystatin is a polyene compound produced by the soil bacterium Streptomyces noursei. Elizabeth Hazen and Rachel "
    "Brown isolated the bacterium from a farm in Virginia and named the compound after New York State."
]


def test_a_question_asking_for_a_setting_is_not_answered_by_a_name_the_sentence_sets_elsewhere():
    # the bacterium was found in Virginia (a setting the text writes after "in"); New York State, a
    # "state" by its name, is what the compound is named after
    found = reason("In which state was the bacterium that produces nystatin found?", NYSTATIN)
    assert not found.supported, found.answer
    assert_answers("After which state is nystatin named?", NYSTATIN, "New York State")


def test_a_word_written_only_as_what_an_inhibiting_verb_acts_on_is_not_held():
    # "suppresses the initiation of autophagy" says nothing initiates it: the question's "initiates"
    # is not held there, while a sentence writing it as its own verb holds it
    from kg_pipelines.offline.rationale import _held_against

    graph = build_context_graph(
        ["When nutrients are plentiful, mTORC1 suppresses the initiation of autophagy. ULK1 initiates autophagy."]
    )
    wanted = frozenset({stem("initiates")})
    assert _held_against(graph.sentences[:1], wanted) == set(wanted)
    assert _held_against(graph.sentences, wanted) == set()


PROTEIN_KINASE_A = [
    "PKA is a tetramer composed of two regulatory subunits and a catalytic alpha subunit. The regulatory subunits "
    "bind cAMP. When cAMP rises, the regulatory subunits release the catalytic subunit, and the upstream kinase PDK1 "
    "phosphorylates threonine 197 of the alpha subunit. The kinase PKN2 can also phosphorylate this site."
]


def test_a_definite_phrase_the_sentence_before_wrote_goes_on_about_it():
    # "the regulatory subunits", "the alpha subunit": the subunits of PKA the first sentence introduced,
    # so the last sentence's "this site" is on PKA, and its own verb is what it says of PKN2
    graph = build_context_graph(PROTEIN_KINASE_A)
    assert [s.continues for s in graph.sentences] == [False, True, True, True]
    assert "pdk1" not in graph.sentences[3].entities  # "The kinase PKN2" is PKN2, not the kinase before
    question = "Apart from PDK1, which kinase can also phosphorylate threonine 197 on the alpha subunit of PKA?"
    assert_answers(question, PROTEIN_KINASE_A, "PKN2")
    # written without the phrases of the sentences before, the site is of nothing PKA is made of
    unrelated = [
        PROTEIN_KINASE_A[0].replace(
            "the regulatory subunits release the catalytic subunit, and the upstream kinase PDK1 phosphorylates "
            "threonine 197 of the alpha subunit",
            "the upstream kinase PDK1 phosphorylates threonine 197 of a substrate",
        )
    ]
    assert_refuses(question, unrelated)


def test_a_gene_the_question_says_encodes_the_bridge_is_the_bridges_own_gene():
    # "The gene ... encodes a protein that ...": the FXN gene and the FXN protein, one name
    context = [
        "The FXN gene was discovered in 1996, when patients with Friedreich ataxia were found to carry repeats in "
        "it. Membrane-bound FXN acts mainly in the mitochondria as an obligatory iron donor for ferrochelatase (FECH)."
    ]
    question = (
        "The gene discovered in 1996 in patients with Friedreich ataxia encodes a protein that serves in the "
        "mitochondria as an obligatory iron donor for which enzyme?"
    )
    assert_answers(question, context, "ferrochelatase")
    assert_refuses(question, [context[0].replace("The FXN gene", "FXN")])  # nothing says FXN is a gene


def test_what_a_sentence_calls_a_name_is_not_cut_short_at_the_kind_noun_itself_or_given_to_a_longer_name():
    # a "polyamine" node is the kind the sentence calls putrescine, not another name ending the phrase
    graph = build_context_graph(
        ["Putrescine is a small polyamine made in all cells."], known_names=["Putrescine", "polyamine"]
    )
    assert "polyamine" in graph.sentences[0].entities
    assert _is_kind(graph, "putrescine", "polyamine", frozenset())
    # "the enzyme lanosterol 14-alpha-demethylase" calls the longer name an enzyme, not lanosterol
    sentence = "The enzyme lanosterol 14-alpha-demethylase removes a methyl group from lanosterol."
    assert not _calls(words(sentence), ["lanosterol"], "enzyme", [])
    assert _calls(words("The enzyme lanosterol demethylase acts first."), ["lanosterol", "demethylase"], "enzyme", [])


def test_a_kind_noun_after_those_or_before_a_process_noun_describes_no_other_thing():
    assert (
        "cell"
        not in read_question("Which receptor on hepatocytes binds the bile acid that those cells secrete?").bridge_nouns
    )
    assert (
        "cell"
        in read_question("Which receptor on hepatocytes binds the bile acid that stellate cells secrete?").bridge_nouns
    )
    limiting = (
        "Which receptor is activated by the toxin whose entry zinc limits by raising tight junction protein expression?"
    )
    assert "protein" not in read_question(limiting).bridge_nouns
    assert "protein" in read_question("Which receptor is activated by the protein that zinc limits?").bridge_nouns
    # the kind is the thing described when no word before makes it a modifier: "the probiotic preparation"
    tested = "Which Lactobacillus strains were in the probiotic preparation tested in the trial?"
    assert "probiotic" in read_question(tested).bridge_nouns


def test_a_thing_the_text_says_inhibits_another_is_an_inhibitor():
    graph = build_context_graph(["The CDKN1B locus produces KIP1, which inhibits CDK2 and slows the cell cycle."])
    assert _is_kind(graph, "kip1", "inhibitor", frozenset())
    assert not _is_kind(graph, "cdk2", "inhibitor", frozenset())  # what is inhibited is none


def test_general_words_for_containing_and_for_cancers_are_read():
    context = [
        "Aspirin is a drug derived from salicin, a compound found in the bark of the plant Salix alba (white willow)."
    ]
    assert_answers("Which plant contains salicin, the compound from which aspirin was derived?", context, "Salix Alba")
    approved = ["Imatinib is a tyrosine kinase inhibitor approved for chronic myeloid leukaemia."]
    assert_answers("For which blood cancer is imatinib approved?", approved, "Chronic Myeloid Leukaemia")


def test_a_sentence_describing_another_thing_as_the_question_does_answers_with_that_thing():
    # "the nuclear envelope protein emerin": the protein asked for is emerin (no entity here), not
    # BCL-2, the protein the sentence names later
    context = [
        "Aged fibroblasts often lose expression of the nuclear envelope protein emerin and upregulate the survival "
        "proteins BCL-2 and MCL-1."
    ]
    question = "Name the nuclear envelope protein whose expression aged fibroblasts often lose."
    assert_refuses(question, context)
    assert_answers(question, [context[0].replace("emerin", "LMNA")], "LMNA")
    assert_answers(question, [context[0].replace("emerin", "lamin A")], "lamin A")  # a family name and its member


BARTONELLA = [
    "Bartonella bacilliformis is a Gram-negative bacterium that sandflies carry between people in the Andes. "
    "Researchers described Bartonella bacilliformis in 1909 and named it after the Peruvian scientist Alberto "
    "Barton. Bartonella bacilliformis belongs to the class Alphaproteobacteria."
]


def test_giving_a_name_is_naming_after_whatever_word_stands_between():
    assert_answers(
        "Which Peruvian scientist gave his name to the sandfly-borne bacterium Bartonella?",
        BARTONELLA,
        "Alberto Barton",
    )
    # the genus name of a thing is its name, no other thing the text would have to call a genus
    honours = "The genus name of the sandfly-borne bacterium described in 1909 honours which Peruvian scientist?"
    assert "genus" not in read_question(honours).bridge_nouns
    assert_answers(honours, BARTONELLA, "Alberto Barton")
    assert "genus" in read_question("Under the genus name introduced in 2020, what is the species X?").bridge_nouns


def test_a_kind_noun_after_a_common_noun_and_described_after_it_is_a_thing_between():
    assert (
        "bacterium"
        in read_question("To which class does the gut bacterium named after Alberto Barton belong?").bridge_nouns
    )
    assert "bacterium" in read_question("Which drug kills the gut bacterium that Alberto Barton found?").bridge_nouns
    # a setting ("an obesity trial in Tabriz") or a name after it ("the gut bacterium Akkermansia") is none
    assert (
        "trial"
        not in read_question("Which receptor does the drug tested in an obesity trial in Tabriz bind?").bridge_nouns
    )
    assert "bacterium" not in read_question("Which acid does the gut bacterium Akkermansia make?").bridge_nouns


KIDNEY_CORECEPTOR = [
    "The nortin gene was found by chance in 2003, when a transposon insertion disrupted it in zebrafish.",
    "Membrane-bound nortin works mainly in the pronephros as an obligatory co-receptor for fibroblast growth factor 8.",
]
NORTIN = {
    "known_names": ["nortin", "fibroblast growth factor 8"],
    "descriptions": {"nortin": "Nortin is a membrane protein."},
}


def test_a_paraphrase_of_the_questions_phrase_between_the_bridge_and_the_answer_relates_them():
    question = (
        "In the pronephros, which growth factor needs, as its essential co-receptor, the membrane form of the protein "
        "whose disruption by a transposon insertion in 2003 was found by chance?"
    )
    assert_answers(question, KIDNEY_CORECEPTOR, "fibroblast growth factor 8", **NORTIN)
    # "an optional co-receptor" is no paraphrase of "needs, as its essential co-receptor"
    optional = [KIDNEY_CORECEPTOR[0], KIDNEY_CORECEPTOR[1].replace("obligatory", "optional")]
    assert_refuses(question, optional, **NORTIN)


POLYAMINE_COHORT = [
    "In the Lifelines cohort from the northern Netherlands, higher estimated dietary putrescine intake went with "
    "lower all-cause mortality.",
    "Putrescine also serves as the substrate for hypusination of the elongation factor eEF2, which supports XBP1 "
    "synthesis in muscle.",
]
POLYAMINE_NAMES = {
    "known_names": ["putrescine", "eEF2", "XBP1", "Netherlands"],
    "descriptions": {
        "putrescine": "Putrescine is a small polyamine made by all cells.",
        "XBP1": "Unfolded proteins in the endoplasmic reticulum raise the transcription factor XBP1.",
    },
}


def test_the_one_tied_answer_the_text_calls_by_the_questions_whole_kind_phrase_answers():
    # eEF2 and XBP1 are both factors and named by one sentence; only eEF2 is "the elongation factor"
    question = (
        "Which elongation factor is hypusinated using the polyamine whose higher estimated dietary intake went with "
        "lower all-cause mortality in a cohort from the northern Netherlands?"
    )
    assert_answers(question, POLYAMINE_COHORT, "eEF2", **POLYAMINE_NAMES)
    # no kind phrase picks one: "factor" alone fits both
    assert_refuses(question.replace("elongation factor", "factor"), POLYAMINE_COHORT, **POLYAMINE_NAMES)


def test_general_words_for_catalysing_converting_and_a_route_are_read():
    context = [
        "In hepatocytes, the enzyme tryptophan 2,3-dioxygenase, encoded by TDO2, catalyses the rate-limiting step of "
        "the main pathway that converts tryptophan into kynurenine."
    ]
    question = (
        "Which enzyme governs the pace-setting reaction of the main route by which hepatocytes turn tryptophan into "
        "kynurenine?"
    )
    assert_answers(question, context, "TDO2", known_names=["TDO2", "tryptophan", "kynurenine"])
    held = _held_in(read_question(question), [_full_stems(context[0])])
    assert {"gover", "route"} <= held  # "governs": catalyses, "route": pathway


def test_a_sentence_going_on_about_the_one_before_has_its_things_beside_it_and_a_trial_is_a_study():
    context = [
        "The MILES trial tested whether metformin restores youthful gene expression "
        "in the muscle of older adults. The investigators, led by Jill Crandall, enrolled 14 people aged 70 or more "
        "at one centre in the United States."
    ]
    question = (
        "Which scientist heads the investigators behind the small US study of the biguanide drug and youthful gene "
        "expression in the muscle of people aged 70 or more?"
    )
    assert_answers(question, context, "Jill Crandall", known_names=["MILES", "metformin"])
    # a sentence that does not go on about the trial leaves the study and the drug unnamed beside the answer
    apart = [context[0].replace("The investigators, led by", "Separately, a team led by")]
    assert_refuses(question, apart, known_names=["MILES", "metformin"])


def test_a_phrase_saying_a_lexicon_verb_in_other_words_is_read_as_that_verb():
    from kg_pipelines.offline.rationale import _plain_verbs

    assert (
        _plain_verbs("Which kinase puts a phosphate on serine 9 of GSK3B?")
        == "Which kinase phosphorylates serine 9 of GSK3B?"
    )
    assert _plain_verbs("by removing acetyl groups from LKB1") == "by deacetylating LKB1"
    assert _plain_verbs("Which kinases add phosphate to DAF-16?") == "Which kinases phosphorylate DAF-16?"
    context = ["LKB1 phosphorylates NUAK1 on threonine 211 and thereby activates it."]
    question = "Which kinase puts a phosphate on NUAK1 at threonine 211?"
    assert read_question(question).relations == ["phosphorylates"]
    assert_answers(question, context, "LKB1", known_names=["LKB1", "NUAK1"])
    assert_refuses(question, ["LKB1 binds NUAK1 near threonine 211."], known_names=["LKB1", "NUAK1"])


TUMOUR_SUPPRESSOR = [
    "Two stress pathways enforce the senescent growth arrest. In the first pathway, ATR activates TP53, and p53 "
    "induces MDM2 and the CDK inhibitor p21.",
    "SIRT1 deacetylates p53 at lysine 382, which lowers its transcriptional activity.",
]
TUMOUR_NAMES = {"known_names": ["ATR", "TP53", "p53", "MDM2", "p21", "SIRT1"]}


def test_the_first_sentence_stating_the_clause_the_question_describes_the_bridge_by_describes_it():
    question = (
        "Which sirtuin removes acetyl groups from the tumour suppressor that, once switched on by ATR, induces MDM2 "
        "to enforce the senescent growth arrest?"
    )
    assert read_question(question).clause_relations.get("mdm2") == frozenset({"induces"})
    assert_answers(question, TUMOUR_SUPPRESSOR, "SIRT1", **TUMOUR_NAMES)
    # the verb beside MDM2 is the answer's own, in no clause about a thing between: nothing is described
    assert read_question("Which sirtuin induces MDM2 in the senescent growth arrest?").clause_relations == {}


def test_the_first_of_things_the_sentence_before_counted_refers_to_it():
    graph = build_context_graph(TUMOUR_SUPPRESSOR[:1])
    assert {"stres", "enfor", "arres"} <= graph.sentences[1].referred
    graph = build_context_graph(["Two stress pathways enforce the arrest. In the first step, ATR activates TP53."])
    assert graph.sentences[1].referred == frozenset()  # no step was counted


def test_a_name_listed_before_another_is_not_the_others_family():
    context = [
        "The NORDIC study tested three Streptococcus strains and one Enterococcus strain in frail adults. "
        "Lactic acid bacteria such as Streptococcus, Enterococcus and Pediococcus ferment lactose in the gut."
    ]
    names = ["NORDIC", "Streptococcus", "Enterococcus", "Pediococcus"]
    question = "Which Streptococcus strains did the NORDIC study test in frail adults?"
    # "Streptococcus, Enterococcus" lists two genera: the word before Enterococcus is not its family
    assert_refuses(question, context, known_names=names)
    named = [context[0].replace("three Streptococcus strains", "the Streptococcus strain K12")]
    assert_answers(question, named, "K12", known_names=[*names, "K12"])


def test_the_verb_after_a_phrase_describing_the_answer_is_still_the_answers_own():
    question = "Which microbe in the mouths of Swiss smokers produces nitroxyl-Q?"
    assert read_question(question).answer_role == "source"
    context = [
        "Swiss smokers carried mouth microbes that produce rare nitrogen oxides, including nitroxyl-Q, "
        "which showed potent activity against Gram-positive pathogens such as Streptococcus mutans."
    ]
    # S. mutans is written past what the verb acts on: it is what nitroxyl-Q acts on, not its maker
    assert_refuses(question, context, known_names=["nitroxyl-Q", "Streptococcus mutans"])
    for made in (
        "In Swiss smokers, nitroxyl-Q is produced by the oral microbe Streptococcus mutans.",
        "In Swiss smokers, the oral microbe Streptococcus mutans produces nitroxyl-Q.",
    ):
        assert_answers(question, [made], "Streptococcus mutans", known_names=["nitroxyl-Q", "Streptococcus mutans"])


def test_a_name_written_only_as_the_first_part_of_a_hyphenated_modifier_describes_another_thing():
    from kg_pipelines.offline.rationale import _modifier_only

    question = "Which enzyme does AMPK phosphorylate in the rapamycin-treated muscle of old mice?"
    names = {"known_names": ["AMPK", "ACC", "rapamycin"]}
    context = ["AMPK phosphorylates the enzyme ACC in the muscle of old mice."]
    assert_answers(question, context, "ACC", **names)  # rapamycin describes the muscle, not what AMPK acts on
    assert _modifier_only(question, "rapamycin") and _modifier_only("the Rapamycin-sensitive complex", "rapamycin")
    assert not _modifier_only("Which cells make TNF-alpha?", "TNF")  # a Greek letter ends the name
    assert not _modifier_only("Which cytokine is IL-6?", "IL")
    assert not _modifier_only("Does LKB1-deficient muscle still need LKB1?", "LKB1")  # also written alone


def test_an_answer_named_by_a_word_of_the_kind_asked_is_no_member_of_it():
    context = [
        "Roseburia intestinalis is a butyrate producer of the human colon. Lower levels of Roseburia intestinalis "
        "have been linked with higher markers of inflammation."
    ]
    names = {
        "known_names": ["Roseburia intestinalis", "Inflammation"],
        "descriptions": {"Inflammation": "Chronic inflammation is a disease of ageing tissues."},
    }
    question = "Which inflammatory disease is linked with lower levels of Roseburia intestinalis?"
    assert_refuses(question, context, **names)
    colitis = [context[0].replace("higher markers of inflammation", "ulcerative colitis")]
    assert_answers(question, colitis, "colitis", known_names=["Roseburia intestinalis", "colitis"])


def test_name_that_asks_which():
    question = "A drug that lowers the SASP is tested in old dogs. Name that dog study."
    assert read_question(question).wh_noun == "study"


def test_a_sentence_excluding_what_the_question_says_with_but_not_does_not_answer_it():
    context = ["Overexpression of SIRT9 extended the lifespan of male flies but not female flies."]
    names = {"known_names": ["SIRT9"]}
    assert_refuses("Overexpression of which sirtuin extends the lifespan of female flies?", context, **names)
    assert_answers("Overexpression of which sirtuin extends the lifespan of male flies?", context, "SIRT9", **names)


def test_a_sentence_set_in_another_place_than_the_question_does_not_answer_it():
    names = {"known_names": ["PXR", "MRP2", "CYP3A9"]}
    question = "Inside hepatocytes, PXR represses CYP3A9 by inducing which protein?"
    context = [
        "In ileal enterocytes, PXR induces the protein MRP2. MRP2 travels to the liver, where it represses CYP3A9."
    ]
    assert_refuses(question, context, **names)
    assert_answers(question, [context[0].replace("In ileal enterocytes", "In hepatocytes")], "MRP2", **names)


def test_an_answer_the_text_calls_by_the_questions_noun_for_the_thing_between_is_not_the_answer():
    from kg_pipelines.offline.rationale import _called_as_the_bridge

    context = [
        "In that study, IL-23 itself promoted colitis. "
        "Flagellin activates TLR5 on macrophages and induces the inflammatory cytokines IL-23 and IL-1B."
    ]
    graph = build_context_graph(context, ["Flagellin", "TLR5", "IL-23", "IL-1B"])
    question = read_question(
        "One inflammatory cytokine was found to promote colitis itself. Flagellin induces that cytokine by "
        "activating which receptor on macrophages?",
        graph,
    )
    assert question.bridge_nouns == ["cytokine"] and question.wh_noun == "receptor"
    assert _called_as_the_bridge(question, graph, "il 23")  # "the inflammatory cytokines IL-23 and IL-1B"
    assert not _called_as_the_bridge(question, graph, "tlr5")


def test_a_question_asking_of_one_sex_is_answered_only_by_a_sentence_saying_it_of_that_sex():
    names = {"known_names": ["IRS7"]}
    question = "In male mice, reduced signalling through which insulin receptor substrate extended lifespan?"
    assert_refuses(question, ["Reduced signalling through IRS7 extended lifespan in female mice."], **names)
    assert_refuses(question, ["Reduced signalling through IRS7 extended lifespan in mice."], **names)
    assert_answers(question, ["Reduced signalling through IRS7 extended lifespan in male mice."], "IRS7", **names)
    # the question's own "but not" phrase names the group it does not ask of
    question = "Which drug extended lifespan in female mice but not in male mice?"
    names = {"known_names": ["nebivolol"]}
    assert_refuses(question, ["Nebivolol extended lifespan in male mice."], **names)
    assert_answers(question, ["Nebivolol extended lifespan in female mice."], "nebivolol", **names)


def test_a_kind_is_no_bridge():
    context = [
        "Roseburia hominis makes up about 3 percent of faecal bacteria in healthy adults. "
        "Diet shapes bacteria and the host, and the regulation of inflammation follows."
    ]
    question = (
        "A low abundance of the butyrate producer that makes up about 3 percent of faecal bacteria in healthy "
        "adults is linked to which disease?"
    )
    found = reason(
        question,
        context,
        known_names=["Roseburia hominis", "bacteria", "Inflammation"],
        descriptions={"Inflammation": "Chronic inflammation is a disease of ageing tissues."},
    )
    assert not found.supported or "bacteria" not in [b.casefold() for b in found.bridges], found.answer


def test_tied_answers_one_naming_the_other_answer_with_the_one_named():
    context = [
        "Patients with Behcet's disease carry reduced levels of Roseburia hominis, and a low abundance of "
        "Roseburia hominis predicted relapse of intestinal Behcet's disease."
    ]
    names = {"known_names": ["Roseburia hominis", "Behcet's disease", "intestinal Behcet's disease"]}
    question = "Reduced levels of Roseburia hominis are found in patients with which disease?"
    assert_answers(question, context, "Behcet's disease", **names)


def test_who_did_a_deed_is_not_a_person_written_after_what_it_was_done_to():
    question = "Who first isolated Christensenella minuta from human faeces?"
    names = {"known_names": ["Christensenella minuta", "Henrik Christensen"]}
    context = [
        "Researchers isolated Christensenella minuta from human faeces in 2012 and named it after the Danish "
        "microbiologist Henrik Christensen."
    ]
    assert_refuses(question, context, **names)
    made = ["The Danish microbiologist Henrik Christensen isolated Christensenella minuta from human faeces."]
    assert_answers(question, made, "Henrik Christensen", **names)


def test_a_name_the_text_writes_in_parts_is_found_by_its_parts():
    # a place the text names by its nationality adjective
    question = "Which microbiologist from Denmark is the genus Christensenella named after?"
    context = ["The genus Christensenella was named after the Danish microbiologist Henrik Christensen."]
    assert_answers(question, context, "Henrik Christensen", known_names=["Christensenella", "Henrik Christensen"])
    # a compound of two names the text writes apart
    question = "Which kinase was less active in Danish-Swedish twins who lived to 100?"
    assert_answers(question, ["AMPK was less active in Swedish and Danish twins who lived to 100."], "AMPK")
    # a name with a participle joined to it: the name is the anchor, the participle a word asked
    context = ["The liver makes oleoyl-lysophosphatidic acid, which activates PPAR-delta and binds LPA1."]
    graph = build_context_graph(context, ["PPAR-delta", "LPA1", "oleoyl-lysophosphatidic acid"])
    question = read_question("Which receptor does a PPAR-delta-activating lipid made by the liver bind?", graph)
    assert "ppar delta activating" in question.anchors  # how the question writes it
    read = _described_in_other_words(question, graph)
    assert "ppar delta" in read.required and "ppar delta activating" not in read.anchors
    assert stem("activating") in read.stems
    # a species the text does not write is not found by its genus
    question = "Which vitamin does Lactobacillus fermentum make?"
    names = {"known_names": ["Lactobacillus plantarum", "riboflavin"]}
    found = reason(question, ["Lactobacillus plantarum makes riboflavin in the gut."], **names)
    assert not found.supported and "Lactobacillus Fermentum" in found.reason, found.reason


def test_the_kind_asked_is_the_possessor_in_the_wh_phrase():
    question = "Which scientist's discovery of the ubiquitin system earned him the 2004 Nobel Prize in chemistry?"
    context = [
        "Aaron Ciechanover received the 2004 Nobel Prize in Chemistry for discovering ubiquitin-mediated "
        "protein degradation."
    ]
    names = ["Aaron Ciechanover", "ubiquitin"]
    assert read_question(question, build_context_graph(context, names)).wh_noun == "scientist"
    assert_answers(question, context, "Aaron Ciechanover", known_names=names)


def test_a_generic_agent_noun_asks_for_a_compound():
    question = "Which senolytic agent cleared senescent cells from the lungs of old mice?"
    context = [
        "Fisetin cleared senescent cells from the lungs of old mice, and senolytics such as fisetin are in trials."
    ]
    assert_answers(question, context, "Fisetin", known_names=["Fisetin"])


def test_a_word_before_a_kind_noun_and_a_name_only_says_which_one_it_is():
    question = "Which tree is the source of the compound from which the diabetes drug dapagliflozin was developed?"
    context = [
        "Dapagliflozin was developed from phlorizin, a compound of the apple tree Malus domestica.",
        "Dapagliflozin lowers blood glucose in diabetes.",
    ]
    names = ["dapagliflozin", "phlorizin", "Malus domestica", "diabetes"]
    assert read_question(question, build_context_graph(context, names)).required == ["dapagliflozin"]
    found = reason(question, context, known_names=names)
    assert found.supported and found.answer_entity.startswith("Malus"), found.answer


def test_of_tied_answers_the_one_reached_through_the_other_answers():
    # gamma-Klotho is the protein the question describes on the way, FGFR7 what partners with it
    context = [
        "A related protein, gamma-Klotho, serves as the co-receptor for FGF40 and FGF41 in the liver and muscle.",
        "FGF40 reaches the liver and binds the receptor FGFR7 together with the co-receptor gamma-Klotho, and "
        "this signal lowers CYP8B1.",
    ]
    question = (
        "In the liver, which receptor partners with the protein that serves as the co-receptor for FGF41 in muscle?"
    )
    assert_answers(question, context, "FGFR7", known_names=["gamma-Klotho", "FGF40", "FGF41", "FGFR7", "CYP8B1"])


def test_a_name_written_before_receptor_names_its_receptor_not_itself():
    # "the leptin receptor" is leptin's receptor: leptin, a protein, is no answer to "which receptor"
    context = [
        "Leptin binds the leptin receptor in the hypothalamus.",
        "In the hypothalamus, leptin lowers food intake in mice.",
    ]
    assert_refuses("Which receptor lowers food intake in the hypothalamus of mice?", context, known_names=["Leptin"])
    # one the text calls a receptor stays one, however else it is written
    context = [
        "The bile acid receptor TGR9 raises GLP-1 release from L cells.",
        "TGR9 receptor signalling is strong in L cells.",
    ]
    assert_answers("Which receptor raises GLP-1 release from L cells?", context, "TGR9", known_names=["TGR9", "GLP-1"])


def test_a_spelled_out_name_of_another_kind_is_no_receptor():
    # "oxyntomodulin-like peptide 3 (OLP-3)" is a peptide: no answer to "which receptor"
    names = ["SLC99", "OLP-3", "HARA"]
    context = ["SLC99 stimulated the release of oxyntomodulin-like peptide 3 (OLP-3) from K cells."]
    question = "Which receptor, when activated in K cells, responds to SLC99?"
    found = reason(question, context, known_names=names)
    assert not found.supported and "kind" in found.reason, found.answer
    # the long form of a receptor's symbol says it is one, a Greek letter after it or not
    context = ["SLC99 activates hydroxy acid receptor alpha (HARA) in K cells."]
    assert_answers(question, context, "HARA", known_names=names)


def test_a_participle_with_its_agent_asks_for_the_object():
    # "the receptor activated by X": X is the subject of the text's verb, the answer its object
    context = ["Valerate activates GPR99 on colonocytes."]
    names = ["Valerate", "GPR99", "colonocytes"]
    graph = build_context_graph(context, names)
    assert read_question("Name the receptor activated by valerate.", graph).answer_role == "target"
    assert read_question("Name the receptor activated in colonocytes.", graph).answer_role == "source"
    assert_answers("Name the receptor activated by valerate on colonocytes.", context, "GPR99", known_names=names)


def test_a_binomial_names_the_genus_a_question_describes():
    question = "The genus of the gut bacterium isolated from faeces in 2012 honours which Danish microbiologist?"
    context = [
        "Researchers isolated Christensenella minuta from human faeces in 2012 and named it after the Danish "
        "microbiologist Henrik Christensen."
    ]
    assert_answers(
        question, context, "Henrik Christensen", known_names=["Christensenella minuta", "Henrik Christensen"]
    )


def test_a_negated_relation_answers_only_a_question_that_negates_it():
    context = ["Resveratrol did not extend lifespan in UM-HET3 mice."]
    names = ["Resveratrol", "UM-HET3", "lifespan"]
    assert_answers(
        "Which compound failed to extend lifespan in UM-HET3 mice?", context, "Resveratrol", known_names=names
    )
    # the extractor negates the pair with HET3, a name inside the one the question writes
    assert_refuses("Which compound extended lifespan in UM-HET3 mice?", context, known_names=names)


def test_a_thing_described_before_the_wh_phrase_is_the_bridge():
    # "The co-receptor that partners with FGFR9 ..." opens the question and describes delta-Klotho
    context = [
        "FGF31 reaches the liver and binds the receptor FGFR9 together with the co-receptor delta-Klotho, and this "
        "signal lowers CYP8B1.",
        "A related protein, delta-Klotho, serves as the co-receptor for FGF31 and FGF33 in fat tissue.",
    ]
    names = ["FGF31", "FGFR9", "delta-Klotho", "FGF33", "CYP8B1"]
    question = (
        "The co-receptor that partners with FGFR9 when FGF31 signals to the liver also acts as the co-receptor "
        "for which other fibroblast growth factor?"
    )
    read = read_question(question, build_context_graph(context, names))
    assert read.described == [frozenset({stem("receptor")})]  # "co" is too short a word to hold
    assert_answers(question, context, "FGF33", known_names=names)


def test_a_verb_to_a_name_the_extractor_did_not_read_states_the_first_hop():
    # "threonine 181" is no entity of the sentence, so no pair holds the verb that acts on it
    context = [
        "When energy falls, the upstream kinase STK99 phosphorylates threonine 181 of the alpha subunit.",
        "SIRT9 deacetylates STK99, the upstream kinase of AMPK.",
    ]
    question = "Which sirtuin deacetylates the kinase that phosphorylates threonine 181 on the alpha subunit of AMPK?"
    assert_answers(question, context, "SIRT9", known_names=["STK99", "SIRT9", "AMPK"])


def test_a_which_opening_a_relative_clause_is_not_the_question_word():
    # after a comma, or before an article, "which" relates a clause; the question asks by the later one
    graph = build_context_graph(["The NORDAGE study of older adults in Norway compared diets."], ["NORDAGE", "Norway"])
    read = read_question(
        "The NORDAGE cohort, which compared the diets of older people, was run in which country?", graph
    )
    assert read.wh_noun == "country"
    read = read_question("The syndrome to which the secretory phenotype contributes was named by which researcher?")
    assert read.wh_noun == "researcher"


def test_a_country_the_sentence_sets_the_anchor_in_answers_where():
    # "run in" is no verb of the lexicon: the setting the sentence gives the anchor is the relation asked
    context = ["The NORDAGE study of older adults in Norway found that diets differed between care homes."]
    names = ["NORDAGE", "Norway", "care homes"]
    question = "In which country was the NORDAGE cohort of older adults in care homes carried out?"
    assert_answers(question, context, "Norway", known_names=names)
    # a country is no city, though both are locations
    assert_refuses(question.replace("country", "city"), context, known_names=names)


def test_a_name_written_before_signalling_is_a_pathway():
    context = ["Roseburia hominis secretes a peptide called gut calming factor (GCF), which inhibits STAT9 signalling."]
    names = ["Roseburia hominis", "STAT9", "gut calming factor"]
    question = "What signalling pathway is suppressed by the peptide that Roseburia hominis secretes?"
    assert_answers(question, context, "STAT9", known_names=names)
    # a receptor stays what the text calls it: "the insulin receptor" names no insulin receptor
    graph = build_context_graph(["Insulin binds the insulin receptor."], ["Insulin"])
    assert not _is_kind(graph, "insulin", "receptor", frozenset({"protein", "gene"}))


def test_a_verb_joined_to_a_name_and_a_lone_letter_are_no_anchors():
    graph = build_context_graph(
        ["Activated S6K9 phosphorylates IRS9.", "The forkhead box O factor DAF-99 needs HSF-9."], ["S6K9", "IRS9"]
    )
    read = _described_in_other_words(
        read_question("Which adaptor does the mTORC9-activated kinase S6K9 phosphorylate?", graph), graph
    )
    assert "activated" not in read.anchors
    read = read_question("Which factor cooperates with the forkhead box O factor DAF-99?", graph)
    assert "o" not in read.anchors


def test_an_aside_saying_what_the_answer_is_not_need_not_be_connected():
    context = [
        "Eubacterium hallii is very sensitive to oxygen, and oxygen kills it within minutes.",
        "Oxygen also limits Roseburia.",
        "Lactic acid bacteria tolerate it.",
    ]
    graph = build_context_graph(context, ["Eubacterium hallii", "oxygen", "Roseburia", "lactic acid"])
    question = (
        "Reduced levels of the oxygen-sensitive commensal proposed as a new probiotic (not a lactic acid bacterium) "
        "are found in patients with which inflammatory bowel disease?"
    )
    read = _described_in_other_words(read_question(question, graph), graph)
    assert "lactic acid" in read.anchors and read.required == ["oxygen"]


def test_each_name_of_a_list_after_a_plural_kind_is_of_that_kind():
    graph = build_context_graph(
        ["The yeast transcription factors ZAP3 and QRT7 cooperate with MXB2."], ["ZAP3", "QRT7"]
    )
    assert _is_kind(graph, "qrt7", "factor", frozenset())
    assert not _is_kind(graph, "mxb2", "factor", frozenset())
    # a singular kind calls only the name right after it
    graph = build_context_graph(["The transcription factor ZAP3 and QRT7 cooperate with MXB2."], ["ZAP3", "QRT7"])
    assert not _is_kind(graph, "qrt7", "factor", frozenset())


def test_the_sibling_the_question_sets_apart_answers_by_its_list():
    # the worm's forkhead bridge, then a list sibling of the factor set apart; "partners" paraphrases
    # "cooperate" (paraphrase_groups.txt), and the list's kind is said of every item
    context = [
        "The long life of tor9 mutants requires the forkhead gene fkh9.",
        "The yeast transcription factors ZAP3 and QRT7 cooperate with FKH9 to extend lifespan.",
    ]
    question = (
        "Besides ZAP3, which yeast transcription factor partners with the forkhead protein that tor9 mutants need?"
    )
    assert_answers(question, context, "QRT7", known_names=["tor9", "fkh9", "ZAP3", "QRT7"])


def test_general_verbs_in_other_words_hold_the_questions_words():
    # "build" is said by "synthesise", "switch on" by "induces" (paraphrase_groups.txt)
    context = [
        "Cells synthesise spermidine from putrescine, and gut bacteria also make polyamines.",
        "Spermidine induces autophagy partly by inhibiting the acetyltransferase KAT8.",
    ]
    question = (
        "Which acetyltransferase is blocked by the polyamine that cells build from putrescine, "
        "which helps switch on autophagy?"
    )
    assert_answers(question, context, "KAT8", known_names=["spermidine", "putrescine", "KAT8", "autophagy"])


def test_a_plural_question_is_answered_by_the_list_the_sentence_names():
    context = [
        "When the pathway is active, the kinases STK91 and STK92 phosphorylate FOXO9 and keep it in the cytoplasm."
    ]
    names = ["STK91", "STK92", "FOXO9"]
    assert_answers("Which kinases phosphorylate FOXO9?", context, "STK91", known_names=names)
    # one kinase asked: nothing picks one of the two
    assert_refuses("Which kinase phosphorylates FOXO9?", context, known_names=names)


def test_an_aside_after_the_question_word_leaves_the_answer_the_subject():
    read = read_question("Which bacterium, together with the acids it makes, protected mice against QX-9 infection?")
    assert read.answer_role == "source"


def test_the_owner_of_a_thing_named_by_its_kind_describes_it():
    graph = build_context_graph(["Another secreted protein, QX7, raised the release of the hormone GLP-1."], ["QX7"])
    read = read_question("Which receptor binds the hormone that Roseburia's secreted protein QX7 raises?", graph)
    assert read.required == ["qx7"]


def test_a_fronted_preposition_belongs_to_the_verb_at_the_end():
    # "From which plant does X come?" writes "come from", held by "derived from" (paraphrase_groups.txt)
    read = read_question("From which plant does the drug zoltamine come?")
    assert any("come" in member for member, _others in read.paraphrases)


def test_a_sentence_going_on_about_one_naming_the_thing_described_names_it_too():
    # "The investigators, led by X" goes on about the sentence naming the trial the question describes
    context = [
        "The Targeting Frailty with Ketones (TFK) trial tests whether ketones delay frailty in older adults. "
        "The investigators, led by Olga Brenner, enrolled 400 people aged 70 to 85."
    ]
    question = "Which investigator heads the trial testing whether ketones delay frailty in older adults?"
    assert_answers(question, context, "Olga Brenner", known_names=["TFK", "Olga Brenner", "frailty", "ketones"])


def test_a_copular_question_asks_through_the_noun_before_its_question_word():
    # "a partner receptor for which factor": "co-receptor for" states it (paraphrase_groups.txt); a
    # sentence only naming the two together does not
    names = ["Zelotho", "fibroblast growth factor 21", "FGF21"]
    question = "In the liver, Zelotho is an indispensable partner receptor for which growth factor?"
    said = ["Zelotho acts in the liver as an obligatory co-receptor for fibroblast growth factor 21 (FGF21)."]
    assert_answers(question, said, "FGF21", known_names=names)
    listed = ["Zelotho and fibroblast growth factor 21 (FGF21) are both found in the liver."]
    assert_refuses(question, listed, known_names=names)


def test_a_thing_with_no_name_written_beside_an_anchor_is_the_thing_described():
    # "the trial in Lyon" is named nowhere: "In this double-blind trial from Lyon" writes it beside the
    # anchor, and the next sentence goes on about it
    context = [
        "In this double-blind trial from Lyon, France, 50 adults with obesity took either palmitoylethanolamide or a "
        "placebo for ten weeks. The investigators reported that palmitoylethanolamide increased the abundance of "
        "Roseburia hominis compared with placebo.",
        "Palmitoylethanolamide is a lipid mediator made in the small intestine. Palmitoylethanolamide activates "
        "the nuclear receptor PPAR-alpha, and this activation promotes fat oxidation.",
    ]
    names = ["palmitoylethanolamide", "Lyon", "Roseburia hominis"]
    question = (
        "Which nuclear receptor is activated by the lipid mediator that increased Roseburia hominis "
        "in the trial in Lyon?"
    )
    assert_answers(question, context, "PPARα", known_names=names)


def test_a_question_ranking_the_answer_needs_a_sentence_that_ranks_it():
    # "the strongest agonist": "PXR senses bile acids" relates the two but ranks nothing
    names = ["PXR", "lithocholic acid", "bile acids", "NR1I2"]
    question = "What is the strongest naturally occurring agonist of the nuclear receptor PXR?"
    related = [
        "The pregnane X receptor (PXR), encoded by NR1I2, is a nuclear receptor that senses bile acids. "
        "Bile acids activate PXR in hepatocytes."
    ]
    assert_refuses(question, related, known_names=names)
    ranked = related + ["Lithocholic acid is the most potent natural PXR agonist among the bile acids."]
    assert_answers(question, ranked, "lithocholic acid", known_names=names)


def test_a_decade_is_when_and_any_year_of_it_writes_it():
    # "in the mid-1950s" is no thing to connect; "in 1956" is a year of it
    context = ["Denham Harman and colleagues proposed in 1956 that free radicals are a cause of aging."]
    names = ["Denham Harman", "free radicals"]
    question = "Whose group proposed in the mid-1950s that free radicals are a cause of aging?"
    assert_answers(question, context, "Denham Harman", known_names=names)
    assert_refuses(question.replace("mid-1950s", "late 1960s"), context, known_names=names)


def test_a_participle_after_an_article_describes_a_noun_and_asks_no_relation():
    # "a reduced protein diet": no "reduces" the sentence must state
    read = read_question("Which worms on a reduced protein diet outlived their siblings?")
    assert "decreases" not in read.relations
    assert "decreases" in read_question("Which diet reduced the lifespan of worms?").relations


def test_a_kind_phrase_no_text_writes_before_a_relative_clause_is_a_thing_on_the_way():
    # "the gut peptide hormone that P7 stimulates" names nothing the text writes: it describes GLP-2,
    # which the answer's sentence goes on from
    context = [
        "Another secreted protein, P7, stimulated the release of glucagon-like peptide 2 (GLP-2) in mice.",
        "TGR9 activation in intestinal L cells stimulates the secretion of glucagon-like peptide 2 (GLP-2).",
    ]
    names = ["P7", "TGR9", "glucagon-like peptide 2", "GLP-2", "L cells"]
    question = (
        "Which receptor, when activated in intestinal L cells, also triggers release of the gut peptide "
        "hormone that the protein P7 stimulates?"
    )
    assert_answers(question, context, "TGR9", known_names=names)


def test_the_compound_a_clause_describes_by_what_it_does_is_not_the_answer():
    # "related to the compound that eliminates X": the compound eliminating X is on the way, the
    # flavonoid related to it is asked; after a copula the clause describes the answer itself
    from kg_pipelines.offline.rationale import _subject_described

    on_the_way = read_question(
        "Which flavonoid, related to the compound that eliminates senescent endothelial cells, extended lifespan?"
    )
    assert _subject_described(on_the_way) == {"clears"}
    assert not _subject_described(read_question("Which flavonoid is the compound that eliminates senescent cells?"))
    assert not _subject_described(read_question("Which flavonoid eliminates the cells that surround old tumours?"))


def test_a_kind_noun_ending_a_phrase_before_a_comma_does_not_call_the_next_name():
    # "Through these receptors, short-chain fatty acids stimulate ...": the acids are no receptor
    graph = build_context_graph(
        ["Through these receptors, short-chain fatty acids stimulate the secretion of GLP-1 from L cells."],
        known_names=["short-chain fatty acids", "GLP-1", "L cells"],
    )
    assert _described_as(graph, "short chain fatty acids", "receptor") is None
    graph = build_context_graph(
        ["Through the receptor FFAR2 short-chain fatty acids stimulate the secretion of GLP-1."],
        known_names=["FFAR2", "short-chain fatty acids", "GLP-1"],
    )
    assert _described_as(graph, "ffar2", "receptor") is not None


def test_a_name_ending_the_phrase_a_sentence_opens_with_is_not_the_clause_subject():
    # "In the fruit fly D. melanogaster, the insulin receptor substrate chico ...": the fly is no
    # substrate, in a gathered sentence or in the fly's node description; an apposition still names
    from kg_pipelines.offline.rationale import _is_kind

    opening = "In the fruit fly Drosophila melanogaster, the insulin receptor substrate chico is needed for long life."
    names = ["Drosophila melanogaster", "insulin receptor", "chico"]
    graph = build_context_graph([opening], known_names=names)
    assert _described_as(graph, "drosophila melanogaster", "substrate") is None
    assert _described_as(graph, "chico", "substrate") is not None
    graph = build_context_graph(
        ["Loss of chico extends lifespan in Drosophila melanogaster."],
        known_names=names,
        descriptions={"Drosophila melanogaster": opening},
    )
    assert not _is_kind(graph, "drosophila melanogaster", "substrate", frozenset())
    graph = build_context_graph(
        ["Rapamycin, a macrolide made by a soil bacterium, inhibits mTORC1."], known_names=["Rapamycin", "mTORC1"]
    )
    assert _described_as(graph, "rapamycin", "macrolide") is not None


def test_a_question_word_ending_the_question_asks_after_a_relative_one():
    # "from which chloroquine was developed" opens a relative clause; "in which tree?" asks, and the
    # clause's fronted preposition is its verb's ("developed from": "derived from")
    context = [
        "Chloroquine is a drug derived from quinine, an alkaloid found in the bark of the tree Cinchona officinalis."
    ]
    names = ["Chloroquine", "quinine", "Cinchona officinalis"]
    question = "The natural alkaloid from which chloroquine was developed occurs in which tree?"
    assert read_question(question).wh_noun == "tree"
    assert_answers(question, context, "Cinchona officinalis", known_names=names)


def test_an_ordinal_opening_is_one_of_the_things_the_text_counted_not_a_place():
    # "In the second pathway, ...": no place the sentence sets itself in; "In ileal cells, ..." is one
    from kg_pipelines.offline.rationale import Chain, _set_otherwise

    question = "In the INK-NTR mouse, which locus gives rise to the marker whose promoter drives a suicide gene?"
    assert "produces" in read_question(question).relations  # "give rise to": produce
    counted = "In the second pathway, the CDKN2A locus produces p16INK4a, which inhibits CDK4."
    placed = "In ileal cells, the CDKN2A locus produces p16INK4a, which inhibits CDK4."
    for text, where in ((counted, ""), (placed, "ileal cells")):
        graph = build_context_graph([text], known_names=["CDKN2A", "p16INK4a", "CDK4"])
        q = read_question(question, graph)
        assert _set_otherwise(q, graph, Chain((0,), "cdkn2a", None)) == where


def test_where_inside_a_thing_asks_a_place_in_it_not_its_kind():
    # "Where inside the cell ...": the answer lies in a cell, it is no cell; a name written before
    # "cells" ("the biology of aging cells") does not answer it
    question = "Where inside the cell is the kinase PINK1 mostly found?"
    q = read_question(question)
    assert q.wh_noun is None and q.asks_setting
    assert read_question("Which cell of the islet secretes insulin?").wh_noun == "cell"
    context = [
        "Human cells carry many kinases, PINK1 among them, which differ in where they sit. "
        "This made PINK1 a candidate in the biology of aging cells."
    ]
    assert_refuses(question, context, known_names=["PINK1", "Aging"])


def test_a_question_word_after_a_name_and_a_comma_opens_a_relative_clause():
    # "Ursolic acid, which ..., inhibits a factor; in flies, what gene ...": the question asks "what gene"
    question = (
        "Ursolic acid, which accumulates in apple peel, blocks a transcription factor; "
        "in flies, what gene encodes that factor?"
    )
    assert read_question(question).wh_noun == "gene"
    assert read_question("In flies, which gene encodes the factor?").wh_noun == "gene"
    assert read_question("From which plant does quinine come?").wh_noun == "plant"


def test_a_bridge_described_in_other_words_leads_to_its_receptor():
    # "the ketone body the fasting heart favours as fuel" is the one "preferred energy source" of it;
    # "calm" is "reduce"
    context = [
        "Beta-hydroxybutyrate, the main ketone body, is the preferred energy source of the heart during fasting. "
        "Beta-hydroxybutyrate activates the receptor HCAR2, which reduces inflammatory signalling in microglia."
    ]
    question = (
        "Through which G protein-coupled receptor does the ketone body that the fasting heart favours as fuel "
        "calm inflammatory signalling in microglia?"
    )
    names = ["Beta-hydroxybutyrate", "HCAR2", "microglia"]
    assert_answers(question, context, "HCAR2", known_names=names)
    from kg_pipelines.offline.rationale import _described_in_other_words, _judged

    graph = build_context_graph(context, known_names=names)
    _chains, best, _why = _judged(_described_in_other_words(read_question(question, graph), graph), graph)
    assert {"favou", "fuel", "calm"}.isdisjoint(best.unheld)  # said as "preferred", "energy source", "reduces"


def test_the_sentence_that_lends_a_chain_its_anchor_lends_its_words():
    # the trial sentence names Ghent and the twelve weeks; the next one, going on about it, names the
    # microbe: both hold the question's words
    context = [
        "In this double-blind trial from Ghent, Belgium, 80 adults with prediabetes took either 10 grams of inulin "
        "per day or a maltodextrin placebo for twelve weeks. The investigators reported that inulin increased "
        "the abundance of Bifidobacterium longum compared with placebo.",
        "Inulin activates the receptor FFAR2 on colon cells, and this activation promotes hormone release.",
    ]
    question = (
        "A twelve-week trial in Ghent found that a certain dietary fibre raised Bifidobacterium longum in adults "
        "with prediabetes; which receptor does that fibre activate?"
    )
    names = ["Ghent", "Belgium", "inulin", "Bifidobacterium longum", "FFAR2", "placebo"]
    assert_answers(question, context, "FFAR2", known_names=names)


def test_the_clause_describing_the_bridge_may_be_said_in_other_words():
    # "the intermediate that NAMPT generates from nicotinamide": "NAMPT converts nicotinamide into
    # NMN" states it though no lexicon verb links the two; "breaks down" is "degrades"
    context = [
        "In the salvage pathway, NAMPT converts nicotinamide into NMN, and NMNAT1 then converts NMN into NAD+.",
        "Outside the cell, the ectoenzyme ENPP1 degrades NMN and ATP, which lowers NAD+ levels in tissues.",
    ]
    question = "Which ectoenzyme breaks down the intermediate that NAMPT generates from nicotinamide?"
    names = ["NAMPT", "nicotinamide", "NMN", "NMNAT1", "NAD+", "ENPP1", "ATP"]
    assert read_question(question).relations == ["degrades"]
    assert_answers(question, context, "ENPP1", known_names=names)


def test_a_supplement_of_a_thing_or_a_treatment_by_it_is_that_thing():
    # "a daily supplement of the polyamine that induces autophagy" is spermidine given so, and
    # "antibiotic treatment" the antibiotic: no sentence has to name a supplement or a treatment
    context = [
        "Spermidine is a natural polyamine, and spermidine induces autophagy in yeast, flies and mice. "
        "A randomized clinical trial tested whether spermidine supplementation improves memory in adults with "
        "prediabetes. In this double-blind trial from Graz, Austria, 100 adults with prediabetes took 1.2 milligrams "
        "of spermidine per day or a placebo for twelve months."
    ]
    question = (
        "In which city was the trial run that gave adults with prediabetes a daily supplement of the polyamine that "
        "induces autophagy?"
    )
    names = ["Spermidine", "autophagy", "Graz", "Austria", "placebo", "prediabetes"]
    assert "supplement" not in read_question(question).bridge_nouns
    assert_answers(question, context, "Graz", known_names=names)
    assert "treatment" not in read_question("Which microbe causes diarrhoea after antibiotic treatment?").bridge_nouns
    assert (
        "treatment" in read_question("Which microbe causes diarrhoea after the treatment that X started?").bridge_nouns
    )


def test_a_rank_the_question_asks_after_a_copula_is_the_answers_own():
    # "is the most potent activator of ...": the sentence must rank the answer, in the answer's own
    # clause ("..., while fatty acids act only weakly" ranks no fatty acid); "the nuclear receptor
    # encoded by PPARG" is PPAR-gamma itself, one node with its gene, so no sentence must say "encodes"
    names = ["PPAR-gamma", "rosiglitazone", "fatty acids"]
    question = "Which compound is the most potent activator of the nuclear receptor encoded by PPARG?"
    opening = "The nuclear receptor PPAR-gamma, encoded by PPARG, senses fatty acids and controls fat cell formation. "
    ranked = [
        opening + "Rosiglitazone is the most potent synthetic PPAR-gamma agonist, while fatty acids act only weakly "
        "on PPAR-gamma."
    ]
    graph = build_context_graph(ranked, known_names=names)
    q = read_question(question, graph)
    assert q.relations == [] and read_question(question).relations == ["encodes"]  # no graph: PPARG is no receptor
    assert_answers(question, ranked, "rosiglitazone", known_names=names)
    last = {c.candidate: c for c in _chains(q, graph) if c.positions == (1,)}
    assert "rank" in _wrong_role(q, graph, last["fatty acids"]) and not _wrong_role(q, graph, last["rosiglitazone"])
    assert_refuses(question, [opening + "Rosiglitazone is a synthetic PPAR-gamma agonist."], known_names=names)


def test_a_kind_said_of_a_name_as_the_text_writes_it_describes_the_bridge():
    # "the cytokines TNF and IL-1beta" calls TNF-alpha (written "TNF") a cytokine: the thing the
    # question describes between lipoteichoic acid and the answer
    names = ["lipoteichoic acid", "Toll-like receptor 2", "macrophages", "TNF-alpha", "IL-1beta", "insulin resistance"]
    question = (
        "A cytokine was itself found to promote insulin resistance in mice. Through which receptor on macrophages "
        "does bacterial lipoteichoic acid induce that cytokine?"
    )
    said = (
        "Lipoteichoic acid activates Toll-like receptor 2 (TLR2) on macrophages and induces the cytokines TNF and "
        "IL-1beta. In that study, TNF itself promoted insulin resistance in mice."
    )
    assert_answers(question, [said], "Toll-like receptor 2", known_names=names)
    assert_refuses(question, [said.replace("the cytokines TNF", "TNF")], known_names=names)


def test_a_thing_asked_together_with_the_bridge_may_be_listed_beside_it():
    context = [
        "The yeast transcription factors MSN2 and MSN4 cooperate with RIM15 to drive the stress response.",
        "Glucose restriction in yeast requires the transcription factors GIS1 and MSN2 for its full effect on "
        "lifespan.",
    ]
    names = ["MSN2", "MSN4", "RIM15", "GIS1", "glucose restriction", "yeast", "lifespan"]
    asked = "One yeast transcription factor cooperates with MSN4 and RIM15 to drive the stress response. "
    together = asked + (
        "Which other transcription factor does yeast need, together with that one, for the full lifespan effect of "
        "glucose restriction?"
    )
    assert_answers(together, context, "GIS1", known_names=names)
    alone = asked + "Which transcription factor does that one activate during glucose restriction?"
    assert_refuses(alone, context, known_names=names)


def test_a_kind_the_text_describes_otherwise_is_no_answer():
    # "the nuclear receptor PPAR-gamma" is a receptor, but not the G protein-coupled kind asked
    context = ["Butyrate activates the nuclear receptor PPAR-gamma in colonocytes."]
    names = ["Butyrate", "colonocytes"]
    assert_answers("Which nuclear receptor does butyrate activate?", context, "PPARγ", known_names=names)
    assert_answers("Which receptor does butyrate activate?", context, "PPARγ", known_names=names)
    assert_answers("Which nuclear hormone receptor does butyrate activate?", context, "PPARγ", known_names=names)
    assert_refuses("Which G protein-coupled receptor does butyrate activate?", context, known_names=names)


def test_a_setting_named_later_in_the_question_rules_out_a_sentence_set_elsewhere():
    # "induce in hepatocytes": a sentence opening "In ileal enterocytes, ..." says it of other cells;
    # one opening on no named thing ("In that study, ...") sets nothing
    names = ["FXR", "FGF19", "CYP7A1", "hepatocytes", "ileal enterocytes", "liver", "bile acids", "cholesterol"]
    question = "Which protein does FXR induce in hepatocytes to repress CYP7A1?"
    liver = "Hepatocytes make bile acids from cholesterol."
    gut = "In ileal enterocytes, FXR induces the hormone FGF19. FGF19 travels to the liver, where it represses CYP7A1."
    found = reason(question, [liver, gut], known_names=names)
    assert not found.supported and "ileal enterocytes" in found.reason, found.answer
    assert_answers(
        question, [liver, gut.replace("In ileal enterocytes,", "In that study,")], "FGF19", known_names=names
    )


def test_a_hop_paired_by_a_paraphrase_of_the_asked_verb_states_it():
    # "the CDK4 inhibitor encoded at the CDKN2A locus": "the CDKN2A locus produces p16INK4a" says it
    context = [
        "In the second pathway, the CDKN2A locus produces p16INK4a, which inhibits CDK4 and CDK6. In the INK-ATTAC "
        "model, a drug-inducible suicide gene is expressed from the p16INK4a promoter."
    ]
    question = (
        "In which model is a suicide gene expressed from the promoter of the CDK4 inhibitor encoded at the CDKN2A "
        "locus?"
    )
    found = reason(question, context)
    assert found.supported and "INK-ATTAC" in found.answer, found.answer


def test_a_name_written_only_inside_a_longer_name_is_no_anchor():
    # "nicotinamide" is a word of "nicotinamide mononucleotide" (the text's NMN), not a third thing
    context = [
        "Nicotinamide mononucleotide (NMN) is made from nicotinamide by NAMPT in mice. "
        "The ectoenzyme CD38 degrades NAD+ and NMN in mouse tissues."
    ]
    question = "Name the cell-surface enzyme that breaks down both NAD+ and nicotinamide mononucleotide."
    names = ["NMN", "nicotinamide", "NAMPT", "CD38", "NAD+"]
    graph = build_context_graph(context, known_names=names)
    assert "nicotinamide" not in read_question(question, graph).anchors
    assert_answers(question, context, "CD38", known_names=names)


def test_a_microbe_with_a_designation_is_a_strain_and_a_lone_word_states_no_phrase():
    # "Lactobacillus plantarum 299v" names a strain; "women" of "in older Danish women" states nothing
    # while "lowered fracture rates" is wholly unsaid
    context = [
        "Probiotics are live microorganisms given to improve health. In a randomized trial in Danish women aged 70 "
        "to 78 years with low bone mineral density, one year of supplementation with Lactobacillus plantarum 299v "
        "reduced the loss of bone mineral density in the hip compared with placebo."
    ]
    names = ["Lactobacillus plantarum", "placebo", "Danish"]
    asked = (
        "Which probiotic strain, taken for a year by Danish women in their seventies with low bone density, slowed "
        "the loss of bone mineral density in the hip?"
    )
    assert_answers(asked, context, "Lactobacillus plantarum", known_names=names)
    unsaid = "Name the Lactobacillus strain that lowered fracture rates in older Danish women with low bone density?"
    assert read_question(unsaid).name_nouns == [frozenset({"women"})]
    assert_refuses(unsaid, context, known_names=names)
    # a verb alone states its phrase: "Who, with colleagues, showed ...", "... awarded ..."
    assert (
        read_question("Which researcher was awarded the Nobel Prize for finding the yeast ATG genes?").name_nouns == []
    )
    assert_refuses(asked, [context[0].replace(" 299v", "")], known_names=names)  # a species: no strain


def test_a_plural_kind_noun_after_a_process_does_not_make_the_process_one():
    # "mitophagy proteins" are proteins of mitophagy: mitophagy is no protein the question could go
    # through, so "mTORC1 suppresses ... mitophagy" does not answer what works with Parkin
    context = [
        "Mice carrying a point mutation in Parkin (W403A) that raises basal mitophagy kept more muscle strength "
        "with age (Cell. 2021). Parkin cooperates with the kinase PINK1 on damaged mitochondria. mTORC1 "
        "suppresses catabolic processes such as mitophagy in muscle. In ageing muscle, several mitophagy "
        "proteins decline."
    ]
    assert_refuses(
        "Which kinase cooperates with the protein whose W403A mutation kept muscle stronger in old mice?", context
    )


def test_which_after_a_comma_and_before_a_name_opens_the_asked_phrase():
    # "in which adults lost weight" relates; ", which Lactobacillus strain" asks
    asked = "In the trial in which adults lost weight, which Lactobacillus strain lowered blood pressure?"
    assert read_question(asked).wh_noun == "strain"
    assert (
        read_question("Lithocholic acid, which rises in fasting mice, activates which receptor?").wh_noun == "receptor"
    )


def test_a_sort_noun_asks_for_the_kind_after_of():
    assert read_question("Which kind of immune cell does butyrate calm in the colon?").wh_noun == "cell"
    assert read_question("What type of receptor does lithocholic acid activate?").wh_noun == "receptor"


def test_a_question_in_other_words_is_held_by_general_paraphrases():
    # carry / transport, single / individual, dependent / mediated, must be present / required, shield / protection
    context = [
        "Receptor-mediated mitophagy transports individual mitochondria into autophagosomes through the receptor "
        "BNIP3L, and BNIP3L levels fall in aged muscle. SIRT3 is required for the protection that exercise "
        "provides against muscle loss in old mice."
    ]
    names = ["BNIP3L", "SIRT3", "mitophagy", "mice"]
    carried = (
        "In the receptor-dependent form of mitophagy, which receptor carries single mitochondria into autophagosomes?"
    )
    assert_answers(carried, context, "BNIP3L", known_names=names)
    assert_answers(
        "Which sirtuin must be present for exercise to shield old mice from muscle loss?",
        context,
        "SIRT3",
        known_names=names,
    )


def test_general_paraphrases_hold_a_question_about_diet_and_prizes():
    # outlived / lived longer, limited / restricted, eat / fed; honoured / received a prize, self-digestion / -phagy
    diet = [
        "In 1961 Morris Ross and colleagues showed that rats kept on a restricted diet lived longer than rats fed "
        "freely."
    ]
    asked = (
        "Which researcher, together with co-workers in the 1960s, first showed that rats given a limited food supply "
        "outlived rats allowed to eat at will?"
    )
    assert_answers(asked, diet, "Morris Ross", known_names=["Morris Ross", "rats"])
    prize = [
        "The genetic basis of mitophagy was worked out in yeast, and Koji Okamoto received the Lasker Prize for "
        "identifying the mitophagy receptor gene ATG32."
    ]
    asked = (
        "Which scientist was honoured with a prize for uncovering the yeast receptor gene of mitochondrial "
        "self-digestion?"
    )
    assert_answers(asked, prize, "Koji Okamoto", known_names=["Koji Okamoto", "ATG32", "mitophagy"])


def test_a_verb_written_before_the_answer_that_the_question_does_not_ask_refuses_it():
    # "Which gene is mutated ...": the rats carry mutations, and growth hormone is what the cells produce
    context = [
        "Lewis dwarf rats carry mutations that block the development of pituitary cells producing growth hormone, "
        "and these rats live longer than their siblings."
    ]
    assert_refuses("Which gene is mutated in Lewis dwarf rats?", context, known_names=["rats", "pituitary cells"])


def test_a_question_that_denies_as_the_sentence_does_is_answered():
    # the question itself says "but not in females": the sentence's "but not females" agrees with it
    context = [
        "Transgenic overexpression of SIRT6 lengthened the lifespan of male mice but not female mice. "
        "SIRT7 supports ribosomal gene silencing."
    ]
    names = ["SIRT6", "SIRT7", "male mice", "female mice"]
    asked = "Overexpressing which sirtuin as a transgene lengthened lifespan in male mice but not in female mice?"
    assert_answers(asked, context, "SIRT6", known_names=names)
    assert_refuses("Overexpressing which sirtuin lengthened lifespan in female mice?", context, known_names=names)


def test_an_anchor_described_by_another_sentence_lends_its_names():
    # "navitoclax (ABT-263), the BCL-2/BCL-xL inhibitor": the sentence before says it inhibits them;
    # an adverse effect is a disease or phenotype
    context = [
        "Navitoclax (ABT-263) inhibits BCL-2 and BCL-xL. Navitoclax removed senescent haematopoietic stem cells in "
        "mice, but it causes thrombocytopenia. Fisetin is a flavonoid."
    ]
    names = ["Navitoclax", "ABT-263", "BCL-2", "BCL-xL", "thrombocytopenia", "Fisetin", "mice"]
    asked = (
        "Which adverse effect limits navitoclax (ABT-263), the BCL-2/BCL-xL inhibitor that removed senescent "
        "blood-forming stem cells in mice?"
    )
    assert_answers(asked, context, "thrombocytopenia", known_names=names)
    # the sentence naming BCL-2 and BCL-xL says another drug inhibits them: the description is not met
    other = [context[0].replace("Navitoclax (ABT-263) inhibits", "Venetoclax (ABT-199) inhibits")]
    assert_refuses(asked.replace(" (ABT-263)", ""), other, known_names=[*names, "Venetoclax", "ABT-199"])


def test_a_name_set_apart_is_not_required_and_the_answering_sentence_may_name_the_described_thing():
    # "Besides X, ...": X is what the answer is not, so no sentence need connect it; "in resected
    # tissue" is written in the sentence that answers, past the bridge
    context = [
        "Pasteurized Akkermansia improved insulin sensitivity in a pilot study. Roseburia intestinalis is another "
        "candidate next-generation probiotic, but its strict intolerance of oxygen makes it hard to formulate.",
        "A low abundance of Roseburia intestinalis in resected tissue predicted postoperative recurrence of "
        "Crohn's disease. Bacteroides fragilis produces polysaccharide A.",
    ]
    names = ["Roseburia intestinalis", "Crohn's disease", "Bacteroides fragilis", "Akkermansia", "oxygen"]
    asked = (
        "Besides pasteurized Akkermansia, a review names an oxygen-intolerant commensal as a candidate "
        "next-generation probiotic; low levels of that commensal in resected tissue predicted postoperative "
        "recurrence of which disease?"
    )
    assert_answers(asked, context, "Crohn's disease", known_names=names)


def test_adverbs_of_degree_are_one_paraphrase_group():
    # "acts chiefly in which organ?": the sentence writes "acts primarily in the kidney"
    context = [
        "The klotho gene was found by chance in 1997, when a transgene insertion disrupted it in mice. "
        "Membrane-bound alpha-Klotho acts primarily in the kidney as a co-receptor for FGF23. "
        "Secreted Klotho circulates in the blood."
    ]
    names = ["klotho", "kidney", "FGF23", "mice", "blood"]
    asked = (
        "The membrane-bound form of the protein whose gene was disrupted by chance in mice in 1997 acts chiefly "
        "in which organ?"
    )
    assert_answers(asked, context, "kidney", known_names=names)


def test_only_names_written_in_a_description_of_another_are_lent():
    # the names a sentence describing an anchor may lend: in parentheses or an appositive after it,
    # not the name the question is about ("Snell dwarf mice" is the subject of its own clause)
    from kg_pipelines.offline.rationale import _in_apposition

    described = "Which adverse effect limits navitoclax (ABT-263), the BCL-2/BCL-xL inhibitor that clears cells?"
    assert [_in_apposition(described, k) for k in ("abt 263", "bcl 2", "bcl xl", "navitoclax")] == [
        True,
        True,
        True,
        False,
    ]
    about = "Which gene is mutated in Snell dwarf mice, blocking the development of growth-hormone-producing cells?"
    assert not _in_apposition(about, "snell dwarf mice")
