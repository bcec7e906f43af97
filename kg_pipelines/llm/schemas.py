"""Structured outputs of every LLM task, validated by pydantic whatever the provider.

The JSON schemas sent to a provider are generated from these models, with the configured entity
types inserted as an enum. Validation needs the entity types too: pass them as validation context
(``Model.model_validate(data, context={"entity_types": (...)})``).
"""

from __future__ import annotations

import functools
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator


def _non_blank(value: str, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} must be a non-empty string")
    return value.strip()


class ChunkSummary(BaseModel):
    model_config = ConfigDict(extra="forbid")
    summary: str

    @field_validator("summary")
    @classmethod
    def _summary(cls, value: str) -> str:
        return _non_blank(value, "summary")


class ExtractedEntity(BaseModel):
    model_config = ConfigDict(extra="forbid")
    entity_name: str
    entity_type: str
    entity_description: str

    @field_validator("entity_name", "entity_description")
    @classmethod
    def _text(cls, value: str, info: ValidationInfo) -> str:
        return _non_blank(value, info.field_name)

    @field_validator("entity_type")
    @classmethod
    def _type(cls, value: str, info: ValidationInfo) -> str:
        value = _non_blank(value, "entity_type").lower()
        allowed = (info.context or {}).get("entity_types")
        if allowed is not None and value not in allowed:
            raise ValueError(f"entity_type {value!r} is not one of the configured types {sorted(allowed)}")
        return value


class ExtractedRelationship(BaseModel):
    model_config = ConfigDict(extra="forbid")
    source_entity: str
    target_entity: str
    relationship_keywords: list[str] = Field(min_length=1)
    relationship_description: str

    @field_validator("source_entity", "target_entity", "relationship_description")
    @classmethod
    def _text(cls, value: str, info: ValidationInfo) -> str:
        return _non_blank(value, info.field_name)

    @field_validator("relationship_keywords")
    @classmethod
    def _keywords(cls, value: list[str]) -> list[str]:
        kept = [k.strip() for k in value if isinstance(k, str) and k.strip()]
        if not kept:
            raise ValueError("relationship_keywords must hold at least one non-empty keyword")
        return kept


class EntitiesRelationships(BaseModel):
    """The seed's schema contract for one chunk."""

    model_config = ConfigDict(extra="forbid")
    entities: list[ExtractedEntity]
    relationships: list[ExtractedRelationship]

    @model_validator(mode="after")
    def _relationships_name_entities(self) -> EntitiesRelationships:
        names = {e.entity_name.casefold() for e in self.entities}
        for rel in self.relationships:
            for end in (rel.source_entity, rel.target_entity):
                if end.casefold() not in names:
                    raise ValueError(f"relationship endpoint {end!r} is not one of the extracted entities")
        return self


class AtomicQuestions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    questions: list[str]

    @field_validator("questions")
    @classmethod
    def _questions(cls, value: list[str], info: ValidationInfo) -> list[str]:
        seen: dict[str, str] = {}
        for q in value:
            q = _non_blank(q, "question")
            seen.setdefault(q.casefold(), q)
        kept = list(seen.values())
        ctx = info.context or {}
        low, high = ctx.get("questions_min", 5), ctx.get("questions_max", 10)
        if not low <= len(kept) <= high:
            raise ValueError(f"expected {low} to {high} distinct questions, got {len(kept)}")
        return kept


class SubQuestions(BaseModel):
    """The decomposer's answer (rationale QA): the sub-questions to look up next; none means the
    gathered context is enough."""

    model_config = ConfigDict(extra="forbid")
    questions: list[str] = Field(max_length=10)

    @field_validator("questions")
    @classmethod
    def _questions(cls, value: list[str]) -> list[str]:
        seen: dict[str, str] = {}
        for q in value:
            q = _non_blank(q, "question")
            seen.setdefault(q.casefold(), q)
        return list(seen.values())


