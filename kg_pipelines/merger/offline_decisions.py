"""The offline provider's answers to the merger's two LLM tasks, ``merge_decision`` and
``merge_content``: MERGE into the best candidate when its similarity reaches the threshold, and
pages merged deterministically (``content_merge``: sections unioned, repeated sentences dropped).

They live here, as a provider of their own behind the same ``LLMClient``, rather than in
``llm/offline_provider.py``: that file and ``kg_pipelines/offline/`` make up the version of the
offline ingestion heuristics, which keys every cached chunk result, and a merger change must not
make ingestion redo its chunks.
"""

from __future__ import annotations

from typing import Any

from kg_pipelines.llm.client import LLMClient, LLMRequest
from kg_pipelines.merger.content_merge import merge_content, merge_overview


class OfflineMergeProvider:
    name = "offline"
    model = "offline-merger-1"
    concurrent = False

    def generate(self, request: LLMRequest) -> dict[str, Any]:
        inputs = request.inputs
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
        raise ValueError(f"offline merger provider: unknown task {request.task!r}")


def merger_client(llm: LLMClient) -> LLMClient:
    """The client the merger calls: ``llm`` itself, or for the offline provider the same kind of
    client over ``OfflineMergeProvider``, counting into ``llm``'s counters."""
    if llm.provider.name != "offline" or isinstance(llm.provider, OfflineMergeProvider):
        return llm
    client = LLMClient(OfflineMergeProvider(), llm.entity_types, llm.questions_min, llm.questions_max)
    client.counters = llm.counters
    return client


def _merge_decision(inputs) -> dict[str, Any]:
    candidates, threshold = inputs.get("candidates") or [], float(inputs["merge_threshold"])
    if not candidates:
        return {"decision": "CREATE_NEW", "target_id": None, "reason": "no candidate of this type in scope"}
    best = candidates[0]
    if best["score"] >= threshold:
        return {
            "decision": "MERGE",
            "target_id": best["node_id"],
            "reason": f"similarity {best['score']:.2f} to {best['node_id']} reaches the threshold {threshold:.2f}",
        }
    return {
        "decision": "CREATE_NEW",
        "target_id": None,
        "reason": f"best match {best['node_id']} at {best['score']:.2f} is below the merge threshold {threshold:.2f}",
    }
