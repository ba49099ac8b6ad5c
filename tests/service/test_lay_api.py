"""docs/variants.md CAP-1..CAP-7 and docs/api.md, Moves, over gRPC and REST: the
`compulsoryCapture` switch, `lay` in LegalMoves, Validate and Play, and its refusals."""

from __future__ import annotations

import random
from typing import Any

import grpc
import pytest

from mazzo.engine import Move
from mazzo.engine.cards import Card
from mazzo.service.codec import move_from_pb, move_to_pb
from mazzo.v1 import engine_pb2 as pb
from mazzo.v1 import engine_pb2_grpc
from tests.service.support import deck, http_call, move, refused

Stub = engine_pb2_grpc.EngineStub
#: The issue's position: seat 0 holds 8D 6S 9B; 8 + 7 makes 15, the others take nothing.
HANDS = ["8D 6S 9B", "5C 6C 9S"]
TABLE = "7D 10D 10C 10S"


def escoba_request(**options: Any) -> pb.NewGameRequest:
    options = {"variant": pb.SCOPA_VARIANT_ESCOBA, **options}
    return pb.NewGameRequest(
        players=2,
        scopa=pb.ScopaOptions(**options),
        seed=1,
        decks=[pb.Deck(cards=deck(HANDS, TABLE))],
    )


def laid(seat: int, card: str) -> pb.Move:
    return pb.Move(seat=seat, card=card, lay=True)


def post(port: int, path: str, body: object) -> Any:
    reply = http_call(port, "POST", path, body)
    assert reply.status == 200, reply.body
    return reply.json()


def rest_game(port: int, **options: Any) -> str:
    body = {
        "players": 2,
        "scopa": {"variant": "SCOPA_VARIANT_ESCOBA", **options},
        "seed": "1",
        "decks": [{"cards": deck(HANDS, TABLE)}],
    }
    return str(post(port, "/v1/games", body)["state"])


# ---------------------------------------------------------------- gRPC


def test_grpc_escoba_lists_the_lay_beside_the_taking(stub: Stub):
    game = stub.NewGame(escoba_request(), timeout=10)
    moves = stub.LegalMoves(pb.LegalMovesRequest(state=game.state), timeout=10).moves
    assert [(m.card, list(m.take), m.lay) for m in moves] == [
        ("8D", ["7D"], False),
        ("8D", [], True),
        ("6S", [], False),
        ("9B", [], False),
    ]
    assert moves[1].HasField("lay") and not moves[0].HasField("lay")


def test_grpc_validate_and_play_a_lay(stub: Stub):
    game = stub.NewGame(escoba_request(), timeout=10)
    checked = stub.Validate(pb.ValidateRequest(state=game.state, move=laid(0, "8D")), timeout=10)
    assert checked.legal and not checked.reason
    played = stub.Play(pb.PlayRequest(state=game.state, move=laid(0, "8D")), timeout=10)
    assert [e.WhichOneof("kind") for e in played.events] == ["card_played"]
    view = stub.View(pb.ViewRequest(state=played.state, seat=1), timeout=10).view
    assert list(view.scopa.table) == ["7D", "10D", "10C", "10S", "8D"]


def test_grpc_an_empty_take_asks_between_the_taking_and_the_lay(stub: Stub):
    game = stub.NewGame(escoba_request(), timeout=10)
    checked = stub.Validate(pb.ValidateRequest(state=game.state, move=move(0, "8D")), timeout=10)
    assert (checked.legal, checked.reason) == (False, "CAPTURE_CHOICE_REQUIRED")
    assert [(list(c.take), c.lay) for c in checked.choices] == [(["7D"], False), ([], True)]
    refusal = refused(stub.Play, pb.PlayRequest(state=game.state, move=move(0, "8D")))
    assert refusal.code is grpc.StatusCode.FAILED_PRECONDITION
    assert refusal.metadata == {"choices": "7D;lay"}


def test_grpc_with_taking_compulsory_the_lay_is_must_take(stub: Stub):
    game = stub.NewGame(escoba_request(compulsory_capture=True), timeout=10)
    moves = stub.LegalMoves(pb.LegalMovesRequest(state=game.state), timeout=10).moves
    assert not any(m.lay for m in moves)
    refusal = refused(stub.Play, pb.PlayRequest(state=game.state, move=laid(0, "8D")))
    assert (refusal.code, refusal.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "MUST_TAKE")
    assert refusal.metadata == {"choices": "7D"}
    played = stub.Play(pb.PlayRequest(state=game.state, move=move(0, "8D")), timeout=10)
    assert list(played.events[-1].capture.taken) == ["7D"]


def test_grpc_a_lay_with_a_take_is_an_invalid_argument(stub: Stub):
    game = stub.NewGame(escoba_request(), timeout=10)
    bad = pb.Move(seat=0, card="8D", take=["7D"], lay=True)
    refusal = refused(stub.Play, pb.PlayRequest(state=game.state, move=bad))
    assert (refusal.code, refusal.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "LAY_WITH_TAKE")


