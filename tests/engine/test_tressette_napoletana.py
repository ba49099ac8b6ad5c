"""docs/rules.md, Tressette, Napoletana (option): the 3, 2 and ace of a suit,
declared in the open."""

from __future__ import annotations

from collections import Counter

import pytest

from mazzo.engine.cards import BATONS, COINS, CUPS, SWORDS
from mazzo.engine.events import (
    CardDrawn,
    CardPlayed,
    HandScored,
    NapoletanaDeclared,
    TressetteSideScore,
    TrickWon,
)
from mazzo.engine.tressette import TressetteRules
from tests.engine.tressette_support import (
    card,
    cards,
    deck_dealing,
    make_state,
    napoletana_of,
    play,
    random_chooser,
    start,
)

# Seat 0 holds the coins' napoletana, seat 1 the swords'.
HANDS = ("4C 1D 2D 3D 5B 6B 7B 8B 9B 10B", "5C 3C 3S 1S 2S 4S 5S 6S 7S 3B")
# Four players: seat 2 holds the batons' napoletana, seat 3 the swords'.
HANDS_4 = (
    "1D 2D 4D 5D 6D 7D 8D 9D 10D 1C",
    "3D 2C 3C 4C 5C 6C 7C 8C 9C 10C",
    "3B 2B 1B 4B 5B 6B 7B 8B 9B 10B",
    "1S 2S 3S 4S 5S 6S 7S 8S 9S 10S",
)


def declared(suit: int, seat: int) -> NapoletanaDeclared:
    return NapoletanaDeclared(seat, seat % 2, suit, napoletana_of(suit), 3)


def game(hands=HANDS, stock="", napoletana=True, **kw):
    state, _ = start(len(hands), deck_dealing(hands, stock=stock), napoletana=napoletana, **kw)
    return state


# ---------------------------------------------------------------- at the first card


def test_declared_when_the_leader_plays_its_first_card_before_that_card():
    state = game()
    assert state.view(1).known[0] == ()  # nothing is shown before the first card
    state, events = play(state, "4C")
    assert events == [declared(COINS, 0), CardPlayed(0, card("4C"))]
    assert events[0].visible_to is None
    assert events[0].cards == cards("3D 2D 1D")
    assert state.napoletana == [3, 0]
    assert set(state.view(1).known[0]) == set(cards("3D 2D 1D"))


def test_declared_by_the_second_player_at_its_first_card_in_the_first_trick():
    state, _ = play(game(), "4C")
    state, events = play(state, "5C")
    assert events[:2] == [declared(SWORDS, 1), CardPlayed(1, card("5C"))]
    assert isinstance(events[2], TrickWon)
    assert state.napoletana == [3, 3]
    assert set(state.view(0).known[1]) >= set(cards("3S 2S 1S"))


def test_two_suits_give_two_declarations_and_6_points():
    hands = ("1D 2D 3D 1C 2C 3C 5B 6B 7B 8B", "4C 5C 6C 4S 5S 6S 7S 8S 9S 10S")
    state, events = play(game(hands), "8B")
    assert events == [declared(COINS, 0), declared(CUPS, 0), CardPlayed(0, card("8B"))]
    assert state.napoletana == [6, 0]
    assert set(state.view(1).known[0]) == set(cards("1D 2D 3D 1C 2C 3C"))


def test_a_declared_card_may_be_the_first_card_played_and_leaves_the_known_cards():
    state, events = play(game(), "3D")
    assert events == [declared(COINS, 0), CardPlayed(0, card("3D"))]
    assert set(state.view(1).known[0]) == set(cards("2D 1D"))
    assert state.napoletana == [3, 0]


def test_the_declared_cards_are_known_until_each_is_played():
    # Seat 0 wins the first trick with the 3D (seat 1 holds no coins) and leads again.
    # Seat 0 draws 9C, 8C and 7C on the way; they are shown too.
    state, _ = play(game(stock="9C 10C 8C 6C 7C 2C"), "3D", "5C")
    assert set(state.view(1).known[0]) == set(cards("2D 1D 9C"))
    state, _ = play(state, "2D", "3S")
    assert set(state.view(1).known[0]) == set(cards("1D 9C 8C"))
    state, _ = play(state, "1D", "4S")
    assert set(state.view(1).known[0]) == set(cards("9C 8C 7C"))
    assert state.napoletana == [3, 3]


