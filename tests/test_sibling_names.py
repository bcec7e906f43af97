"""Product siblings are never merged (issue 21): an added edition word (Pro, Max, Mini, Plus, Lite,
Ultra, XL), an added sign (S21+), a colour and a pack count make two products; a product written
differently (tokens moved, units spelled another way, a thousands group misread) is not a sibling.
Families written here (a made-up brand, and real-looking catalogue names), then the real embedder
on product siblings sharing their catalogue sentence."""

import pytest

from kg_pipelines.graph.duplicate_detection import KEEP_APART, MERGE, detect_duplicates
from kg_pipelines.graph.merge_exclusions import MergeExclusions
from kg_pipelines.graph.sibling_names import name_key, sibling_difference, tokens
from kg_pipelines.stores.node_vectors import sync_node_vectors
from tests.test_dedup import add_node, conn, store  # noqa: F401
from tests.test_dedup_siblings import real_embedder  # noqa: F401

PRODUCT_SIBLINGS = [
    # an edition word added (the brand is made up: no list holds it)
    ("Orbix Nova 7", "Orbix Nova 7 Ultra"),
    ("Orbix Nova 7", "Orbix Nova 7 Pro Max"),
    ("Orbix Nova 7", "Orbix Nova 7 mini"),
    ("Orbix Nova 7 Lite", "Orbix Nova 7"),
    ("Keurig K-Mini", "Keurig K-Mini Plus"),
    ("Lumo 45 Black Ink Cartridge", "Lumo 45XL Black Ink Cartridge"),
    ("Lumo PGI-280 XL Black", "Lumo PGI-280 XXL Black"),
    # a sign added: the plus model
    ("Orbix Nova 7", "Orbix Nova 7+"),
    ("iRobot Roomba i7", "iRobot Roomba i7+"),
    ("Na+/K+ ATPase", "Na/K ATPase"),
    # colours, in place of another or added
    ("Orbix Nova 7 128GB Midnight", "Orbix Nova 7 128GB Starlight"),
    ("Lumo 910 Cyan Ink", "Lumo 910 Yellow Ink"),
    ("Orbix Nova 7 Graphite", "Orbix Nova 7"),
    # pack counts and bundles
    ("Lumo 45 Black Ink Cartridge", "Lumo 45 Black Ink Cartridge, 2-Pack"),
    ("Lumo 212XL Black Ink", "Lumo 212XL Black Ink Twin Pack"),
    ("Orbix Z6 camera", "Orbix Z6 camera kit"),
    # the same rule reads a disease and its subtype
    ("leukemia", "chronic leukemia"),
    # a platform in place of another
    ("Lumo Studio CS3 for Mac", "Lumo Studio CS3 for Windows"),
    # swapped tokens are not moved ones
    ("H1N2", "H2N1"),
    ("CYP2C9", "CYP9C2"),
]

WRITTEN_DIFFERENTLY = [
    # tokens moved, not added
    ("2022 Orbix Rover Hybrid", "Orbix Rover Hybrid 2022"),
    ("BMW 3 Series 330i", "BMW 330i 3-Series"),
    ("Lumo 202 Black Ink Cartridge (T202120)", "Lumo T202120 202 Black Ink Cartridge"),
    # a model number next to a size is no thousands group; the inch sign is an inch
    ("Orbix Book Air 13-inch M2 256GB", 'Orbix Book Air 13" (M2, 256 GB)'),
    ("Orbix Nova 13 128 GB", "Orbix Nova 13 128GB"),
    ("Orbix Pot Duo 7-in-1 6 Quart", "Orbix Pot Duo 6 Qt 7-in-1"),
    ("clip art 10 000", "clip art 10000"),
    # a word that is not an edition is left to the score
    ("Vitamix 5200 Blender", "Vitamix 5200 Professional-Grade Blender"),
    # a platform one listing adds is what the other left unsaid (one in place of another is a sibling)
    ("Lumo Studio CS3 [Mac]", "Lumo Studio CS3"),
    ("Lumo OneNote 2007", "Lumo OneNote 2007 (PC)"),
    # a plus standing alone between words says "and"; a number grouped another way is one number
    ("Panda Antivirus + Firewall 2008", "Panda Antivirus & Firewall 2008"),
    ("Lumo Watch 8 GPS", "Lumo Watch 8 GPS + Cellular"),
    ("clickart 950 000 premier image pack", "clickart 950000 premier image pack"),
    ("Ca2+", "Ca2 +"),
]


