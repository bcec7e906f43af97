"""The API's contract: /openapi.json says exactly what the server answers.

schemathesis fuzzes every documented operation of the real app (in-process ASGI) over a small graph
built by the real pipeline, with valid and invalid requests: no server error, every status
documented, every body valid against its schema. The tests below it check, endpoint by endpoint,
that each documented error is sent in the one documented shape ``{"detail": str}``, and that the
limits the server enforces are the ones the schema states (at the bound: accepted; one past it:
refused)."""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings

from kg_pipelines.api.app import create_app
from kg_pipelines.api.models import ErrorResponse
from kg_pipelines.config import load_settings
from kg_pipelines.ingestion.names import is_blank
from tests.conftest import ingested_graph

# two collections of short documents written for these tests: sibling genes, shared sentences
DOCUMENTS = {
    "genes/sirt1.md": "# SIRT1 and SIRT3\n\n"
    "SIRT1 deacetylates PGC-1alpha in the nucleus of liver cells. "
    "SIRT3 deacetylates mitochondrial enzymes such as acetyl-CoA synthetase 2. "
    "Resveratrol activates SIRT1 in cultured muscle cells.\n",
    "diet/fasting.md": "# Fasting and NAD+\n\n"
    "Fasting raises NAD+ levels in mouse liver. "
    "NAD+ is a cofactor of SIRT1 and of SIRT3. "
    "Nicotinamide riboside increases NAD+ in human muscle.\n",
}


@pytest.fixture(scope="module")
def graph_settings(tmp_path_factory):
    with ingested_graph(tmp_path_factory.mktemp("contract"), DOCUMENTS) as graph:
        yield graph.settings


@pytest.fixture(scope="module")
def app(graph_settings):
    return create_app(graph_settings)


@pytest.fixture(scope="module")
def client(app):
    return TestClient(app)


@pytest.fixture(scope="module")
def openapi(client) -> dict:
    return client.get("/openapi.json").json()


class _ServedApp:
    """The ASGI app schemathesis calls: the real app over the graph, once the module's fixture has
    built it. schemathesis reads the schema when this module is imported, before any fixture runs,
    from an app of the same settings over an empty data dir; ``served`` checks the two schemas agree."""

    def __init__(self) -> None:
        with tempfile.TemporaryDirectory() as empty:
            self.app = create_app(load_settings(Path(empty)))

    async def __call__(self, scope, receive, send) -> None:
        await self.app(scope, receive, send)


SERVED = _ServedApp()
# The schema cannot say which collections exist (they change as documents are ingested): a
# well-formed /qa naming one that does not exist is refused with its documented 400
FUZZING = {
    "operations": [
        {"include-path": "/qa", "checks": {"positive_data_acceptance": {"expected-statuses": ["2xx", "400"]}}}
    ]
}
fuzzed = schemathesis.openapi.from_asgi("/openapi.json", SERVED, config=schemathesis.Config.from_dict(FUZZING))


@pytest.fixture(scope="module")
def served(app, openapi):
    assert openapi == fuzzed.raw_schema  # the fuzzed schema is the real app's
    SERVED.app = app
    return app


@fuzzed.parametrize()
@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_operation_answers_as_documented(case, served):
    response = case.call_and_validate()
    if case.meta is not None and case.meta.generation.mode.is_positive and response.status_code == 400:
        # the one refusal a schema-valid request may get (FUZZING): a collection that does not exist
        assert response.json()["detail"].startswith("unknown collection(s)"), response.text


# -- errors: one documented shape ------------------------------------------------------------------

ERROR_REF = "#/components/schemas/ErrorResponse"


def _documented(openapi: dict, path: str, method: str, status: int) -> dict:
    responses = openapi["paths"][path][method]["responses"]
    assert str(status) in responses, f"{method.upper()} {path} answers {status}, the schema does not say so"
    return responses[str(status)]["content"]["application/json"]["schema"]


