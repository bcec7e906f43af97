"""Authentication beyond loopback: ``serve`` on another host needs ``KG_API_KEY``, and then every
request must send ``Authorization: Bearer <key>``; the key is compared in constant time and never
shows in the server's output."""

from __future__ import annotations

import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings

from kg_pipelines.api import auth
from kg_pipelines.api.app import create_app
from kg_pipelines.api.auth import APIKeyError, is_loopback, serving_api_key
from kg_pipelines.api.models import ErrorResponse
from kg_pipelines.config import load_settings
from tests.conftest import REPO_ROOT, free_port, server_env
from tests.test_api_contract import FUZZING

KEY = "kg-test-7Qm2vX9pL4rT8wZ1nB6cD3"  # made up for these tests
BEARER = {"Authorization": f"Bearer {KEY}"}
CALLS = [
    ("GET", "/health", None),
    ("GET", "/collections", None),
    ("GET", "/graph-search?term=SIRT1", None),
    ("POST", "/qa", {"question": "What does SIRT1 do?"}),
    ("GET", "/openapi.json", None),
    ("GET", "/docs", None),
    ("GET", "/nowhere", None),
]


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.20", False),
        ("my-server.example", False),
    ],
)
def test_which_hosts_are_loopback(host, loopback):
    assert is_loopback(host) is loopback


def test_the_key_a_host_needs():
    assert serving_api_key("127.0.0.1", {}) is None  # the local demo stays open
    assert serving_api_key("127.0.0.1", {"KG_API_KEY": ""}) is None
    assert serving_api_key("127.0.0.1", {"KG_API_KEY": KEY}) == KEY  # a key someone set is required
    assert serving_api_key("0.0.0.0", {"KG_API_KEY": KEY}) == KEY
    for environ in ({}, {"KG_API_KEY": ""}):
        with pytest.raises(APIKeyError, match="refusing to serve on 0.0.0.0 without authentication: set KG_API_KEY"):
            serving_api_key("0.0.0.0", environ)
    for bad, why in [("short-key", "too short"), ("a key with spaces inside", "visible ASCII"), ("ключ" * 5, "ASCII")]:
        with pytest.raises(APIKeyError, match=why) as refused:
            serving_api_key("0.0.0.0", {"KG_API_KEY": bad})
        assert bad not in str(refused.value)


def _kg(data: Path) -> list[str]:
    return [sys.executable, "-c", "from kg_pipelines.cli import main; main()", "--data-dir", str(data)]


