"""A scripted fake of the OpenAI HTTP API on 127.0.0.1, for driving the real ``openai`` client.

It speaks ``POST /v1/chat/completions`` and ``POST /v1/embeddings``. Each request pops the next
behaviour from its endpoint's queue; when the queue is empty the endpoint's default behaviour
answers (``AUTO`` unless changed with ``set_default``). Every request is recorded (path, headers,
parsed JSON body) in ``server.requests``.

Behaviours (build them with the helpers below)::

    json_content({"summary": "..."})     # message content = the dict as JSON (the valid path)
    text_content("not json {")           # message content = raw text
    http_error(429, retry_after=1)       # OpenAI-style error body, optional retry-after header
    delay(2.0, then=AUTO)                # wait, then answer (for client timeouts)
    refusal("I can't help with that")    # message.content = null, message.refusal = text
    empty_content() / no_choices()       # content "" / an empty choices list
    disconnect()                         # close the connection without an answer (a connection error)
    AUTO                                 # a valid, schema-conforming answer (see ``auto_answer``)

Outages (the endpoint is down for a while, then recovers)::

    server.fail_until()                  # every request fails with HTTP 503 until server.recover()
    server.fail_until(count=3)           # ... the next 3 requests fail, then the server recovers
    server.fail_until(seconds=2.0)       # ... requests within the next 2 s fail
    server.fail_until(mode="disconnect") # ... connections are closed without an answer instead
    server.recover()                     # back to normal at once
    server.outage_active, server.outage_failures   # is it down; requests failed by outages so far

During an outage requests to every endpoint fail and are recorded (``RecordedRequest.outage`` is
True); rules, queued behaviours and defaults are not consumed, they answer after the recovery.

Use in a test module::

    from tests.fake_openai import fake_openai, json_content  # noqa: F401  (the fixture)

    def test_x(fake_openai):
        fake_openai.push(json_content({...}))
        provider = OpenAIProvider("gpt-5-mini", "test", base_url=fake_openai.base_url, timeout_s=2)

Every wait is bounded: delays are capped and cut short when the server stops, handler threads are
daemons with a socket timeout, and shutdown never waits for a handler.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

import pytest

MAX_DELAY_S = 10.0
EMBEDDING_DIM = 8
Endpoint = Literal["chat", "embeddings"]
_PATHS: dict[str, Endpoint] = {"/v1/chat/completions": "chat", "/v1/embeddings": "embeddings"}


# -- behaviours ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Behaviour:
    kind: Literal["auto", "json", "text", "error", "delay", "refusal", "empty", "no_choices", "disconnect"]
    content: Any = None
    status: int = 200
    message: str = ""
    headers: tuple[tuple[str, str], ...] = ()
    seconds: float = 0.0
    then: Behaviour | None = None


AUTO = Behaviour("auto")


def json_content(obj: Any) -> Behaviour:
    return Behaviour("json", content=obj)


def text_content(text: str) -> Behaviour:
    return Behaviour("text", content=text)


def http_error(status: int, message: str | None = None, retry_after: float | None = None) -> Behaviour:
    headers = (("retry-after", f"{retry_after:g}"),) if retry_after is not None else ()
    return Behaviour("error", status=status, message=message or f"fake upstream error {status}", headers=headers)


def delay(seconds: float, then: Behaviour = AUTO) -> Behaviour:
    if not 0 <= seconds <= MAX_DELAY_S:
        raise ValueError(f"delay must be within 0..{MAX_DELAY_S} s, got {seconds}")
    return Behaviour("delay", seconds=seconds, then=then)


def refusal(text: str = "I'm sorry, I can't help with that.") -> Behaviour:
    return Behaviour("refusal", content=text)


def empty_content() -> Behaviour:
    return Behaviour("empty")


def no_choices() -> Behaviour:
    return Behaviour("no_choices")


def disconnect() -> Behaviour:
    """Close the connection without sending a response (the client sees a connection error)."""
    return Behaviour("disconnect")


# -- deterministic answers -------------------------------------------------------------------------
def vector_for(text: str, dim: int = EMBEDDING_DIM) -> list[float]:
    """A deterministic vector in [-1, 1] from a hash of ``text`` (float32-exact values)."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    raw = [(digest[i] - 127.5) / 127.5 for i in range(dim)]
    return list(struct.unpack(f"<{dim}f", struct.pack(f"<{dim}f", *raw)))


