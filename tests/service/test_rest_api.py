"""The REST gateway over a real HTTP server: routes, proto3 JSON, AIP-193 errors.

Same situation as the gRPC tests (two players, dealer seat 1):

    seat 0: 7D 5C 9B        seat 1: 1S 6B 2B        table: 2C 5S 3S 4B
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from typing import Any

import pytest
from google.api import annotations_pb2
from google.protobuf import json_format
from google.protobuf.message import Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mazzo.service.handlers import EngineHandlers
from mazzo.service.metrics import Metrics
from mazzo.service.rest import create_app
from mazzo.service.state_token import StateSealer
from mazzo.v1 import engine_pb2 as pb
from mazzo.v1 import engine_pb2_grpc
from tests.service.support import (
    KEYS,
    Stack,
    b64,
    cards,
    deck,
    http_call,
    move,
    state_of,
    unb64,
)

HANDS = ("7D 5C 9B", "1S 6B 2B")
TABLE = "2C 5S 3S 4B"
DECK = deck(HANDS, TABLE)
ISSUE_NEW_GAME = {
    "players": 2,
    "scopa": {"target": 11, "napola": False},
    "seed": "42",
    "decks": [{"cards": DECK}],
    "firstDealer": 1,
}
POST_ROUTES = [
    "/v1/games",
    "/v1/games:play",
    "/v1/games:validate",
    "/v1/games:legalMoves",
    "/v1/games:view",
    "/v1/games:suggest",
]
ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"


def post(port: int, path: str, body: object) -> Any:
    """POST that must succeed; the JSON reply."""
    reply = http_call(port, "POST", path, body)
    assert reply.status == 200, reply.body
    assert reply.content_type == "application/json"
    return reply.json()


def error_of(port: int, method: str, path: str, body: object = None, **kw: Any) -> dict[str, Any]:
    """A refused request: check the AIP-193 envelope and return its "error"."""
    reply = http_call(port, method, path, body, **kw)
    assert reply.content_type == "application/json"
    envelope = reply.json()
    assert set(envelope) == {"error"}
    error = envelope["error"]
    assert set(error) == {"code", "status", "message", "details"}
    assert error["code"] == reply.status
    assert isinstance(error["message"], str) and error["message"]
    (detail,) = error["details"]
    assert set(detail) == {"@type", "reason", "domain", "metadata"}
    assert detail["@type"] == ERROR_INFO
    assert detail["domain"] == "mazzo"
    assert isinstance(detail["metadata"], dict)
    return error


def reason_of(error: dict[str, Any]) -> str:
    return str(error["details"][0]["reason"])


@pytest.fixture(scope="module")
def dealt(rest_port: int) -> dict[str, Any]:
    return post(rest_port, "/v1/games", ISSUE_NEW_GAME)  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def state(dealt: dict[str, Any]) -> str:
    return str(dealt["state"])


def as_json(message: Message) -> Any:
    """What the gateway prints for a message: proto3 JSON, defaults included."""
    return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)


# ---------------------------------------------------------------- the routes


def test_catalog(rest_port: int, stub: engine_pb2_grpc.EngineStub) -> None:
    reply = http_call(rest_port, "GET", "/v1/catalog")
    assert reply.status == 200
    body = reply.json()
    assert set(body) == {"games"}
    assert [g["name"] for g in body["games"]] == ["scopa", "tressette", "briscola"]
    scopa = body["games"][0]
    assert scopa["playerCounts"] == [2, 3, 4, 6]
    options = {o["name"]: o for o in scopa["options"]}
    assert options["target"] | {"description": ""} == {
        "name": "target",
        "type": "int",
        "defaultValue": "11",
        "allowedValues": [],
        "min": 1,
        "max": 1000,
        "description": "",
    }
    assert options["napola"]["defaultValue"] == "false"
    assert options["primiera"]["defaultValue"] == "PRIMIERA_RULE_STANDARD"
    assert body == as_json(stub.GetCatalog(pb.GetCatalogRequest(), timeout=10))


def test_new_game_as_in_the_issue(dealt: dict[str, Any], stub: engine_pb2_grpc.EngineStub) -> None:
    assert set(dealt) == {"state", "events", "status", "seed", "seatCredentials"}
    assert dealt["seed"] == "42"  # uint64 is a string in proto3 JSON
    assert [c["seat"] for c in dealt["seatCredentials"]] == [0, 1]
    token = unb64(dealt["state"])
    assert token[0] == 3 and len(token) < 200  # format 3
    game_id = dealt["status"].pop("gameId")
    assert len(game_id) == 16
    assert dealt["status"] == {
        "game": "scopa",
        "players": 2,
        "seatToPlay": 0,
        "dealer": 1,
        "handNumber": 1,
        "scores": [0, 0],
        "gameOver": False,
        "target": 11,
        "ply": 0,
        "computerSeats": [],
    }
    assert dealt["events"] == [
        {
            "deal": {
                "handNumber": 1,
                "dealer": 1,
                "table": cards(TABLE),
                "handSizes": [3, 3],
                "stockSize": 30,
            }
        },
        {"visibleTo": 0, "cardsDealt": {"seat": 0, "cards": cards(HANDS[0])}},
        {"visibleTo": 1, "cardsDealt": {"seat": 1, "cards": cards(HANDS[1])}},
    ]
    # The REST token is the same kind of token the gRPC server takes.
    legal = stub.LegalMoves(pb.LegalMovesRequest(state=token), timeout=10)
    assert legal.seat == 0


def test_new_game_with_the_primiera_rule_by_name(rest_port: int) -> None:
    body = {"scopa": {"primiera": "PRIMIERA_RULE_SEVENS", "target": 3}, "players": 3}
    reply = post(rest_port, "/v1/games", body)
    assert reply["status"]["players"] == 3 and reply["status"]["target"] == 3
    assert "seed" not in reply  # returned only when the caller gave it


def test_play(rest_port: int, state: str) -> None:
    body = {"state": state, "move": {"seat": 0, "card": "7D", "take": ["3S", "4B"]}}
    reply = post(rest_port, "/v1/games:play", body)
    assert set(reply) == {"state", "events", "status"}
    assert reply["events"] == [
        {"cardPlayed": {"seat": 0, "card": "7D"}},
        {"capture": {"seat": 0, "side": 0, "card": "7D", "taken": ["3S", "4B"], "sweep": False}},
    ]
    assert reply["status"]["seatToPlay"] == 1
    assert reply["state"] != state


def test_validate_legal(rest_port: int, state: str) -> None:
    body = {"state": state, "move": {"seat": 0, "card": "5C"}}
    reply = post(rest_port, "/v1/games:validate", body)
    assert reply == {"legal": True, "reason": "", "message": "", "choices": []}


def test_validate_illegal(rest_port: int, state: str) -> None:
    body = {"state": state, "move": {"seat": 0, "card": "5C", "take": ["2C", "3S"]}}
    reply = post(rest_port, "/v1/games:validate", body)
    assert set(reply) == {"legal", "reason", "message", "choices"}
    assert reply["legal"] is False
    assert reply["reason"] == "MUST_TAKE_SAME_RANK"
    assert isinstance(reply["message"], str) and "5S" in reply["message"]
    assert reply["choices"] == []


def test_validate_lists_the_choices(rest_port: int, state: str) -> None:
    body = {"state": state, "move": {"seat": 0, "card": "7D"}}
    reply = post(rest_port, "/v1/games:validate", body)
    assert reply["reason"] == "CAPTURE_CHOICE_REQUIRED"
    assert reply["choices"] == [
        {"seat": 0, "card": "7D", "take": ["2C", "5S"]},
        {"seat": 0, "card": "7D", "take": ["3S", "4B"]},
    ]


def test_legal_moves(rest_port: int, state: str) -> None:
    reply = post(rest_port, "/v1/games:legalMoves", {"state": state})
    assert reply == {
        "seat": 0,
        "moves": [
            {"seat": 0, "card": "7D", "take": ["2C", "5S"]},
            {"seat": 0, "card": "7D", "take": ["3S", "4B"]},
            {"seat": 0, "card": "5C", "take": ["5S"]},
            {"seat": 0, "card": "9B", "take": ["2C", "3S", "4B"]},
            {"seat": 0, "card": "9B", "take": ["5S", "4B"]},
        ],
    }


def test_view(rest_port: int, state: str) -> None:
    reply = post(rest_port, "/v1/games:view", {"state": state, "seat": 1})
    assert len(reply["view"]["status"].pop("gameId")) == 16
    assert reply == {
        "view": {
            "seat": 1,
            "side": 1,
            "hand": cards(HANDS[1]),
            "handSizes": [3, 3],
            "stockSize": 30,
            "piles": [
                {"side": 0, "cards": [], "sweeps": 0},
                {"side": 1, "cards": [], "sweeps": 0},
            ],
            "status": {
                "game": "scopa",
                "players": 2,
                "seatToPlay": 0,
                "dealer": 1,
                "handNumber": 1,
                "scores": [0, 0],
                "gameOver": False,
                "target": 11,
                "ply": 0,
                "computerSeats": [],
            },
            "known": [],
            "face": "FACE_ITALIAN",
            "cardNames": {
                "1S": "ace of swords",
                "6B": "six of batons",
                "2B": "two of batons",
                "2C": "two of cups",
                "5S": "five of swords",
                "3S": "three of swords",
                "4B": "four of batons",
            },
            "spectator": False,
            "scopa": {"table": cards(TABLE)},
        }
    }


def test_view_of_seat_zero_is_the_default(rest_port: int, state: str) -> None:
    reply = post(rest_port, "/v1/games:view", {"state": state})
    assert reply["view"]["seat"] == 0 and reply["view"]["hand"] == cards(HANDS[0])


@pytest.mark.parametrize(
    "spell",
    [
        pytest.param(lambda s: s, id="standard"),
        pytest.param(lambda s: s.replace("+", "-").replace("/", "_"), id="url-safe"),
        pytest.param(lambda s: s.rstrip("="), id="unpadded"),
    ],
)
def test_the_state_may_be_any_base64_spelling(rest_port: int, state: str, spell: Any) -> None:
    assert post(rest_port, "/v1/games:legalMoves", {"state": spell(state)})["seat"] == 0


# ---------------------------------------------------------------- one implementation


def _same_state(first: str, second: bytes) -> None:
    """Tokens differ (fresh nonces); what they seal must not."""
    assert state_of(unb64(first)) == state_of(second)


def _token(stub: engine_pb2_grpc.EngineStub) -> bytes:
    request = pb.NewGameRequest(scopa=pb.ScopaOptions(), seed=42, decks=[pb.Deck(cards=DECK)])
    return bytes(stub.NewGame(request, timeout=10).state)


def _requests(token: bytes) -> list[tuple[str, str, Message]]:
    return [
        ("GetCatalog", "/v1/catalog", pb.GetCatalogRequest()),
        (
            "NewGame",
            "/v1/games",
            pb.NewGameRequest(
                players=2,
                scopa=pb.ScopaOptions(target=5, napola=True),
                seed=2**64 - 1,
                decks=[pb.Deck(cards=DECK)],
                first_dealer=0,
            ),
        ),
        ("Play", "/v1/games:play", pb.PlayRequest(state=token, move=move(0, "9B", ["5S", "4B"]))),
        ("Validate", "/v1/games:validate", pb.ValidateRequest(state=token, move=move(0, "7D"))),
        ("LegalMoves", "/v1/games:legalMoves", pb.LegalMovesRequest(state=token)),
        ("View", "/v1/games:view", pb.ViewRequest(state=token, seat=1)),
    ]


@pytest.mark.parametrize("index", range(6), ids=[r[0] for r in _requests(b"")])
def test_rest_and_grpc_give_the_same_json(
    rest_port: int, stub: engine_pb2_grpc.EngineStub, index: int
) -> None:
    rpc, path, request = _requests(_token(stub))[index]
    grpc_json = as_json(getattr(stub, rpc)(request, timeout=10))
    if rpc == "GetCatalog":
        rest_json = http_call(rest_port, "GET", path).json()
    else:
        rest_json = post(rest_port, path, json_format.MessageToDict(request))
    if "state" in grpc_json:
        _same_state(rest_json.pop("state"), unb64(grpc_json.pop("state")))
    if rpc == "NewGame":  # two games: their ids, and so their seats' credentials, differ
        for reply in (rest_json, grpc_json):
            reply["status"].pop("gameId")
            assert len(reply.pop("seatCredentials")) == 2
    assert rest_json == grpc_json


ILLEGAL = [
    ({"seat": 1, "card": "1S"}, "NOT_YOUR_TURN", {"seatToPlay": "0"}),
    ({"seat": 0, "card": "1S"}, "CARD_NOT_IN_HAND", {}),
    ({"seat": 0, "card": "7D", "take": ["1D", "6D"]}, "CARD_NOT_ON_TABLE", {}),
    ({"seat": 0, "card": "5C", "take": ["2C", "3S"]}, "MUST_TAKE_SAME_RANK", {}),
    ({"seat": 0, "card": "9B", "take": ["2C", "5S"]}, "NO_SUCH_CAPTURE", {}),
    ({"seat": 0, "card": "7D"}, "CAPTURE_CHOICE_REQUIRED", {"choices": "2C+5S;3S+4B"}),
]


@pytest.mark.parametrize(("bad_move", "reason", "metadata"), ILLEGAL, ids=[i[1] for i in ILLEGAL])
def test_an_illegal_move_is_a_400_failed_precondition(
    rest_port: int,
    stub: engine_pb2_grpc.EngineStub,
    state: str,
    bad_move: dict[str, Any],
    reason: str,
    metadata: dict[str, str],
) -> None:
    reply = http_call(rest_port, "POST", "/v1/games:play", {"state": state, "move": bad_move})
    assert reply.status == 400
    error = reply.json()["error"]
    grpc_message = stub.Validate(
        json_format.ParseDict({"state": state, "move": bad_move}, pb.ValidateRequest()),
        timeout=10,
    ).message
    assert reply.json() == {
        "error": {
            "code": 400,
            "status": "FAILED_PRECONDITION",
            "message": grpc_message,
            "details": [
                {"@type": ERROR_INFO, "reason": reason, "domain": "mazzo", "metadata": metadata}
            ],
        }
    }
    assert error["message"]
    # The caller's state still plays.
    legal = {"state": state, "move": {"seat": 0, "card": "7D", "take": ["2C", "5S"]}}
    assert post(rest_port, "/v1/games:play", legal)["status"]["seatToPlay"] == 1


# ---------------------------------------------------------------- malformed input


@pytest.mark.parametrize(
    ("path", "raw", "reason"),
    [
        ("/v1/games", b'{"scopa": {}', "MALFORMED_REQUEST"),
        ("/v1/games", b"not json at all", "MALFORMED_REQUEST"),
        ("/v1/games", b'{"scopa": {}, "players": "two"}', "MALFORMED_REQUEST"),
        ("/v1/games", b'{"scopa": {}, "seed": -1}', "INVALID_SEED"),
        ("/v1/games", b'{"scopa": {}, "seed": "18446744073709551616"}', "INVALID_SEED"),
        ("/v1/games", b'{"scopa": {"primiera": "PRIMIERA_RULE_NONE"}}', "MALFORMED_REQUEST"),
        ("/v1/games", b'{"scopa": {}, "scopa": {}}', "MALFORMED_REQUEST"),
        ("/v1/games", b"\xff\xfe{}", "MALFORMED_REQUEST"),
        ("/v1/games", b'{"players": 2}', "INVALID_GAME"),
        ("/v1/games", b"", "INVALID_GAME"),
        ("/v1/games", b'{"scopa": {"target": 0}}', "INVALID_OPTION"),
        ("/v1/games", b'{"scopa": {"primiera": 7}}', "INVALID_OPTION"),
        ("/v1/games", b'{"scopa": {}, "players": 5}', "INVALID_PLAYERS"),
        ("/v1/games", b'{"scopa": {}, "firstDealer": 5}', "INVALID_SEAT"),
        ("/v1/games", b'{"scopa": {}, "decks": [{"cards": ["1D"]}]}', "INVALID_DECK"),
        ("/v1/games:play", b'{"state": "A"}', "STATE_UNRECOGNIZED"),
        ("/v1/games:play", b'{"state": 12}', "MALFORMED_REQUEST"),
        ("/v1/games:play", b'{"state": "@@@!"}', "STATE_UNRECOGNIZED"),
        ("/v1/games:play", b'{"move": {"seat": 2147483648}}', "MALFORMED_REQUEST"),
        ("/v1/games:play", b'{"move": {"seat": 0, "card": "1D"}}', "STATE_MISSING"),
        ("/v1/games:legalMoves", b'{"state": "AAAA"}', "STATE_UNRECOGNIZED"),
        ("/v1/games:legalMoves", b'{"state": "bm90IGEgdG9rZW4="}', "STATE_UNRECOGNIZED"),
        ("/v1/games:legalMoves", b'{"state": "AQ=="}', "STATE_VERSION_UNSUPPORTED"),
        ("/v1/games:legalMoves", b"{}", "STATE_MISSING"),
        ("/v1/games:view", b'{"state": "Ag=="}', "STATE_TRUNCATED"),
    ],
)
def test_malformed_input_is_a_400_invalid_argument(
    rest_port: int, path: str, raw: bytes, reason: str
) -> None:
    error = error_of(rest_port, "POST", path, raw=raw)
    assert (error["code"], error["status"], reason_of(error)) == (400, "INVALID_ARGUMENT", reason)


@pytest.mark.parametrize(
    ("bad_move", "reason"),
    [
        ({"seat": 0, "card": "11D"}, "INVALID_CARD"),
        ({"seat": 0, "card": "7D", "take": ["2C", "2C"]}, "DUPLICATE_CARD"),
        ({"seat": 9, "card": "7D"}, "INVALID_SEAT"),
        (None, "MOVE_MISSING"),
    ],
)
@pytest.mark.parametrize("path", ["/v1/games:play", "/v1/games:validate"])
def test_a_malformed_move_is_a_400_invalid_argument(
    rest_port: int, state: str, path: str, bad_move: dict[str, Any] | None, reason: str
) -> None:
    body: dict[str, Any] = {"state": state}
    if bad_move is not None:
        body["move"] = bad_move
    error = error_of(rest_port, "POST", path, body)
    assert (error["code"], error["status"], reason_of(error)) == (400, "INVALID_ARGUMENT", reason)


def test_a_tampered_state_is_refused(rest_port: int, state: str) -> None:
    token = bytearray(unb64(state))
    token[-1] ^= 0x80
    error = error_of(rest_port, "POST", "/v1/games:legalMoves", {"state": b64(bytes(token))})
    assert (error["status"], reason_of(error)) == ("INVALID_ARGUMENT", "STATE_TAMPERED")


def test_a_body_over_the_size_limit_is_refused(rest_port: int) -> None:
    raw = json.dumps({"scopa": {}}).encode() + b" " * 70_000
    error = error_of(rest_port, "POST", "/v1/games", raw=raw)
    assert (error["code"], error["status"]) == (413, "INVALID_ARGUMENT")
    assert reason_of(error) == "REQUEST_TOO_LARGE"


def test_a_body_under_the_size_limit_is_served(rest_port: int) -> None:
    raw = json.dumps({"scopa": {}}).encode() + b" " * 60_000
    assert http_call(rest_port, "POST", "/v1/games", raw=raw).status == 200


def _chunked(port: int, path: str, parts: list[bytes]) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.putrequest("POST", path)
    connection.putheader("Transfer-Encoding", "chunked")
    connection.endheaders()
    for part in [*parts, b""]:
        connection.send(b"%x\r\n%s\r\n" % (len(part), part))
    response = connection.getresponse()
    response.read()
    connection.close()
    return response


def test_a_streamed_body_is_served(rest_port: int) -> None:
    assert _chunked(rest_port, "/v1/games", [b'{"scopa":', b" {}}"]).status == 200


def test_a_streamed_body_over_the_size_limit_is_refused_not_cut(rest_port: int) -> None:
    # Valid JSON if cut at the limit: a gateway that truncated would answer 200.
    response = _chunked(rest_port, "/v1/games", [b'{"scopa": {}}', *[b" " * 10_000] * 8])
    assert response.status == 413


def test_an_unknown_route_is_404_not_found(rest_port: int) -> None:
    for method, path in (("GET", "/v1/nothing"), ("POST", "/v1/games:surrender"), ("GET", "/")):
        error = error_of(rest_port, method, path, {} if method == "POST" else None)
        assert (error["code"], error["status"], reason_of(error)) == (
            404,
            "NOT_FOUND",
            "NOT_FOUND",
        )


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("GET", "/v1/games:play", "POST"),
        ("PUT", "/v1/games", "POST"),
        ("POST", "/v1/catalog", "GET, HEAD"),
    ],
)
def test_a_wrong_verb_is_405(rest_port: int, method: str, path: str, allowed: str) -> None:
    reply = http_call(rest_port, method, path)
    assert reply.status == 405
    error = error_of(rest_port, method, path)
    assert (error["code"], error["status"], reason_of(error)) == (
        405,
        "UNIMPLEMENTED",
        "METHOD_NOT_ALLOWED",
    )
    connection = http.client.HTTPConnection("127.0.0.1", rest_port, timeout=10)
    connection.request(method, path)
    response = connection.getresponse()
    response.read()
    connection.close()
    assert set(response.getheader("Allow", "").split(", ")) >= set(allowed.split(", "))


def _proto_routes() -> set[tuple[str, str]]:
    """(verb, path) of every google.api.http annotation of mazzo.v1.Engine."""
    routes = set()
    for method in pb.DESCRIPTOR.services_by_name["Engine"].methods:
        rule = method.GetOptions().Extensions[annotations_pb2.http]
        verb = rule.WhichOneof("pattern")
        assert verb in ("get", "post"), method.name
        assert rule.body == ("*" if verb == "post" else ""), method.name
        routes.add((verb.upper(), getattr(rule, verb)))
    return routes


#: The routes of the API reference and the web table, beside the proto's.
API_REFERENCE = {
    ("GET", "/openapi.json"),
    ("GET", "/docs"),
    ("GET", "/docs/rapidoc-min.js"),
    ("GET", "/play"),
    ("GET", "/play/<name>"),
}
PROBES = {("GET", "/healthz"), ("GET", "/readyz")}


def _served(app: Any) -> set[tuple[str, str]]:
    return {
        (verb, rule.rule)
        for rule in app.url_map.iter_rules()
        for verb in (rule.methods or set()) - {"HEAD", "OPTIONS"}
    }


def test_the_gateway_serves_exactly_the_proto_routes(stack: Stack) -> None:
    assert stack.app is not None
    assert len(_proto_routes()) == 8
    assert _served(stack.app) == _proto_routes() | API_REFERENCE | PROBES
    assert http_call(stack.http_port, "GET", "/metrics").status == 404


def test_metrics_on_rest_adds_the_metrics_route_and_nothing_else() -> None:
    app = create_app(
        EngineHandlers(StateSealer(list(KEYS)), Metrics()), Metrics(), 65536, metrics_on_rest=True
    )
    assert _served(app) == _proto_routes() | {("GET", "/metrics")} | API_REFERENCE | PROBES
    assert app.test_client().delete("/metrics").status_code == 405


def test_every_proto_route_answers(rest_port: int) -> None:
    for verb, path in _proto_routes():
        reply = http_call(rest_port, verb, path, {} if verb == "POST" else None)
        assert reply.status in (200, 400), (verb, path)
        assert reply.content_type == "application/json"


# ---------------------------------------------------------------- a whole game


def _rest_game(port: int) -> Iterator[dict[str, Any]]:
    game = post(port, "/v1/games", {"scopa": {"target": 1}, "seed": "7"})
    state = game["state"]
    for _ in range(2000):
        legal = post(port, "/v1/games:legalMoves", {"state": state})
        reply = post(port, "/v1/games:play", {"state": state, "move": legal["moves"][0]})
        yield reply
        if reply["status"]["gameOver"]:
            return
        state = reply["state"]
    raise AssertionError("the game did not end")


def test_a_whole_game_over_rest_matches_the_same_game_over_grpc(
    rest_port: int, stub: engine_pb2_grpc.EngineStub
) -> None:
    replies = list(_rest_game(rest_port))
    last = replies[-1]
    assert last["status"]["gameOver"] is True
    assert "seatToPlay" not in last["status"]
    winner = last["status"]["winningSide"]
    assert last["events"][-1] == {
        "gameOver": {"winningSide": winner, "scores": last["status"]["scores"]}
    }
    error = error_of(rest_port, "POST", "/v1/games:legalMoves", {"state": last["state"]})
    assert (error["status"], reason_of(error)) == ("FAILED_PRECONDITION", "GAME_OVER")
    # The same seed and choices over gRPC give the same events, move for move.
    state = stub.NewGame(
        pb.NewGameRequest(scopa=pb.ScopaOptions(target=1), seed=7), timeout=10
    ).state
    for reply in replies:
        first = stub.LegalMoves(pb.LegalMovesRequest(state=state), timeout=10).moves[0]
        played = stub.Play(pb.PlayRequest(state=state, move=first), timeout=10)
        assert as_json(played)["events"] == reply["events"]
        state = played.state


# ---------------------------------------------------------------- never a 500

GARBAGE = [
    b"null",
    b"[]",
    b"[[1]]",
    b"1",
    b'"text"',
    b"true",
    b"{" * 5000,
    b"[" * 5000 + b"]" * 5000,
    b'{"a":' * 3000 + b"1" + b"}" * 3000,
    b'{"state": null, "move": null}',
    b'{"state": "\\ud800"}',
    b'{"move": {"card": "\\ud800"}}',
    b'{"move": {"card": "7D\\u0000"}}',
    b'{"move": {"seat": 1e400}}',
    b'{"move": {"seat": NaN}}',
    b'{"move": {"take": "7D"}}',
    b'{"move": {"take": [null]}}',
    b'{"move": []}',
    b'{"seat": -2147483649}',
    b'{"seat": 2147483647}',
    b'{"state": "////"}',
    b'{"players": 2147483647, "scopa": {}}',
    b'{"players": -2147483648, "scopa": {}}',
    b'{"scopa": {"target": 2147483647}}',
    b'{"scopa": {"primiera": -1}}',
    b'{"scopa": {}, "decks": [{}]}',
    b'{"scopa": {}, "decks": [{"cards": []}]}',
    b'{"scopa": {}, "firstDealer": 2147483647}',
    b'{"scopa": {}, "seed": "0"}',
    b'{"scopa": {}, "seed": 1.5}',
    b'{"scopa": {"napola": "yes"}}',
    b'{"scopa": "scopa"}',
    b"\x00\x01\x02",
    b"\xef\xbb\xbf{}",
    b"{}" * 100,
]


def _assert_not_a_server_error(port: int, path: str, raw: bytes) -> None:
    reply = http_call(port, "POST", path, raw=raw)
    assert reply.status in (200, 400), (path, raw[:80], reply.status, reply.body[:200])
    assert reply.content_type == "application/json"
    body = reply.json()
    if reply.status == 400:
        assert body["error"]["status"] in ("INVALID_ARGUMENT", "FAILED_PRECONDITION")
        assert body["error"]["details"][0]["reason"]


@pytest.mark.parametrize("raw", GARBAGE, ids=range(len(GARBAGE)))
def test_garbage_is_never_a_server_error(rest_port: int, raw: bytes) -> None:
    for path in POST_ROUTES:
        _assert_not_a_server_error(rest_port, path, raw)


FIELDS = st.sampled_from(
    ["state", "move", "seat", "card", "take", "players", "scopa", "seed", "decks"]
    + ["firstDealer", "first_dealer", "target", "napola", "primiera", "cards"]
)
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["7D", "10B", "AQ==", "PRIMIERA_RULE_LENIENT", "42"]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(FIELDS | st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(path=st.sampled_from(POST_ROUTES), value=JSON_VALUES)
def test_any_json_is_never_a_server_error(rest_port: int, path: str, value: object) -> None:
    _assert_not_a_server_error(rest_port, path, json.dumps(value).encode())


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(path=st.sampled_from(POST_ROUTES), raw=st.binary(max_size=200) | st.text().map(str.encode))
def test_any_bytes_are_never_a_server_error(rest_port: int, path: str, raw: bytes) -> None:
    _assert_not_a_server_error(rest_port, path, raw)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    seat=st.integers(min_value=-(2**31), max_value=2**31 - 1),
    card=st.text(max_size=5) | st.sampled_from(cards("7D 5C 9B 1S 2C 5S 10D")),
    take=st.lists(st.text(max_size=4) | st.sampled_from(cards("2C 5S 3S 4B 1D")), max_size=4),
    path=st.sampled_from(["/v1/games:play", "/v1/games:validate"]),
)
def test_any_move_is_never_a_server_error(
    rest_port: int, state: str, seat: int, card: str, take: list[str], path: str
) -> None:
    body = {"state": state, "move": {"seat": seat, "card": card, "take": take}}
    _assert_not_a_server_error(rest_port, path, json.dumps(body).encode())
