"""The one name normalizer (``kg_pipelines.ingestion.names``), shared by extraction and the offline lexicon."""

import pytest

from kg_pipelines.ingestion import extraction, names
from kg_pipelines.offline import lexicon


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("TNF-α", "TNF-α"),
        ("tnf-α", "Tnf-α"),
        ("PGC-1α", "PGC-1α"),
        ("IL-1β", "IL-1β"),
        ("β-catenin", "β-Catenin"),
        ("NF-κB", "NF-κB"),
        ("α-ketoglutarate", "α-Ketoglutarate"),
        ("SIRT1", "SIRT1"),
        ("mTORC1", "mTORC1"),
        ("NAD+", "NAD+"),
        ("p16INK4a", "p16INK4a"),
        ("  diet-induced obesity. ", "Diet-Induced Obesity"),
        ("alzheimer's disease", "Alzheimer's Disease"),
        ("ludwig van beethoven", "Ludwig van Beethoven"),
        ("Charles de Gaulle", "Charles de Gaulle"),
        ("University of Vienna", "University of Vienna"),
        ("Food and Drug Administration", "Food and Drug Administration"),
        ("Robert A. Stemmle", "Robert A. Stemmle"),
        ("The Beatles", "The Beatles"),
        ("of mice and men", "Of Mice and Men"),
    ],
)
def test_symbols_are_kept_as_written_and_words_title_cased(raw, expected):
    assert names.normalize_name(raw) == expected


def test_one_normalizer_serves_extraction_and_the_lexicon():
    assert extraction.normalize_name is names.normalize_name
    assert lexicon.display_name is names.normalize_name
    assert extraction.node_key is names.node_key and extraction.entity_node_id is names.entity_node_id


def test_normalizing_is_idempotent():
    for raw in ("TNF-α", "ludwig van beethoven", "diet-induced obesity", "IL-6", "Robert A. Stemmle"):
        once = names.normalize_name(raw)
        assert names.normalize_name(once) == once


def test_node_key_ignores_case_and_separators_but_not_greek_letters():
    assert names.node_key("Diet-induced obesity") == names.node_key("diet induced  OBESITY")
    assert names.node_key("TNF-α") == names.node_key("tnf α")
    assert names.node_key("TNF-α") != names.node_key("TNF-β")
    assert names.entity_node_id("Ludwig van Beethoven", "person") == names.entity_node_id(
        "Ludwig Van Beethoven", "person"
    )


def test_a_worm_gene_keeps_its_lower_case():
    assert names.normalize_name("daf-15") == "daf-15" and names.normalize_name("bec-1 gene") == "bec-1 Gene"
    assert names.normalize_name("covid-19 pandemic") == "Covid-19 Pandemic"  # five letters: an ordinary word