def _words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z0-9][A-Za-z0-9'\-]*", text)


def _first_sentence(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    match = re.match(r"(.+?[.!?])(\s|$)", text)
    sentence = match.group(1) if match else text
    return sentence[:limit].strip()


def _find_enum(node: Any) -> list[str] | None:
    """The entity-type enum of an entities_relationships schema (the first enum found)."""
    if isinstance(node, dict):
        entity = node.get("$defs", {}).get("ExtractedEntity", {}).get("properties", {}).get("entity_type", {})
        if isinstance(entity, dict) and entity.get("enum"):
            return list(entity["enum"])
        if isinstance(node.get("enum"), list) and node["enum"]:
            return list(node["enum"])
        for value in node.values():
            found = _find_enum(value)
            if found:
                return found
    elif isinstance(node, list):
        for value in node:
            found = _find_enum(value)
            if found:
                return found
    return None


def auto_answer(body: dict) -> dict:
    """A valid answer for the request's ``response_format`` schema name; KeyError if unknown."""
    rf = body.get("response_format") or {}
    spec = rf.get("json_schema") or {}
    name = spec.get("name")
    messages = body.get("messages") or []
    system = next((m.get("content") or "" for m in messages if m.get("role") == "system"), "")
    user = next((m.get("content") or "" for m in reversed(messages) if m.get("role") == "user"), "")
    if not isinstance(user, str):
        user = json.dumps(user)
    if name == "chunk_summary":
        block = user.split("Block to summarize:", 1)[-1]
        sentence = _first_sentence(block) or "An empty block"
        return {"summary": f"The block says: {sentence}"}
    if name == "entities_relationships":
        types = _find_enum(spec.get("schema") or {}) or ["concept"]
        words = _words(user)
        entity_name = " ".join(words[:3]).title() if words else "Unnamed Entity"
        return {
            "entities": [
                {
                    "entity_name": entity_name,
                    "entity_type": types[0],
                    "entity_description": _first_sentence(user) or "Mentioned in the chunk.",
                }
            ],
            "relationships": [],
        }
    if name == "atomic_questions":
        low, high = 5, 10
        found = re.search(r"(\d+)\s*-\s*(\d+)", system)
        if found:
            low, high = int(found.group(1)), int(found.group(2))
        count = max(low, min(5, high))
        words = _words(user)
        topic = " ".join(words[:4]) if words else "the chunk"
        return {"questions": [f"What does the text state about {topic} (point {i + 1})?" for i in range(count)]}
    raise KeyError(name)


# -- the server -------------------------------------------------------------------------------
@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]  # lower-case names
    body: Any  # the parsed JSON body (None if it was not JSON)
    received_at: float = field(default_factory=time.monotonic)
    outage: bool = False  # failed by an outage (``fail_until``)

    @property
    def endpoint(self) -> Endpoint | None:
        return _PATHS.get(self.path)


@dataclass
class _Outage:
    failure: Behaviour
    left: int | None  # requests still to fail (None: no count)
    deadline: float | None  # the server clock's time at which it ends (None: no deadline)


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # handler threads never keep the process alive
    block_on_close = False  # server_close() does not wait for handlers (a delayed one, say)
    allow_reuse_address = True


class FakeOpenAI:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock  # for outage deadlines (a test may pass a fake clock)
        self._lock = threading.Lock()
        self._queues: dict[Endpoint, deque[Behaviour]] = {"chat": deque(), "embeddings": deque()}
        self._defaults: dict[Endpoint, Behaviour] = {"chat": AUTO, "embeddings": AUTO}
        self._rules: list[list] = []  # [schema name, conversation id or None, behaviour, times left or None]
        self._requests: list[RecordedRequest] = []
        self._stopping = threading.Event()
        self._counter = 0
        self._outage: _Outage | None = None
        self._outage_failures = 0
        self._httpd = _Server(("127.0.0.1", 0), _make_handler(self))
        self.port: int = self._httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-openai", daemon=True
        )
        self._thread.start()

    # -- scripting --------------------------------------------------------------------------
    def push(self, *behaviours: Behaviour, endpoint: Endpoint = "chat") -> FakeOpenAI:
        with self._lock:
            self._queues[endpoint].extend(behaviours)
        return self

    def rule(
        self, schema: str, behaviour: Behaviour, conversation_id: str | None = None, times: int | None = None
    ) -> FakeOpenAI:
        """Answer chat requests for ``schema`` (and, if given, that conversation id, i.e. chunk id)
        with ``behaviour``, ``times`` times (None: until ``clear_rules``). Rules come before the queue."""
        with self._lock:
            self._rules.append([schema, conversation_id, behaviour, times])
        return self

    def clear_rules(self) -> None:
        with self._lock:
            self._rules.clear()

    def set_default(self, behaviour: Behaviour, endpoint: Endpoint = "chat") -> FakeOpenAI:
        with self._lock:
            self._defaults[endpoint] = behaviour
        return self

    # -- outages ------------------------------------------------------------------------------
    def fail_until(
        self,
        count: int | None = None,
        seconds: float | None = None,
        status: int = 503,
        mode: Literal["http", "disconnect"] = "http",
        retry_after: float | None = None,
    ) -> FakeOpenAI:
        """Start an outage: every request, to any endpoint, fails until ``recover()``; or, with
        ``count``, for the next ``count`` requests; or, with ``seconds``, until that much time has
        passed (with both, whichever ends first). ``mode="http"`` answers HTTP ``status`` (503 by
        default, with an optional ``retry-after`` header); ``mode="disconnect"`` closes the
        connection without an answer. Rules, queued behaviours and defaults are kept for after."""
        if count is not None and count < 1:
            raise ValueError(f"count must be at least 1, got {count}")
        if seconds is not None and seconds <= 0:
            raise ValueError(f"seconds must be positive, got {seconds}")
        if mode not in ("http", "disconnect"):
            raise ValueError(f"mode must be 'http' or 'disconnect', got {mode!r}")
        failure = (
            http_error(status, f"fake upstream outage ({status})", retry_after=retry_after)
            if mode == "http"
            else disconnect()
        )
        deadline = self._clock() + seconds if seconds is not None else None
        with self._lock:
            self._outage = _Outage(failure, count, deadline)
        return self

    def recover(self) -> FakeOpenAI:
        """End the outage now (a no-op when there is none)."""
        with self._lock:
            self._outage = None
        return self

    @property
    def outage_active(self) -> bool:
        with self._lock:
            return self._outage_live()

    @property
    def outage_failures(self) -> int:
        """How many requests outages have failed since the server started (or ``reset``)."""
        with self._lock:
            return self._outage_failures

    def _outage_live(self) -> bool:  # with the lock held
        outage = self._outage
        if outage is None:
            return False
        if (outage.left is not None and outage.left <= 0) or (
            outage.deadline is not None and self._clock() >= outage.deadline
        ):
            self._outage = None
            return False
        return True

    def pending(self, endpoint: Endpoint = "chat") -> int:
        with self._lock:
            return len(self._queues[endpoint])

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    def requests_to(self, endpoint: Endpoint) -> list[RecordedRequest]:
        return [r for r in self.requests if r.endpoint == endpoint]

    def reset(self) -> None:
        with self._lock:
            for queue in self._queues.values():
                queue.clear()
            self._defaults = {"chat": AUTO, "embeddings": AUTO}
            self._rules.clear()
            self._requests.clear()
            self._outage = None
            self._outage_failures = 0

    def stop(self) -> None:
        self._stopping.set()  # wakes any delayed handler
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=2)

    def __enter__(self) -> FakeOpenAI:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- used by the handler ------------------------------------------------------------------
    def _record(self, path: str, headers: dict[str, str], body: Any) -> Behaviour | None:
        endpoint = _PATHS.get(path)
        with self._lock:
            self._counter += 1
            if endpoint is not None and self._outage_live():
                outage = self._outage
                assert outage is not None
                if outage.left is not None:
                    outage.left -= 1
                self._outage_failures += 1
                self._requests.append(RecordedRequest(path, headers, body, outage=True))
                return outage.failure
            self._requests.append(RecordedRequest(path, headers, body))
            if endpoint is None:
                return None
            if endpoint == "chat" and isinstance(body, dict):
                schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("name")
                conversation = headers.get("x-conversation-id") or headers.get("X-Conversation-Id") or body.get("user")
                for rule in self._rules:
                    if rule[0] == schema and rule[1] in (None, conversation) and rule[3] != 0:
                        if rule[3] is not None:
                            rule[3] -= 1
                        return rule[2]
            queue = self._queues[endpoint]
            return queue.popleft() if queue else self._defaults[endpoint]

    def _next_id(self) -> int:
        with self._lock:
            return self._counter

    def _wait(self, seconds: float) -> bool:
        """Sleep up to ``seconds``; False if the server is stopping."""
        return not self._stopping.wait(min(seconds, MAX_DELAY_S))


