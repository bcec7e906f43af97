"""Rules of the offline recogniser that keep generic or mis-typed words out of the typed entities
(issue 22, part 3). Each test's sentences are written for it; each fails when its rule is removed."""

from __future__ import annotations

from kg_pipelines.entity_types import BASE_ENTITY_TYPES
from kg_pipelines.offline import entities as offline
from kg_pipelines.offline.cue_words import data_lines, data_table, word_set, word_tuple

ALLOWED = frozenset(BASE_ENTITY_TYPES)


def typed(text: str) -> dict[str, str]:
    return {e.name: e.type for e in offline.extract(text, ALLOWED).entities}


def test_word_lists_are_data_files_read_once():
    assert word_set("stopwords.txt") is word_set("stopwords.txt")  # cached
    assert "the" in word_set("stopwords.txt")
    assert word_tuple("strong_compound_suffixes.txt")[:3] == ("amide", "mycin", "micin")
    assert all(not line.startswith("#") for line in data_lines("gazetteer.txt"))
    assert ("ine", "8") in data_table("weak_suffix_min.tsv")


def test_a_sequence_variant_is_a_concept_not_a_gene():
    got = typed("The BRAF V600E mutation activates the kinase and drives melanoma growth in patients.")
    assert got["BRAF"] == "gene"
    assert got["V600E"] == "concept"


def test_residues_and_numbered_acronyms_are_no_gene_symbols():
    got = typed("Mutation of Pro75 and the SNP7 allele reduced AKT1 protein expression in mice.")
    assert not any(name.upper() in ("PRO75", "SNP7") for name in got)


def test_patients_is_a_role_not_an_organism():
    got = typed("Metformin lowered blood glucose in patients with diabetes and reduced tumor growth in patients.")
    assert "Humans" not in got and "Patients" not in got
    assert typed("Gene expression in humans and in mice differed after metformin treatment.")["Humans"] == "organism"


def test_the_disease_of_x_induced_disease_is_what_was_induced():
    got = typed("Rats with isoproterenol-induced myocardial infarction received captopril treatment.")
    assert got["Myocardial Infarction"] == "disease"
    assert got["Isoproterenol"] == "compound"
    assert not any("Induced" in name for name in got)


def test_hyper_verb_forms_are_no_diseases():
    got = typed("The CDKN2A promoter was hypermethylated in tumor cells of patients with hypertension.")
    assert got["Hypertension"] == "disease"
    assert "Hypermethylated" not in got


def test_amino_acids_in_a_substitution_are_no_compounds():
    got = typed("An arginine to glycine substitution at codon 72 of the TP53 gene was found in patients with cancer.")
    assert "Arginine" not in got and "Glycine" not in got
    assert got["TP53"] == "gene"
    given = typed("Patients were treated with arginine, and arginine lowered blood pressure in mice with diabetes.")
    assert given["Arginine"] == "compound"


def test_a_symbol_the_text_uses_as_a_cell_line_is_a_cell_line():
    got = typed("MCF7 and HeLa cells were treated with tamoxifen. ESR1 gene expression fell in MCF7 cells.")
    assert got["MCF7"] == "cell_type"
    assert got["ESR1"] == "gene"


def test_an_abbreviation_defined_as_no_entity_is_no_gene():
    got = typed(
        "Store-operated calcium entry (SOCE) increased in cells expressing the ORAI1 gene. "
        "SOCE inhibition reduced tumor growth in mice."
    )
    assert "SOCE" not in got
    assert got["ORAI1"] == "gene"


def test_a_family_name_written_first_and_used_alone_is_the_person():
    got = typed(
        "# Chiang Kai-shek\n\nChiang Kai-shek was a Chinese politician and general. "
        "In 1928 Chiang led the Republic of China."
    )
    assert got["Chiang"] == "person"
