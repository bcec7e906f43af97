"""The openai provider through LLMClient, against a scripted fake OpenAI server over loopback HTTP.

The real ``openai`` client sends every request; the fake answers as scripted. Each case checks the
``LLMError`` kind, that the message says what went wrong, the counters, and what went over the wire.
"""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from kg_pipelines.config import LLMSettings
from kg_pipelines.llm.client import LLMClient, LLMError
from kg_pipelines.llm.openai_provider import OpenAIEmbeddingClient, OpenAIProvider
from tests.fake_openai import (  # noqa: F401  (fake_openai is the fixture)
    AUTO,
    FakeOpenAI,
    closed_port_url,
    delay,
    empty_content,
    fake_openai,
    http_error,
    json_content,
    no_choices,
    refusal,
    text_content,
    vector_for,
)

ENTITY_TYPES = ("gene", "compound", "disease")
CHUNK_ID = "doc-1:chunk-0003"
TEXT = "Oleoylethanolamide increased the abundance of Akkermansia muciniphila in people with obesity."

VALID_EXTRACTION = {
    "entities": [
        {
            "entity_name": "Oleoylethanolamide",
            "entity_type": "compound",
            "entity_description": "Oleoylethanolamide increased the abundance of Akkermansia muciniphila.",
        },
        {"entity_name": "Obesity", "entity_type": "disease", "entity_description": "People with obesity."},
    ],
    "relationships": [
        {
            "source_entity": "Oleoylethanolamide",
            "target_entity": "Obesity",
            "relationship_keywords": ["studied in"],
            "relationship_description": "Oleoylethanolamide was given to people with obesity.",
        }
    ],
}


def make_client(fake: FakeOpenAI, timeout_s: float = 5.0, base_url: str | None = None) -> LLMClient:
    provider = OpenAIProvider(model="gpt-5-mini", api_key="test", base_url=base_url or fake.base_url, timeout_s=timeout_s)
    return LLMClient(provider, entity_types=ENTITY_TYPES)


def counts(client: LLMClient) -> dict:
    snap = client.counters.snapshot()
    snap.pop("llm_mean_latency_ms")
    return snap


def expected(calls=1, ok=0, schema=0, api=0, timeouts=0) -> dict:
    return {
        "llm_calls": calls,
        "llm_succeeded": ok,
        "llm_schema_failures": schema,
        "llm_api_errors": api,
        "llm_timeouts": timeouts,
    }


def extract_error(client: LLMClient) -> LLMError:
    with pytest.raises(LLMError) as info:
        client.extract(CHUNK_ID, TEXT)
    return info.value


# -- the valid path -----------------------------------------------------------------------------
def test_valid_extraction_sends_the_contract_in_one_request(fake_openai):
    client = make_client(fake_openai)
    fake_openai.push(json_content(VALID_EXTRACTION))

    result = client.extract(CHUNK_ID, TEXT)

    assert [e.entity_name for e in result.entities] == ["Oleoylethanolamide", "Obesity"]
    assert result.relationships[0].relationship_keywords == ["studied in"]
    assert counts(client) == expected(ok=1)
    assert client.counters.snapshot()["llm_mean_latency_ms"] > 0

    [request] = fake_openai.requests  # one HTTP request: the SDK did not retry or probe
    assert request.path == "/v1/chat/completions"
    body = request.body
    assert body["model"] == "gpt-5-mini"
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert body["messages"][1]["content"] == TEXT
    assert "gene, compound, disease" in body["messages"][0]["content"]
    rf = body["response_format"]
    assert rf["type"] == "json_schema"
    assert rf["json_schema"]["name"] == "entities_relationships"
    assert rf["json_schema"]["strict"] is True
    entity_type = rf["json_schema"]["schema"]["$defs"]["ExtractedEntity"]["properties"]["entity_type"]
    assert entity_type["enum"] == list(ENTITY_TYPES)
    assert body["user"] == CHUNK_ID
    assert request.headers["x-conversation-id"] == CHUNK_ID
    assert request.headers["authorization"] == "Bearer test"
    assert request.headers.get("x-stainless-retry-count", "0") == "0"


