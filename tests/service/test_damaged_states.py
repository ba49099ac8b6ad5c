"""Authentic tokens around damaged plaintexts: refused with a reason, never a 5xx.

A token sealed under the server's own key is authentic, but what it holds may
still be wrong: a buggy writer, an old format, a leaked key. Every value
decoded from it is range-checked against the field it fills, so such a token
is answered or refused as the caller's problem (STATE_CORRUPT and the like),
never INTERNAL, UNKNOWN or an HTTP 5xx.

The plaintexts are real records (the record header, then the engine's state
bytes) of several games and positions. Each byte of each is set to 0, 0xFF,
its neighbours and a random value (a fixed seed), and each record is also cut
at every length and extended: some 4,000 tokens, each sealed under the tests'
key and sent to the five RPCs that open a token through the handlers both
transports share. The transports themselves get every token damaged in the
record's ply (a ply past the status's int32 field once reached a 500) and a
fixed sample of the rest, over gRPC and REST: sending all of them would take a
minute, and what differs between the transports is only the rendering of the
same answers.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

import grpc
import pytest
from google.protobuf import json_format
from google.protobuf.message import Message

from mazzo.service.errors import ApiError
from mazzo.service.handlers import EngineHandlers, Rpc, rpcs
from mazzo.service.metrics import Metrics
from mazzo.service.state_token import StateSealer
from mazzo.service.trust import MAX_PLY, dump_record, load_record
from mazzo.v1 import engine_pb2 as pb
from tests.service.support import KEYS, Stack, http_call, refusal_of

SEED = 20240917
#: The record header's ply: bytes 13..16 (after the format byte and the game id).
PLY_BYTES = range(13, 17)
TRANSPORT_SAMPLE = 20
SERVER_SIDE = (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN)


def _finished(request: pb.NewGameRequest) -> pb.NewGameRequest:
    request.scopa.target = 1  # a hand ends the game: a finished game within 40 plies
    return request


#: An explicit deck: the 40 cards in an order of their own.
DECK = random.Random(SEED).sample([f"{r}{s}" for s in "DCSB" for r in range(1, 11)], 40)

#: (position, the game's request, plies played before the record is taken)
POSITIONS = [
    ("scopa 2p at the deal", pb.NewGameRequest(players=2, seed=1, scopa=pb.ScopaOptions()), 0),
    ("scopa 2p mid-hand", pb.NewGameRequest(players=2, seed=2, scopa=pb.ScopaOptions()), 5),
    (
        "cirulla 4p, declarations",
        pb.NewGameRequest(
            players=4, seed=3, scopa=pb.ScopaOptions(variant=pb.SCOPA_VARIANT_CIRULLA)
        ),
        3,
    ),
    (
        "re bello 3p, fresh draws",
        pb.NewGameRequest(players=3, scopa=pb.ScopaOptions(variant=pb.SCOPA_VARIANT_RE_BELLO)),
        4,
    ),
    (
        "scopa 2p, explicit decks",
        pb.NewGameRequest(players=2, seed=4, scopa=pb.ScopaOptions(), decks=[pb.Deck(cards=DECK)]),
        2,
    ),
    ("scopa 2p, game over", _finished(pb.NewGameRequest(players=2, seed=5, scopa={})), 200),
    (
        "tressette 2p napoletana, stock",
        pb.NewGameRequest(players=2, seed=6, tressette=pb.TressetteOptions(napoletana=True)),
        7,
    ),
    ("tressette 4p, fresh draws", pb.NewGameRequest(players=4, tressette={}), 6),
]


@dataclass(frozen=True)
class Damaged:
    """One damaged record sealed into a token, and what was done to it."""

    position: str
    damage: str
    in_ply: bool
    token: bytes


def _records(handlers: EngineHandlers, sealer: StateSealer) -> Iterator[tuple[str, bytes]]:
    """The authentic plaintexts: each position's record, as the server sealed it
    (random legal moves from a fixed seed, up to the game's end)."""
    choose = random.Random(SEED)
    for position, request, plies in POSITIONS:
        token = handlers.new_game(request).state
        for _ in range(plies):
            if load_record(sealer.open(token))[0].game_over:
                break
            listed = handlers.legal_moves(pb.LegalMovesRequest(state=token)).moves
            token = handlers.play(pb.PlayRequest(state=token, move=choose.choice(listed))).state
        yield position, sealer.open(token)


def _damages(record: bytes, rng: random.Random) -> Iterator[tuple[str, int | None, bytes]]:
    """(what was done, the byte changed or None, the damaged record)."""
    for index, byte in enumerate(record):
        for value in sorted({0, 0xFF, byte ^ 1, (byte + 1) % 256, rng.randrange(256)} - {byte}):
            damaged = bytearray(record)
            damaged[index] = value
            yield f"byte {index} {byte:#04x} -> {value:#04x}", index, bytes(damaged)
    for length in range(len(record)):
        yield f"cut to {length} bytes", None, record[:length]
    for extra in (b"\x00", b"\xff", rng.randbytes(40)):
        yield f"{len(extra)} bytes appended", None, record + extra


@pytest.fixture(scope="module")
def damaged() -> list[Damaged]:
    sealer = StateSealer(list(KEYS))
    handlers = EngineHandlers(sealer, Metrics())
    rng = random.Random(SEED)
    return [
        Damaged(position, damage, index is not None and index in PLY_BYTES, sealer.seal(data))
        for position, record in _records(handlers, sealer)
        for damage, index, data in _damages(record, rng)
    ]


def _requests(token: bytes) -> dict[str, Message]:
    """The calls that open a token, for seat 0 (a move of a card seat 0 may hold)."""
    move = pb.Move(seat=0, card="1D")
    return {
        "Play": pb.PlayRequest(state=token, move=move),
        "Validate": pb.ValidateRequest(state=token, move=move),
        "View": pb.ViewRequest(state=token, seat=0),
        "LegalMoves": pb.LegalMovesRequest(state=token),
        "Suggest": pb.SuggestRequest(state=token, seat=0, simulations=2, budget_ms=20, seed=1),
    }


def _playable_requests(handlers: EngineHandlers, token: bytes) -> dict[str, Message]:
    """As :func:`_requests`, with a legal move for the seat to play when the token
    still lists one: a damaged state that opens then goes all the way (a new
    token sealed, a status written) rather than stopping at the turn check."""
    requests = _requests(token)
    try:
        listed = handlers.legal_moves(pb.LegalMovesRequest(state=token))
    except ApiError:
        return requests
    move = listed.moves[0]
    requests["Play"] = pb.PlayRequest(state=token, move=move)
    requests["Validate"] = pb.ValidateRequest(state=token, move=move)
    requests["View"] = pb.ViewRequest(state=token, seat=listed.seat)
    requests["Suggest"] = pb.SuggestRequest(
        state=token, seat=listed.seat, simulations=2, budget_ms=20, seed=1
    )
    return requests


def test_a_ply_past_the_status_field_is_state_corrupt() -> None:
    sealer = StateSealer(list(KEYS))
    handlers = EngineHandlers(sealer, Metrics())
    token = handlers.new_game(pb.NewGameRequest(players=2, seed=1, scopa={})).state
    state, game_id, _ = load_record(sealer.open(token))
    for ply in (MAX_PLY + 1, 2**31, 2**32 - 1):
        damaged = sealer.seal(dump_record(state, game_id, ply))
        with pytest.raises(ApiError) as caught:
            handlers.view(pb.ViewRequest(state=damaged, seat=0))
        assert (caught.value.code, caught.value.reason) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "STATE_CORRUPT",
        )
        assert "ply out of range" in caught.value.message
    # The largest ply still opens, and a Play from it fills the int32 field exactly.
    at_max = sealer.seal(dump_record(state, game_id, MAX_PLY))
    move = handlers.legal_moves(pb.LegalMovesRequest(state=at_max)).moves[0]
    assert handlers.play(pb.PlayRequest(state=at_max, move=move)).status.ply == 2**31 - 1


