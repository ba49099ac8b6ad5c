"""Briscola through both transports: the same handlers, the same rules."""

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


def briscola_deck(hands: Sequence[str], turn_up: str, stock: str = "") -> list[str]:
    """A deck dealing ``hands`` (3 cards each, by seat, dealer the last seat), then
    turning up ``turn_up``, then ``stock`` on top of the stock."""
    by_seat = [cards(h) for h in hands]
    top = [by_seat[seat][i] for i in range(3) for seat in range(len(hands))]
    top += [turn_up, *cards(stock)]
    assert len(set(top)) == len(top)
    return top + [c for c in ALL_CARDS if c not in top]


# Cups are trumps. Seat 0 leads the ace of coins, seat 1 answers with the 3:
# the ace takes; seat 0 draws the 8 of coins, seat 1 the 9.
HANDS = ("1D 5B 4S", "3D 2B 6S")
TURN_UP = "7C"
STOCK = "8D 9D"


def new_briscola(client: MazzoClient, **options: Any) -> pb.NewGameResponse:
    return client.new_game(
        players=2,
        options=pb.BriscolaOptions(**options),
        decks=[briscola_deck(HANDS, TURN_UP, STOCK)],
    )


def post(port: int, path: str, body: object) -> Any:
    reply = http_call(port, "POST", path, body)
    assert reply.status == 200, reply.body
    return reply.json()


def test_catalog_lists_briscola_for_two_three_and_four_with_its_options(
    client: MazzoClient,
) -> None:
    (briscola,) = [g for g in client.catalog().games if g.name == "briscola"]
    assert list(briscola.player_counts) == [2, 3, 4]
    options = {o.name: o for o in briscola.options}
    assert options["target"].default_value == "1"
    assert options["removed_two"].default_value == "REMOVED_TWO_CUPS"
    assert len(options["removed_two"].allowed_values) == 4
    assert options["face"].default_value == "FACE_ITALIAN"
    assert [f.name for f in briscola.faces] == ["FACE_ITALIAN", "FACE_FRENCH", "FACE_SPANISH"]
    assert not briscola.variants


def test_the_issue_s_request_starts_a_game_over_rest(rest_port: int) -> None:
    reply = post(rest_port, "/v1/games", {"players": 2, "briscola": {"target": 1}, "seed": "5"})
    status = reply["status"]
    assert (status["game"], status["players"], status["target"]) == ("briscola", 2, 1)
    deal, first, second, turned = reply["events"]
    assert deal["deal"]["handSizes"] == [3, 3] and deal["deal"]["stockSize"] == 34
    assert (first["visibleTo"], second["visibleTo"]) == (0, 1)
    assert "visibleTo" not in turned
    trump = turned["trumpTurnedUp"]
    assert trump["suit"] == trump["card"][-1]
    view = post(rest_port, "/v1/games:view", {"state": reply["state"], "seat": 1})["view"]
    assert view["stockSize"] == 34 and len(view["hand"]) == 3
    assert view["briscola"] == {
        "trick": [],
        "leader": 0,
        "trumpCard": trump["card"],
        "trumpSuit": trump["suit"],
        "removedCard": "",
    }
    assert view["cardNames"][trump["card"]]


def test_the_issue_s_request_starts_a_game_over_grpc(stub: engine_pb2_grpc.EngineStub) -> None:
    request = pb.NewGameRequest(players=2, briscola=pb.BriscolaOptions(target=1), seed=5)
    reply = stub.NewGame(request, timeout=10)
    assert reply.status.game == "briscola" and reply.status.seat_to_play == 0
    kinds = [e.WhichOneof("kind") for e in reply.events]
    assert kinds == ["deal", "cards_dealt", "cards_dealt", "trump_turned_up"]


def test_a_trick_is_won_by_the_higher_card_and_each_draws_in_secret(client: MazzoClient) -> None:
    game = new_briscola(client)
    assert game.events[-1].trump_turned_up.card == TURN_UP
    state = client.play(game.state, move(0, "1D")).state
    played = client.play(state, move(1, "3D"))
    kinds = [e.WhichOneof("kind") for e in played.events]
    assert kinds == ["card_played", "trick_won", "card_drawn", "card_drawn"]
    trick = played.events[1].trick_won
    assert (trick.seat, trick.side, trick.leader, list(trick.cards)) == (0, 0, 0, ["1D", "3D"])
    draws = [(e.visible_to, e.card_drawn.seat, e.card_drawn.card) for e in played.events[2:]]
    assert draws == [(0, 0, "8D"), (1, 1, "9D")]  # the winner first, each for its eyes
    view = client.view(played.state, 1).view
    assert list(view.hand) == ["2B", "6S", "9D"] and not view.known
    assert view.stock_size == 32 and view.briscola.leader == 0
    assert (view.briscola.trump_card, view.briscola.trump_suit) == (TURN_UP, "C")
    assert [list(p.cards) for p in view.piles] == [["1D", "3D"], []]
    assert "8D" not in view.card_names  # seat 0's drawn card stays hidden from seat 1


def test_a_trump_takes_and_no_one_must_follow_suit(client: MazzoClient) -> None:
    game = client.new_game(
        players=2,
        options=pb.BriscolaOptions(),
        decks=[briscola_deck(("1D 5B 4S", "3D 2C 6S"), TURN_UP, STOCK)],
    )
    state = client.play(game.state, move(0, "1D")).state
    assert sorted(m.card for m in client.legal_moves(state).moves) == ["2C", "3D", "6S"]
    played = client.play(state, move(1, "2C"))  # the lowest trump takes the ace
    assert played.events[1].trick_won.seat == 1
    assert played.status.seat_to_play == 1