def test_the_declarer_does_not_see_its_own_cards_under_known():
    state, _ = play(game(), "4C")
    assert state.view(0).known[0] == ()


# ---------------------------------------------------------------- on a draw


DRAW_HANDS = ("3C 2C 4D 5B 6B 7B 8B 9B 10B 4S", "5D 6D 7D 8D 9D 10D 5S 6S 7S 8S")


def test_declared_when_the_winners_draw_completes_one_right_after_that_draw():
    state = game(DRAW_HANDS, stock="1C 9C")
    state, events = play(state, "10B", "5D")  # seat 1 holds no batons: seat 0 wins, draws 1C
    assert events[2:] == [
        TrickWon(0, 0, 0, cards("10B 5D")),
        CardDrawn(0, card("1C")),
        declared(CUPS, 0),
        CardDrawn(1, card("9C")),
    ]
    assert all(e.visible_to is None for e in events)
    assert state.napoletana == [3, 0]
    assert set(state.view(1).known[0]) == set(cards("3C 2C 1C"))


def test_declared_when_the_losers_draw_completes_one():
    state = game(DRAW_HANDS, stock="9C 1C")
    state, events = play(state, "4S", "5S")  # seat 1 wins, draws 9C; seat 0 draws 1C
    assert events[2:] == [
        TrickWon(1, 1, 0, cards("4S 5S")),
        CardDrawn(1, card("9C")),
        CardDrawn(0, card("1C")),
        declared(CUPS, 0),
    ]
    assert state.napoletana == [3, 0]


def test_a_draw_of_another_suit_declares_nothing_and_the_right_card_later_does():
    state = game(DRAW_HANDS, stock="1S 10S 1D 9C 1C 4C")
    state, events = play(state, "10B", "5D")  # seat 0 draws 1S
    assert not any(isinstance(e, NapoletanaDeclared) for e in events)
    state, events = play(state, "9B", "6D")  # seat 0 draws 1D
    assert not any(isinstance(e, NapoletanaDeclared) for e in events)
    state, events = play(state, "8B", "7D")  # seat 0 draws 1C
    assert [e for e in events if isinstance(e, NapoletanaDeclared)] == [declared(CUPS, 0)]
    assert state.napoletana == [3, 0]


def test_nothing_is_declared_at_the_first_card_for_a_suit_only_completed_later():
    state, events = play(game(DRAW_HANDS, stock="1C 9C"), "10B")
    assert events == [CardPlayed(0, card("10B"))]
    assert state.napoletana == [0, 0]


# ---------------------------------------------------------------- once per suit per hand


def test_a_suit_already_declared_is_not_declared_again_when_its_cards_are_drawn():
    state = make_state(
        hands=["3D 2D 1D 5B", "6D 7D 8D 6B"],
        stock="4D 9D",
        piles=["4B 7B", "8B 9B"],
        leader=0,
        declared=[1 << COINS, 0],
        napoletana=[3, 0],
        revealed=["3D 2D 1D", ""],
        rules=TressetteRules(players=2, napoletana=True),
        fill=0,
    )
    state, events = play(state, "5B", "6B")  # seat 1 wins, draws 4D; seat 0 draws 9D
    assert not any(isinstance(e, NapoletanaDeclared) for e in events)
    assert state.napoletana == [3, 0]


def test_a_napoletana_held_from_the_deal_is_declared_once_in_the_whole_hand():
    state = game(stock="")
    choose = random_chooser(4)
    seen = Counter()
    while True:
        events = state.apply(choose(state))
        seen.update((e.seat, e.suit) for e in events if isinstance(e, NapoletanaDeclared))
        if any(isinstance(e, HandScored) for e in events):
            break
    assert seen[(0, COINS)] == 1
    assert seen[(1, SWORDS)] == 1
    assert max(seen.values()) == 1


def test_nothing_is_declared_after_the_first_trick_without_a_draw():
    # A hand in progress (a trick already won), the napoletana not declared: it is
    # not declared at a later card, only at the first card or on a draw.
    state = make_state(
        hands=["3D 2D 1D 5B", "6D 7D 8D 6B"],
        piles=["4B 7B", ""],
        leader=0,
        rules=TressetteRules(players=2, napoletana=True),
        fill=1,
    )
    _, events = play(state, "5B", "6B")
    assert not any(isinstance(e, NapoletanaDeclared) for e in events)


