"""The ``offline`` provider: the honest no-LLM mode of the pipeline.

It reads each request's structured ``inputs`` (not the prompts) and answers with plain dicts that
``LLMClient`` validates against the same schemas as any LLM's answer:

- ``summarize`` (text, prior_summary): an extractive summary, the 2-3 most central sentences that
  are new relative to the previous block's summary, at most 400 characters;
- ``extract`` (text, entity_types): entities from a curated longevity/biomedical gazetteer, general
  vocabulary (places, given names, disease words, elements, organisms) and rules that generalize
  (gene symbols and variants, binomials, drug-name stems, abbreviation definitions, capitalised
  names typed by what the text says they are, the document's title), typed within the configured
  entity types; relationships between entities of one sentence, described by that sentence and
  tagged with the relation cues between the two mentions (``co-occurrence`` when there is none; a
  passive reverses the direction; list items are not related to each other);
- ``questions`` (text, min, max): atomic questions built from definitions, relationships and
  entities, spread over the chunk's different entities, filled up from key phrases so that their
  number is always within [min, max].

Quality is measured, not tuned: ``benchmarks/extraction_eval.py`` (README, "Extraction quality").

The three tasks of a chunk share one analysis of its text, kept from the summary (the first task
of a run) to the questions (the last): ``kg_pipelines.offline.analysis_cache``.

Deterministic, no network, no model loading; see ``kg_pipelines.offline`` for the details.
"""

from __future__ import annotations

from typing import Any

from kg_pipelines.llm.client import LLMRequest
from kg_pipelines.llm.grounding import ChunkText, description_support
from kg_pipelines.offline import extraction_payload, generate_questions, summarize
from kg_pipelines.offline.entities import ANALYSES


class OfflineProvider:
    name = "offline"
    # pure-Python CPU work: threads only add GIL contention (measured: about twice as slow with 4)
    concurrent = False

    def generate(self, request: LLMRequest) -> dict[str, Any]:
        inputs = request.inputs
        if request.task == "summarize":  # the first of a chunk's tasks: its analysis is kept for the others
            text = str(inputs.get("text") or "")
            ANALYSES.retain(text)
            return {"summary": summarize(text, str(inputs.get("prior_summary") or ""))}
        if request.task == "extract":
            types = inputs.get("entity_types")
            text = str(inputs.get("text") or "")
            return _grounded_only(extraction_payload(text, tuple(types) if types is not None else None), text)
        if request.task == "questions":
            low, high = int(inputs.get("min", 5)), int(inputs.get("max", 10))
            text = str(inputs.get("text") or "")
            try:
                return {"questions": generate_questions(text, low, high)}
            finally:
                ANALYSES.release(text)  # the last of a chunk's tasks
        raise ValueError(f"offline provider: unknown task {request.task!r}")


def _grounded_only(payload: dict, text: str) -> dict:
    """Leave out what the grounding check would reject: a heuristic can describe an entity by a
    sentence without content words (a title of stop words, "Beneath... Between... Beyond"), and a
    deterministic provider that answers outside the contract would only fail the same way again."""
    chunk = ChunkText.of(text)
    entities = [e for e in payload["entities"] if description_support(e["entity_description"], chunk).grounded()]
    kept = {e["entity_name"] for e in entities}
    relationships = [
        r
        for r in payload["relationships"]
        if r["source_entity"] in kept
        and r["target_entity"] in kept
        and description_support(r["relationship_description"], chunk).grounded()
    ]
    return {"entities": entities, "relationships": relationships}