def test_illegal_moves_are_refused_with_tressette_s_reasons(
    client: MazzoClient, stub: engine_pb2_grpc.EngineStub
) -> None:
    state = new_briscola(client).state
    verdict = client.validate(state, move(1, "3D"))
    assert (verdict.legal, verdict.reason) == (False, "NOT_YOUR_TURN")
    verdict = client.validate(state, move(0, "3D"))
    assert (verdict.legal, verdict.reason) == (False, "CARD_NOT_IN_HAND")
    refusal = refused(stub.Play, pb.PlayRequest(state=state, move=move(0, "3D")))
    assert refusal.code is grpc.StatusCode.FAILED_PRECONDITION
    assert refusal.reason == "CARD_NOT_IN_HAND"
    refusal = refused(stub.Play, pb.PlayRequest(state=state, move=move(0, "1D", ["3D"])))
    assert refusal.code is grpc.StatusCode.INVALID_ARGUMENT
    assert refusal.reason == "TAKE_NOT_ALLOWED"


def test_briscola_refuses_five_players_and_a_target_of_zero(
    stub: engine_pb2_grpc.EngineStub,
) -> None:
    refusal = refused(stub.NewGame, pb.NewGameRequest(players=5, briscola=pb.BriscolaOptions()))
    assert (refusal.code, refusal.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_PLAYERS")
    request = pb.NewGameRequest(players=2, briscola=pb.BriscolaOptions(target=0))
    refusal = refused(stub.NewGame, request)
    assert (refusal.reason, refusal.metadata) == ("INVALID_OPTION", {"option": "target"})


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_full_briscola_game_over_grpc(
    client: MazzoClient, stub: engine_pb2_grpc.EngineStub, players: int
) -> None:
    chooser = random.Random(players)
    game = client.new_game(players=players, options=pb.BriscolaOptions(target=2), seed=7)
    turned = [e.trump_turned_up.card for e in game.events if e.HasField("trump_turned_up")]
    state, status, scored, last_draws = game.state, game.status, [], []
    while not status.game_over:
        legal = client.legal_moves(state)
        played = client.play(state, chooser.choice(legal.moves))
        state, status = played.state, played.status
        draws = [e for e in played.events if e.HasField("card_drawn")]
        if draws:
            last_draws = draws
        if any(e.HasField("hand_scored") for e in played.events):
            # The last card drawn in a hand is its turn-up, and everyone sees it.
            assert last_draws[-1].card_drawn.card == turned[-1]
            assert not last_draws[-1].HasField("visible_to")
            assert all(e.HasField("visible_to") for e in last_draws[:-1])
        scored += [e.hand_scored for e in played.events if e.HasField("hand_scored")]
        turned += [e.trump_turned_up.card for e in played.events if e.HasField("trump_turned_up")]
    for hand in scored:
        points = [s.briscola.card_points for s in hand.sides]
        assert sum(points) == 120
        winners = [s.side for s in hand.sides if s.total == 1]
        assert all(s.total in (0, 1) for s in hand.sides)
        best = max(points)
        assert winners == ([points.index(best)] if points.count(best) == 1 else [])
    assert status.scores[status.winning_side] == 2
    refusal = refused(stub.Play, pb.PlayRequest(state=state, move=move(0, "1D")))
    assert (refusal.code, refusal.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_OVER")


def test_three_players_play_without_the_two_of_cups_and_see_it(client: MazzoClient) -> None:
    game = client.new_game(players=3, options=pb.BriscolaOptions(), seed=3)
    dealt = [c for e in game.events if e.HasField("cards_dealt") for c in e.cards_dealt.cards]
    assert len(dealt) == 9 and "2C" not in dealt
    view = client.view(game.state, 2).view
    assert view.stock_size == 30 and view.briscola.removed_card == "2C"
    other = client.new_game(
        players=3, options=pb.BriscolaOptions(removed_two=pb.REMOVED_TWO_BATONS), seed=3
    )
    assert client.view(other.state, 0).view.briscola.removed_card == "2B"


def test_a_full_briscola_game_over_rest_for_four_in_pairs(rest_port: int) -> None:
    chooser = random.Random(3)
    reply = post(rest_port, "/v1/games", {"players": 4, "briscola": {"target": 1}, "seed": "11"})
    state, status = reply["state"], reply["status"]
    while not status["gameOver"]:
        legal = post(rest_port, "/v1/games:legalMoves", {"state": state})
        reply = post(
            rest_port, "/v1/games:play", {"state": state, "move": chooser.choice(legal["moves"])}
        )
        state, status = reply["state"], reply["status"]
    assert status["scores"][status["winningSide"]] == 1 and len(status["scores"]) == 2
    scored = [e["handScored"] for e in reply["events"] if "handScored" in e]
    (points,) = [[s["briscola"].get("cardPoints", 0) for s in h["sides"]] for h in scored]
    assert max(points) > 60 and sum(points) == 120


def test_a_seat_credential_sees_only_its_own_draws_over_rest(
    client: MazzoClient, rest_port: int
) -> None:
    state = client.play(new_briscola(client).state, move(0, "1D")).state
    body = {"state": b64(state), "move": {"seat": 1, "card": "3D"}, "eventsSeat": 1}
    reply = post(rest_port, "/v1/games:play", body)
    drawn = [e for e in reply["events"] if "cardDrawn" in e]
    assert drawn == [{"visibleTo": 1, "cardDrawn": {"seat": 1, "card": "9D"}}]
