"""The seed's extraction post-processing."""

import pytest

from kg_pipelines.entity_types import resolve_type_conflict
from kg_pipelines.ingestion.extraction import DROP_REASONS, entity_node_id, normalize_name, postprocess, split_tags
from kg_pipelines.llm.client import LLMClient, LLMCounters, LLMError
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
                {
                    "entity_name": "metformin",
                    "entity_type": "compound",
                    "entity_description": "Metformin is a biguanide.",
                },
                {
                    "entity_name": "Metformin.",
                    "entity_type": "compound",
                    "entity_description": "Metformin activates AMPK.",
                },
                {
                    "entity_name": "metformin",
                    "entity_type": "compound",
                    "entity_description": "Metformin is a biguanide.",
                },
                {"entity_name": "AMPK", "entity_type": "protein", "entity_description": "AMPK senses energy."},
            ],
            "relationships": [
                {
                    "source_entity": "metformin",
                    "target_entity": "AMPK",
                    "relationship_keywords": ["activates, energy sensing"],
                    "relationship_description": "Metformin activates AMPK.",
                },
                {
                    "source_entity": "Metformin",
                    "target_entity": "ampk",
                    "relationship_keywords": ["Activates", "liver"],
                    "relationship_description": "In liver, metformin activates AMPK.",
                },
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
    # duplicates are merged, not dropped
    assert out.dropped == {"empty_name": 0, "unknown_endpoint": 0, "self_loop": 0, "negated": 0}


def _entity(name, etype="compound"):
    return {"entity_name": name, "entity_type": etype, "entity_description": f"About {name}."}


def _rel(source, target):
    return {
        "source_entity": source,
        "target_entity": target,
        "relationship_keywords": ["x"],
        "relationship_description": f"{source} and {target}.",
    }


def test_what_postprocessing_leaves_out_is_counted_by_reason():
    result = EntitiesRelationships.model_validate(
        {
            "entities": [
                _entity("Metformin"),
                _entity("AMPK", "protein"),
                _entity("..."),  # normalizes to nothing
                _entity("( )"),
                _entity("Diet-induced obesity", "disease"),
                _entity("diet induced obesity", "disease"),  # the same node as the one before
            ],
            "relationships": [
                _rel("Metformin", "AMPK"),
                _rel("Metformin", "..."),  # the schema accepts it: "..." is an extracted entity's name
                _rel("( )", "AMPK"),
                _rel("Diet-induced obesity", "diet induced obesity"),  # one node: a self-loop
                _rel("AMPK", "ampk"),
            ],
        }
    )
    out = postprocess(result, CHUNK)
    assert [e["name"] for e in out.entities] == ["Metformin", "AMPK", "Diet-Induced Obesity"]
    assert [(r["source_name"], r["target_name"]) for r in out.relationships] == [("Metformin", "AMPK")]
    assert out.dropped == {"empty_name": 2, "unknown_endpoint": 2, "self_loop": 2, "negated": 0}
    assert tuple(out.dropped) == DROP_REASONS


def test_an_empty_answer_drops_nothing_and_still_reports_every_reason():
    out = postprocess(EntitiesRelationships(entities=[], relationships=[]), CHUNK)
    assert (out.entities, out.relationships, out.dropped) == (
        [],
        [],
        {"empty_name": 0, "unknown_endpoint": 0, "self_loop": 0, "negated": 0},
    )


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
        (
            {
                "entities": [{"entity_name": "X", "entity_type": "spaceship", "entity_description": "d"}],
                "relationships": [],
            },
            "spaceship",
        ),
        (
            {
                "entities": [{"entity_name": "X", "entity_type": "gene", "entity_description": "  "}],
                "relationships": [],
            },
            "entity_description",
        ),
        (
            {
                "entities": [],
                "relationships": [
                    {
                        "source_entity": "A",
                        "target_entity": "B",
                        "relationship_keywords": ["x"],
                        "relationship_description": "d",
                    }
                ],
            },
            "not one of the extracted entities",
        ),
    ],
)
def test_schema_violations_are_schema_errors_and_counted(answer, fragment):
    client = LLMClient(_Canned(answer), entity_types=("gene", "compound"))
    with pytest.raises(LLMError) as err:
        client.extract("chunk-1", "text")
    assert err.value.kind == "schema" and fragment in str(err.value)
    assert client.counters.snapshot()["llm_schema_failures"] == 1


