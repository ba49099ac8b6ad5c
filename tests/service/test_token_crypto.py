"""The token formats' constructions: format 3 seals, format 2 still opens, read-only.

The tokens are the kept ones of tests/service/tokens (tests/service/token_formats.py):
real tokens of 2-player Scopa, seed 42, one move in, sealed under the
fixture's test key; the format-2 one by the release that sealed format 2.
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
from tests.service.support import http_call, running_stack
from tests.service.token_formats import KEY, KEY_ID, fixtures, token_of

KEYS = [(KEY_ID, KEY)]
KEPT = {fixture["format"]: fixture for fixture in fixtures()}
FORMAT_2_TOKEN = token_of(KEPT[GCM_FORMAT_VERSION])
FORMAT_3_TOKEN = token_of(KEPT[FORMAT_VERSION])


@pytest.fixture
def handlers() -> EngineHandlers:
    return EngineHandlers(StateSealer(KEYS), Metrics())


def header_end(token: bytes) -> int:
    return 2 + token[1] + 2


def test_new_tokens_are_format_3_aes_gcm_siv_under_the_derived_token_key() -> None:
    token = StateSealer(KEYS).seal(b"payload")
    assert token[0] == FORMAT_VERSION == 3
    end = header_end(token)
    nonce, sealed, header = token[end : end + NONCE_BYTES], token[end + NONCE_BYTES :], token[:end]
    token_key = derive_key(KEY, TOKEN_KEY_PURPOSE)
    assert AESGCMSIV(token_key).decrypt(nonce, sealed, header)[8:] == b"payload"
    with pytest.raises(InvalidTag):  # neither AES-GCM nor the state key itself
        AESGCM(KEY).decrypt(nonce, sealed, header)
    with pytest.raises(InvalidTag):
        AESGCMSIV(KEY).decrypt(nonce, sealed, header)


@pytest.mark.parametrize(
    "token", [FORMAT_2_TOKEN, StateSealer(KEYS, seal_format=2).seal(b"x")]
)
def test_format_2_is_aes_gcm_under_the_state_key_itself(token: bytes) -> None:
    """What the benchmarks' format-2 sealer makes is what the previous release sealed."""
    assert token[0] == GCM_FORMAT_VERSION
    end = header_end(token)
    nonce, sealed, header = token[end : end + NONCE_BYTES], token[end + NONCE_BYTES :], token[:end]
    assert AESGCM(KEY).decrypt(nonce, sealed, header)


@pytest.mark.parametrize("version", [1, 4])
def test_a_sealer_seals_no_format_it_does_not_open(version: int) -> None:
    with pytest.raises(ValueError, match=f"cannot seal format {version}"):
        StateSealer(list(KEYS), seal_format=version)


def test_a_format_2_token_opens_over_both_transports(handlers: EngineHandlers) -> None:
    expected = KEPT[GCM_FORMAT_VERSION]["expected"]["opens"]
    moves = handlers.legal_moves(pb.LegalMovesRequest(state=FORMAT_2_TOKEN)).moves
    with running_stack(KEYS) as stack:
        with grpc.insecure_channel(stack.grpc_target) as channel:
            stub = engine_pb2_grpc.EngineStub(channel)
            listed = stub.LegalMoves(pb.LegalMovesRequest(state=FORMAT_2_TOKEN), timeout=10)
        body = {"state": base64.b64encode(FORMAT_2_TOKEN).decode(), "seat": 1}
        reply = http_call(stack.http_port, "POST", "/v1/games:view", body)
    assert list(listed.moves) == list(moves) and moves
    assert reply.status == 200
    assert reply.json()["view"]["status"]["gameId"] == expected["game_id"]


@pytest.mark.parametrize(
    ("token", "relabelled"),
    [(FORMAT_2_TOKEN, FORMAT_VERSION), (FORMAT_3_TOKEN, GCM_FORMAT_VERSION)],
)
def test_a_token_relabelled_as_the_other_format_fails_authentication(
    token: bytes, relabelled: int
) -> None:
    with pytest.raises(StateTokenError) as caught:
        StateSealer(KEYS).open(bytes([relabelled]) + token[1:])
    assert caught.value.reason == STATE_TAMPERED
