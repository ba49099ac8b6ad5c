"""Every REST answer carries the security headers; the two pages carry their own policies.

No answer may be sniffed into another type, pass a referrer on or be framed;
the API's answers (refusals too, the HTTP layer's own included) load nothing;
the pages load only from the server itself (tests/web checks it in Chromium).
"""

from __future__ import annotations

import socket

import pytest

from mazzo.service.headers import DATA_POLICY, DOCS_POLICY, PLAY_POLICY
from tests.service.support import Stack, http_call

COMMON = {"x-content-type-options": "nosniff", "referrer-policy": "no-referrer"}


def _policy(text: str) -> dict[str, str]:
    """A Content-Security-Policy by directive."""
    directives = (part.strip().split(" ", 1) for part in text.split(";") if part.strip())
    return {name: value for name, value in directives}


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("GET", "/v1/catalog", None, 200),
        ("POST", "/v1/games", {"scopa": {}}, 200),
        ("POST", "/v1/games", {"players": "two"}, 400),
        ("GET", "/no/such/route", None, 404),
        ("DELETE", "/v1/catalog", None, 405),
        ("GET", "/healthz", None, 200),
        ("GET", "/openapi.json", None, 200),
        ("GET", "/docs/rapidoc-min.js", None, 200),
        ("GET", "/play/play.js", None, 200),
    ],
)
def test_every_api_answer_is_data_that_loads_nothing_and_is_framed_nowhere(
    stack: Stack, method: str, path: str, body: object, status: int
) -> None:
    reply = http_call(stack.http_port, method, path, body)
    assert reply.status == status
    assert COMMON.items() <= reply.headers.items()
    assert reply.headers["content-security-policy"] == DATA_POLICY
    assert _policy(DATA_POLICY) == {"default-src": "'none'", "frame-ancestors": "'none'"}


def test_a_refusal_of_the_http_layer_carries_the_headers_too(stack: Stack) -> None:
    with socket.create_connection(("127.0.0.1", stack.http_port), timeout=30) as sock:
        sock.sendall(b"GARBAGE\r\n\r\n")
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head = answer.partition(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")
    assert head[0].split()[1] == "400"
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in head[1:])}
    assert COMMON.items() <= headers.items()
    assert headers["content-security-policy"] == DATA_POLICY


@pytest.mark.parametrize(("path", "policy"), [("/play", PLAY_POLICY), ("/docs", DOCS_POLICY)])
def test_a_page_loads_only_from_the_server_and_is_framed_nowhere(
    stack: Stack, path: str, policy: str
) -> None:
    reply = http_call(stack.http_port, "GET", path)
    assert (reply.status, reply.content_type) == (200, "text/html; charset=utf-8")
    assert COMMON.items() <= reply.headers.items()
    assert reply.headers["content-security-policy"] == policy
    directives = _policy(policy)
    assert directives["default-src"] == "'none'" and directives["frame-ancestors"] == "'none'"
    assert directives["base-uri"] == directives["form-action"] == "'none'"
    sources = {source for value in directives.values() for source in value.split()}
    # No host, no scheme but data: for images, nothing inline but styles (RapiDoc's).
    assert sources <= {"'none'", "'self'", "data:", "'unsafe-inline'"}
    assert "'unsafe-inline'" not in directives.get("script-src", "")
