"""The one LLM client: every stage's LLM call goes through ``LLMClient``.

It builds the request for a task, hands it to the provider, parses and validates the answer with
pydantic, checks that an extraction is grounded in its chunk (``kg_pipelines.llm.grounding``), and
counts what happened. Errors come out as ``LLMError`` with a kind:

- ``schema``: the model answered, but not in the contract (not JSON, a pydantic validation error, a
  refusal, empty or truncated content);
- ``ungrounded``: an extraction that keeps the contract, but whose names or descriptions the chunk
  does not support (the message names the offending entity or relationship);
- ``api``: the endpoint failed (HTTP 429/4xx/5xx, connection refused or reset);
- ``timeout``: the endpoint did not answer in time.

Retrying is the caller's business (the per-chunk job runner), so that attempts are recorded per
chunk. ``fingerprint(task)`` says what shapes a task's answers, for reusing cached results.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from kg_pipelines.llm import grounding, prompts
from kg_pipelines.llm.schemas import (
    AnswerWithSupport,
    AtomicQuestions,
    ChunkSummary,
    EntitiesRelationships,
    MergeDecision,
    MergedPage,
    ReasonedAnswer,
    SameEntityVerdict,
    SubQuestions,
    json_schema_for,
)

ErrorKind = Literal["schema", "api", "timeout", "ungrounded"]
ERROR_KINDS: tuple[str, ...] = ("schema", "api", "timeout", "ungrounded")
Task = Literal[
    "summarize",
    "extract",
    "questions",
    "merge_decision",
    "merge_content",
    "decompose",
    "reason",
    "reason_support",
    "same_entity",
]
M = TypeVar("M", bound=BaseModel)


class LLMError(Exception):
    """An LLM call that did not produce a valid answer."""

    def __init__(self, kind: ErrorKind, message: str):
        super().__init__(f"{kind} error: {message}")
        self.kind: ErrorKind = kind
        self.message = message


@dataclass(frozen=True)
class LLMRequest:
    task: Task
    conversation_id: str  # stable per chunk, so retries and caches see the same conversation
    system: str
    user: str
    schema_name: str
    json_schema: dict
    inputs: Mapping[str, Any]  # the raw inputs, for providers that do not read prompts


class LLMProvider(Protocol):
    name: str  # "offline", "openai", ...
    model: str  # the model name, or a version of the heuristics; part of the cache fingerprint

    def generate(self, request: LLMRequest) -> str | Mapping[str, Any]:
        """JSON text (or an already-decoded object); raise ``LLMError`` for api/timeout failures."""


@dataclass
class LLMCounters:
    """Thread-safe counters, reported in asset metadata.

    Every call counts once, under exactly one outcome: ``llm_calls`` is the sum of succeeded,
    schema failures, ungrounded answers, api errors and timeouts. An ungrounded answer is counted
    in ``llm_ungrounded`` only, not among the schema failures.
    """

    calls: int = 0
    succeeded: int = 0
    schema_failures: int = 0
    ungrounded: int = 0
    api_errors: int = 0
    timeouts: int = 0
    latency_s: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record(self, outcome: str, latency_s: float) -> None:
        with self._lock:
            self.calls += 1
            self.latency_s += latency_s
            if outcome == "ok":
                self.succeeded += 1
            elif outcome == "schema":
                self.schema_failures += 1
            elif outcome == "ungrounded":
                self.ungrounded += 1
            elif outcome == "timeout":
                self.timeouts += 1
            else:
                self.api_errors += 1

    def snapshot(self) -> dict[str, float]:
        with self._lock:
            mean = self.latency_s / self.calls if self.calls else 0.0
            return {
                "llm_calls": self.calls,
                "llm_succeeded": self.succeeded,
                "llm_schema_failures": self.schema_failures,
                "llm_ungrounded": self.ungrounded,
                "llm_api_errors": self.api_errors,
                "llm_timeouts": self.timeouts,
                "llm_mean_latency_ms": round(mean * 1000, 2),
            }


class LLMClient:
    def __init__(
        self,
        provider: LLMProvider,
        entity_types: tuple[str, ...],
        questions_min: int = 5,
        questions_max: int = 10,
    ):
        if questions_min > questions_max:
            raise ValueError(f"questions_min ({questions_min}) is larger than questions_max ({questions_max})")
        self.provider = provider
        # whether calls gain from running on several threads (network-bound providers do)
        self.concurrent: bool = getattr(provider, "concurrent", True)
        self.entity_types = tuple(entity_types)
        self.questions_min = questions_min
        self.questions_max = questions_max
        self.counters = LLMCounters()
        self._context = {
            "entity_types": frozenset(self.entity_types),
            "questions_min": questions_min,
            "questions_max": questions_max,
        }

    # -- the tasks ---------------------------------------------------------------------------
    def summarize(self, chunk_id: str, text: str, prior_summary: str) -> ChunkSummary:
        request = LLMRequest(
            task="summarize",
            conversation_id=chunk_id,
            system=prompts.SUMMARIZE_SYSTEM,
            user=prompts.summarize_user(text, prior_summary),
            schema_name="chunk_summary",
            json_schema=json_schema_for(ChunkSummary),
            inputs={"text": text, "prior_summary": prior_summary},
        )
        return self._call(request, ChunkSummary)

    def extract(self, chunk_id: str, text: str) -> EntitiesRelationships:
        """Entities and relationships of a chunk, validated and checked for grounding in ``text``."""
        request = LLMRequest(
            task="extract",
            conversation_id=chunk_id,
            system=prompts.EXTRACT_SYSTEM.format(entity_types=", ".join(self.entity_types)),
            user=text,
            schema_name="entities_relationships",
            json_schema=json_schema_for(EntitiesRelationships, self.entity_types),
            inputs={"text": text, "entity_types": self.entity_types},
        )
        return self._call(request, EntitiesRelationships, check=lambda result: self._grounded(result, text))

    def atomic_questions(self, chunk_id: str, text: str) -> AtomicQuestions:
        request = LLMRequest(
            task="questions",
            conversation_id=chunk_id,
            system=prompts.QUESTIONS_SYSTEM.format(low=self.questions_min, high=self.questions_max),
            user=text,
            schema_name="atomic_questions",
            json_schema=json_schema_for(AtomicQuestions),
            inputs={"text": text, "min": self.questions_min, "max": self.questions_max},
        )
        return self._call(request, AtomicQuestions)

    def decide_merge(
        self, conversation_id: str, page: dict, candidates: list[dict], merge_threshold: float
    ) -> MergeDecision:
        """The knowledge merger's MERGE / CREATE_NEW decision for a proposed ``page`` among
        ``candidates`` (dicts: node_id, score, title, overview; best first). The offline provider
        merges into the best candidate when its score reaches ``merge_threshold``."""
        request = LLMRequest(
            task="merge_decision",
            conversation_id=conversation_id,
            system=prompts.MERGE_DECISION_SYSTEM,
            user=prompts.merge_decision_user(page, candidates),
            schema_name="merge_decision",
            json_schema=json_schema_for(MergeDecision),
            inputs={"page": page, "candidates": candidates, "merge_threshold": merge_threshold},
        )
        allowed = {c["node_id"] for c in candidates}

        def check(result: MergeDecision) -> None:
            if result.decision == "MERGE" and result.target_id not in allowed:
                raise LLMError("schema", f"merge_decision: target_id {result.target_id!r} is not a candidate")

        return self._call(request, MergeDecision, check=check)

    def merge_pages(self, conversation_id: str, existing: dict, page: dict, feedback: str | None = None) -> MergedPage:
        """``existing`` (node_id, title, overview, content, links) merged with the proposed ``page``;
        ``feedback``: what the audit said about the previous attempt, if any."""
        request = LLMRequest(
            task="merge_content",
            conversation_id=conversation_id,
            system=prompts.MERGE_CONTENT_SYSTEM,
            user=prompts.merge_content_user(existing, page, feedback),
            schema_name="merged_page",
            json_schema=json_schema_for(MergedPage),
            inputs={"existing": existing, "page": page, "feedback": feedback},
        )
        return self._call(request, MergedPage)

    # -- query-time tasks (rationale QA) -----------------------------------------------------
    def decompose(self, conversation_id: str, question: str, context: list[str], asked: list[str], n: int):
        """The decomposer: up to ``n`` sub-questions to look up next (``SubQuestions``)."""
        request = LLMRequest(
            task="decompose",
            conversation_id=conversation_id,
            system=prompts.DECOMPOSE_SYSTEM.format(n=n),
            user=prompts.decompose_user(question, context, asked),
            schema_name="sub_questions",
            json_schema=json_schema_for(SubQuestions),
            inputs={"question": question, "context": list(context), "asked": list(asked), "n": n},
        )
        result = self._call(request, SubQuestions)
        return SubQuestions(questions=result.questions[:n])

    def reason(self, conversation_id: str, question: str, context: list[str]) -> ReasonedAnswer:
        """The reasoner: the answer from the gathered passages only."""
        request = LLMRequest(
            task="reason",
            conversation_id=conversation_id,
            system=prompts.REASON_SYSTEM,
            user=prompts.reason_user(question, context),
            schema_name="reasoned_answer",
            json_schema=json_schema_for(ReasonedAnswer),
            inputs={"question": question, "context": list(context)},
        )
        return self._call(request, ReasonedAnswer)

    def reason_with_support(
        self, conversation_id: str, question: str, sentences: list[tuple[str, str]]
    ) -> AnswerWithSupport:
        """The reasoner over numbered sentences ``(id, text)``: the answer, the ids it rests on and
        ``supported``. An id that is not among ``sentences`` is a schema error (the answer cites
        text it was not given)."""
        request = LLMRequest(
            task="reason_support",
            conversation_id=conversation_id,
            system=prompts.REASON_SUPPORT_SYSTEM,
            user=prompts.reason_support_user(question, sentences),
            schema_name="answer_with_support",
            json_schema=json_schema_for(AnswerWithSupport),
            inputs={"question": question, "sentences": [list(s) for s in sentences]},
        )
        known = {sid for sid, _text in sentences}

        def check(result: AnswerWithSupport) -> None:
            unknown = [sid for sid in result.sentence_ids if sid not in known]
            if unknown:
                raise LLMError("schema", f"reason_support: sentence ids {unknown} are not in the context")

        return self._call(request, AnswerWithSupport, check=check)

    # -- duplicate nodes (seed 001): the grey zone's same / different verdict -------------------
    def same_entity(self, pair_id: str, node_type: str, first: dict, second: dict) -> SameEntityVerdict:
        """Do two nodes (dicts with name, description, metadata) of ``node_type`` name the same thing?"""
        request = LLMRequest(
            task="same_entity",
            conversation_id=pair_id,
            system=prompts.SAME_ENTITY_SYSTEM,
            user=prompts.same_entity_user(node_type, first, second),
            schema_name="same_entity_verdict",
            json_schema=json_schema_for(SameEntityVerdict),
            inputs={"node_type": node_type, "first": first, "second": second},
        )
        return self._call(request, SameEntityVerdict)

    # -- cache fingerprints ------------------------------------------------------------------
    def fingerprint(self, task: Task) -> str:
        """A short stable hash of everything that shapes the answers of ``task``.

        It covers the provider's name and model (for the offline provider a hash of its heuristics'
        source), the task's prompt text and JSON schema, and the task's settings: the entity types
        and the grounding rule for ``extract``, the question range for ``questions``. A chunk's
        cached result for ``task`` may be reused only while this is unchanged.
        """
        if task == "summarize":
            prompt = [prompts.SUMMARIZE_SYSTEM, prompts.summarize_user("{text}", "{prior_summary}")]
            schema, settings = json_schema_for(ChunkSummary), {}
        elif task == "extract":
            prompt = [prompts.EXTRACT_SYSTEM]
            schema = json_schema_for(EntitiesRelationships, self.entity_types)
            settings = {
                "entity_types": list(self.entity_types),
                "grounding": [grounding.RULE_VERSION, grounding.MIN_SHARE, grounding.STEM_LETTERS],
            }
        elif task == "questions":
            prompt = [prompts.QUESTIONS_SYSTEM]
            schema = json_schema_for(AtomicQuestions)
            settings = {"questions_min": self.questions_min, "questions_max": self.questions_max}
        elif task == "same_entity":
            prompt = [prompts.SAME_ENTITY_SYSTEM]
            schema, settings = json_schema_for(SameEntityVerdict), {}
        else:
            raise ValueError(f"unknown task {task!r}: use summarize, extract, questions or same_entity")
        parts = {
            "provider": self.provider.name,
            "model": provider_model(self.provider),
            "task": task,
            "prompt": prompt,
            "schema": schema,
            "settings": settings,
        }
        blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]

    # -- plumbing ----------------------------------------------------------------------------
    def _grounded(self, result: EntitiesRelationships, text: str) -> None:
        problems = grounding.check_extraction(result, text, aliases=grounding.gazetteer_aliases)
        if problems:
            more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
            raise LLMError("ungrounded", "extract: " + "; ".join(problems[:3]) + more)

    def _call(self, request: LLMRequest, model: type[M], check: Callable[[M], None] | None = None) -> M:
        started = time.perf_counter()
        try:
            raw = self.provider.generate(request)
            data = json.loads(raw) if isinstance(raw, (str, bytes)) else raw
            result = model.model_validate(data, context=self._context)
            if check is not None:
                check(result)  # raises LLMError (ungrounded, say)
        except LLMError as exc:
            self.counters.record(exc.kind, time.perf_counter() - started)
            raise
        except json.JSONDecodeError as exc:
            self.counters.record("schema", time.perf_counter() - started)
            raise LLMError("schema", f"{request.task}: the answer is not valid JSON ({exc})") from exc
        except ValidationError as exc:
            self.counters.record("schema", time.perf_counter() - started)
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or request.schema_name
            raise LLMError("schema", f"{request.task}: {where}: {first['msg']}") from exc
        self.counters.record("ok", time.perf_counter() - started)
        return result


def provider_model(provider: LLMProvider) -> str:
    """The provider's ``model``; for an offline provider without one, the offline heuristics' version."""
    model = getattr(provider, "model", None)
    if isinstance(model, str) and model:
        return model
    if provider.name == "offline":
        from kg_pipelines.llm.versions import offline_version

        return offline_version()
    raise ValueError(f"the LLM provider {provider.name!r} has no model attribute (needed for cache fingerprints)")
