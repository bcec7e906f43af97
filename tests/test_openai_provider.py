"""The openai provider through LLMClient, against a scripted fake OpenAI server over loopback HTTP.

The real ``openai`` client sends every request; the fake answers as scripted. Each case checks the
``LLMError`` kind, that the message says what went wrong, the counters, and what went over the wire.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from kg_pipelines.config import LLMSettings
from kg_pipelines.ingestion.chunk_jobs import RetryPolicy, run_with_retries
from kg_pipelines.llm import prompts
from kg_pipelines.llm.client import LLMClient, LLMError
from kg_pipelines.llm.offline_provider import OfflineProvider
from kg_pipelines.llm.openai_provider import OpenAIEmbeddingClient, OpenAIProvider
from kg_pipelines.llm.versions import offline_version, source_digest
from tests.fake_openai import (  # noqa: F401  (fake_openai is the fixture)
    FakeOpenAI,
    closed_port_url,
    delay,
    disconnect,
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
    provider = OpenAIProvider(
        model="gpt-5-mini", api_key="test", base_url=base_url or fake.base_url, timeout_s=timeout_s
    )
    return LLMClient(provider, entity_types=ENTITY_TYPES)


def counts(client: LLMClient) -> dict:
    snap = client.counters.snapshot()
    snap.pop("llm_mean_latency_ms")
    return snap


def expected(calls=1, ok=0, schema=0, api=0, timeouts=0, ungrounded=0) -> dict:
    return {
        "llm_calls": calls,
        "llm_succeeded": ok,
        "llm_schema_failures": schema,
        "llm_ungrounded": ungrounded,
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


def test_auto_answers_pass_the_client_for_every_task_and_settings(fake_openai):
    """Pipeline tests rely on the fake's default answer: the client must accept it (schema and
    grounding) for all three tasks, whatever the text, entity types and question range."""
    texts = [TEXT, "# Heading\n\nSIRT6 deficiency shortens lifespan in mice; NAD+ declines with age.", "Akt"]
    client = LLMClient(
        OpenAIProvider("gpt-5-mini", "test", base_url=fake_openai.base_url, timeout_s=5),
        entity_types=("protein", "disease"),
        questions_min=6,
        questions_max=8,
    )

    for i, text in enumerate(texts):
        client.summarize(f"c{i}", text, prior_summary="Earlier block.")
        client.extract(f"c{i}", text)
        client.atomic_questions(f"c{i}", text)

    assert counts(client) == expected(calls=9, ok=9)


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
            {
                "entities": [{"entity_name": "Akt", "entity_type": "spaceship", "entity_description": "A kinase."}],
                "relationships": [],
            },
            ["entity_type", "spaceship"],
            id="unknown-entity-type",
        ),
        pytest.param(
            {
                "entities": [{"entity_name": "Akt", "entity_type": "gene", "entity_description": "   "}],
                "relationships": [],
            },
            ["entity_description", "non-empty"],
            id="empty-description",
        ),
        pytest.param(
            {
                "entities": [{"entity_name": "Akt", "entity_type": "gene", "entity_description": "A kinase."}],
                "relationships": [
                    {
                        "source_entity": "Akt",
                        "target_entity": "Mtor",
                        "relationship_keywords": ["activates"],
                        "relationship_description": "Akt activates mTOR.",
                    }
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


# -- ungrounded answers: valid JSON in the contract, but not supported by the chunk --------------
def test_made_up_description_is_ungrounded(fake_openai):
    client = make_client(fake_openai)
    made_up = {
        "entities": [
            VALID_EXTRACTION["entities"][0],
            {
                "entity_name": "Obesity",
                "entity_type": "disease",
                "entity_description": "A chronic disorder treated with gastric surgery and appetite suppressants.",
            },
        ],
        "relationships": [],
    }
    fake_openai.push(json_content(made_up))

    err = extract_error(client)

    assert err.kind == "ungrounded"
    assert "entity 'Obesity'" in err.message and "description is not grounded" in err.message
    assert "Oleoylethanolamide" not in err.message  # the grounded entity is not blamed
    assert counts(client) == expected(ungrounded=1)
    assert len(fake_openai.requests) == 1


def test_made_up_entity_and_relationship_are_ungrounded(fake_openai):
    client = make_client(fake_openai)
    answer = {
        "entities": VALID_EXTRACTION["entities"]
        + [{"entity_name": "Leptin", "entity_type": "gene", "entity_description": "People with obesity."}],
        "relationships": [
            {
                "source_entity": "Leptin",
                "target_entity": "Obesity",
                "relationship_keywords": ["causes"],
                "relationship_description": "Obesity in people.",
            }
        ],
    }
    fake_openai.push(json_content(answer))

    err = extract_error(client)

    assert err.kind == "ungrounded"
    assert "entity 'Leptin': the name does not occur in the chunk" in err.message
    assert "relationship 'Leptin' -> 'Obesity': 'Leptin' does not occur in the chunk" in err.message


def test_ungrounded_answer_is_retried_by_the_job_runner(fake_openai):
    client = make_client(fake_openai)
    made_up = {
        "entities": [
            {
                "entity_name": "Oleoylethanolamide",
                "entity_type": "compound",
                "entity_description": "A cannabinoid sold as a weight-loss pill in pharmacies.",
            }
        ],
        "relationships": [],
    }
    fake_openai.push(json_content(made_up), json_content(VALID_EXTRACTION))

    outcome = run_with_retries(
        CHUNK_ID, lambda: client.extract(CHUNK_ID, TEXT), RetryPolicy(2, 0, 0), sleep=lambda s: None
    )

    assert outcome.ok and outcome.attempts == 2
    assert outcome.error_kind == "ungrounded"  # the last error before the success, as recorded in chunk_state
    assert counts(client) == expected(calls=2, ok=1, ungrounded=1)
    assert [r.headers["x-conversation-id"] for r in fake_openai.requests] == [CHUNK_ID, CHUNK_ID]


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

    err = extract_error(client)

    assert err.kind == "timeout"
    assert "timeout" in err.message
    assert "0.5 s" in err.message
    assert "/v1/chat/completions" in err.message
    assert len(fake_openai.requests) == 1  # gave up once: no SDK retry
    assert counts(client) == expected(timeouts=1)


def test_connection_refused_is_an_api_error():
    url = closed_port_url()
    client = LLMClient(OpenAIProvider("gpt-5-mini", "test", base_url=url, timeout_s=5), entity_types=ENTITY_TYPES)

    err = extract_error(client)

    assert err.kind == "api"
    assert "cannot reach" in err.message
    assert url in err.message
    assert counts(client) == expected(api=1)


def test_dropped_connection_is_an_api_error(fake_openai):
    client = make_client(fake_openai)
    fake_openai.push(disconnect())

    err = extract_error(client)

    assert err.kind == "api"
    assert "cannot reach" in err.message
    assert counts(client) == expected(api=1)
    assert len(fake_openai.requests) == 1  # no SDK retry


# -- outages of the fake: down for a while, then up again ---------------------------------------
def test_outage_for_a_number_of_requests_then_recovery(fake_openai):
    client = make_client(fake_openai)
    fake_openai.push(json_content(VALID_EXTRACTION))  # kept for after the outage
    fake_openai.fail_until(count=2)

    first, second = extract_error(client), extract_error(client)
    assert fake_openai.outage_active is False
    result = client.extract(CHUNK_ID, TEXT)

    assert first.kind == second.kind == "api"
    assert "HTTP 503" in first.message and "outage" in first.message
    assert [e.entity_name for e in result.entities] == ["Oleoylethanolamide", "Obesity"]  # the queued answer
    assert [r.outage for r in fake_openai.requests] == [True, True, False]
    assert fake_openai.outage_failures == 2
    assert counts(client) == expected(calls=3, ok=1, api=2)


def test_outage_until_recover_fails_every_endpoint(fake_openai):
    client = make_client(fake_openai)
    embedder = OpenAIEmbeddingClient("text-embedding-3-small", "test", base_url=fake_openai.base_url, timeout_s=5)
    fake_openai.fail_until(mode="disconnect")

    errors = [extract_error(client) for _ in range(3)]
    with pytest.raises(LLMError) as embedding_error:
        embedder.embed(["Akt"])
    assert fake_openai.outage_active
    fake_openai.recover()

    assert {e.kind for e in errors} == {"api"} and all("cannot reach" in e.message for e in errors)
    assert embedding_error.value.kind == "api"
    assert client.extract(CHUNK_ID, TEXT).entities  # AUTO again
    assert embedder.embed(["Akt"]) == [vector_for("Akt")]
    assert fake_openai.outage_failures == 4 and not fake_openai.outage_active


def test_outage_with_a_deadline_ends_by_the_server_clock():
    now = [100.0]
    with FakeOpenAI(clock=lambda: now[0]) as fake:
        client = make_client(fake)
        fake.fail_until(seconds=30, status=500, retry_after=7)

        now[0] = 129.0
        err = extract_error(client)
        now[0] = 130.0
        client.extract(CHUNK_ID, TEXT)

        assert "HTTP 500" in err.message and "retry-after: 7" in err.message
        assert [r.outage for r in fake.requests] == [True, False]


def test_outage_arguments_are_checked(fake_openai):
    for kwargs in ({"count": 0}, {"seconds": 0}, {"mode": "explode"}):
        with pytest.raises(ValueError):
            fake_openai.fail_until(**kwargs)
    assert not fake_openai.outage_active


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
        provider="openai",
        model="my-model",
        api_key_env="KG_TEST_OPENAI_KEY",
        base_url=fake_openai.base_url,
        timeout_s=3,
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

    assert vectors == [vector_for(t) for t in texts]  # every vector, in input order across batches
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
        json_content(
            {
                "object": "list",
                "model": "m",
                "data": [{"object": "embedding", "index": 0, "embedding": [0.1]}],
                "usage": {"prompt_tokens": 1, "total_tokens": 1},
            }
        ),
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


# -- cache fingerprints ------------------------------------------------------------------------
TASKS = ("summarize", "extract", "questions")


def openai_client(model="gpt-5-mini", entity_types=ENTITY_TYPES, low=5, high=10) -> LLMClient:
    # no request is made: building the SDK client does not connect
    provider = OpenAIProvider(model, "test", base_url="http://127.0.0.1:9/v1")
    return LLMClient(provider, entity_types=entity_types, questions_min=low, questions_max=high)


def fingerprints(client: LLMClient) -> dict[str, str]:
    return {task: client.fingerprint(task) for task in TASKS}


def test_fingerprints_are_short_stable_and_differ_by_task():
    prints = fingerprints(openai_client())
    assert prints == fingerprints(openai_client())  # same settings, another client: same fingerprints
    assert len(set(prints.values())) == 3
    assert all(len(p) == 16 and set(p) <= set("0123456789abcdef") for p in prints.values())
    with pytest.raises(ValueError, match="unknown task"):
        openai_client().fingerprint("translate")


def test_fingerprints_change_with_provider_and_model():
    base = fingerprints(openai_client())
    assert all(a != b for a, b in zip(base.values(), fingerprints(openai_client(model="gpt-5")).values()))
    offline = fingerprints(LLMClient(OfflineProvider(), entity_types=ENTITY_TYPES))
    assert all(a != b for a, b in zip(base.values(), offline.values()))


def test_fingerprints_change_only_for_the_task_whose_settings_changed():
    base = fingerprints(openai_client())
    types = fingerprints(openai_client(entity_types=("gene", "compound")))
    order = fingerprints(openai_client(entity_types=("compound", "gene", "disease")))
    questions = fingerprints(openai_client(low=3, high=10))
    assert (types["extract"] != base["extract"], types["summarize"], types["questions"]) == (
        True,
        base["summarize"],
        base["questions"],
    )
    assert order["extract"] != base["extract"]  # the order is the enum sent to the model
    assert (questions["questions"] != base["questions"], questions["summarize"], questions["extract"]) == (
        True,
        base["summarize"],
        base["extract"],
    )


def test_editing_a_prompt_changes_its_tasks_fingerprint(monkeypatch):
    base = fingerprints(openai_client())
    monkeypatch.setattr(prompts, "EXTRACT_SYSTEM", prompts.EXTRACT_SYSTEM + " Be brief.")
    edited = fingerprints(openai_client())
    assert edited["extract"] != base["extract"]
    assert (edited["summarize"], edited["questions"]) == (base["summarize"], base["questions"])


def test_offline_fingerprints_follow_the_offline_version(monkeypatch):
    from kg_pipelines.llm import versions

    client = LLMClient(OfflineProvider(), entity_types=ENTITY_TYPES)
    base = fingerprints(client)
    monkeypatch.setattr(versions, "offline_version", lambda: "offline-000000000000")
    assert all(a != b for a, b in zip(base.values(), fingerprints(client).values()))


def test_offline_version_is_a_digest_of_the_heuristics_source(tmp_path):
    assert offline_version().startswith("offline-") and len(offline_version()) == len("offline-") + 12
    (tmp_path / "offline").mkdir()
    rules = tmp_path / "offline" / "rules.py"
    rules.write_text("SUFFIXES = ('mycin',)\n")
    files = [rules, tmp_path / "provider.py"]
    files[1].write_text("class P: ...\n")
    before = source_digest(tmp_path, files)
    assert source_digest(tmp_path, list(reversed(files))) == before  # order-independent
    rules.write_text("SUFFIXES = ('mycin', 'formin')\n")
    assert source_digest(tmp_path, files) != before  # a heuristic change is a new version