def test_the_schema_has_a_model_for_every_answer_and_one_for_every_error(openapi):
    assert openapi["components"]["schemas"]["ErrorResponse"] == {
        "description": "Every error the API answers: one line saying what is wrong and, where it helps, "
        "what is allowed.",
        "examples": [{"detail": "term: Field required"}],
        "properties": {"detail": {"description": "What is wrong, in one line", "title": "Detail", "type": "string"}},
        "required": ["detail"],
        "title": "ErrorResponse",
        "type": "object",
    }
    # FastAPI's list-shaped validation error is nowhere: a client would mis-parse every 422
    assert "HTTPValidationError" not in openapi["components"]["schemas"]
    documented = {
        (path, method): sorted(int(s) for s in operation["responses"] if s != "200")
        for path, item in openapi["paths"].items()
        for method, operation in item.items()
    }
    assert documented == {
        ("/health", "get"): [],
        ("/collections", "get"): [],
        ("/graph-search", "get"): [400, 422],
        ("/qa", "post"): [400, 422, 503],
        ("/explore/api/neighbourhood", "get"): [400, 422],
        ("/explore/api/expand", "get"): [404, 422],
        ("/explore/api/evidence", "get"): [400, 422],
        ("/explore/api/node", "get"): [404, 422],
        ("/explore/api/edge", "get"): [404, 422],
        ("/explore/api/health", "get"): [],
    }
    for (path, method), statuses in documented.items():
        for status in statuses:
            assert _documented(openapi, path, method, status) == {"$ref": ERROR_REF}
    answers = {("/health", "get"): "HealthResponse", ("/collections", "get"): "CollectionsResponse"}
    answers |= {("/graph-search", "get"): "GraphSearchResponse", ("/qa", "post"): "QAResponse"}
    answers |= {("/explore/api/neighbourhood", "get"): "Neighbourhood", ("/explore/api/expand", "get"): "Neighbourhood"}
    answers |= {("/explore/api/node", "get"): "NodeDetails", ("/explore/api/edge", "get"): "EdgeDetails"}
    answers |= {("/explore/api/evidence", "get"): "Neighbourhood", ("/explore/api/health", "get"): "HealthReports"}
    for (path, method), model in answers.items():
        assert _documented(openapi, path, method, 200) == {"$ref": f"#/components/schemas/{model}"}
    assert "security" not in openapi and "securitySchemes" not in openapi["components"]  # loopback, no key


def test_the_schema_states_the_limits_the_server_enforces(openapi, graph_settings):
    schemas = openapi["components"]["schemas"]
    qa = schemas["QARequest"]["properties"]
    assert qa["question"]["maxLength"] == graph_settings.rationale_qa.max_question_chars == 2000
    assert qa["question"]["minLength"] == 1
    budget = next(s for s in qa["token_budget"]["anyOf"] if s.get("type") == "integer")
    assert (budget["minimum"], budget["maximum"]) == (1, graph_settings.api.max_token_budget) == (1, 32000)
    names = next(s for s in qa["collections"]["anyOf"] if s.get("type") == "array")
    assert names["maxItems"] == graph_settings.api.max_collections == 20
    assert names["items"]["pattern"] == "^[A-Za-z0-9][A-Za-z0-9_]{0,63}$"
    assert qa["strategy"]["enum"] == ["auto", "general", "factual", "analytical", "procedural"]
    assert schemas["QARequest"]["additionalProperties"] is False
    search = {p["name"]: p["schema"] for p in openapi["paths"]["/graph-search"]["get"]["parameters"]}
    rules = graph_settings.graph_search
    assert (search["term"]["minLength"], search["term"]["maxLength"]) == (1, rules.max_term_chars)
    assert (search["depth"]["minimum"], search["depth"]["maximum"]) == (1, rules.max_depth)
    assert (search["limit"]["minimum"], search["limit"]["maximum"]) == (1, rules.max_limit)


# JSON Schema patterns are ECMA-262 regular expressions, and schemathesis generates by them: their \s is
# this set, not Python's (which adds U+001C-U+001F and U+0085 and leaves out U+FEFF)
ECMA_SPACE = "\t\n\v\f\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


def _as_ecma(pattern: str) -> re.Pattern:
    return re.compile(pattern.replace(r"\S", f"[^{ECMA_SPACE}]").replace(r"\s", ECMA_SPACE))