def test_auto_answers_every_task_with_valid_objects(fake_openai):
    """The fake's default answer passes validation for all three tasks (used by pipeline tests)."""
    client = make_client(fake_openai)

    summary = client.summarize("c1", TEXT, prior_summary="Earlier block.")
    extraction = client.extract("c1", TEXT)
    questions = client.atomic_questions("c1", TEXT)

    assert "Oleoylethanolamide" in summary.summary
    assert [(e.entity_name, e.entity_type) for e in extraction.entities] == [("Oleoylethanolamide Increased The", "gene")]
    assert extraction.relationships == []
    assert len(questions.questions) == 5
    assert counts(client) == expected(calls=3, ok=3)
    assert [r.body["response_format"]["json_schema"]["name"] for r in fake_openai.requests] == [
        "chunk_summary",
        "entities_relationships",
        "atomic_questions",
    ]


# -- schema failures: the endpoint answered, the model did not keep the contract ------------------
def test_invalid_json_is_a_schema_failure(fake_openai):
    client = make_client(fake_openai)
    fake_openai.push(text_content('{"entities": [ oops'))

    err = extract_error(client)

    assert err.kind == "schema"
    assert "not valid JSON" in err.message
    assert counts(client) == expected(schema=1)


@pytest.mark.parametrize(
    "answer, words",
    [
        pytest.param(
            {"entities": [{"entity_name": "Akt", "entity_type": "spaceship", "entity_description": "A kinase."}],
             "relationships": []},
            ["entity_type", "spaceship"],
            id="unknown-entity-type",
        ),
        pytest.param(
            {"entities": [{"entity_name": "Akt", "entity_type": "gene", "entity_description": "   "}],
             "relationships": []},
            ["entity_description", "non-empty"],
            id="empty-description",
        ),
        pytest.param(
            {
                "entities": [{"entity_name": "Akt", "entity_type": "gene", "entity_description": "A kinase."}],
                "relationships": [
                    {"source_entity": "Akt", "target_entity": "Mtor", "relationship_keywords": ["activates"],
                     "relationship_description": "Akt activates mTOR."}
                ],
            },
            ["'Mtor'", "not one of the extracted entities"],
            id="relationship-to-unknown-entity",
        ),
    ],
)
def test_extraction_schema_violations(fake_openai, answer, words):
    client = make_client(fake_openai)
    fake_openai.push(json_content(answer))

    err = extract_error(client)

    assert err.kind == "schema"
    for word in words:
        assert word in err.message
    assert counts(client) == expected(schema=1)
    assert len(fake_openai.requests) == 1


def test_too_few_questions_is_a_schema_failure(fake_openai):
    client = make_client(fake_openai)
    fake_openai.push(json_content({"questions": ["What is Akt?", "What does Akt activate?"]}))

    with pytest.raises(LLMError) as info:
        client.atomic_questions(CHUNK_ID, TEXT)

    assert info.value.kind == "schema"
    assert "questions" in info.value.message
    assert "got 2" in info.value.message
    assert counts(client) == expected(schema=1)


def test_refusal_is_a_schema_failure(fake_openai):
    client = make_client(fake_openai)
    fake_openai.push(refusal("I cannot help with that request."))

    err = extract_error(client)

    assert err.kind == "schema"
    assert "refused" in err.message
    assert "I cannot help with that request." in err.message
    assert counts(client) == expected(schema=1)


@pytest.mark.parametrize(
    "behaviour, words",
    [(empty_content(), "empty content"), (no_choices(), "no choices")],
    ids=["empty-content", "no-choices"],
)
def test_answer_without_content_is_a_schema_failure(fake_openai, behaviour, words):
    client = make_client(fake_openai)
    fake_openai.push(behaviour)

    err = extract_error(client)

    assert err.kind == "schema"
    assert words in err.message
    assert counts(client) == expected(schema=1)


