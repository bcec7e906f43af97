"""The ``offline`` provider: the honest no-LLM mode of the pipeline.

It reads each request's structured ``inputs`` (not the prompts) and answers with plain dicts that
``LLMClient`` validates against the same schemas as any LLM's answer:

- ``summarize`` (text, prior_summary): an extractive summary, the 2-3 most central sentences that
  are new relative to the previous block's summary, at most 400 characters;
- ``extract`` (text, entity_types): entities from a curated longevity/biomedical gazetteer plus
  conservative patterns (gene symbols, binomials, drug/disease suffixes, capitalised names),
  typed within the configured entity types, and co-occurrence relationships described by their
  sentence and tagged with the relation cues found in it;
- ``questions`` (text, min, max): atomic questions built from definitions, relationships and
  entities, filled up from key phrases so that their number is always within [min, max].

Deterministic, no network, no model loading; see ``kg_pipelines.offline`` for the details.
"""

from __future__ import annotations

from typing import Any

from kg_pipelines.llm.client import LLMRequest
from kg_pipelines.offline import extraction_payload, generate_questions, summarize


class OfflineProvider:
    name = "offline"

    def generate(self, request: LLMRequest) -> dict[str, Any]:
        inputs = request.inputs
        if request.task == "summarize":
            return {"summary": summarize(str(inputs.get("text") or ""), str(inputs.get("prior_summary") or ""))}
        if request.task == "extract":
            types = inputs.get("entity_types")
            return extraction_payload(str(inputs.get("text") or ""), tuple(types) if types is not None else None)
        if request.task == "questions":
            low, high = int(inputs.get("min", 5)), int(inputs.get("max", 10))
            return {"questions": generate_questions(str(inputs.get("text") or ""), low, high)}
        raise ValueError(f"offline provider: unknown task {request.task!r}")
