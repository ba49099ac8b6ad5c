"""A token of each released state-token format opens, or is refused with its reason.

tests/service/tokens keeps one token of every format the server ever sealed
(tests/service/token_formats.py), with the test key that sealed it. Today's
server, given that key, must open each token its fixture says it opens (the
game, ply and state it holds, and a game that goes on from it), and refuse the
others with the reason docs/api.md (The state token) gives for them.
"""

from __future__ import annotations

from typing import Any

import pytest

from mazzo.engine import load_state
from mazzo.service.errors import ApiError
from mazzo.service.state_token import FORMAT_VERSION
from mazzo.v1 import engine_pb2 as pb
from tests.service.token_formats import fixtures, handlers_for, opened, token_of

FIXTURES = fixtures()


def _named(fixture: dict[str, Any]) -> str:
    return f"format-{fixture['format']}"


def test_a_token_of_every_format_up_to_todays_is_kept() -> None:
    assert [fixture["format"] for fixture in FIXTURES] == list(range(1, FORMAT_VERSION + 1))
    for fixture in FIXTURES:
        assert token_of(fixture)[0] == fixture["format"]  # the token's first byte: its format


@pytest.mark.parametrize("fixture", [f for f in FIXTURES if "opens" in f["expected"]], ids=_named)
def test_a_kept_token_opens_and_its_game_goes_on(fixture: dict[str, Any]) -> None:
    expected = fixture["expected"]["opens"]
    token = token_of(fixture)
    found = opened(token, [(fixture["key_id"], bytes.fromhex(fixture["key"]))])
    assert (found["game_id"], found["ply"]) == (expected["game_id"], expected["ply"])
    # The game the token holds, as the engine reads the bytes it was written with
    # (an older engine format reads as today's, which may write it otherwise).
    assert load_state(bytes.fromhex(found["state"])) == load_state(bytes.fromhex(expected["state"]))
    handlers = handlers_for(fixture)
    status = handlers.view(pb.ViewRequest(state=token, seat=0)).view.status
    assert (status.game_id, status.ply) == (expected["game_id"], expected["ply"])
    move = handlers.legal_moves(pb.LegalMovesRequest(state=token)).moves[0]
    played = handlers.play(pb.PlayRequest(state=token, move=move, expected_ply=expected["ply"]))
    assert (played.status.game_id, played.status.ply) == (expected["game_id"], expected["ply"] + 1)
    assert played.state[0] == FORMAT_VERSION  # an older format is opened, never sealed


@pytest.mark.parametrize("fixture", [f for f in FIXTURES if "refused" in f["expected"]], ids=_named)
def test_a_kept_token_of_a_format_no_longer_read_is_refused_with_its_documented_reason(
    fixture: dict[str, Any],
) -> None:
    reason = fixture["expected"]["refused"]
    handlers = handlers_for(fixture)
    for call in (
        lambda token: handlers.view(pb.ViewRequest(state=token, seat=0)),
        lambda token: handlers.legal_moves(pb.LegalMovesRequest(state=token)),
    ):
        with pytest.raises(ApiError) as refused:
            call(token_of(fixture))
        assert refused.value.reason == reason