def test_every_damaged_authentic_state_is_answered_or_refused_with_a_reason(
    damaged: list[Damaged],
) -> None:
    handlers = EngineHandlers(StateSealer(list(KEYS)), Metrics(), opened_states=0)
    table = {rpc.name: rpc for rpc in rpcs(handlers)}
    failures = []
    calls = 0
    for case in damaged:
        for name, request in _playable_requests(handlers, case.token).items():
            calls += 1
            try:
                table[name].call(request).SerializeToString()
            except ApiError as error:
                if error.code in SERVER_SIDE or not (error.reason and error.message):
                    failures.append((case.position, case.damage, name, error.reason))
            except Exception as error:  # noqa: BLE001 - any other exception is the bug sought
                failures.append((case.position, case.damage, name, repr(error)))
    assert calls > 15_000
    assert failures == []


def _over_grpc(channel: grpc.Channel, rpc: Rpc, request: Message) -> str | None:
    """None when answered or refused as documented; else what went wrong."""
    call = channel.unary_unary(
        f"/mazzo.v1.Engine/{rpc.name}",
        request_serializer=type(request).SerializeToString,
        response_deserializer=rpc.response_type.FromString,
    )
    try:
        call(request, timeout=30)
    except grpc.RpcError as error:
        refusal = refusal_of(error)
        if refusal.code in SERVER_SIDE:
            return f"gRPC {refusal.code.name} {refusal.reason}"
    return None


def _over_rest(port: int, rpc: Rpc, request: Message) -> str | None:
    body = json_format.MessageToDict(request)
    reply = http_call(port, rpc.http_method, rpc.http_path, body)
    if reply.status >= 500:
        return f"HTTP {reply.status}"
    if reply.status >= 400 and not reply.json()["error"]["details"][0]["reason"]:
        return f"HTTP {reply.status} without a reason"
    return None


def test_damaged_authentic_states_reach_no_5xx_over_either_transport(
    stack: Stack, damaged: list[Damaged]
) -> None:
    in_ply = [case for case in damaged if case.in_ply]
    rest = [case for case in damaged if not case.in_ply]
    sent = in_ply + random.Random(SEED).sample(rest, TRANSPORT_SAMPLE)
    table = {rpc.name: rpc for rpc in rpcs(stack.handlers)}
    failures = []
    with grpc.insecure_channel(stack.grpc_target) as channel:
        for case in sent:
            for name, request in _playable_requests(stack.handlers, case.token).items():
                for problem in (
                    _over_grpc(channel, table[name], request),
                    _over_rest(stack.http_port, table[name], request),
                ):
                    if problem:
                        failures.append((case.position, case.damage, name, problem))
    assert len(in_ply) > 100
    assert failures == []


def test_the_records_are_of_every_position_and_the_finished_game_is_over() -> None:
    sealer = StateSealer(list(KEYS))
    records = dict(_records(EngineHandlers(sealer, Metrics()), sealer))
    assert list(records) == [position for position, _, _ in POSITIONS]
    states = {position: load_record(record)[0] for position, record in records.items()}
    assert states["scopa 2p, game over"].game_over
    assert not any(state.game_over for name, state in states.items() if "over" not in name)