@pytest.mark.parametrize(
    ("key", "reason"),
    [
        (None, "Error: refusing to serve on 0.0.0.0 without authentication: set KG_API_KEY to a secret of at least "),
        ("", "Error: refusing to serve on 0.0.0.0 without authentication"),
        ("tiny-key", "Error: KG_API_KEY is too short: at least 16 characters"),
    ],
)
def test_serve_on_all_interfaces_without_a_usable_key_refuses_to_start(tmp_path, key, reason):
    data, env = server_env(tmp_path)
    env["PYTHONPATH"] = str(REPO_ROOT)
    env.pop("KG_API_KEY", None)
    if key is not None:
        env["KG_API_KEY"] = key
    started = time.monotonic()
    result = subprocess.run(
        [*_kg(data), "serve", "--host", "0.0.0.0", "--port", str(free_port())],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith(reason) and result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.stderr and (not key or key not in result.stderr)
    assert time.monotonic() - started < 120


def _error(response: httpx.Response) -> str:
    assert response.status_code == 401, response.text
    assert response.headers["content-type"] == "application/json"
    assert response.headers["www-authenticate"].startswith('Bearer realm="kg-pipelines"')
    body = response.json()
    assert set(body) == {"detail"} and ErrorResponse.model_validate(body)
    return body["detail"]


def _ask(http, method: str, path: str, body, headers: dict | None = None) -> httpx.Response:
    return http.request(method, path, json=body, headers=headers or {})


def test_a_server_on_all_interfaces_with_a_key_answers_only_requests_that_carry_it(tmp_path):
    data, env = server_env(tmp_path)
    env["PYTHONPATH"] = str(REPO_ROOT)
    env["KG_API_KEY"] = KEY
    port = free_port()
    server = subprocess.Popen(
        [*_kg(data), "serve", "--host", "0.0.0.0", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as http:
            deadline = time.monotonic() + 90
            while True:
                try:
                    http.get("/health")
                    break
                except httpx.HTTPError:
                    assert time.monotonic() < deadline and server.poll() is None, "the server did not start"
                    time.sleep(0.2)
            for method, path, body in CALLS:
                assert "authentication required" in _error(_ask(http, method, path, body)), path
                wrong = _ask(http, method, path, body, {"Authorization": f"Bearer {KEY[:-1]}x"})
                assert _error(wrong) == "invalid API key"
                assert wrong.headers["www-authenticate"].endswith('error="invalid_token"')
                assert "must be 'Bearer <key>'" in _error(_ask(http, method, path, body, {"Authorization": KEY}))
                accepted = _ask(http, method, path, body, BEARER)
                assert accepted.status_code == (404 if path == "/nowhere" else 200), (path, accepted.text)
    finally:
        server.send_signal(signal.SIGINT)
        try:
            out, err = server.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            raise
    assert server.returncode == 0
    assert "on http://0.0.0.0:" in out and "requests must send 'Authorization: Bearer $KG_API_KEY'" in out
    assert KEY not in out + err and KEY[:-1] not in out + err  # neither the key nor what was tried


@pytest.fixture
def empty_settings(tmp_path):
    return load_settings(tmp_path)


def test_an_app_refuses_an_unusable_key_when_it_is_made(empty_settings):
    with pytest.raises(APIKeyError, match="too short"):
        create_app(empty_settings, api_key="tiny-key")


def test_every_request_of_an_app_with_a_key_needs_it(empty_settings):
    client = TestClient(create_app(empty_settings, api_key=KEY))
    for method, path, body in CALLS:
        refused = client.request(method, path, json=body)
        assert refused.status_code == 401 and refused.json()["detail"].startswith("authentication required")
        assert client.request(method, path, json=body, headers={"Authorization": "Basic a2c6a2c="}).status_code == 401
        assert client.request(method, path, json=body, headers={"Authorization": "Bearer"}).status_code == 401
        assert client.request(method, path, json=body, headers={"Authorization": f"Bearer {KEY}"}).status_code in (
            200,
            404,
        )
    # the scheme is case-insensitive (RFC 7235); the key is not
    assert client.get("/health", headers={"Authorization": f"bearer {KEY}"}).status_code == 200
    assert client.get("/health", headers={"Authorization": f"Bearer {KEY.upper()}"}).status_code == 401


def test_the_key_is_compared_in_constant_time(empty_settings, monkeypatch):
    compared = []

    def compare_digest(a, b):
        compared.append((a, b))
        return a == b

    monkeypatch.setattr(auth.hmac, "compare_digest", compare_digest)
    client = TestClient(create_app(empty_settings, api_key=KEY))
    assert client.get("/health", headers={"Authorization": "Bearer guess-guess-guess"}).status_code == 401
    assert client.get("/health", headers=BEARER).status_code == 200
    assert compared == [(b"guess-guess-guess", KEY.encode()), (KEY.encode(), KEY.encode())]


def test_the_schema_of_an_app_with_a_key_documents_the_scheme_and_the_401(empty_settings):
    schema = TestClient(create_app(empty_settings, api_key=KEY)).get("/openapi.json", headers=BEARER).json()
    assert schema["components"]["securitySchemes"] == {
        "HTTPBearer": {"type": "http", "scheme": "bearer", "description": "The server's KG_API_KEY"}
    }
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            assert operation["security"] == [{"HTTPBearer": []}], (method, path)
            unauthorized = operation["responses"]["401"]
            assert unauthorized["content"]["application/json"]["schema"] == {
                "$ref": "#/components/schemas/ErrorResponse"
            }
            assert "WWW-Authenticate" in unauthorized["headers"]
    assert KEY not in str(schema)


# -- the same contract fuzzed with the key: 401 without it, as documented ------------------------------

with tempfile.TemporaryDirectory() as _empty:
    KEYED = schemathesis.openapi.from_asgi(
        "/openapi.json",
        create_app(load_settings(Path(_empty)), api_key=KEY),
        headers=BEARER,
        config=schemathesis.Config.from_dict(FUZZING),
    )


@KEYED.parametrize()
@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_keyed_app_answers_as_documented(case):
    case.call_and_validate(headers=BEARER)
