"""docs/rules.md, Hidden information: what each seat's view and each event may show."""

from __future__ import annotations

import pytest

from mazzo.engine import InvalidInput, Move, Reason
from mazzo.engine.events import (
    Capture,
    CardPlayed,
    CardsDealt,
    Deal,
    GameOver,
    HandScored,
    LeftoversTaken,
    Redeal,
    SideScore,
)
from mazzo.engine.scopa import ScopaRules, ScopaState
from tests.engine.scopa_support import (
    applied,
    card,
    cards,
    cards_in,
    check_deal_events,
    check_step_events,
    check_view,
    deck_starting_with,
    hidden_from,
    make_state,
    random_chooser,
    shuffled_deck,
    steps,
)


def test_a_seats_view_holds_its_own_hand_the_table_the_counts_and_the_piles():
    state = make_state(
        hands=["7D 2C", "4B 6S 10C"],
        table="3C 4S",
        stock="1B 2B 3B",
        piles=["5D 5C", "9S 9B"],
        sweeps=[1, 0],
        scores=[3, 4],
    )
    seen = state.view(0)
    assert seen.seat == 0
    assert seen.side == 0
    assert seen.hand == cards("7D 2C")
    assert seen.table == cards("3C 4S")
    assert seen.hand_sizes == (2, 3)
    assert seen.stock_size == 3
    assert seen.piles == (cards("5D 5C"), cards("9S 9B"))
    assert seen.sweeps == (1, 0)
    assert seen.status.scores == (3, 4)
    assert seen.status.seat_to_play == 0
    shown = set(cards_in(seen))
    assert not shown & set(cards("4B 6S 10C 1B 2B 3B"))
    check_view(state, 0)
    check_view(state, 1)


def test_a_view_never_shows_another_hand_or_the_stock_with_teams():
    rules = ScopaRules(players=4)
    state = make_state(hands=["7D", "4B", "6S", "10C"], table="3C", rules=rules, fill="stock")
    for seat in range(4):
        seen = state.view(seat)
        assert seen.hand == tuple(state.hands[seat])
        # Not even the partner's hand.
        partner = (seat + 2) % 4
        assert not set(cards_in(seen)) & set(state.hands[partner])
        assert seen.side == seat % 2
        check_view(state, seat)


@pytest.mark.parametrize("seat", [-1, 2, 6])
def test_a_view_for_a_seat_that_does_not_exist_is_refused_invalid_seat(seat):
    state, _ = ScopaState.new_game(ScopaRules(players=2), seed=1)
    with pytest.raises(InvalidInput) as err:
        state.view(seat)
    assert err.value.reason is Reason.INVALID_SEAT


def test_only_cards_dealt_are_private_and_only_to_their_seat():
    assert CardsDealt(2, cards("1D")).visible_to == 2
    public = [
        Deal(1, 0, cards("1D"), (3, 3), 30),
        Redeal(0, cards("10D 10C 10S 1B")),
        CardPlayed(0, card("1D")),
        Capture(0, 0, card("1D"), cards("1C"), False),
        LeftoversTaken(0, cards("1S")),
        HandScored(1, (SideScore(0, 1, 0, 0, 0, 0, 0, 0, 0, 0),), (0,)),
        GameOver(0, (11, 3)),
    ]
    assert [e.visible_to for e in public] == [None] * len(public)


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_new_game_events_show_each_hand_to_its_seat_only(players):
    state, events = ScopaState.new_game(ScopaRules(players=players), seed=41)
    check_deal_events(state, events, first=True)
    for seat in range(players):
        shown = {c for e in events if e.visible_to in (None, seat) for c in cards_in(e)}
        assert shown == set(state.hands[seat]) | set(state.table)
        assert not shown & hidden_from(state, seat)


def test_a_void_first_table_is_shown_to_all_and_hides_nothing_of_the_new_deal():
    kings = deck_starting_with("1D 2D 3D 4D 5D 6D 10D 10C 10S 7B")
    state, events = ScopaState.new_game(
        ScopaRules(players=2), seed=1, decks=[kings, shuffled_deck(3)]
    )
    assert isinstance(events[0], Redeal) and events[0].visible_to is None
    check_deal_events(state, events[1:], first=True)


@pytest.mark.parametrize("players", [2, 3, 4, 6])
@pytest.mark.parametrize("seed", [1, 2])
def test_at_every_step_of_a_game_views_and_events_hide_other_hands_and_the_stock(players, seed):
    state, events = ScopaState.new_game(ScopaRules(players=players), seed=seed)
    check_deal_events(state, events, first=True)
    for step in steps(state, random_chooser(seed)):
        check_step_events(step.before, step.move, step.after, step.events)
        for seat in range(players):
            check_view(step.after, seat)


def test_a_mid_hand_deal_tells_each_seat_only_its_own_new_cards():
    state = make_state(
        hands=["", "5C"], table="4D 6D", stock="1B 2B 3B 4B 5B 6B", to_play=1, dealer=1, fill=0
    )
    move = Move(1, card("5C"))
    after, events = applied(state, move)
    check_step_events(state, move, after, events)
    seen0 = {c for e in events if e.visible_to in (None, 0) for c in cards_in(e)}
    assert seen0 == set(cards("5C 1B 3B 5B"))
    seen1 = {c for e in events if e.visible_to in (None, 1) for c in cards_in(e)}
    assert seen1 == set(cards("5C 2B 4B 6B"))
