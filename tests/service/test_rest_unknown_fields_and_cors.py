"""REST options a deployment chooses: unknown JSON fields, and browsers from other origins.

Unknown fields are ignored by default (as protojson and grpc-gateway callers
expect: a newer client still talks to an older server); MAZZO_STRICT_JSON
refuses them. CORS headers are given only to the origins of MAZZO_CORS_ORIGINS.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.service.processes import started
from tests.service.support import Stack, http_call, running_stack

NEW_GAME_WITH_NEWER_FIELDS = {
    "players": 2,
    "scopa": {"target": 11, "houseRuleFromTheFuture": True},
    "seed": "7",
    "clientVersion": "9.9",
}


@pytest.fixture(scope="module")
def strict_stack() -> Iterator[Stack]:
    with running_stack(rest=True, strict_json=True) as running:
        yield running


APP = "https://app.example.com"


@pytest.fixture(scope="module")
def cors_stack() -> Iterator[Stack]:
    with running_stack(cors_origins=(APP, "http://localhost:3000")) as running:
        yield running


@pytest.fixture(scope="module")
def any_origin_stack() -> Iterator[Stack]:
    with running_stack(cors_origins=("*",)) as running:
        yield running


def _reason(body: Any) -> str:
    return str(body["error"]["details"][0]["reason"])


# ---------------------------------------------------------------- unknown fields


def test_unknown_fields_are_ignored_by_default(rest_port: int) -> None:
    reply = http_call(rest_port, "POST", "/v1/games", NEW_GAME_WITH_NEWER_FIELDS)
    assert reply.status == 200, reply.body
    known_only = {"players": 2, "scopa": {"target": 11}, "seed": "7"}
    plain = http_call(rest_port, "POST", "/v1/games", known_only)
    same_game = ("events", "status", "seed")

    def game(body: dict[str, Any]) -> dict[str, Any]:
        # The same deal, but every game gets a random id of its own.
        return {k: body[k] for k in same_game} | {"status": body["status"] | {"gameId": ""}}

    assert game(reply.json()) == game(plain.json())
    assert reply.json()["status"]["gameId"] != plain.json()["status"]["gameId"]


def test_an_unknown_enum_name_is_refused_even_when_unknown_fields_are_ignored(
    rest_port: int,
) -> None:
    body = {"scopa": {"variant": "SCOPA_VARIANT_FROM_THE_FUTURE"}, "seed": "1"}
    reply = http_call(rest_port, "POST", "/v1/games", body)
    assert reply.status == 400
    assert _reason(reply.json()) == "MALFORMED_REQUEST"


def test_strict_json_refuses_unknown_fields(strict_stack: Stack) -> None:
    for body in (NEW_GAME_WITH_NEWER_FIELDS, {"scopa": {}, "bogus": 1}, {"scopa": {"bogus": 1}}):
        reply = http_call(strict_stack.http_port, "POST", "/v1/games", body)
        assert reply.status == 400
        assert _reason(reply.json()) == "MALFORMED_REQUEST"
        assert "no field" in reply.json()["error"]["message"]


def test_strict_json_still_accepts_known_fields(strict_stack: Stack) -> None:
    reply = http_call(strict_stack.http_port, "POST", "/v1/games", {"scopa": {}, "seed": "3"})
    assert reply.status == 200


def test_a_wrong_type_is_refused_in_either_mode(rest_port: int, strict_stack: Stack) -> None:
    for port in (rest_port, strict_stack.http_port):
        reply = http_call(port, "POST", "/v1/games", {"scopa": {}, "players": "two"})
        assert reply.status == 400 and _reason(reply.json()) == "MALFORMED_REQUEST"


# ---------------------------------------------------------------- CORS


def _headers(
    port: int, method: str, path: str, body: object = None, **headers: str
) -> tuple[int, dict[str, str]]:
    """One request with these headers: the status and the answer's headers (lower case)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        data = None if body is None else json.dumps(body).encode()
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}
    finally:
        connection.close()