class ReasonedAnswer(BaseModel):
    """The reasoner's answer (rationale QA), from the gathered context only."""

    model_config = ConfigDict(extra="forbid")
    answer: str
    supported: bool = Field(description="false when the context does not answer the question")
    used_passages: list[int] = Field(description="1-based numbers of the passages the answer rests on")

    @field_validator("answer")
    @classmethod
    def _answer(cls, value: str) -> str:
        return _non_blank(value, "answer")


class SameEntityVerdict(BaseModel):
    """Whether two graph nodes name the same thing (the grey zone of duplicate detection)."""

    model_config = ConfigDict(extra="forbid")
    same: bool
    reason: str

    @field_validator("reason")
    @classmethod
    def _reason(cls, value: str) -> str:
        return _non_blank(value, "reason")


@functools.lru_cache(maxsize=64)  # built per request otherwise; callers must not modify it
def json_schema_for(model: type[BaseModel], entity_types: tuple[str, ...] | None = None) -> dict:
    """The strict JSON schema sent to an OpenAI-compatible endpoint (entity types as an enum)."""
    schema = model.model_json_schema()
    if entity_types is not None and "ExtractedEntity" in schema.get("$defs", {}):
        schema["$defs"]["ExtractedEntity"]["properties"]["entity_type"] = {
            "type": "string",
            "enum": list(entity_types),
        }
    _forbid_extras(schema)
    return schema


def _forbid_extras(node: object) -> None:
    if isinstance(node, dict):
        if node.get("type") == "object":
            node["additionalProperties"] = False
            node["required"] = list(node.get("properties", {}))
        for value in node.values():
            _forbid_extras(value)
    elif isinstance(node, list):
        for value in node:
            _forbid_extras(value)


class MergeDecision(BaseModel):
    """The knowledge merger's decision for one proposed page (seed 000, "agent decides")."""

    model_config = ConfigDict(extra="forbid")
    decision: Literal["MERGE", "CREATE_NEW"]
    target_id: str | None = Field(description="The candidate page to merge into (MERGE), else null")
    reason: str

    @field_validator("reason")
    @classmethod
    def _reason(cls, value: str) -> str:
        return _non_blank(value, "reason")

    @model_validator(mode="after")
    def _target(self) -> MergeDecision:
        if self.decision == "MERGE" and not (self.target_id or "").strip():
            raise ValueError("a MERGE decision needs the target_id of one of the candidates")
        return self


class MergedPage(BaseModel):
    """An existing page merged with a proposed one: the new overview and content, and the existing
    links the proposed page clearly supersedes (empty: keep both, the additive default)."""

    model_config = ConfigDict(extra="forbid")
    overview: str
    content: str
    superseded_links: list[str]
    reason: str

    @field_validator("content", "reason")
    @classmethod
    def _text(cls, value: str, info: ValidationInfo) -> str:
        return _non_blank(value, info.field_name)


class AnswerWithSupport(BaseModel):
    """The rationale QA reasoner's structured answer: the text, the ids (``p.s``) of the context
    sentences it rests on, and whether those sentences state it. The client checks the ids against
    the context it sent (``LLMClient.reason_with_support``)."""

    model_config = ConfigDict(extra="forbid")
    answer: str
    supported: bool = Field(description="true only when the cited sentences state the answer")
    sentence_ids: list[str] = Field(description="ids such as '2.3' of the sentences the answer rests on")

    @field_validator("answer")
    @classmethod
    def _answer(cls, value: str) -> str:
        return _non_blank(value, "answer")

    @field_validator("sentence_ids")
    @classmethod
    def _ids(cls, value: list[str]) -> list[str]:
        return list(dict.fromkeys(_non_blank(v, "sentence id") for v in value))

    @model_validator(mode="after")
    def _supported_cites(self) -> AnswerWithSupport:
        if self.supported and not self.sentence_ids:
            raise ValueError("a supported answer must cite the ids of the sentences it rests on")
        return self
