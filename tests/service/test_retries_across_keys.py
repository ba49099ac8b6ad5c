"""A keyed retry answers alike on every server that opens its token, whatever key each seals with.

In the second step of a key rotation (docs/operations.md) replicas disagree on
their first key: some seal with the new key, some still with the old one. A
retry that a load balancer sends to another replica must still deal the same
cards, so a keyed call derives its randomness from the key that sealed its
token (named in the token), never from the server's own sealing key.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf import json_format

from mazzo.service.handlers import rpcs
from mazzo.service.state_token import key_id_of
from mazzo.service.table import random_key
from mazzo.v1 import engine_pb2 as pb
from mazzo.v1 import engine_pb2_grpc
from tests.service.support import Stack, http_call, running_stack, state_of

OLD = ("k1", bytes(range(32)))
NEW = ("k2", bytes(range(100, 132)))
#: Two servers whose first keys differ, as in the middle of a rotation's second step.
SEALS_WITH_OLD = (OLD, NEW)
SEALS_WITH_NEW = (NEW, OLD)
#: A 2-player Scopa hand is three cards each: its sixth Play deals the next hand.
PLAYS_BEFORE_A_DEAL = 5


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[Stack, Stack]]:
    with running_stack(SEALS_WITH_OLD) as old, running_stack(SEALS_WITH_NEW) as new:
        yield old, new


def grpc_play(stack: Stack, request: pb.PlayRequest) -> pb.PlayResponse:
    with grpc.insecure_channel(stack.grpc_target) as channel:
        return engine_pb2_grpc.EngineStub(channel).Play(request, timeout=30)


def rest_play(stack: Stack, request: pb.PlayRequest) -> pb.PlayResponse:
    (rpc,) = [rpc for rpc in rpcs(stack.handlers) if rpc.name == "Play"]
    reply = http_call(stack.http_port, "POST", rpc.http_path, json_format.MessageToDict(request))
    assert reply.status == 200, reply.body
    return json_format.ParseDict(reply.json(), pb.PlayResponse())


def to_a_deal(stack: Stack) -> tuple[bytes, pb.Move]:
    """An unseeded 2-player game sealed by ``stack``, up to the Play that deals: its
    token and that move."""
    handlers = stack.handlers
    state = handlers.new_game(pb.NewGameRequest(players=2, scopa=pb.ScopaOptions())).state
    for _ in range(PLAYS_BEFORE_A_DEAL):
        move = handlers.legal_moves(pb.LegalMovesRequest(state=state)).moves[0]
        state = handlers.play(pb.PlayRequest(state=state, move=move)).state
    return state, handlers.legal_moves(pb.LegalMovesRequest(state=state)).moves[0]


def dealt(events: Any) -> list[tuple[int, tuple[str, ...]]]:
    return [
        (e.cards_dealt.seat, tuple(e.cards_dealt.cards))
        for e in events
        if e.HasField("cards_dealt")
    ]


@pytest.mark.parametrize("sealed_by", ["old", "new"])
def test_a_keyed_play_retried_on_a_server_with_another_first_key_deals_alike(
    servers: tuple[Stack, Stack], sealed_by: str
) -> None:
    old, new = servers
    state, move = to_a_deal(old if sealed_by == "old" else new)
    assert key_id_of(state) == (OLD if sealed_by == "old" else NEW)[0]
    request = pb.PlayRequest(state=state, move=move, idempotency_key=random_key())
    # The first call on one server (gRPC), its retry on the other (REST).
    first, retried = grpc_play(old, request), rest_play(new, request)
    assert dealt(first.events), "this Play deals the next hand"
    assert list(first.events) == list(retried.events)
    assert first.status == retried.status
    keys = list(SEALS_WITH_OLD)
    assert state_of(first.state, keys) == state_of(retried.state, keys)
    # Each server sealed its answer with its own first key: the keys did differ.
    assert (key_id_of(first.state), key_id_of(retried.state)) == (OLD[0], NEW[0])