def _text_patterns(openapi: dict) -> dict[str, str]:
    """Where a term or question is given, and the pattern the schema states for it."""
    found = {
        f"{path} {p['name']}": p["schema"]["pattern"]
        for path, methods in openapi["paths"].items()
        for operation in methods.values()
        for p in operation.get("parameters", [])
        if p["name"] == "term"
    }
    found["QARequest question"] = openapi["components"]["schemas"]["QARequest"]["properties"]["question"]["pattern"]
    return found


def test_a_text_the_schema_calls_valid_is_one_the_server_does_not_find_blank(openapi):
    # a lone U+001F matched \S in the schema's (ECMA) reading and was then refused as a blank term
    patterns = _text_patterns(openapi)
    assert {"/graph-search term", "/explore/api/neighbourhood term", "QARequest question"} <= set(patterns)
    for where, pattern in patterns.items():
        schema = _as_ecma(pattern)
        for char in map(chr, [*range(0x3100), 0xFEFF]):
            assert bool(schema.search(char)) != is_blank(char), f"{where}: U+{ord(char):04X}"


def _error(response, status: int) -> str:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert ErrorResponse.model_validate(body).detail and set(body) == {"detail"}
    assert isinstance(body["detail"], str) and "\n" not in body["detail"]
    return body["detail"]


@pytest.mark.parametrize(
    ("params", "status", "detail"),
    [
        ({}, 422, "term: Field required"),
        (
            {"term": "SIRT1", "depth": "two", "limit": 0},
            422,
            "depth: Input should be a valid integer, unable to parse string as an integer; limit: Input should be",
        ),
        ({"term": "x" * 201}, 422, "term: String should have at most 200 characters"),
        ({"term": "  \t "}, 400, "term is empty"),
    ],
)
def test_graph_search_errors_have_the_documented_shape(client, openapi, params, status, detail):
    assert detail in _error(client.get("/graph-search", params=params), status)
    assert _documented(openapi, "/graph-search", "get", status) == {"$ref": ERROR_REF}


@pytest.mark.parametrize(
    ("body", "status", "detail"),
    [
        ([], 422, "Input should be a valid dictionary"),
        ({}, 422, "question: Field required"),
        ({"question": "Why?", "strategy": "random", "sql": "DROP"}, 422, "strategy: Input should be 'auto'"),
        ({"question": "Why?", "token_budget": 0}, 422, "token_budget: Input should be greater than or equal to 1"),
        ({"question": "x " * 1000 + "y"}, 400, "question is 2001 characters long; at most 2000 are allowed"),
        ({"question": "Why  " * 420}, 400, "question is 2100 characters long"),  # as sent, not as read
        ({"question": "   "}, 400, "question is empty"),
        ({"question": "Why?", "token_budget": 32001}, 400, "token_budget: at most 32000, got 32001"),
        ({"question": "Why?", "collections": ["genes"] * 21}, 400, "at most 20 collections per question, got 21"),
        ({"question": "Why?", "collections": ["nowhere"]}, 400, "unknown collection(s) 'nowhere'; known: diet, genes"),
        ({"question": "Why?", "collections": ["my-genes"]}, 400, "invalid collection name 'my-genes'"),
    ],
)
def test_qa_errors_have_the_documented_shape(client, openapi, body, status, detail):
    assert detail in _error(client.post("/qa", json=body), status)
    assert _documented(openapi, "/qa", "post", status) == {"$ref": ERROR_REF}


def test_a_malformed_json_body_is_a_documented_422(client):
    response = client.post("/qa", content=b'{"question": ', headers={"content-type": "application/json"})
    assert "JSON decode error" in _error(response, 422)


def test_an_unusable_llm_is_a_documented_503(graph_settings, openapi, monkeypatch):
    monkeypatch.delenv("KG_TEST_NO_KEY", raising=False)
    no_key = {"provider": "openai", "base_url": None, "api_key_env": "KG_TEST_NO_KEY"}
    llm = graph_settings.llm.model_copy(update=no_key)
    unusable = TestClient(create_app(graph_settings.model_copy(update={"llm": llm})))
    assert "KG_TEST_NO_KEY" in _error(unusable.post("/qa", json={"question": "What does SIRT1 do?"}), 503)
    assert _documented(openapi, "/qa", "post", 503) == {"$ref": ERROR_REF}


