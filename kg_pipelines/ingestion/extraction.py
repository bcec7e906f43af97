"""Entity and relationship extraction per chunk, and the seed's post-processing.

The LLM (any provider) returns ``EntitiesRelationships`` validated against the schema contract.
Post-processing then, per chunk:
- normalizes names: trims surrounding punctuation and white space, title-cases ordinary words
  (tokens with digits or inner capitals, such as SIRT1, mTORC1 or NAD+, are kept as written);
- deduplicates entities by name, merging the descriptions of near-duplicates; a name given two
  types in one answer is one entity of the winning type (``entity_types.resolve_type_conflict``:
  a specific type beats ``concept``, then the type given most often, then a fixed order);
- splits relationship keywords into individual lower-case tags for downstream search;
- deduplicates relationships by (source, target), uniting keywords and descriptions;
- leaves out a relationship the text negates: a keyword that is a negation ("does not bind",
  "no effect", "negated"; the cues of ``offline/data/negation_cues.txt``), counted as ``negated``.
Entities become graph nodes keyed by normalized (name, type), so the same entity found in two
documents is one node; graph building gives a name found with several types across chunks one
node of the winning type by the same rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kg_pipelines.entity_types import resolve_type_conflict
from kg_pipelines.ingestion.names import EDGE_PUNCT as _EDGE_PUNCT
from kg_pipelines.ingestion.names import entity_node_id, node_key, normalize_name  # noqa: F401 (re-exported)
from kg_pipelines.llm.schemas import EntitiesRelationships
from kg_pipelines.offline.cue_words import NEGATION

_TAG_SPLIT = re.compile(r"[,;/|]+")
_SPACE = re.compile(r"\s+")


def split_tags(keywords: list[str]) -> list[str]:
    tags: list[str] = []
    for keyword in keywords:
        for tag in _TAG_SPLIT.split(keyword):
            tag = _SPACE.sub(" ", tag).strip(_EDGE_PUNCT).lower()
            if tag and tag not in tags:
                tags.append(tag)
    return tags


def _merge_description(current: str, new: str) -> str:
    if new.casefold() in current.casefold():
        return current
    if current.casefold() in new.casefold():
        return new
    return f"{current} {new}"


DROP_REASONS = ("empty_name", "unknown_endpoint", "self_loop", "negated")


def is_negated_keyword(keyword: str) -> bool:
    """A relationship keyword that says the relation does not hold ("does not bind", "no effect",
    "negated"): the negation cues of ``offline/data/negation_cues.txt``, "not only" excepted."""
    keyword = NEGATION["ignore"].sub(" ", keyword.replace("’", "'"))
    return bool(NEGATION["gap"].search(keyword) or NEGATION["clause"].search(keyword)) or "negated" in keyword.lower()


def _no_drops() -> dict[str, int]:
    return {reason: 0 for reason in DROP_REASONS}


@dataclass
class ChunkExtraction:
    entities: list[dict] = field(default_factory=list)
    relationships: list[dict] = field(default_factory=list)
    # What post-processing left out, by reason (every key always present, zeros included):
    # ``empty_name``: entities whose name normalizes to nothing ("...", "()");
    # ``unknown_endpoint``: relationships with an endpoint that is not among the chunk's kept
    #   entities (the schema already requires endpoints to name extracted entities, so only an
    #   endpoint naming an entity dropped for an empty name gets here);
    # ``self_loop``: relationships whose two endpoints are the same entity after normalization
    #   ("AMPK" -> "ampk", or "Diet-induced obesity" -> "diet induced obesity");
    # ``negated``: relationships the text negates (a keyword such as "does not bind"): a negated
    #   statement is no relation X -> Y.
    dropped: dict[str, int] = field(default_factory=_no_drops)


def postprocess(result: EntitiesRelationships, chunk: dict) -> ChunkExtraction:
    """Rows for ``entities`` and ``relationships`` from one chunk's validated LLM answer, and the
    counts of what was left out (``ChunkExtraction.dropped``); duplicates are merged, not dropped."""
    dropped = _no_drops()
    entities: dict[str, dict] = {}  # node_key(name) -> row
    votes: dict[str, dict[str, int]] = {}  # node_key(name) -> type -> how often the answer gives it
    for entity in result.entities:
        name = normalize_name(entity.entity_name)
        if not name:
            dropped["empty_name"] += 1
            continue
        key = node_key(name)
        types = votes.setdefault(key, {})
        types[entity.entity_type] = types.get(entity.entity_type, 0) + 1
        if key in entities:
            row = entities[key]
            row["description"] = _merge_description(row["description"], entity.entity_description)
            continue
        entities[key] = {
            "entity_id": f"{chunk['chunk_id']}/e{len(entities):03d}",
            "chunk_id": chunk["chunk_id"],
            "document_id": chunk["document_id"],
            "collection": chunk["collection"],
            "name": name,
            "entity_type": entity.entity_type,
            "description": entity.entity_description,
        }
    type_of_name: dict[str, str] = {}
    for key, row in entities.items():
        row["entity_type"] = type_of_name[key] = resolve_type_conflict(votes[key])
        row["node_id"] = entity_node_id(row["name"], row["entity_type"])
    name_of = {key: row["name"] for key, row in entities.items()}
    relationships: dict[tuple[str, str], dict] = {}
    for rel in result.relationships:
        source, target = node_key(normalize_name(rel.source_entity)), node_key(normalize_name(rel.target_entity))
        if source not in type_of_name or target not in type_of_name:
            dropped["unknown_endpoint"] += 1
            continue
        if source == target:
            dropped["self_loop"] += 1
            continue
        if any(is_negated_keyword(k) for k in rel.relationship_keywords):
            dropped["negated"] += 1
            continue
        key = (source, target)
        if key in relationships:
            row = relationships[key]
            row["keywords"] = list(dict.fromkeys(row["keywords"] + rel.relationship_keywords))
            row["tags"] = split_tags(row["keywords"])
            row["description"] = _merge_description(row["description"], rel.relationship_description)
            continue
        relationships[key] = {
            "relationship_id": f"{chunk['chunk_id']}/r{len(relationships):03d}",
            "chunk_id": chunk["chunk_id"],
            "document_id": chunk["document_id"],
            "collection": chunk["collection"],
            "source_name": name_of[source],
            "target_name": name_of[target],
            "keywords": list(rel.relationship_keywords),
            "tags": split_tags(rel.relationship_keywords),
            "description": rel.relationship_description,
            "source_node_id": entity_node_id(name_of[source], type_of_name[source]),
            "target_node_id": entity_node_id(name_of[target], type_of_name[target]),
        }
    return ChunkExtraction(list(entities.values()), list(relationships.values()), dropped)


# -- the stage: chunks -> entities, relationships -------------------------------------------------


def extract_chunks(ctx, scope):
    """Sync ``entities`` and ``relationships`` of the scope's chunks with their text and the LLM."""
    from kg_pipelines.ingestion.chunk_stage import run_chunk_stage

    def work(chunk: dict) -> dict:
        found = postprocess(ctx.llm.extract(chunk["chunk_id"], chunk["text"]), chunk)
        return {"entities": found.entities, "relationships": found.relationships, "dropped": found.dropped}

    return run_chunk_stage(ctx, scope, "extract", ctx.llm.fingerprint("extract"), work, ("entities", "relationships"))