def _error_body(status: int, message: str) -> dict:
    kind = {
        400: "invalid_request_error",
        401: "authentication_error",
        404: "not_found_error",
        429: "rate_limit_exceeded",
    }.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return {"error": {"message": message, "type": kind, "param": None, "code": kind}}


def _make_handler(server: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        timeout = 5  # an idle keep-alive connection ends its thread after this

        def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
            pass

        def _send(self, status: int, payload: Any, headers: tuple[tuple[str, str], ...] = ()) -> None:
            data = json.dumps(payload).encode("utf-8")
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("x-request-id", f"req_fake_{server._next_id()}")
                for name, value in headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError, OSError):
                self.close_connection = True  # the client gave up (a timeout): nothing to do

        def do_GET(self) -> None:
            server._record(self.path, {k.lower(): v for k, v in self.headers.items()}, None)
            self._send(404, _error_body(404, f"fake server: no route GET {self.path}"))

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(min(length, 50_000_000)) if length > 0 else b""
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = None
            headers = {k.lower(): v for k, v in self.headers.items()}
            behaviour = server._record(self.path, headers, body)
            endpoint = _PATHS.get(self.path)
            if behaviour is None or endpoint is None:
                self._send(404, _error_body(404, f"fake server: no route POST {self.path}"))
                return
            if behaviour.kind == "disconnect":
                self.close_connection = True  # no status line, no body: the client sees a dropped connection
                return
            if not isinstance(body, dict):
                self._send(400, _error_body(400, "fake server: the request body is not a JSON object"))
                return
            self._answer(endpoint, behaviour, body)

        def _answer(self, endpoint: Endpoint, behaviour: Behaviour, body: dict) -> None:
            while behaviour.kind == "delay":
                if not server._wait(behaviour.seconds):
                    self.close_connection = True
                    return
                behaviour = behaviour.then or AUTO
            if behaviour.kind == "disconnect":
                self.close_connection = True
                return
            if behaviour.kind == "error":
                self._send(behaviour.status, _error_body(behaviour.status, behaviour.message), behaviour.headers)
            elif endpoint == "embeddings":
                self._embeddings(behaviour, body)
            else:
                self._chat(behaviour, body)

        def _chat(self, behaviour: Behaviour, body: dict) -> None:
            content: str | None
            refused: str | None = None
            choices_empty = False
            if behaviour.kind == "auto":
                try:
                    content = json.dumps(auto_answer(body))
                except KeyError as exc:
                    self._send(400, _error_body(400, f"fake server: AUTO does not know the schema {exc}"))
                    return
            elif behaviour.kind == "json":
                content = json.dumps(behaviour.content)
            elif behaviour.kind == "text":
                content = str(behaviour.content)
            elif behaviour.kind == "refusal":
                content, refused = None, str(behaviour.content)
            elif behaviour.kind == "empty":
                content = ""
            elif behaviour.kind == "no_choices":
                content, choices_empty = None, True
            else:
                self._send(500, _error_body(500, f"fake server: unknown behaviour {behaviour.kind!r}"))
                return
            message = {"role": "assistant", "content": content, "refusal": refused}
            choices = (
                [] if choices_empty else [{"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}]
            )
            self._send(
                200,
                {
                    "id": f"chatcmpl-fake-{server._next_id()}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": body.get("model", "fake"),
                    "choices": choices,
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                },
            )

        def _embeddings(self, behaviour: Behaviour, body: dict) -> None:
            if behaviour.kind == "json":  # a scripted raw response body
                self._send(200, behaviour.content)
                return
            if behaviour.kind != "auto":
                self._send(500, _error_body(500, f"fake server: {behaviour.kind!r} does not apply to embeddings"))
                return
            inputs = body.get("input")
            texts = [inputs] if isinstance(inputs, str) else list(inputs or [])
            if not texts or not all(isinstance(t, str) for t in texts):
                self._send(400, _error_body(400, "fake server: input must be a string or a list of strings"))
                return
            as_base64 = body.get("encoding_format") == "base64"
            data = []
            for i, text in enumerate(texts):
                vector = vector_for(text)
                value: Any = (
                    base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii") if as_base64 else vector
                )
                data.append({"object": "embedding", "index": i, "embedding": value})
            self._send(
                200,
                {
                    "object": "list",
                    "data": data,
                    "model": body.get("model", "fake"),
                    "usage": {"prompt_tokens": len(texts), "total_tokens": len(texts)},
                },
            )

    return Handler


def closed_port_url() -> str:
    """A loopback base URL where nothing listens (connection refused)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI()
    try:
        yield server
    finally:
        server.stop()
