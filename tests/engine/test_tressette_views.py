"""docs/rules.md, Hidden information: what each Tressette seat's view and each event may show.

The walks below replay whole random games and, at every step, compare each
seat's view with an :class:`Observer` that has read only the events routed to
that seat: the view must hold exactly what the seat was shown (or, with two
players and the stock gone, can deduce) and never a card of another hand or the
stock beyond it.
"""

from __future__ import annotations

import pytest

from mazzo.engine import InvalidInput, Reason
from mazzo.engine.events import (
    CardDrawn,
    CardPlayed,
    CardsDealt,
    Deal,
    GameOver,
    HandScored,
    NapoletanaDeclared,
    TressetteSideScore,
    TrickWon,
)
from mazzo.engine.tressette import TressetteRules, TressetteState
from tests.engine.tressette_support import (
    Observer,
    card,
    cards,
    cards_in,
    check_view,
    deck_dealing,
    make_state,
    random_chooser,
    shuffled_deck,
    steps,
)

# Hands full of napoletane: at the deal (coins for seat 0, swords for seat 1) and
# on draws (cups for seat 0 once it draws the ace).
NAPOLETANA_DECK_2 = deck_dealing(
    ("4C 1D 2D 3D 5B 6B 7B 8B 9B 3C", "5C 2C 3S 1S 2S 4S 5S 6S 7S 3B"), stock="1C 9C"
)
NAPOLETANA_DECK_4 = deck_dealing(
    (
        "1D 2D 4D 5D 6D 7D 8D 9D 10D 1C",
        "3D 2C 3C 4C 5C 6C 7C 8C 9C 10C",
        "3B 2B 1B 4B 5B 6B 7B 8B 9B 10B",
        "1S 2S 3S 4S 5S 6S 7S 8S 9S 10S",
    )
)


# ---------------------------------------------------------------- one view


def test_a_seats_view_holds_its_hand_the_trick_the_counts_the_piles_and_what_it_knows():
    state = make_state(
        hands=["7D 2C 4S", "4B 6S"],
        trick="5S",
        leader=1,
        stock="1B 2B 3B 4C",
        piles=["5D 5C", "9S 9B"],
        revealed=["", "6S"],
        scores=[3, 4],
        fill=0,
    )
    seen = state.view(0)
    assert seen.seat == 0
    assert seen.side == 0
    assert seen.hand == cards("7D 2C 4S")
    assert seen.trick == cards("5S")
    assert seen.leader == 1
    assert seen.hand_sizes == (3, 2)
    assert seen.stock_size == 4
    assert seen.piles[1] == cards("9S 9B")
    assert seen.known == ((), cards("6S"))
    assert seen.status.scores == (3, 4)
    assert seen.status.seat_to_play == 0
    shown = set(cards_in(seen))
    assert card("4B") not in shown
    assert not shown & set(cards("1B 2B 3B 4C"))
    # The opponent sees seat 0's hand only as a count.
    theirs = state.view(1)
    assert theirs.known == ((), ())
    assert not set(cards_in(theirs)) & set(cards("7D 2C 4S"))


def test_a_view_lists_the_hand_by_suit_and_in_each_suit_the_strongest_first():
    # Dealt in no order: 4 and king of coins, 3 of swords, ace and 3 of coins, 2 of cups.
    state = make_state(hands=["4D 10D 3S 1D 3D 2C", "4B 6S"], trick="", leader=0, fill=0)
    assert state.view(0).hand == cards("3D 1D 10D 4D 2C 3S")
    assert state.hands[0] == list(cards("4D 10D 3S 1D 3D 2C"))  # the state keeps its own order


def test_a_partners_hand_is_as_hidden_as_an_opponents():
    state, _ = TressetteState.new_game(TressetteRules(players=4), seed=6)
    for seat in range(4):
        seen = state.view(seat)
        assert seen.side == seat % 2
        assert seen.known == ((),) * 4
        for other in range(4):
            if other != seat:
                assert not set(cards_in(seen)) & set(state.hands[other])


@pytest.mark.parametrize(("players", "seat"), [(2, -1), (2, 2), (4, 4), (4, -1)])
def test_a_view_for_a_seat_that_does_not_exist_is_refused_invalid_seat(players, seat):
    state, _ = TressetteState.new_game(TressetteRules(players=players), seed=1)
    with pytest.raises(InvalidInput) as err:
        state.view(seat)
    assert err.value.reason is Reason.INVALID_SEAT


def test_only_cards_dealt_are_private_and_only_to_their_seat():
    assert [CardsDealt(s, cards("1D")).visible_to for s in range(4)] == [0, 1, 2, 3]
    public = [
        Deal(1, 0, (), (10, 10), 20),
        CardPlayed(0, card("1D")),
        TrickWon(0, 0, 1, cards("1D 2D")),
        CardDrawn(1, card("3D")),
        NapoletanaDeclared(0, 0, 0, cards("3D 2D 1D"), 3),
        HandScored(1, (TressetteSideScore(0, 13, 4, 1, 0),), (5, 6)),
        GameOver(0, (21, 7)),
    ]
    assert [e.visible_to for e in public] == [None] * len(public)


@pytest.mark.parametrize("players", [2, 4])
def test_new_game_events_show_each_seat_its_own_hand_and_only_counts_of_the_rest(players):
    state, events = TressetteState.new_game(TressetteRules(players=players), seed=41)
    for seat in range(players):
        shown = {c for e in events if e.visible_to in (None, seat) for c in cards_in(e)}
        assert shown == set(state.hands[seat])


# ---------------------------------------------------------------- every step of many games


def walk_and_check(players: int, seed: int, napoletana: bool, decks=()) -> int:
    """Play one random game, checking every seat's view at every step; return the
    number of napoletane declared."""
    rules = TressetteRules(players=players, napoletana=napoletana)
    state, events = TressetteState.new_game(rules, seed=seed, decks=decks)
    observers = [Observer(seat, players) for seat in range(players)]
    declared = 0

    def route(events):
        for e in events:
            if isinstance(e, CardsDealt):
                assert e.visible_to == e.seat
            else:
                assert e.visible_to is None, e
        for observer in observers:
            observer.see_all(events)

    route(events)
    for seat in range(players):
        check_view(state, seat, observers[seat])
    for step in steps(state, random_chooser(seed)):
        route(step.events)
        declared += sum(isinstance(e, NapoletanaDeclared) for e in step.events)
        for seat in range(players):
            check_view(step.after, seat, observers[seat])
    assert all(o.game_over for o in observers)
    return declared


@pytest.mark.parametrize("napoletana", [False, True], ids=["plain", "napoletana"])
@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("seed", range(25))
def test_every_view_at_every_step_shows_exactly_what_its_seat_was_shown(players, napoletana, seed):
    declared = walk_and_check(players, seed, napoletana)
    if not napoletana:
        assert declared == 0


@pytest.mark.parametrize("players", [2, 4])
def test_declared_napoletane_are_shown_and_hidden_exactly_as_they_should(players):
    deck = NAPOLETANA_DECK_2 if players == 2 else NAPOLETANA_DECK_4
    total = 0
    for seed in range(6):
        total += walk_and_check(players, seed, True, decks=[deck, shuffled_deck(seed)])
    # Each game declares at least the two napoletane of its first hand.
    assert total >= 12


@pytest.mark.parametrize("players", [2, 4])
def test_the_same_deck_without_the_option_shows_nothing_of_those_cards(players):
    deck = NAPOLETANA_DECK_2 if players == 2 else NAPOLETANA_DECK_4
    assert walk_and_check(players, 3, False, decks=[deck]) == 0
