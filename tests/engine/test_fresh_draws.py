"""Games without a seed: the state fixes no card still to come.

Each deal and each draw shuffles the cards left with the entropy apply() is
given, so the engine stays pure (the randomness is an input) while the state
holds the undealt cards as a set.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from mazzo.engine import dump_state, get_game, load_state
from mazzo.engine.briscola import BriscolaRules
from mazzo.engine.scopa import ScopaRules
from mazzo.engine.tressette import TressetteRules

GAMES = [
    ("scopa", ScopaRules(players=2)),
    ("tressette", TressetteRules(players=2)),
    ("briscola", BriscolaRules(players=2, target=2)),  # two hands to win: a game of several
]


def to_next_draw(state: Any, entropy: int | None) -> tuple[Any, list[Any]]:
    """Play the first legal move on a clone of ``state`` until a move deals or
    draws; the clone and that move's events (``state`` is left as it was)."""
    stock = len(state.stock)
    state = state.clone()
    while True:
        events = state.apply(state.legal_moves()[0], entropy)
        if len(state.stock) != stock:
            return state, events


@pytest.mark.parametrize(("name", "rules"), GAMES)
def test_a_fresh_game_keeps_its_undealt_cards_in_card_order_and_no_generator(
    name: str, rules: Any
) -> None:
    game = get_game(name)
    state, _ = game.new_game(rules, seed=123, fresh=True)
    assert state.fresh_draws and state.rng == 0
    assert list(state.stock) == sorted(state.stock)
    state, _ = to_next_draw(state, entropy=99)
    assert state.rng == 0 and list(state.stock) == sorted(state.stock)


@pytest.mark.parametrize(("name", "rules"), GAMES)
def test_a_fresh_game_draws_what_the_entropy_says(name: str, rules: Any) -> None:
    game = get_game(name)
    start, _ = game.new_game(rules, seed=5, fresh=True)
    draws = {tuple(to_next_draw(start, entropy)[0].hands[0]) for entropy in range(12)}
    again = {tuple(to_next_draw(start, entropy)[0].hands[0]) for entropy in range(12)}
    assert draws == again  # pure: the same input, the same answer
    assert len(draws) > 6  # and the entropy, not the state, decides the cards


@pytest.mark.parametrize(("name", "rules"), GAMES)
def test_a_seeded_game_ignores_entropy(name: str, rules: Any) -> None:
    game = get_game(name)
    start, _ = game.new_game(rules, seed=5)
    assert not start.fresh_draws
    draws = {tuple(to_next_draw(start, entropy)[0].hands[0]) for entropy in range(6)}
    assert len(draws) == 1


@pytest.mark.parametrize(("name", "rules"), GAMES)
def test_a_fresh_deal_without_entropy_is_a_programming_error(name: str, rules: Any) -> None:
    game = get_game(name)
    state, _ = game.new_game(rules, seed=5, fresh=True)
    with pytest.raises(ValueError, match="entropy"):
        to_next_draw(state, entropy=None)


@pytest.mark.parametrize(("name", "rules"), GAMES)
def test_explicit_decks_cannot_be_fresh(name: str, rules: Any) -> None:
    game = get_game(name)
    deck = list(range(40))
    with pytest.raises(ValueError, match="decks"):
        game.new_game(rules, seed=1, decks=[deck], fresh=True)


@pytest.mark.parametrize(("name", "rules"), GAMES)
def test_a_fresh_game_played_to_the_end_round_trips_through_the_codec(
    name: str, rules: Any
) -> None:
    game = get_game(name)
    choose = random.Random(7)
    state, _ = game.new_game(rules, seed=choose.getrandbits(64), fresh=True)
    hands = 1
    while not state.game_over:
        move = choose.choice(state.legal_moves())
        state.apply(move, choose.getrandbits(64))
        assert load_state(dump_state(state)) == state
        assert state.rng == 0 and list(state.stock) == sorted(state.stock)
        hands = max(hands, state.hand_number)
    assert hands > 1  # the later hands were dealt fresh too
