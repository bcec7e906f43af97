"""API key authentication: ``Authorization: Bearer <key>``, the key from ``KG_API_KEY``.

The rule (``serving_api_key``):
- on a loopback host (127.0.0.0/8, ::1, ``localhost``) the API is open unless ``KG_API_KEY`` is
  set; when it is set, it is required there too (a key someone set is never silently ignored);
- on any other host (``0.0.0.0``, ``::``, a LAN address, a name) ``KG_API_KEY`` must be set, else
  ``serve`` refuses to start.

The key comes only from the environment, never from a command-line value (a process list and a
shell history show those). It is at least ``MIN_KEY_CHARS`` visible ASCII characters (what a
header can carry as it is), compared in constant time (``hmac.compare_digest``) and never logged
nor echoed: a 401 says what is missing, not what was sent.
"""

from __future__ import annotations

import hmac
import ipaddress
import json

API_KEY_ENV = "KG_API_KEY"
MIN_KEY_CHARS = 16
REALM = "kg-pipelines"
MAKE_A_KEY = "python -c 'import secrets; print(secrets.token_urlsafe(32))'"


class APIKeyError(ValueError):
    """The server cannot start with this host and key (the message is one line and names no key)."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` only accepts connections from this machine."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip().strip("[]")).is_loopback
    except ValueError:
        return False  # a name other than localhost may resolve to anything


def check_api_key(key: str) -> str:
    """``key`` when it is usable as a bearer token, else APIKeyError saying why (not what it is)."""
    if len(key) < MIN_KEY_CHARS:
        raise APIKeyError(f"{API_KEY_ENV} is too short: at least {MIN_KEY_CHARS} characters (make one: {MAKE_A_KEY})")
    if not all("!" <= c <= "~" for c in key):
        raise APIKeyError(f"{API_KEY_ENV} must be visible ASCII characters without spaces (make one: {MAKE_A_KEY})")
    return key


def serving_api_key(host: str, environ) -> str | None:
    """The key requests must send when serving on ``host``, None when the API is open (loopback
    without ``KG_API_KEY``), or APIKeyError when the server must not start."""
    key = environ.get(API_KEY_ENV) or None
    if key is None:
        if is_loopback(host):
            return None
        raise APIKeyError(
            f"refusing to serve on {host} without authentication: set {API_KEY_ENV} to a secret of at least "
            f"{MIN_KEY_CHARS} characters (make one: {MAKE_A_KEY}), or serve on 127.0.0.1"
        )
    return check_api_key(key)


# The explorer's page and its static files (HTML, CSS, JavaScript, the drawing library) hold no
# data: a browser loads them by navigation, which cannot send a bearer header; every data request
# the page makes carries the key the user gives it.
PUBLIC_PATHS = ("/explore",)
PUBLIC_PREFIXES = ("/explore/static/",)


def _holds_no_data(path: str) -> bool:
    return path in PUBLIC_PATHS or path.startswith(PUBLIC_PREFIXES)


class BearerAuth:
    """ASGI middleware: every HTTP request (the API, ``/docs`` and ``/openapi.json`` alike, all but
    the explorer's page and static files) must carry ``Authorization: Bearer <key>``; otherwise 401
    with ``{"detail": ...}`` and a ``WWW-Authenticate`` header (RFC 6750)."""

    def __init__(self, app, key: str) -> None:
        self.app = app
        self._key = check_api_key(key).encode("ascii")

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or _holds_no_data(scope.get("path", "")):
            await self.app(scope, receive, send)
            return
        refusal = self._refusal(dict(scope["headers"]).get(b"authorization"))
        if refusal is None:
            await self.app(scope, receive, send)
            return
        detail, challenge = refusal
        body = json.dumps({"detail": detail}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", challenge.encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    def _refusal(self, header: bytes | None) -> tuple[str, str] | None:
        """None when ``header`` carries the key, else (detail, WWW-Authenticate challenge)."""
        challenge = f'Bearer realm="{REALM}"'
        if header is None:
            return (
                f"authentication required: send 'Authorization: Bearer <key>' (the server's {API_KEY_ENV})",
                challenge,
            )
        scheme, _, token = header.strip().partition(b" ")
        if scheme.lower() != b"bearer" or not token.strip():
            return "the Authorization header must be 'Bearer <key>'", f'{challenge}, error="invalid_request"'
        if not hmac.compare_digest(token.strip(), self._key):
            return "invalid API key", f'{challenge}, error="invalid_token"'
        return None
