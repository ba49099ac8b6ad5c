"""The greedy player's rules of thumb, one position each."""

from __future__ import annotations

import random
from typing import Any

from mazzo.engine import get_game
from mazzo.engine.game import Move
from mazzo.engine.players import Budget, suggest
from mazzo.engine.scopa import ScopaRules
from tests.engine import scopa_support as scopa
from tests.engine import tressette_support as tressette


def _greedy(name: str, state: Any) -> Move:
    game = get_game(name)
    seen = game.view(state, state.to_play)
    return suggest("greedy", seen, game.legal_moves(state), Budget(0), random.Random(0)).move


def test_greedy_sweeps_when_it_can() -> None:
    state = scopa.make_state(hands=["5C 3S 7B", "1D 2D 4D"], table="2S 3C", fill="stock")
    assert _greedy("scopa", state) == Move(0, scopa.card("5C"), frozenset(scopa.cards("2S 3C")))


def test_greedy_takes_the_settebello_over_another_card() -> None:
    state = scopa.make_state(hands=["7S 9C 1B", "1D 2D 4D"], table="7D 9B 4C 5S", fill="stock")
    assert _greedy("scopa", state).take == frozenset(scopa.cards("7D"))


def test_greedy_leaves_no_table_one_card_can_sweep() -> None:
    # Laying the 2 on the 4 leaves a 6 a single six sweeps; the knight leaves 13.
    state = scopa.make_state(hands=["2C 9C", "1D 2D"], table="4S", fill="stock")
    assert _greedy("scopa", state).card == scopa.card("9C")


def test_greedy_plays_by_fifteen_in_escoba() -> None:
    rules = ScopaRules.preset("escoba")
    state = scopa.make_state(
        hands=["5C 6B 7B", "1D 2D 4D"], table="10S 4C", rules=rules, fill="stock"
    )
    assert _greedy("scopa", state) == Move(0, scopa.card("5C"), frozenset(scopa.cards("10S")))


def test_greedy_wins_a_trick_with_points_with_its_cheapest_winning_card() -> None:
    # The ace of coins was led: the 2 and the 3 both win it; the 2 is cheaper.
    state = tressette.make_state(
        hands=["5C 9C 3C 2C 4B", "6B 7B 5B 4S"], trick="1C", leader=1, fill=1
    )
    assert _greedy("tressette", state).card == tressette.card("2C")


def test_greedy_follows_with_its_lowest_card_when_it_cannot_win() -> None:
    state = tressette.make_state(hands=["5C 9C 1B 6B", "6S 7B 5B"], trick="3C", leader=1, fill=1)
    assert _greedy("tressette", state).card == tressette.card("5C")


def test_greedy_gives_an_ace_to_a_partner_who_wins_the_trick() -> None:
    state = tressette.make_state(
        hands=["4B 5S", "5B 6B", "1C 4C 5C", "7B 7S"],
        trick="3C 6C",
        leader=0,
        rules=tressette.TressetteRules(players=4),
        fill=0,
    )
    assert _greedy("tressette", state).card == tressette.card("1C")
