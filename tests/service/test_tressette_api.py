"""Tressette through both transports: the same handlers, the same rules."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import grpc
import pytest

from mazzo.v1 import engine_pb2 as pb
from mazzo.v1 import engine_pb2_grpc
from mazzo_client import MazzoClient
from tests.service.support import ALL_CARDS, b64, cards, http_call, move, refused


def tressette_deck(hands: Sequence[str], stock: str = "") -> list[str]:
    """A deck dealing ``hands`` (10 cards each, by seat, dealer the last seat) then ``stock``."""
    by_seat = [cards(h) for h in hands]
    assert all(len(h) == 10 for h in by_seat)
    top = [by_seat[seat][i] for i in range(10) for seat in range(len(hands))]
    top += cards(stock)
    assert len(set(top)) == len(top)
    return top + [c for c in ALL_CARDS if c not in top]


# Seat 0 leads the 4 of cups; seat 1 holds cups, so it may not play its 3 of coins.
HANDS = ("4C 1D 2D 3D 5B 6B 7B 8B 9B 10B", "5C 3C 3S 1S 2S 4S 5S 6S 7S 3B")
STOCK = "9C 10C"


def new_tressette(client: MazzoClient, **options: Any) -> pb.NewGameResponse:
    return client.new_game(
        players=2,
        tressette=pb.TressetteOptions(**options),
        decks=[tressette_deck(HANDS, STOCK)],
    )


def test_catalog_lists_tressette_for_two_and_four_with_its_options(client: MazzoClient) -> None:
    (tressette,) = [g for g in client.catalog().games if g.name == "tressette"]
    assert list(tressette.player_counts) == [2, 4]
    options = {o.name: o for o in tressette.options}
    assert options["target"].default_value == "21"
    assert options["napoletana"].default_value == "false"


def test_new_tressette_deals_ten_each_and_leaves_twenty_in_the_stock(client: MazzoClient) -> None:
    game = new_tressette(client)
    deal, *dealt = game.events
    assert deal.deal.stock_size == 20 and list(deal.deal.hand_sizes) == [10, 10]
    assert not deal.HasField("visible_to")
    assert [(e.visible_to, list(e.cards_dealt.cards)) for e in dealt] == [
        (0, cards(HANDS[0])),
        (1, cards(HANDS[1])),
    ]
    assert game.status.game == "tressette" and game.status.target == 21
    assert game.status.seat_to_play == 0


def test_tressette_refuses_three_players(stub: engine_pb2_grpc.EngineStub) -> None:
    request = pb.NewGameRequest(players=3, tressette=pb.TressetteOptions())
    refusal = refused(stub.NewGame, request)
    assert refusal.code is grpc.StatusCode.INVALID_ARGUMENT
    assert refusal.reason == "INVALID_PLAYERS"


def test_not_following_suit_is_refused_with_the_led_suit(
    client: MazzoClient, stub: engine_pb2_grpc.EngineStub
) -> None:
    state = client.play(new_tressette(client).state, move(0, "4C")).state
    verdict = client.validate(state, move(1, "3D"))
    assert (verdict.legal, verdict.reason) == (False, "CARD_NOT_IN_HAND")
    verdict = client.validate(state, move(1, "3S"))
    assert (verdict.legal, verdict.reason) == (False, "MUST_FOLLOW_SUIT")
    refusal = refused(stub.Play, pb.PlayRequest(state=state, move=move(1, "3S")))
    assert refusal.code is grpc.StatusCode.FAILED_PRECONDITION
    assert refusal.metadata == {"ledSuit": "C"}
    legal = client.legal_moves(state)
    assert sorted(m.card for m in legal.moves) == ["3C", "5C"]


def test_a_tressette_move_with_a_take_is_malformed(
    client: MazzoClient, stub: engine_pb2_grpc.EngineStub
) -> None:
    state = new_tressette(client).state
    refusal = refused(stub.Play, pb.PlayRequest(state=state, move=move(0, "4C", ["5C"])))
    assert refusal.code is grpc.StatusCode.INVALID_ARGUMENT
    assert refusal.reason == "TAKE_NOT_ALLOWED"


def test_a_trick_is_won_then_both_draw_in_the_open(client: MazzoClient) -> None:
    state = client.play(new_tressette(client).state, move(0, "4C")).state
    played = client.play(state, move(1, "3C"))
    kinds = [e.WhichOneof("kind") for e in played.events]
    assert kinds == ["card_played", "trick_won", "card_drawn", "card_drawn"]
    trick = played.events[1].trick_won
    assert (trick.seat, trick.leader, list(trick.cards)) == (1, 0, ["4C", "3C"])
    draws = [(e.card_drawn.seat, e.card_drawn.card) for e in played.events[2:]]
    assert draws == [(1, "9C"), (0, "10C")]
    assert not any(e.HasField("visible_to") for e in played.events)
    view = client.view(played.state, 0).view
    assert [(k.seat, list(k.cards)) for k in view.known] == [(1, ["9C"])]
    assert view.stock_size == 18 and view.tressette.leader == 1
    assert list(view.tressette.trick) == []
    assert view.WhichOneof("game") == "tressette"


def test_napoletana_is_declared_at_the_first_card_over_rest(
    client: MazzoClient, rest_port: int
) -> None:
    state = new_tressette(client, napoletana=True).state
    body = {"state": b64(state), "move": {"seat": 0, "card": "4C"}}
    reply = http_call(rest_port, "POST", "/v1/games:play", body).json()
    declared, played = reply["events"]
    assert declared == {
        "napoletanaDeclared": {
            "seat": 0,
            "side": 0,
            "suit": "D",
            "cards": ["3D", "2D", "1D"],
            "points": 3,
        }
    }
    assert played == {"cardPlayed": {"seat": 0, "card": "4C"}}
    view = http_call(rest_port, "POST", "/v1/games:view", {"state": reply["state"], "seat": 1})
    assert view.json()["view"]["known"] == [{"seat": 0, "cards": ["3D", "2D", "1D"]}]


@pytest.mark.parametrize("players", [2, 4])
def test_a_full_tressette_game_over_grpc(client: MazzoClient, players: int) -> None:
    chooser = random.Random(players)
    game = client.new_game(players=players, tressette=pb.TressetteOptions(target=12), seed=7)
    state, status, scored = game.state, game.status, []
    while not status.game_over:
        legal = client.legal_moves(state)
        played = client.play(state, chooser.choice(legal.moves))
        state, status = played.state, played.status
        scored += [e.hand_scored for e in played.events if e.HasField("hand_scored")]
    assert scored and all(sum(s.total for s in h.sides) == 11 for h in scored)
    assert status.winning_side == max((0, 1), key=lambda side: status.scores[side])
    assert max(status.scores) >= 12


def test_a_full_tressette_game_over_rest(rest_port: int) -> None:
    chooser = random.Random(3)
    reply = http_call(
        rest_port,
        "POST",
        "/v1/games",
        {"players": 4, "tressette": {"target": 5, "napoletana": True}, "seed": "11"},
    ).json()
    state, status = reply["state"], reply["status"]
    while not status["gameOver"]:
        legal = http_call(rest_port, "POST", "/v1/games:legalMoves", {"state": state}).json()
        choice = chooser.choice(legal["moves"])
        reply = http_call(
            rest_port, "POST", "/v1/games:play", {"state": state, "move": choice}
        ).json()
        state, status = reply["state"], reply["status"]
    assert status["scores"][status["winningSide"]] >= 5
    assert "seatToPlay" not in status
