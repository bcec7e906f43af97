"""The ``openai`` provider: chat completions with a strict JSON schema, and OpenAI embeddings.

Works against api.openai.com or any OpenAI-compatible endpoint (vLLM, Ollama, ...) through
``base_url``. The SDK never retries on its own (``max_retries=0``): retries belong to the per-chunk
job runner, which records every attempt. Failures come out as ``LLMError``:

- ``timeout``: the endpoint did not answer within ``timeout_s``;
- ``api``: the endpoint failed (HTTP 429, 4xx, 5xx, connection refused/reset);
- ``schema``: the endpoint answered but the model did not (no choices, empty content, a refusal,
  a truncated or filtered answer). JSON parsing and pydantic validation of the content are done
  by ``LLMClient``, which reports their failures as ``schema`` too.

Every request carries the chunk id as the conversation id (``user`` and ``X-Conversation-Id``), so
a retried chunk is the same conversation for the endpoint, its logs and its caches.

This module must not import dagster.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

import openai

from kg_pipelines.config import LLMSettings
from kg_pipelines.llm.client import LLMError, LLMRequest

# Sent when a custom endpoint (vLLM, Ollama) needs no key: the SDK insists on a non-empty one.
PLACEHOLDER_API_KEY = "not-needed"
EMBEDDING_BATCH_SIZE = 256
_EXCERPT_CHARS = 300
T = TypeVar("T")


def resolve_api_key(settings: LLMSettings) -> str:
    """The key from ``settings.api_key_env``; a placeholder for a custom endpoint that needs none."""
    key = (os.environ.get(settings.api_key_env) or "").strip()
    if key:
        return key
    if settings.base_url:
        return PLACEHOLDER_API_KEY
    raise ValueError(
        f"the openai provider needs an API key: set the environment variable {settings.api_key_env} "
        f"(llm.api_key_env), or set llm.base_url to an OpenAI-compatible endpoint that needs no key"
    )


def _make_client(api_key: str | None, base_url: str | None, timeout_s: float) -> openai.OpenAI:
    if timeout_s <= 0:
        raise ValueError(f"timeout_s must be positive, got {timeout_s}")
    if not api_key:
        if not base_url:
            raise ValueError("an api_key is needed unless base_url names an endpoint that needs none")
        api_key = PLACEHOLDER_API_KEY
    # max_retries=0: one call is one HTTP request; the per-chunk runner does the retrying.
    return openai.OpenAI(api_key=api_key, base_url=base_url, timeout=timeout_s, max_retries=0)


def _excerpt(value: object) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= _EXCERPT_CHARS else text[: _EXCERPT_CHARS - 3] + "..."


def _body_excerpt(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        message = body.get("message")
        if message:
            extra = ", ".join(f"{k}={body[k]}" for k in ("type", "code") if body.get(k))
            return _excerpt(f"{message} ({extra})" if extra else message)
        return _excerpt(body)
    if body is None or body == "":
        try:
            return _excerpt(exc.response.text) or "(empty body)"
        except Exception:  # the body may be unreadable (closed stream)
            return "(no body)"
    return _excerpt(body)


def _request_url(exc: openai.APIError, fallback: str) -> str:
    try:
        return str(exc.request.url)
    except Exception:
        return fallback


def _call_mapped(call: Callable[[], T], *, what: str, endpoint: str, timeout_s: float) -> T:
    """Run one SDK call, turning its failures into ``LLMError`` kinds."""
    try:
        return call()
    except openai.APITimeoutError as exc:  # before APIConnectionError: it is a subclass of it
        url = _request_url(exc, endpoint)
        raise LLMError("timeout", f"{what}: no answer from {url} within the {timeout_s:g} s timeout") from exc
    except openai.APIStatusError as exc:  # 429 (RateLimitError), other 4xx, 5xx
        url = _request_url(exc, endpoint)
        detail = f"HTTP {exc.status_code} from {url}"
        retry_after = exc.response.headers.get("retry-after") if exc.response is not None else None
        if retry_after:
            detail += f" (retry-after: {retry_after} s)"
        raise LLMError("api", f"{what}: {detail}: {_body_excerpt(exc)}") from exc
    except openai.APIConnectionError as exc:
        url = _request_url(exc, endpoint)
        cause = exc.__cause__ or exc.__context__
        reason = f"{exc.message} ({_excerpt(cause)})" if cause is not None and str(cause) else exc.message
        raise LLMError("api", f"{what}: cannot reach {url}: {reason}") from exc
    except openai.OpenAIError as exc:  # response validation and anything else the SDK raises
        raise LLMError("api", f"{what}: {type(exc).__name__} from {endpoint}: {_excerpt(exc)}") from exc


class OpenAIProvider:
    """``LLMProvider`` over chat completions with ``response_format`` = strict ``json_schema``."""

    name = "openai"
    concurrent = True  # network-bound: a worker pool keeps several requests in flight

    def __init__(self, model: str, api_key: str | None, base_url: str | None = None, timeout_s: float = 60.0):
        if not model or not model.strip():
            raise ValueError("the openai provider needs a model name (llm.model)")
        self.model = model.strip()
        self.base_url = base_url
        self.timeout_s = float(timeout_s)
        self._client = _make_client(api_key, base_url, self.timeout_s)
        self.endpoint = str(self._client.base_url).rstrip("/") + "/chat/completions"

    @classmethod
    def from_settings(cls, settings: LLMSettings) -> OpenAIProvider:
        return cls(
            model=settings.model,
            api_key=resolve_api_key(settings),
            base_url=settings.base_url,
            timeout_s=settings.timeout_s,
        )

    def generate(self, request: LLMRequest) -> str:
        what = request.task
        completion = _call_mapped(
            lambda: self._client.chat.completions.create(
                model=self.model,
                messages=[
                    {"role": "system", "content": request.system},
                    {"role": "user", "content": request.user},
                ],
                response_format={
                    "type": "json_schema",
                    "json_schema": {"name": request.schema_name, "schema": request.json_schema, "strict": True},
                },
                user=request.conversation_id,
                extra_headers={"X-Conversation-Id": request.conversation_id},
            ),
            what=what,
            endpoint=self.endpoint,
            timeout_s=self.timeout_s,
        )
        choices = getattr(completion, "choices", None) or []
        if not choices:
            raise LLMError("schema", f"{what}: the answer from {self.model} has no choices")
        choice = choices[0]
        message = choice.message
        refusal = getattr(message, "refusal", None) if message is not None else None
        if refusal:
            raise LLMError("schema", f"{what}: {self.model} refused to answer: {_excerpt(refusal)}")
        content = message.content if message is not None else None
        finish = getattr(choice, "finish_reason", None)
        if finish == "length":
            raise LLMError("schema", f"{what}: the answer from {self.model} was cut off (finish_reason=length)")
        if finish == "content_filter":
            raise LLMError("schema", f"{what}: the answer from {self.model} was withheld by the content filter")
        if not isinstance(content, str) or not content.strip():
            raise LLMError("schema", f"{what}: the answer from {self.model} has empty content")
        return content


class OpenAIEmbeddingClient:
    """Embeddings for collections configured with ``openai:<model>`` (batches of 256 texts)."""

    def __init__(
        self,
        model: str,
        api_key: str | None,
        base_url: str | None = None,
        timeout_s: float = 60.0,
        batch_size: int = EMBEDDING_BATCH_SIZE,
    ):
        if not model or not model.strip():
            raise ValueError("an openai embedding model name is needed, as in 'openai:text-embedding-3-small'")
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        self.model = model.strip()
        self.timeout_s = float(timeout_s)
        self.batch_size = batch_size
        self._client = _make_client(api_key, base_url, self.timeout_s)
        self.endpoint = str(self._client.base_url).rstrip("/") + "/embeddings"

    @classmethod
    def from_settings(cls, model: str, settings: LLMSettings) -> OpenAIEmbeddingClient:
        """``model`` without the ``openai:`` prefix; key, endpoint and timeout from the LLM settings."""
        if model.startswith("openai:"):
            model = model.split(":", 1)[1]
        return cls(model, resolve_api_key(settings), base_url=settings.base_url, timeout_s=settings.timeout_s)

    def embed(self, texts: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start : start + self.batch_size])
            vectors.extend(self._embed_batch(batch, start))
        return vectors

    def _embed_batch(self, batch: list[str], start: int) -> list[list[float]]:
        what = f"embeddings ({self.model}, texts {start}-{start + len(batch) - 1})"
        response: Any = _call_mapped(
            # encoding_format="float": the most widely supported format among compatible servers
            lambda: self._client.embeddings.create(model=self.model, input=batch, encoding_format="float"),
            what=what,
            endpoint=self.endpoint,
            timeout_s=self.timeout_s,
        )
        data = list(getattr(response, "data", None) or [])
        if len(data) != len(batch):
            raise LLMError("api", f"{what}: {self.endpoint} returned {len(data)} vectors for {len(batch)} texts")
        data.sort(key=lambda item: item.index)
        vectors = []
        for item in data:
            vector = item.embedding
            if not isinstance(vector, list) or not vector:
                raise LLMError("api", f"{what}: {self.endpoint} returned an empty or non-float vector")
            vectors.append([float(x) for x in vector])
        if len({len(v) for v in vectors}) != 1:
            raise LLMError("api", f"{what}: {self.endpoint} returned vectors of different sizes")
        return vectors