def test_grpc_a_whole_escoba_game_where_a_fifteen_is_laid(stub: Stub):
    game = stub.NewGame(escoba_request(), timeout=10)
    state, status, rnd = game.state, game.status, random.Random(3)
    lays = 0
    for _ in range(3000):
        if status.game_over:
            break
        moves = list(stub.LegalMoves(pb.LegalMovesRequest(state=state), timeout=10).moves)
        layable = [m for m in moves if m.lay]
        chosen = layable[0] if layable and (lays == 0 or rnd.random() < 0.5) else rnd.choice(moves)
        lays += chosen.lay
        reply = stub.Play(pb.PlayRequest(state=state, move=chosen), timeout=10)
        if chosen.lay:
            assert [e.WhichOneof("kind") for e in reply.events][0] == "card_played"
            assert not any(e.HasField("capture") for e in reply.events)
        state, status = reply.state, reply.status
    else:
        raise AssertionError("the game did not end")
    assert status.game_over and lays >= 1


# ---------------------------------------------------------------- REST


def test_rest_escoba_lists_the_lay_as_json(rest_port: int):
    state = rest_game(rest_port)
    moves = post(rest_port, "/v1/games:legalMoves", {"state": state})["moves"]
    assert {"seat": 0, "card": "8D", "take": [], "lay": True} in moves
    assert {"seat": 0, "card": "8D", "take": ["7D"]} in moves
    assert all("lay" not in m for m in moves if m["take"] or m["card"] != "8D")


def test_rest_validate_and_play_a_lay(rest_port: int):
    state = rest_game(rest_port)
    lay = {"seat": 0, "card": "8D", "lay": True}
    checked = post(rest_port, "/v1/games:validate", {"state": state, "move": lay})
    assert (checked["legal"], checked["reason"]) == (True, "")
    played = post(rest_port, "/v1/games:play", {"state": state, "move": lay})
    assert played["events"] == [{"cardPlayed": {"seat": 0, "card": "8D"}}]
    ambiguous = {"seat": 0, "card": "8D"}
    checked = post(rest_port, "/v1/games:validate", {"state": state, "move": ambiguous})
    assert checked["reason"] == "CAPTURE_CHOICE_REQUIRED"
    assert {"seat": 0, "card": "8D", "take": [], "lay": True} in checked["choices"]


@pytest.mark.parametrize(
    ("options", "move_json", "status", "reason"),
    [
        ({"compulsoryCapture": True}, {"seat": 0, "card": "8D", "lay": True}, 400, "MUST_TAKE"),
        ({}, {"seat": 0, "card": "8D", "take": ["7D"], "lay": True}, 400, "LAY_WITH_TAKE"),
    ],
)
def test_rest_lay_refusals(rest_port: int, options, move_json, status, reason):
    state = rest_game(rest_port, **options)
    reply = http_call(rest_port, "POST", "/v1/games:play", {"state": state, "move": move_json})
    assert reply.status == status
    (detail,) = reply.json()["error"]["details"]
    assert detail["reason"] == reason


def test_rest_a_whole_escoba_game_where_a_fifteen_is_laid(rest_port: int):
    state, lays, rnd = rest_game(rest_port), 0, random.Random(5)
    for _ in range(3000):
        moves = post(rest_port, "/v1/games:legalMoves", {"state": state})["moves"]
        layable = [m for m in moves if m.get("lay")]
        chosen = layable[0] if layable and lays == 0 else rnd.choice(moves)
        lays += bool(chosen.get("lay"))
        played = post(rest_port, "/v1/games:play", {"state": state, "move": chosen})
        state = played["state"]
        if played["status"]["gameOver"]:
            break
    else:
        raise AssertionError("the game did not end")
    assert played["status"]["gameOver"] and lays >= 1


# ---------------------------------------------------------------- the codec


@pytest.mark.parametrize(
    "take",
    [[], ["7D"], ["3S", "4B"], ["7d"]],
    ids=["plain", "one card", "several cards", "the long way"],
)
def test_the_codec_carries_lay_on_every_path(take: list[str]):
    for lay in (False, True):
        read = move_from_pb(pb.Move(seat=1, card="8D", take=take, lay=lay))
        assert (read.seat, str(read.card), sorted(map(str, read.take)), read.lay) == (
            1,
            "8D",
            sorted(t.upper() for t in take),
            lay,
        )


def test_the_codec_writes_lay_only_when_set():
    laid_move = move_to_pb(Move(0, Card.parse("8D"), frozenset(), True))
    assert laid_move.HasField("lay") and laid_move.lay and not laid_move.take
    plain = move_to_pb(Move(0, Card.parse("8D")))
    assert not plain.HasField("lay")