# -- api errors and timeouts: the endpoint failed ------------------------------------------------
def test_rate_limit_is_an_api_error_without_sdk_retry(fake_openai):
    client = make_client(fake_openai)
    # AUTO stays the default: if the SDK retried, the second request would succeed and no error would be raised.
    fake_openai.push(http_error(429, "Rate limit reached for gpt-5-mini", retry_after=1))

    err = extract_error(client)

    assert err.kind == "api"
    assert "HTTP 429" in err.message
    assert "Rate limit reached" in err.message
    assert "retry-after: 1" in err.message
    assert len(fake_openai.requests) == 1
    assert counts(client) == expected(api=1)


def test_server_error_is_an_api_error(fake_openai):
    client = make_client(fake_openai)
    fake_openai.push(http_error(500, "The server had an error while processing your request"))

    err = extract_error(client)

    assert err.kind == "api"
    assert "HTTP 500" in err.message
    assert "server had an error" in err.message
    assert fake_openai.base_url in err.message
    assert len(fake_openai.requests) == 1
    assert counts(client) == expected(api=1)


def test_client_error_is_an_api_error(fake_openai):
    client = make_client(fake_openai)
    fake_openai.push(http_error(400, "Invalid schema for response_format 'entities_relationships'"))

    err = extract_error(client)

    assert err.kind == "api"
    assert "HTTP 400" in err.message
    assert "Invalid schema" in err.message
    assert counts(client) == expected(api=1)


def test_slow_endpoint_is_a_timeout(fake_openai):
    client = make_client(fake_openai, timeout_s=0.5)
    fake_openai.push(delay(2.0))

    started = time.perf_counter()
    err = extract_error(client)
    elapsed = time.perf_counter() - started

    assert err.kind == "timeout"
    assert "timeout" in err.message
    assert "0.5 s" in err.message
    assert "/v1/chat/completions" in err.message
    assert 0.4 <= elapsed < 1.8  # gave up at the client timeout, once (no SDK retry)
    assert len(fake_openai.requests) == 1
    assert counts(client) == expected(timeouts=1)


def test_connection_refused_is_an_api_error(fake_openai):
    url = closed_port_url()
    client = make_client(fake_openai, base_url=url)

    err = extract_error(client)

    assert err.kind == "api"
    assert "cannot reach" in err.message
    assert url in err.message
    assert counts(client) == expected(api=1)
    assert fake_openai.requests == []


# -- retries stay one conversation -------------------------------------------------------------
def test_same_chunk_keeps_its_conversation_id_across_retries(fake_openai):
    client = make_client(fake_openai)
    fake_openai.push(http_error(500), json_content(VALID_EXTRACTION))

    with pytest.raises(LLMError):
        client.extract(CHUNK_ID, TEXT)
    client.extract(CHUNK_ID, TEXT)  # the caller's retry
    client.extract("doc-1:chunk-0004", TEXT)

    first, retry, other = fake_openai.requests
    assert first.headers["x-conversation-id"] == retry.headers["x-conversation-id"] == CHUNK_ID
    assert first.body["user"] == retry.body["user"] == CHUNK_ID
    assert first.body == retry.body  # the retry is the same request
    assert other.headers["x-conversation-id"] == "doc-1:chunk-0004"
    assert counts(client) == expected(calls=3, ok=2, api=1)


# -- settings ----------------------------------------------------------------------------------
def test_from_settings_without_key_or_base_url_names_the_variable(monkeypatch):
    monkeypatch.delenv("KG_TEST_OPENAI_KEY", raising=False)
    settings = LLMSettings(provider="openai", api_key_env="KG_TEST_OPENAI_KEY")

    with pytest.raises(ValueError, match="KG_TEST_OPENAI_KEY"):
        OpenAIProvider.from_settings(settings)
    with pytest.raises(ValueError, match="KG_TEST_OPENAI_KEY"):
        OpenAIEmbeddingClient.from_settings("text-embedding-3-small", settings)


def test_from_settings_reads_the_key_from_the_environment(fake_openai, monkeypatch):
    monkeypatch.setenv("KG_TEST_OPENAI_KEY", "sk-from-env")
    settings = LLMSettings(
        provider="openai", model="my-model", api_key_env="KG_TEST_OPENAI_KEY", base_url=fake_openai.base_url, timeout_s=3
    )
    provider = OpenAIProvider.from_settings(settings)
    assert provider.timeout_s == 3

    LLMClient(provider, entity_types=ENTITY_TYPES).extract(CHUNK_ID, TEXT)

    [request] = fake_openai.requests
    assert request.headers["authorization"] == "Bearer sk-from-env"
    assert request.body["model"] == "my-model"


