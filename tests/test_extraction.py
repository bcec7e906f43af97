"""The seed's extraction post-processing."""

import pytest

from kg_pipelines.ingestion.extraction import entity_node_id, normalize_name, postprocess, split_tags
from kg_pipelines.llm.client import LLMClient, LLMError
from kg_pipelines.llm.schemas import EntitiesRelationships

CHUNK = {"chunk_id": "col/doc.md#c0000", "document_id": "col/doc.md", "collection": "col"}


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("  diet-induced obesity. ", "Diet-Induced Obesity"),
        ("SIRT1", "SIRT1"),
        ("mTORC1,", "mTORC1"),
        ("NAD+", "NAD+"),
        ('"akkermansia   muciniphila"', "Akkermansia Muciniphila"),
        ("alzheimer's disease", "Alzheimer's Disease"),
        ("IL-6", "IL-6"),
    ],
)
def test_names_are_title_cased_and_trimmed(raw, expected):
    assert normalize_name(raw) == expected


def test_same_entity_written_differently_is_one_node():
    assert entity_node_id("Diet-induced obesity", "disease") == entity_node_id("diet induced  OBESITY", "disease")
    assert entity_node_id("Metformin", "compound") != entity_node_id("Metformin", "intervention")


def test_dedupe_per_chunk_merges_descriptions_and_splits_tags():
    result = EntitiesRelationships.model_validate(
        {
            "entities": [
                {"entity_name": "metformin", "entity_type": "compound", "entity_description": "Metformin is a biguanide."},
                {"entity_name": "Metformin.", "entity_type": "compound", "entity_description": "Metformin activates AMPK."},
                {"entity_name": "metformin", "entity_type": "compound", "entity_description": "Metformin is a biguanide."},
                {"entity_name": "AMPK", "entity_type": "protein", "entity_description": "AMPK senses energy."},
            ],
            "relationships": [
                {"source_entity": "metformin", "target_entity": "AMPK", "relationship_keywords": ["activates, energy sensing"],
                 "relationship_description": "Metformin activates AMPK."},
                {"source_entity": "Metformin", "target_entity": "ampk", "relationship_keywords": ["Activates", "liver"],
                 "relationship_description": "In liver, metformin activates AMPK."},
            ],
        }
    )
    out = postprocess(result, CHUNK)
    assert [e["name"] for e in out.entities] == ["Metformin", "AMPK"]
    assert out.entities[0]["description"] == "Metformin is a biguanide. Metformin activates AMPK."
    assert len(out.relationships) == 1
    rel = out.relationships[0]
    assert rel["tags"] == ["activates", "energy sensing", "liver"]
    assert rel["source_node_id"] == "compound:metformin" and rel["target_node_id"] == "protein:ampk"
    assert "In liver" in rel["description"]


class _Canned:
    name = "canned"

    def __init__(self, answer):
        self.answer = answer

    def generate(self, request):
        return self.answer


@pytest.mark.parametrize(
    "answer, fragment",
    [
        ('{"entities": [', "not valid JSON"),
        ({"entities": [{"entity_name": "X", "entity_type": "spaceship", "entity_description": "d"}], "relationships": []},
         "spaceship"),
        ({"entities": [{"entity_name": "X", "entity_type": "gene", "entity_description": "  "}], "relationships": []},
         "entity_description"),
        ({"entities": [], "relationships": [{"source_entity": "A", "target_entity": "B",
                                             "relationship_keywords": ["x"], "relationship_description": "d"}]},
         "not one of the extracted entities"),
    ],
)
def test_schema_violations_are_schema_errors_and_counted(answer, fragment):
    client = LLMClient(_Canned(answer), entity_types=("gene", "compound"))
    with pytest.raises(LLMError) as err:
        client.extract("chunk-1", "text")
    assert err.value.kind == "schema" and fragment in str(err.value)
    assert client.counters.snapshot()["llm_schema_failures"] == 1


def test_split_tags():
    assert split_tags(["increases; abundance", " Supplementation ", "increases"]) == ["increases", "abundance", "supplementation"]