# ---------------------------------------------------------------- four players, pairs


def test_four_players_declare_at_their_first_card_for_their_pair_and_show_everyone():
    state = game(HANDS_4)
    state, events = play(state, "4D", "3D")
    assert not any(isinstance(e, NapoletanaDeclared) for e in events)
    for seat in (0, 1, 3):
        assert state.view(seat).known[2] == ()  # not yet: seat 2 has not played
    state, events = play(state, "4B")
    assert events == [declared(BATONS, 2), CardPlayed(2, card("4B"))]
    assert events[0].side == 0
    for seat in (0, 1, 3):
        assert set(state.view(seat).known[2]) == set(cards("3B 2B 1B"))
    assert state.view(2).known[2] == ()
    state, events = play(state, "4S")
    assert events[:2] == [declared(SWORDS, 3), CardPlayed(3, card("4S"))]
    assert events[0].side == 1
    assert state.napoletana == [3, 3]
    for seat in (0, 1, 2):
        assert set(state.view(seat).known[3]) == set(cards("3S 2S 1S"))


@pytest.mark.parametrize("choice_seed", [1, 2, 3])
def test_the_points_count_in_that_hands_score_for_the_pair(choice_seed):
    state = game(HANDS_4, target=1000)
    choose = random_chooser(choice_seed)
    while True:
        events = state.apply(choose(state))
        scored = next((e for e in events if isinstance(e, HandScored)), None)
        if scored:
            break
    assert [s.napoletana for s in scored.sides] == [3, 3]
    assert sum(s.total for s in scored.sides) == 11 + 6
    for s in scored.sides:
        assert s.total == s.card_points + s.last_trick_point + 3
    assert scored.scores == tuple(s.total for s in scored.sides)
    # The next hand starts with nothing declared.
    assert state.napoletana == [0, 0]
    assert state.declared == [0, 0, 0, 0]


def test_the_napoletana_points_are_added_to_the_hand_score_at_its_end():
    state = make_state(
        hands=["5B", "4B"],
        piles=["", "1D 1C 1S"],
        leader=0,
        napoletana=(0, 3),
        declared=(0, 1 << SWORDS),
        rules=TressetteRules(players=2, napoletana=True),
        fill=0,
    )
    _, events = play(state, "5B", "4B")
    scored = next(e for e in events if isinstance(e, HandScored))
    assert scored.sides == (
        TressetteSideScore(side=0, thirds=23, card_points=7, last_trick_point=1, napoletana=0),
        TressetteSideScore(side=1, thirds=9, card_points=3, last_trick_point=0, napoletana=3),
    )
    assert scored.scores == (8, 6)


# ---------------------------------------------------------------- the option off


@pytest.mark.parametrize("hands", [HANDS, HANDS_4])
def test_nothing_is_declared_when_the_option_is_off(hands):
    state = game(hands, napoletana=False, target=1000)
    assert state.rules.napoletana is False
    choose = random_chooser(9)
    while True:
        events = state.apply(choose(state))
        assert not any(isinstance(e, NapoletanaDeclared) for e in events)
        scored = next((e for e in events if isinstance(e, HandScored)), None)
        if scored:
            break
        if len(hands) == 4:
            assert all(state.view(seat).known == ((),) * 4 for seat in range(4))
        elif state.stock:
            assert not set(state.view(1).known[0]) & set(cards("3D 2D 1D"))
            assert not set(state.view(0).known[1]) & set(cards("3S 2S 1S"))
    assert [s.napoletana for s in scored.sides] == [0, 0]
    assert sum(s.total for s in scored.sides) == 11


def test_a_draw_completing_one_declares_nothing_when_the_option_is_off():
    state = game(DRAW_HANDS, stock="1C 9C", napoletana=False)
    state, events = play(state, "10B", "5D")
    assert not any(isinstance(e, NapoletanaDeclared) for e in events)
    assert set(state.view(1).known[0]) == {card("1C")}  # drawn, so shown; no more
