"""The entry points of graph search and QA: the HTTP API (FastAPI, served from the snapshot and
LanceDB), its behaviour under a running ingestion, and the CLI commands search, ask and serve."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import httpx
import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from kg_pipelines.api.app import create_app
from kg_pipelines.cli import main
from kg_pipelines.config import load_settings
from kg_pipelines.stores.graph_snapshot import publish_graph_snapshot
from kg_pipelines.stores.warehouse import connect
from tests.conftest import REPO_ROOT, free_port, ingested_graph, server_env
from tests.fake_openai import fake_openai, http_error, json_content  # noqa: F401  (fixture)

SAMPLE = REPO_ROOT / "data" / "inbox"
SEED_FIRST = (
    "Oleoylethanolamide --[A randomized clinical trial in people with obesity tested whether Oleoylethanolamide "
    "supplementation changes the abundance of Akkermansia muciniphila in the gut (Appetite. 2019). … The "
    "investigators measured Akkermansia muciniphila in stool samples by quantitative PCR, and they reported that "
    "Oleoylethanolamide increased the abundance of Akkermansia muciniphila compared with placebo.]--> "
    "Akkermansia Muciniphila"
)  # the seed's sentence for this hop, then the later one of the document that states it
SEED_SECOND = (
    "Akkermansia Muciniphila --[A key mechanistic study by Everard and colleagues showed that cross-talk between "
    "Akkermansia muciniphila and the intestinal epithelium controls diet-induced obesity (PNAS. 2013).]--> "
    "Diet-Induced Obesity"
)


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """The sample document on Akkermansia muciniphila, ingested by the real job (offline)."""
    text = (SAMPLE / "microbiome" / "akkermansia_muciniphila_and_metabolic_health.md").read_text()
    with ingested_graph(tmp_path_factory.mktemp("api"), {"microbiome/akkermansia.md": text}) as graph:
        yield graph.settings


@pytest.fixture(scope="module")
def client(sample):
    return TestClient(create_app(sample))


def test_the_seeds_example_search_on_the_sample_data(client):
    body = client.get("/graph-search", params={"term": "Oleoylethanolamide", "limit": 100}).json()
    lines = [tuple(p["lines"]) for p in body["paths"]]
    assert (SEED_FIRST, SEED_SECOND) in lines  # the seed's two hops, as one path, in its form
    path = body["paths"][lines.index((SEED_FIRST, SEED_SECOND))]
    assert {s["title"] for s in path["sources"]} == {"Akkermansia muciniphila and Metabolic Health"}
    assert body["matched"][0]["match"] == "exact" and body["snapshot_version"]


def test_health_collections_and_openapi(client, sample):
    health = client.get("/health").json()
    assert health["status"] == "ok" and health["snapshot"]["nodes"] > 0
    collections = client.get("/collections").json()["collections"]
    assert [(c["name"], c["documents"]) for c in collections] == [("microbiome", 1)]
    assert collections[0]["atomic_questions"] > 0 and collections[0]["embedding_model"] == "all-MiniLM-L6-v2"
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/graph-search", "/qa", "/collections", "/health"} <= set(paths)
    # the operations as documented: the search term is a required query parameter, a question the
    # required field of the /qa body (a schema that lost them would document an unusable API)
    search = {p["name"]: p for p in paths["/graph-search"]["get"]["parameters"]}
    assert search["term"]["required"] is True and {"depth", "limit"} <= set(search)
    body = paths["/qa"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    qa_request = schemas[body["$ref"].rsplit("/", 1)[-1]] if "$ref" in body else body
    assert "question" in qa_request["required"]
    assert {"question", "collections", "strategy", "token_budget"} <= set(qa_request["properties"])


def test_qa_answers_with_trace_and_sources(client):
    body = client.post(
        "/qa", json={"question": "Which bacterium does Oleoylethanolamide increase?", "token_budget": 2000}
    ).json()
    # the sentence that states the relation, not one of the many that merely name the bacterium
    assert "Oleoylethanolamide increased the abundance of Akkermansia muciniphila" in body["answer"]
    assert body["supported"] and body["answer_entity"] == "Akkermansia Muciniphila"
    assert any("Oleoylethanolamide increased" in e["text"] for e in body["evidence"])
    assert body["rounds"][0]["sub_questions"] and body["rounds"][0]["selected"]["score"] > 0
    assert body["sources"][0]["title"] == "Akkermansia muciniphila and Metabolic Health"
    assert body["token_budget"] == 2000 and body["tokens_used"] <= 2000


@pytest.mark.parametrize(
    ("params", "detail"),
    [
        ({}, "term: Field required"),
        ({"term": ""}, "term: String should have at least 1 character"),
        ({"term": "x" * 10_000}, "term: String should have at most 200 characters"),
        ({"term": "Oleoylethanolamide", "depth": 0}, "depth: Input should be greater than or equal to 1"),
        ({"term": "Oleoylethanolamide", "depth": 1000}, "depth: Input should be less than or equal to 4"),
        ({"term": "Oleoylethanolamide", "depth": "two"}, "depth: Input should be a valid integer"),
        ({"term": "Oleoylethanolamide", "limit": 0}, "limit: Input should be greater than or equal to 1"),
        ({"term": "   "}, "term is empty"),
    ],
)
def test_bad_graph_search_requests_get_a_4xx_with_one_line(client, params, detail):
    response = client.get("/graph-search", params=params)
    assert response.status_code in (400, 422)
    assert detail in response.json()["detail"] and "\n" not in response.json()["detail"]


@pytest.mark.parametrize(
    "term",
    ["' OR '1'='1", '"; DROP TABLE kg_edges; --', "50% off", "SELECT name FROM kg_nodes", "油酰乙醇胺", "vi khuẩn"],
)
def test_hostile_or_foreign_terms_are_answered_harmlessly(client, sample, term):
    before = client.get("/health").json()["snapshot"]
    response = client.get("/graph-search", params={"term": term})
    assert response.status_code == 200 and response.json()["term"] == term
    # no entity is named by SQL or by words the graph does not hold: nothing matched, no path
    assert response.json()["matched"] == [] and response.json()["paths"] == []
    after = client.get("/health").json()["snapshot"]
    assert (after["nodes"], after["edges"]) == (before["nodes"], before["edges"]) and after["edges"] > 0


@pytest.mark.parametrize(
    ("body", "status", "detail"),
    [
        ({"question": ""}, 422, "question: String should have at least 1 character"),
        ({}, 422, "question: Field required"),
        ({"question": "x" * 10_000}, 400, "at most 2000"),
        ({"question": "What?", "collections": ["nowhere"]}, 400, "unknown collection(s) 'nowhere'; known: microbiome"),
        ({"question": "What?", "collections": ["a'; DROP TABLE x; --"]}, 400, "invalid collection name"),
        ({"question": "What?", "strategy": "random"}, 422, "strategy: Input should be 'auto'"),
        ({"question": "What?", "token_budget": 0}, 422, "token_budget: Input should be greater than or equal to 1"),
        ({"question": "What?", "token_budget": 10**9}, 400, "token_budget: at most 32000"),
        ({"question": "What?", "sql": "DROP"}, 422, "sql: Extra inputs are not permitted"),
    ],
)
def test_bad_qa_requests_get_a_4xx_with_one_line(client, body, status, detail):
    response = client.post("/qa", json=body)
    assert response.status_code == status and detail in response.json()["detail"]


@pytest.mark.parametrize("question", ["Oleoylethanolamide làm tăng vi khuẩn nào?", "油酰乙醇胺会增加哪种细菌？"])
def test_questions_in_other_scripts_are_answered_honestly(client, question):
    response = client.post("/qa", json={"question": question})
    body = response.json()
    assert response.status_code == 200 and body["answer"]
    # the offline reasoner reads English relations: it says it cannot support an answer, and shows
    # what it found, rather than passing off a sentence as the answer
    assert body["supported"] is False and body["answer"].startswith("The graph does not support an answer")
    assert body["answer_entity"] is None


def test_an_empty_data_dir_answers_without_errors(tmp_path):
    empty = TestClient(create_app(load_settings(tmp_path)))
    assert empty.get("/health").json()["snapshot"] is None
    assert empty.get("/collections").json() == {"collections": []}
    body = empty.get("/graph-search", params={"term": "Oleoylethanolamide"}).json()
    assert body["paths"] == [] and "no snapshot" in body["message"]
    assert "No collection has been ingested yet" in empty.post("/qa", json={"question": "Why?"}).json()["answer"]
    assert os.listdir(tmp_path) == []  # reading created nothing


def test_a_newer_snapshot_is_served_on_the_next_request(client, sample):
    before = client.get("/health").json()["snapshot"]["version"]
    conn = connect(sample.warehouse_path)
    try:
        publish_graph_snapshot(conn, sample)
    finally:
        conn.close()
    assert client.get("/health").json()["snapshot"]["version"] > before


def _openai(sample, fake, monkeypatch, key_env="KG_TEST_NO_KEY", base_url=True):
    monkeypatch.delenv(key_env, raising=False)
    llm = sample.llm.model_copy(
        update={"provider": "openai", "base_url": fake.base_url if base_url else None, "api_key_env": key_env}
    )
    return TestClient(create_app(sample.model_copy(update={"llm": llm})))


def test_qa_with_the_llm_failing_mid_loop_answers_what_was_gathered(sample, fake_openai, monkeypatch):  # noqa: F811
    fake_openai.rule("sub_questions", json_content({"questions": ["What is oleoylethanolamide?"]}), times=1)
    fake_openai.rule("sub_questions", http_error(500))
    body = _openai(sample, fake_openai, monkeypatch).post("/qa", json={"question": "What does OEA increase?"}).json()
    assert body["provider"] == "openai" and body["gathered"] == 1
    assert body["degraded"].startswith("the decomposer failed in round 2") and "Partial answer" in body["answer"]


def test_qa_with_an_unusable_llm_configuration_is_a_503(sample, fake_openai, monkeypatch):  # noqa: F811
    response = _openai(sample, fake_openai, monkeypatch, base_url=False).post("/qa", json={"question": "Why?"})
    assert response.status_code == 503 and "KG_TEST_NO_KEY" in response.json()["detail"]


# -- the CLI ------------------------------------------------------------------------------------


def _cli(sample, *args):
    return CliRunner().invoke(main, ["--data-dir", str(sample.data_dir), *args])


def test_cli_search_prints_paths_in_the_seeds_form(sample):
    result = _cli(sample, "search", "oleoylethanolamide", "--limit", "100")
    assert result.exit_code == 0, result.output
    assert f"  {SEED_FIRST}\n  {SEED_SECOND}\n" in result.output
    data = json.loads(_cli(sample, "search", "Oleoylethanolamide", "--depth", "1", "--json").output)
    assert data["depth"] == 1 and all(len(p["hops"]) == 1 for p in data["paths"])


def test_cli_ask_prints_the_answer_trace_and_sources(sample):
    result = _cli(sample, "ask", "Which bacterium does Oleoylethanolamide increase?")
    assert result.exit_code == 0, result.output
    assert "Akkermansia muciniphila" in result.output and "round 1:" in result.output and "sources:" in result.output
    data = json.loads(
        _cli(sample, "ask", "What is oleoylethanolamide?", "--collections", "microbiome", "--json").output
    )
    assert data["collections"] == ["microbiome"] and data["rounds"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["search", ""], "term is empty"),
        (["search", "x" * 10_000], "at most 200"),
        (["search", "Oleoylethanolamide", "--depth", "0"], "depth must be between 1 and 4, got 0"),
        (["search", "Oleoylethanolamide", "--depth", "1000"], "depth must be between 1 and 4, got 1000"),
        (["ask", ""], "question is empty"),
        (["ask", "Why?", "--collections", "nowhere"], "unknown collection(s) 'nowhere'"),
        (["ask", "Why?", "--budget", "0"], "token budget must be between 1 and"),
    ],
)
def test_cli_bad_input_is_one_line_without_traceback(sample, args, message):
    result = _cli(sample, *args)
    assert result.exit_code == 1 and message in result.output
    assert "Traceback" not in result.output and result.output.count("\n") == 1


def test_cli_search_on_an_empty_data_dir_names_it(tmp_path):
    result = CliRunner().invoke(main, ["--data-dir", str(tmp_path), "search", "Oleoylethanolamide"])
    assert result.exit_code == 0 and "no snapshot" in result.output and str(tmp_path) in result.output


# -- a real server while a real ingestion writes ------------------------------------------------


def _wait_for(url: str, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise AssertionError(f"{url} did not answer within {seconds} s")


def test_the_api_keeps_answering_while_an_ingestion_writes_and_stops_on_ctrl_c(tmp_path):
    data, env = server_env(tmp_path)
    env["PYTHONPATH"] = str(REPO_ROOT)
    kg = [sys.executable, "-c", "from kg_pipelines.cli import main; main()", "--data-dir", str(data)]
    first, second = tmp_path / "first" / "microbiome", tmp_path / "second" / "longevity"
    first.mkdir(parents=True)
    second.mkdir(parents=True)
    (first / "akkermansia.md").write_text(
        (SAMPLE / "microbiome" / "akkermansia_muciniphila_and_metabolic_health.md").read_text()
    )
    for name in ("ampk_metformin_and_the_tame_trial.md", "autophagy_and_spermidine.md"):
        (second / name).write_text((SAMPLE / "longevity" / name).read_text())
    subprocess.run([*kg, "ingest", str(first), "--collection", "microbiome"], env=env, check=True, capture_output=True)

    port = free_port()
    server = subprocess.Popen(
        [*kg, "serve", "--port", str(port)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_for(f"{base}/health")
        before = httpx.get(f"{base}/health").json()["snapshot"]["version"]
        ingestion = subprocess.Popen(
            [*kg, "ingest", str(second), "--collection", "longevity"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        failures: list[str] = []
        answered = 0

        def request(make) -> None:
            nonlocal answered
            try:
                response = make()
            except httpx.HTTPError as exc:
                failures.append(repr(exc))
                return
            if response.status_code != 200:
                failures.append(f"{response.status_code}: {response.text[:200]}")
            answered += 1

        with httpx.Client(base_url=base, timeout=60) as http:
            while ingestion.poll() is None:
                request(lambda: http.get("/graph-search", params={"term": "Akkermansia muciniphila"}))
                request(lambda: http.get("/graph-search", params={"term": "Metformin", "depth": 3}))
                request(lambda: http.post("/qa", json={"question": "What does Oleoylethanolamide increase?"}))
                request(lambda: http.get("/collections"))
                request(lambda: http.get("/health"))
            for _ in range(3):  # and after the run, on what it published
                request(lambda: http.get("/graph-search", params={"term": "Metformin"}))
            after = http.get("/health").json()["snapshot"]["version"]
            metformin = http.get("/graph-search", params={"term": "Metformin"}).json()
        assert ingestion.returncode == 0, ingestion.stderr.read()[-2000:]
        assert answered >= 8
        assert after > before  # the server picked up the snapshot the ingestion published
        assert metformin["paths"] and any(
            "longevity" in s["collection"] for p in metformin["paths"] for s in p["sources"]
        )
    finally:
        server.send_signal(signal.SIGINT)
        try:
            out, err = server.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            raise
    assert failures == [], err[-3000:]  # a 500's traceback is in the server's log
    assert server.returncode == 0
    assert err.strip().splitlines()[-1] == "stopped" and "Traceback" not in out + err
    assert "Loading weights" not in err  # no progress bars in a server's log


def test_serve_refuses_a_bad_port_with_one_line(sample):
    result = _cli(sample, "serve", "--port", "70000")
    assert result.exit_code == 2 and "70000 is not in the range 1<=x<=65535" in result.output


def test_requests_from_threads_share_one_app(client):
    errors: list[str] = []

    def hit() -> None:
        for _ in range(5):
            response = client.get("/graph-search", params={"term": "Akkermansia muciniphila", "depth": 2})
            if response.status_code != 200:
                errors.append(response.text)

    threads = [threading.Thread(target=hit) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
