"""The one LLM client: every stage's LLM call goes through ``LLMClient``.

It builds the request for a task, hands it to the provider, parses and validates the answer with
pydantic, and counts what happened. Errors come out as ``LLMError`` with a kind that tells a
schema failure (the model answered, but not in the contract) from an API error (the endpoint
failed: HTTP 429/5xx, connection) and from a timeout. Retrying is the caller's business (the
per-chunk job runner), so that attempts are recorded per chunk.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Literal, Mapping, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from kg_pipelines.llm import prompts
from kg_pipelines.llm.schemas import AtomicQuestions, ChunkSummary, EntitiesRelationships, json_schema_for

ErrorKind = Literal["schema", "api", "timeout"]
Task = Literal["summarize", "extract", "questions"]
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
    name: str

    def generate(self, request: LLMRequest) -> str | Mapping[str, Any]:
        """JSON text (or an already-decoded object); raise ``LLMError`` for api/timeout failures."""


@dataclass
class LLMCounters:
    """Thread-safe counters, reported in asset metadata."""

    calls: int = 0
    succeeded: int = 0
    schema_failures: int = 0
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
        request = LLMRequest(
            task="extract",
            conversation_id=chunk_id,
            system=prompts.EXTRACT_SYSTEM.format(entity_types=", ".join(self.entity_types)),
            user=text,
            schema_name="entities_relationships",
            json_schema=json_schema_for(EntitiesRelationships, self.entity_types),
            inputs={"text": text, "entity_types": self.entity_types},
        )
        return self._call(request, EntitiesRelationships)

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

    # -- plumbing ----------------------------------------------------------------------------
    def _call(self, request: LLMRequest, model: type[M]) -> M:
        started = time.perf_counter()
        try:
            raw = self.provider.generate(request)
            data = json.loads(raw) if isinstance(raw, (str, bytes)) else raw
            result = model.model_validate(data, context=self._context)
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
