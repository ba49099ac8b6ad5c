"""The Briscola expert's inference: the hand's tricks put back in order from the
view, and dealt hands weighed by how likely the other seats' plays make them."""

from __future__ import annotations

import dataclasses
import random

import pytest

from mazzo.engine.briscola import BriscolaRules, BriscolaState, BriscolaView
from mazzo.engine.cards import Card
from mazzo.engine.events import TrickWon
from mazzo.engine.players import Budget, greedy
from mazzo.engine.players.briscola_inference import NOISE, Plays, past_tricks
from mazzo.engine.players.fast_briscola import WIN_WORTH, card_value, reward


def greedy_games(players: int, seeds: range):
    """Every position of the first hand of greedy games, with the tricks so far
    (leader, cards) as the engine told of them."""
    for seed in seeds:
        state, _ = BriscolaState.new_game(BriscolaRules(players=players), seed=seed)
        rng = random.Random(seed)
        told: list[tuple[int, tuple[Card, ...]]] = []
        while state.winner is None and state.hand_number == 1:
            yield state, list(told)
            view = state.view(state.to_play)
            move = greedy.choose(view, state.legal_moves(), Budget(1), rng).move
            state = state.clone()  # the position yielded stays as it was
            events = state.apply(move)
            told += [(e.leader, e.cards) for e in events if isinstance(e, TrickWon)]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_tricks_of_the_hand_come_back_in_order_with_their_leaders(players: int) -> None:
    positions = 0
    for state, told in greedy_games(players, range(12)):
        for seat in range(players):
            assert past_tricks(state.view(seat)) == told
        positions += 1
    assert positions > 12 * 10


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_true_hands_are_never_ruled_out(players: int) -> None:
    rng = random.Random(5)
    for state, _ in greedy_games(players, range(8)):
        view = state.view(state.to_play)
        assert Plays(view, card_value).weight(state.hands, rng) > 0


def test_a_lead_the_rules_of_thumb_would_not_make_makes_that_hand_unlikely() -> None:
    state, _ = BriscolaState.new_game(BriscolaRules(players=2), seed=1)
    opening = state.view(0)
    assert isinstance(opening, BriscolaView)
    trump = opening.trump_suit
    plain, other = [suit for suit in range(4) if suit != trump][:2]
    ace = Card.of(1, plain)
    # Seat 0's view, first to answer: seat 1 led the plain ace.
    led = dataclasses.replace(opening, trick=(ace,), leader=1, hand_sizes=(3, 2))
    plays = Plays(led, card_value)
    rng = random.Random(2)
    # The rules of thumb lead the cheapest card: a plain ace (11 points) only
    # when the rest cost more (the three and the ace of trumps), never beside
    # two pointless plain cards.
    beside_cheap_cards = plays.weight((led.hand, (Card.of(4, other), Card.of(5, other))), rng)
    beside_trumps = plays.weight((led.hand, (Card.of(3, trump), Card.of(1, trump))), rng)
    assert beside_cheap_cards == pytest.approx(NOISE / 3)
    assert beside_trumps == pytest.approx(1 - NOISE + NOISE / 3)


def test_a_hand_won_is_worth_more_to_the_search_than_its_margin() -> None:
    assert reward((61, 59), 0) - reward((59, 61), 0) == 2 + 2 + 2 * WIN_WORTH
    assert reward((61, 59), 0) > reward((59, 61), 0) + 30
    assert reward((60, 60), 1) == 0
    # Three players: only the single highest total wins the hand.
    assert reward((50, 50, 20), 0) == 0
    assert reward((40, 50, 30), 1) == 10 + WIN_WORTH
