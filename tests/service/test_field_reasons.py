"""A value a field cannot take is refused with that field's own reason, over REST as
over gRPC: a state that is not base64 is no state token, a seed out of 0..2**64-1
is INVALID_SEED, an idempotency key that is not base64 is INVALID_IDEMPOTENCY_KEY,
a clock's unknown onTimeout is INVALID_CLOCK. Never STATE_MISSING for a state
that was given, and never the catch-all MALFORMED_REQUEST where the field has
a reason of its own; JSON of a type the field never takes is MALFORMED_REQUEST."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from mazzo.service.errors import ApiError
from mazzo.v1 import engine_pb2 as pb
from mazzo.v1 import engine_pb2_grpc
from tests.service.support import Stack, http_call, refusal_of

NOT_A_TOKEN = "STATE_UNRECOGNIZED"


def _rest_refusal(port: int, path: str, body: object, language: str = "en") -> dict[str, Any]:
    reply = http_call(port, "POST", path, body, headers={"Accept-Language": language})
    assert reply.status == 400, reply.body
    error: dict[str, Any] = reply.json()["error"]
    assert error["status"] == "INVALID_ARGUMENT"
    return error


def _reason(error: dict[str, Any]) -> str:
    return str(error["details"][0]["reason"])


@pytest.mark.parametrize("text", ["@@@!", "hello", "A", "AQ*=", " AQ==", "AQ==AQ=="])
@pytest.mark.parametrize("path", ["/v1/games:play", "/v1/games:view", "/v1/games:legalMoves"])
def test_a_state_that_is_not_base64_is_no_state_token_not_a_missing_one(
    rest_port: int, path: str, text: str
) -> None:
    error = _rest_refusal(rest_port, path, {"state": text})
    assert _reason(error) == NOT_A_TOKEN
    assert error["message"] == (
        "state is not a Mazzo state token: it is not base64 (standard or URL-safe)"
    )
    italian = _rest_refusal(rest_port, path, {"state": text}, language="it")
    assert _reason(italian) == NOT_A_TOKEN and "base64" in italian["message"]
    assert italian["message"] != error["message"]


@pytest.mark.parametrize("text", ["@@@!", "hello"])
def test_grpc_refuses_the_same_text_sent_as_bytes_with_the_same_reason(
    stub: engine_pb2_grpc.EngineStub, rest_port: int, text: str
) -> None:
    with pytest.raises(grpc.RpcError) as refused:
        stub.LegalMoves(pb.LegalMovesRequest(state=text.encode()), timeout=10)
    assert refusal_of(refused.value).reason == NOT_A_TOKEN
    rest = _rest_refusal(rest_port, "/v1/games:legalMoves", {"state": text})
    assert _reason(rest) == NOT_A_TOKEN


def test_a_state_left_out_or_empty_is_still_missing(rest_port: int) -> None:
    for body in ({}, {"state": ""}):
        assert _reason(_rest_refusal(rest_port, "/v1/games:view", body)) == "STATE_MISSING"


SEEDS_OUT_OF_RANGE: list[object] = [-1, "-1", 2**64, "18446744073709551616", "abc", 1.5]


@pytest.mark.parametrize("seed", SEEDS_OUT_OF_RANGE)
def test_a_seed_outside_0_to_2_64_is_invalid_seed_as_documented(
    rest_port: int, seed: object
) -> None:
    refused = _rest_refusal(rest_port, "/v1/games", {"scopa": {}, "seed": seed})
    assert _reason(refused) == "INVALID_SEED"
    assert refused["message"] == "the seed must be an integer in 0 .. 2**64-1"
    # Suggest's seed too.
    started = http_call(rest_port, "POST", "/v1/games", {"scopa": {}}).json()
    body = {"state": started["state"], "seat": 0, "level": "random", "seed": seed}
    assert _reason(_rest_refusal(rest_port, "/v1/games:suggest", body)) == "INVALID_SEED"


def test_the_largest_seed_is_taken(rest_port: int) -> None:
    reply = http_call(rest_port, "POST", "/v1/games", {"scopa": {}, "seed": str(2**64 - 1)})
    assert reply.status == 200 and reply.json()["seed"] == str(2**64 - 1)


@pytest.mark.parametrize("path", ["/v1/games:play", "/v1/games:advance"])
def test_an_idempotency_key_that_is_not_base64_is_refused_not_dropped(
    rest_port: int, path: str
) -> None:
    started = http_call(rest_port, "POST", "/v1/games", {"scopa": {}}).json()
    body = {"state": started["state"], "move": {"seat": 0, "card": "1D"}, "idempotencyKey": "@@@!"}
    error = _rest_refusal(rest_port, path, body)
    assert _reason(error) == "INVALID_IDEMPOTENCY_KEY"
    assert error["message"] == "idempotency_key is not base64 (standard or URL-safe)"


@pytest.mark.parametrize(
    "body",
    [
        {"state": "AQ==", "move": {"seat": 2**31, "card": "1D"}},  # a field without its own
        {"state": 12},  # JSON of a type the field never takes
        {"state": ["AQ=="]},
        {"scopa": {}, "seed": True},
        {"scopa": {}, "seed": {}},
        {"idempotencyKey": 16},
    ],
)
def test_json_that_is_not_the_request_message_is_still_a_malformed_request(
    rest_port: int, body: dict[str, Any]
) -> None:
    path = "/v1/games" if "scopa" in body else "/v1/games:play"
    error = _rest_refusal(rest_port, path, body)
    assert _reason(error) == "MALFORMED_REQUEST"


@pytest.mark.parametrize("on_timeout", ["oracle", "FORFEIT", "expert "])
def test_an_unknown_on_timeout_is_an_invalid_clock_that_lists_forfeit(
    stack: Stack, on_timeout: str
) -> None:
    clock = pb.Clock(move_seconds=5, on_timeout=on_timeout)
    with pytest.raises(ApiError) as refused:
        stack.handlers.new_game(pb.NewGameRequest(players=2, scopa=pb.ScopaOptions(), clock=clock))
    error = refused.value
    assert error.reason == "INVALID_CLOCK"
    assert error.metadata == {
        "field": "on_timeout",
        "allowed": "random,greedy,intermediate,expert,forfeit",
    }
    assert "forfeit" in error.message


def test_a_clock_of_no_seconds_names_its_field(stack: Stack) -> None:
    clock = pb.Clock(move_seconds=0)
    with pytest.raises(ApiError) as refused:
        stack.handlers.new_game(pb.NewGameRequest(players=2, scopa=pb.ScopaOptions(), clock=clock))
    error = refused.value
    assert (error.reason, error.metadata) == ("INVALID_CLOCK", {"field": "move_seconds"})