def test_counters_count_each_outcome_once_and_average_latency():
    counters = LLMCounters()
    for outcome, latency in [("ok", 0.1), ("schema", 0.2), ("ungrounded", 0.3), ("api", 0.4), ("timeout", 1.0)]:
        counters.record(outcome, latency)
    assert counters.snapshot() == {
        "llm_calls": 5,
        "llm_succeeded": 1,
        "llm_schema_failures": 1,
        "llm_ungrounded": 1,
        "llm_api_errors": 1,
        "llm_timeouts": 1,
        "llm_mean_latency_ms": 400.0,
    }
    assert LLMCounters().snapshot()["llm_mean_latency_ms"] == 0.0  # no call: no division by zero


def test_split_tags():
    assert split_tags(["increases; abundance", " Supplementation ", "increases"]) == [
        "increases",
        "abundance",
        "supplementation",
    ]


def test_a_name_given_two_types_in_one_answer_is_one_entity_of_the_specific_type():
    result = EntitiesRelationships.model_validate(
        {
            "entities": [
                _entity("Palmitoylethanolamide", "concept"),
                _entity("palmitoylethanolamide", "compound"),
                _entity("Mast Cells", "cell_type"),
                _entity("TFEB", "protein"),
                _entity("TFEB", "gene"),
                _entity("tfeb", "gene"),
            ],
            "relationships": [_rel("Palmitoylethanolamide", "Mast Cells"), _rel("TFEB", "Mast Cells")],
        }
    )
    out = postprocess(result, CHUNK)
    assert [(e["name"], e["entity_type"], e["node_id"]) for e in out.entities] == [
        ("Palmitoylethanolamide", "compound", "compound:palmitoylethanolamide"),
        ("Mast Cells", "cell_type", "cell_type:mast cells"),
        ("TFEB", "gene", "gene:tfeb"),  # two gene votes to one protein
    ]
    assert [r["source_node_id"] for r in out.relationships] == ["compound:palmitoylethanolamide", "gene:tfeb"]


@pytest.mark.parametrize(
    "votes, expected",
    [
        ({"concept": 5, "compound": 1}, "compound"),  # any specific type beats the fallback
        ({"gene": 1, "protein": 2}, "protein"),  # the type given most often
        ({"protein": 1, "gene": 1}, "gene"),  # a tie: the earlier type of TYPE_PRECEDENCE
        ({"compound": 1, "geroprotector": 1}, "geroprotector"),  # a longevity refinement before its base type
        ({"concept": 2}, "concept"),
        ({"spaceship": 1, "concept": 3}, "spaceship"),  # a configured type the order does not know
    ],
)
def test_type_conflict_rule(votes, expected):
    assert resolve_type_conflict(votes) == expected


@pytest.mark.parametrize(
    "keywords, dropped",
    [
        (["does not bind"], True),
        (["no effect"], True),
        (["fails to activate"], True),
        (["binds", "negated"], True),
        (["not only increases"], False),
        (["activates"], False),
        (["notch signalling", "knockout"], False),  # a word that starts like a cue is none
    ],
)
def test_a_relationship_whose_keywords_negate_it_is_dropped_and_counted(keywords, dropped):
    result = EntitiesRelationships.model_validate(
        {
            "entities": [_entity("Palmitoylethanolamide"), _entity("CB1", "protein")],
            "relationships": [
                {
                    "source_entity": "Palmitoylethanolamide",
                    "target_entity": "CB1",
                    "relationship_keywords": keywords,
                    "relationship_description": "Palmitoylethanolamide and CB1.",
                }
            ],
        }
    )
    out = postprocess(result, CHUNK)
    assert len(out.relationships) == (0 if dropped else 1)
    assert out.dropped["negated"] == (1 if dropped else 0)
