"""Token formats across releases: format 3 seals, format 2 still opens, read-only.

The two tokens below are real ones, committed as they came out of the server:
``FORMAT_2_TOKEN`` from the release that sealed format 2 (AES-GCM), before
format 3 existed, and ``FORMAT_3_TOKEN`` from ``tools/seal_token.py``. Both
are sealed under the tests' key (``KEYS``: key id k1, the bytes 0..31) around
the same game, 2-player Scopa dealt from seed 7, one move in.
"""

from __future__ import annotations

import base64

import grpc
import pytest
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM, AESGCMSIV

from mazzo.service.handlers import EngineHandlers
from mazzo.service.metrics import Metrics
from mazzo.service.state_token import (
    FORMAT_VERSION,
    GCM_FORMAT_VERSION,
    NONCE_BYTES,
    STATE_TAMPERED,
    TOKEN_KEY_PURPOSE,
    StateSealer,
    StateTokenError,
    derive_key,
)
from mazzo.v1 import engine_pb2 as pb
from mazzo.v1 import engine_pb2_grpc
from tests.service.support import KEYS, Stack, http_call
from tools.seal_token import FIXTURE_KEYS, seal_fixture

FORMAT_2_TOKEN = base64.b64decode(
    "AgJrMQCE4ejCu9pYZ5sJ+83GdjU9Rzu4UFWHy59fZyT7vO6FsvnUZ/MJ+sVTev2hbmfDoi2XtufdatsmbU0uEZMj"
    "TulB9YYytAH3q9fhBGxtyP9c/yrcrdSkrMx/eMsamDFmZ31ET7LMzEnyKj7nS/xWsCyVTxsygXnYcxE1HWvqzj6k"
    "ORjdM6nuoizu1QelSEvsnexr"
)
FORMAT_2_GAME_ID = "1nO43f-WXi5JKBk_"
FORMAT_3_TOKEN = base64.b64decode(
    "AwJrMQCEIY+Me6fHCXk5bOZgYoHqPr5NlAwvbemA+HcAB5bnJ+j3Rw8K/V0pIhSHbB+BR4bNjQI1AzC8cG1XUkVJ"
    "KPKEpNp3XX59fpyqlHOcfrOqcdBSxAG0v1aiXKwsOAm6YFtQ6AKkY3iVhZy7GrPqe0bCjdgq1zsFc9xkKo4OvU9f"
    "kigT4N/mNFG9QfzDzKWe3TUn"
)
FORMAT_3_GAME_ID = "VWkk3iPRJ91IrR7H"
#: Seat 1's moves in that position, as LegalMoves lists them.
MOVES = [("7S", ["5C", "2S"]), ("3S", []), ("4B", [])]


@pytest.fixture
def handlers() -> EngineHandlers:
    return EngineHandlers(StateSealer(list(KEYS)), Metrics())


def header_end(token: bytes) -> int:
    return 2 + token[1] + 2


def test_the_fixture_key_is_the_tests_key() -> None:
    assert tuple(FIXTURE_KEYS) == tuple(KEYS)


def test_new_tokens_are_format_3_aes_gcm_siv_under_the_derived_token_key() -> None:
    token = StateSealer(list(KEYS)).seal(b"payload")
    assert token[0] == FORMAT_VERSION == 3
    end = header_end(token)
    nonce, sealed, header = token[end : end + NONCE_BYTES], token[end + NONCE_BYTES :], token[:end]
    token_key = derive_key(KEYS[0][1], TOKEN_KEY_PURPOSE)
    assert AESGCMSIV(token_key).decrypt(nonce, sealed, header)[8:] == b"payload"
    with pytest.raises(InvalidTag):  # neither AES-GCM nor the state key itself
        AESGCM(KEYS[0][1]).decrypt(nonce, sealed, header)
    with pytest.raises(InvalidTag):
        AESGCMSIV(KEYS[0][1]).decrypt(nonce, sealed, header)


@pytest.mark.parametrize(
    "token", [FORMAT_2_TOKEN, StateSealer(list(KEYS), seal_format=2).seal(b"x")]
)
def test_format_2_is_aes_gcm_under_the_state_key_itself(token: bytes) -> None:
    """What the benchmarks' format-2 sealer makes is what the previous release sealed."""
    assert token[0] == GCM_FORMAT_VERSION
    end = header_end(token)
    nonce, sealed, header = token[end : end + NONCE_BYTES], token[end + NONCE_BYTES :], token[:end]
    assert AESGCM(KEYS[0][1]).decrypt(nonce, sealed, header)


@pytest.mark.parametrize("version", [1, 4])
def test_a_sealer_seals_no_format_it_does_not_open(version: int) -> None:
    with pytest.raises(ValueError, match=f"cannot seal format {version}"):
        StateSealer(list(KEYS), seal_format=version)


@pytest.mark.parametrize(
    ("token", "game_id"), [(FORMAT_2_TOKEN, FORMAT_2_GAME_ID), (FORMAT_3_TOKEN, FORMAT_3_GAME_ID)]
)
def test_tokens_of_every_opened_format_open_and_play_on_in_the_current_one(
    handlers: EngineHandlers, token: bytes, game_id: str
) -> None:
    view = handlers.view(pb.ViewRequest(state=token, seat=1)).view
    assert (view.status.game_id, view.status.ply, view.status.seat_to_play) == (game_id, 1, 1)
    listed = handlers.legal_moves(pb.LegalMovesRequest(state=token))
    assert [(m.card, list(m.take)) for m in listed.moves] == MOVES
    played = handlers.play(pb.PlayRequest(state=token, move=listed.moves[1]))
    assert played.state[0] == FORMAT_VERSION  # opened read-only: what is sealed is format 3
    assert (played.status.game_id, played.status.ply) == (game_id, 2)


def test_a_format_2_token_opens_over_both_transports(stack: Stack) -> None:
    with grpc.insecure_channel(stack.grpc_target) as channel:
        stub = engine_pb2_grpc.EngineStub(channel)
        listed = stub.LegalMoves(pb.LegalMovesRequest(state=FORMAT_2_TOKEN), timeout=10)
    assert [(m.card, list(m.take)) for m in listed.moves] == MOVES
    body = {"state": base64.b64encode(FORMAT_2_TOKEN).decode(), "seat": 1}
    reply = http_call(stack.http_port, "POST", "/v1/games:view", body)
    assert reply.status == 200
    assert reply.json()["view"]["status"]["gameId"] == FORMAT_2_GAME_ID


@pytest.mark.parametrize(
    ("token", "relabelled"),
    [(FORMAT_2_TOKEN, FORMAT_VERSION), (FORMAT_3_TOKEN, GCM_FORMAT_VERSION)],
)
def test_a_token_relabelled_as_the_other_format_fails_authentication(
    token: bytes, relabelled: int
) -> None:
    with pytest.raises(StateTokenError) as caught:
        StateSealer(list(KEYS)).open(bytes([relabelled]) + token[1:])
    assert caught.value.reason == STATE_TAMPERED


def test_the_fixture_tool_seals_the_current_format_under_the_tests_key(
    handlers: EngineHandlers,
) -> None:
    token = seal_fixture("tressette", players=4, seed=3, plies=5)
    assert token[0] == FORMAT_VERSION
    status = handlers.view(pb.ViewRequest(state=token, seat=0)).view.status
    assert (status.game, status.players, status.ply) == ("tressette", 4, 5)