def test_unknown_paths_and_methods_answer_in_the_same_shape(client):
    assert _error(client.get("/nowhere"), 404) == "Not Found"
    assert _error(client.delete("/qa"), 405) == "Method Not Allowed"


def test_each_limit_accepts_its_bound(client):
    """One past each bound is refused above; the bound itself is a question the server answers."""
    at_bound = {
        "question": ("What does SIRT1 deacetylate? " * 80)[:2000],
        "collections": ["genes"] * 20,
        "token_budget": 32000,
    }
    response = client.post("/qa", json=at_bound)
    assert response.status_code == 200, response.text
    assert response.json()["collections"] == ["genes"] and response.json()["token_budget"] == 32000
    assert client.get("/graph-search", params={"term": "x" * 200, "depth": 4, "limit": 100}).status_code == 200


def test_answers_parse_with_the_documented_models(client):
    from kg_pipelines.api.models import CollectionsResponse, GraphSearchResponse, HealthResponse, QAResponse

    assert HealthResponse.model_validate(client.get("/health").json()).snapshot.nodes > 0
    names = [c.name for c in CollectionsResponse.model_validate(client.get("/collections").json()).collections]
    assert names == ["diet", "genes"]
    found = GraphSearchResponse.model_validate(client.get("/graph-search", params={"term": "SIRT1"}).json())
    assert found.matched and found.matched[0].name == "SIRT1" and found.paths
    answer = QAResponse.model_validate(client.post("/qa", json={"question": "What does SIRT3 deacetylate?"}).json())
    assert answer.answer and answer.rounds and answer.sources


def test_a_table_another_process_is_still_creating_is_not_a_server_error(app, graph_settings, tmp_path):
    """LanceDB lists a table as soon as its folder exists, before its first version is written and
    it can be opened: an ingestion creating a collection's tables must not make the API answer 500."""
    from kg_pipelines.stores.node_vectors import NodeVectors

    client = TestClient(app, raise_server_exceptions=False)
    half = [graph_settings.lancedb_dir / f"{kind}__late.lance" / "data" for kind in ("questions", "chunks")]
    for folder in half:
        folder.mkdir(parents=True)
    try:
        collections = client.get("/collections")
        assert collections.status_code == 200, collections.text
        late = next(c for c in collections.json()["collections"] if c["name"] == "late")
        assert (late["chunks"], late["atomic_questions"]) == (0, 0)
        for body in ({"question": "What does SIRT1 deacetylate?"}, {"question": "Why?", "collections": ["late"]}):
            answer = client.post("/qa", json=body)
            assert answer.status_code == 200 and answer.json()["answer"], answer.text
    finally:
        for folder in half:
            shutil.rmtree(folder.parent)
    (tmp_path / "graph_nodes.lance" / "data").mkdir(parents=True)  # the node table, being created
    assert NodeVectors(tmp_path).table() is None and NodeVectors(tmp_path).search([0.1] * 384) == []


def test_a_field_the_qa_answer_grows_reaches_the_client(client, openapi, monkeypatch):
    """The QA loop may add a field before this contract names it: it passes through, as the schema
    says (additionalProperties), rather than failing the answer."""
    import kg_pipelines.api.app as api

    asked = api.answer_question

    def grown(*args, **kwargs):
        result = asked(*args, **kwargs)
        as_dict = result.to_dict
        result.to_dict = lambda: {**as_dict(), "confidence": 0.5}
        return result

    monkeypatch.setattr(api, "answer_question", grown)
    answer = client.post("/qa", json={"question": "What does SIRT1 deacetylate?"})
    assert answer.status_code == 200 and answer.json()["confidence"] == 0.5 and answer.json()["answer"]
    assert openapi["components"]["schemas"]["QAResponse"]["additionalProperties"] is True