API_ROUTES = [
    "/v1/games",
    "/v1/games:play",
    "/v1/games:validate",
    "/v1/games:legalMoves",
    "/v1/games:view",
]
PREFLIGHT = {"Access-Control-Request-Method": "POST"}


@pytest.mark.parametrize("path", API_ROUTES)
def test_a_preflight_from_an_allowed_origin_is_answered(cors_stack: Stack, path: str) -> None:
    status, headers = _headers(
        cors_stack.http_port,
        "OPTIONS",
        path,
        Origin=APP,
        **PREFLIGHT,
        **{"Access-Control-Request-Headers": "content-type"},
    )
    assert status in (200, 204)
    assert headers["access-control-allow-origin"] == APP
    assert "POST" in headers["access-control-allow-methods"]
    assert headers["access-control-allow-headers"] == "content-type"
    assert int(headers["access-control-max-age"]) > 0
    assert "origin" in headers["vary"].lower()


def test_the_catalog_preflight_allows_get(cors_stack: Stack) -> None:
    get = {"Access-Control-Request-Method": "GET"}
    status, headers = _headers(cors_stack.http_port, "OPTIONS", "/v1/catalog", Origin=APP, **get)
    assert status in (200, 204)
    assert "GET" in headers["access-control-allow-methods"]


def test_an_answer_to_an_allowed_origin_names_it_errors_too(cors_stack: Stack) -> None:
    port = cors_stack.http_port
    status, headers = _headers(port, "POST", "/v1/games", {"scopa": {}}, Origin=APP)
    assert status == 200 and headers["access-control-allow-origin"] == APP
    status, headers = _headers(port, "POST", "/v1/games:play", {"state": "AA=="}, Origin=APP)
    assert status == 400 and headers["access-control-allow-origin"] == APP


def test_another_origin_gets_no_cors_headers(cors_stack: Stack) -> None:
    port = cors_stack.http_port
    other = "https://evil.example.com"
    status, headers = _headers(port, "OPTIONS", "/v1/games", Origin=other, **PREFLIGHT)
    assert not any(name.startswith("access-control-") for name in headers)
    status, headers = _headers(port, "POST", "/v1/games", {"scopa": {}}, Origin=other)
    assert status == 200
    assert not any(name.startswith("access-control-") for name in headers)


def test_without_cors_origins_no_cors_headers_are_given(rest_port: int) -> None:
    status, headers = _headers(rest_port, "OPTIONS", "/v1/games", Origin=APP, **PREFLIGHT)
    assert not any(name.startswith("access-control-") for name in headers)
    status, headers = _headers(rest_port, "POST", "/v1/games", {"scopa": {}}, Origin=APP)
    assert status == 200
    assert not any(name.startswith("access-control-") for name in headers)


def test_a_star_allows_any_origin_without_naming_it(any_origin_stack: Stack) -> None:
    port = any_origin_stack.http_port
    status, headers = _headers(
        port, "POST", "/v1/games", {"scopa": {}}, Origin="http://x.test:5173"
    )
    assert status == 200
    assert headers["access-control-allow-origin"] == "*"


# ---------------------------------------------------------------- from the environment


@pytest.mark.parametrize("workers", ["1", "2"])
def test_the_server_process_takes_both_settings_from_the_environment(workers: str) -> None:
    """`python -m mazzo.service`, one process or several: the settings reach the gateway."""
    settings = {"MAZZO_CORS_ORIGINS": APP, "MAZZO_STRICT_JSON": "true", "MAZZO_WORKERS": workers}
    with started(**settings) as server:
        server.wait_until_listening()
        port = server.ports["REST"]
        status, headers = _headers(port, "POST", "/v1/games", {"scopa": {}}, Origin=APP)
        assert status == 200 and headers["access-control-allow-origin"] == APP
        refused = http_call(port, "POST", "/v1/games", {"scopa": {}, "bogus": 1})
        assert refused.status == 400 and _reason(refused.json()) == "MALFORMED_REQUEST"
        openapi = http_call(port, "GET", "/openapi.json")
        assert openapi.status == 200 and openapi.json()["openapi"].startswith("3.1")
