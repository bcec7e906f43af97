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

Deterministic, no network, no model loading; see ``kg_pipelines.offline`` for the details.
"""

from __future__ import annotations

from typing import Any

from kg_pipelines.llm.client import LLMRequest
from kg_pipelines.llm.grounding import ChunkText, description_support
from kg_pipelines.offline import extraction_payload, generate_questions, summarize
from kg_pipelines.offline.page_merge import merge_content, merge_overview


class OfflineProvider:
    name = "offline"
    # pure-Python CPU work: threads only add GIL contention (measured: about twice as slow with 4)
    concurrent = False

    def generate(self, request: LLMRequest) -> dict[str, Any]:
        inputs = request.inputs
        if request.task == "summarize":
            return {"summary": summarize(str(inputs.get("text") or ""), str(inputs.get("prior_summary") or ""))}
        if request.task == "extract":
            types = inputs.get("entity_types")
            text = str(inputs.get("text") or "")
            return _grounded_only(extraction_payload(text, tuple(types) if types is not None else None), text)
        if request.task == "questions":
            low, high = int(inputs.get("min", 5)), int(inputs.get("max", 10))
            return {"questions": generate_questions(str(inputs.get("text") or ""), low, high)}
        if request.task == "merge_decision":
            return _merge_decision(inputs)
        if request.task == "merge_content":
            existing, page = inputs["existing"], inputs["page"]
            return {
                "overview": merge_overview(existing.get("overview") or "", page.get("overview") or ""),
                "content": merge_content(existing.get("content") or "", page.get("content") or "") or page["title"],
                "superseded_links": [],  # offline, conflicts are resolved additively: both links kept
                "reason": "sections unioned, repeated sentences dropped",
            }
        raise ValueError(f"offline provider: unknown task {request.task!r}")


def _merge_decision(inputs) -> dict[str, Any]:
    """MERGE into the best candidate when its similarity reaches the threshold, else CREATE_NEW."""
    candidates, threshold = inputs.get("candidates") or [], float(inputs["merge_threshold"])
    if candidates and candidates[0]["score"] >= threshold:
        best = candidates[0]
        return {
            "decision": "MERGE",
            "target_id": best["node_id"],
            "reason": f"similarity {best['score']:.2f} to {best['node_id']} reaches the threshold {threshold:.2f}",
        }
    if not candidates:
        return {"decision": "CREATE_NEW", "target_id": None, "reason": "no candidate of this type in scope"}
    best = candidates[0]
    return {
        "decision": "CREATE_NEW",
        "target_id": None,
        "reason": f"best match {best['node_id']} at {best['score']:.2f} is below the merge threshold {threshold:.2f}",
    }


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