@pytest.mark.parametrize(("a", "b"), PRODUCT_SIBLINGS)
def test_an_added_edition_sign_colour_or_pack_makes_a_sibling(a, b):
    assert sibling_difference(a, b) is not None
    assert sibling_difference(b, a) is not None


@pytest.mark.parametrize(("a", "b"), WRITTEN_DIFFERENTLY)
def test_a_product_written_differently_is_no_sibling(a, b):
    assert sibling_difference(a, b) is None
    assert sibling_difference(b, a) is None


def test_units_after_a_number_are_written_one_way():
    assert name_key('Orbix 13" laptop') == name_key("Orbix 13-inch laptop") == name_key("Orbix 13 in laptop")
    assert name_key("Orbix 128 GB") == name_key("Orbix 128 gigabytes")
    assert ("word", "in") in tokens("7-in-1")  # before a number, "in" is no inch
    assert tokens("Orbix M2 256GB")[2:4] == (("number", 2), ("number", 256))  # no thousands group 2256
    assert tokens("iPhone 13 128 GB")[1:3] == (("number", 13), ("number", 128))
    assert ("number", 10000) in tokens("clip art 10 000")


CATALOGUE = {
    "galaxy": "The Galaxy S21 series brings a 120Hz display and pro-grade cameras.",
    "hp": "Original HP ink for ENVY and OfficeJet printers.",
    "canon": "Canon black ink for PIXMA printers.",
    "roomba": "Wi-Fi robot vacuum with smart mapping.",
    "keurig": "Single-serve coffee maker that fits in small spaces.",
}


def test_real_embedder_product_siblings_stay_apart_a_listing_written_differently_merges(conn, store, real_embedder):
    """Siblings described by their catalogue page's one sentence (no node's own description, so
    each is embedded from its name): with the real embedder HP 62 / HP 62XL and PG-245 / PG-245XL
    score 0.95 or more. Two listings of one cartridge, written with and without a space, merge."""
    siblings = {
        "galaxy": ["Galaxy S21", "Galaxy S21 Ultra", "Galaxy S21+"],
        "hp": ["HP 62 Black Ink Cartridge", "HP 62XL Black Ink Cartridge", "HP 62 Black Ink Cartridge, 2-Pack"],
        "canon": ["Canon PG-245 Black Ink", "Canon PG-245XL Black Ink"],
        "roomba": ["iRobot Roomba i7", "iRobot Roomba i7+"],
        "keurig": ["Keurig K-Mini", "Keurig K-Mini Plus"],
    }
    for page, names in siblings.items():
        for name in names:
            add_node(conn, name, name, node_type="product")
            conn.execute("UPDATE kg_nodes SET description = ? WHERE node_id = ?", [CATALOGUE[page], name])
    add_node(conn, "dup", "HP 62 XL Black Ink Cartridge", node_type="product")
    sync_node_vectors(conn, store, real_embedder)
    report = detect_duplicates(conn, store, MergeExclusions())  # the default threshold, 0.95
    merged = {frozenset((p.node_a.node_id, p.node_b.node_id)) for p in report.pairs if p.decision == MERGE}
    assert merged == {frozenset(("HP 62XL Black Ink Cartridge", "dup"))}
    by_pair = {frozenset((p.node_a.node_id, p.node_b.node_id)): p for p in report.pairs}
    for pair in (
        ("HP 62 Black Ink Cartridge", "HP 62XL Black Ink Cartridge"),
        ("Canon PG-245 Black Ink", "Canon PG-245XL Black Ink"),
        ("iRobot Roomba i7", "iRobot Roomba i7+"),
    ):
        found = by_pair[frozenset(pair)]  # the embedding puts them close: the rule keeps them apart
        assert (found.decision, found.stage) == (KEEP_APART, "sibling_names"), pair