def test_custom_endpoint_needs_no_key(fake_openai, monkeypatch):
    monkeypatch.delenv("KG_TEST_OPENAI_KEY", raising=False)
    settings = LLMSettings(provider="openai", api_key_env="KG_TEST_OPENAI_KEY", base_url=fake_openai.base_url)

    LLMClient(OpenAIProvider.from_settings(settings), entity_types=ENTITY_TYPES).extract(CHUNK_ID, TEXT)

    [request] = fake_openai.requests
    assert request.headers["authorization"] == "Bearer not-needed"


# -- embeddings --------------------------------------------------------------------------------
def test_embeddings_round_trip_in_batches(fake_openai):
    embedder = OpenAIEmbeddingClient("text-embedding-3-small", "test", base_url=fake_openai.base_url, timeout_s=5)
    texts = [f"text number {i}" for i in range(300)]

    vectors = embedder.embed(texts)

    assert vectors == [vector_for(t) for t in texts]
    assert len(vectors[0]) == 8
    batches = fake_openai.requests_to("embeddings")
    assert [len(r.body["input"]) for r in batches] == [256, 44]
    assert batches[1].body["input"][0] == "text number 256"
    assert all(r.body["model"] == "text-embedding-3-small" for r in batches)
    assert embedder.embed([]) == []
    assert len(fake_openai.requests) == 2


def test_embeddings_from_settings_strips_the_prefix(fake_openai, monkeypatch):
    monkeypatch.setenv("KG_TEST_OPENAI_KEY", "sk-emb")
    settings = LLMSettings(provider="openai", api_key_env="KG_TEST_OPENAI_KEY", base_url=fake_openai.base_url)

    vectors = OpenAIEmbeddingClient.from_settings("openai:text-embedding-3-large", settings).embed(["Akt"])

    assert vectors == [vector_for("Akt")]
    [request] = fake_openai.requests
    assert request.body["model"] == "text-embedding-3-large"
    assert request.headers["authorization"] == "Bearer sk-emb"


def test_embedding_errors_are_mapped(fake_openai):
    embedder = OpenAIEmbeddingClient("text-embedding-3-small", "test", base_url=fake_openai.base_url, timeout_s=0.5)
    fake_openai.push(http_error(503, "overloaded"), delay(2.0), endpoint="embeddings")

    with pytest.raises(LLMError) as first:
        embedder.embed(["a", "b"])
    with pytest.raises(LLMError) as second:
        embedder.embed(["a", "b"])

    assert first.value.kind == "api"
    assert "HTTP 503" in first.value.message and "overloaded" in first.value.message
    assert second.value.kind == "timeout"
    assert "/v1/embeddings" in second.value.message
    assert len(fake_openai.requests) == 2
    assert embedder.embed(["a"]) == [vector_for("a")]  # the queue is spent: AUTO again


def test_embeddings_with_wrong_vector_count_are_an_api_error(fake_openai):
    embedder = OpenAIEmbeddingClient("text-embedding-3-small", "test", base_url=fake_openai.base_url)
    fake_openai.push(
        json_content({"object": "list", "model": "m", "data": [{"object": "embedding", "index": 0, "embedding": [0.1]}],
                      "usage": {"prompt_tokens": 1, "total_tokens": 1}}),
        endpoint="embeddings",
    )

    with pytest.raises(LLMError) as info:
        embedder.embed(["a", "b"])

    assert info.value.kind == "api"
    assert "1 vectors for 2 texts" in info.value.message


# -- module hygiene ----------------------------------------------------------------------------
def test_provider_module_does_not_import_dagster():
    code = (
        "import sys, kg_pipelines.llm.openai_provider\n"
        "bad = sorted(m for m in sys.modules if m == 'dagster' or m.startswith('dagster'))\n"
        "assert not bad, bad\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
