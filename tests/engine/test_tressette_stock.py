"""docs/rules.md, Tressette, Two players: the stock, the draw order, drawn cards in the open."""

from __future__ import annotations

import pytest

from mazzo.engine.events import CardDrawn, CardPlayed, CardsDealt, Deal, HandScored, TrickWon
from mazzo.engine.tressette import TressetteRules, TressetteState
from tests.engine.tressette_support import (
    card,
    cards,
    deck_dealing,
    make_state,
    play,
    random_chooser,
    start,
)

HANDS = ("4C 1D 2D 3D 5B 6B 7B 8B 9B 10B", "5C 3C 3S 1S 2S 4S 5S 6S 7S 3B")
STOCK = "9C 10C 4D 5D"


def fresh():
    state, _ = start(2, deck_dealing(HANDS, stock=STOCK))
    return state


def test_the_winner_draws_the_top_card_first_then_the_other_player():
    # Seat 1 wins the first trick with the 5 of cups, so seat 1 draws first.
    state, events = play(fresh(), "4C", "5C")
    assert events == [
        CardPlayed(0, card("4C")),
        CardPlayed(1, card("5C")),
        TrickWon(1, 1, 0, cards("4C 5C")),
        CardDrawn(1, card("9C")),
        CardDrawn(0, card("10C")),
    ]
    assert state.hands[1][-1] == card("9C")
    assert state.hands[0][-1] == card("10C")
    assert state.stock[:2] == list(cards("4D 5D"))
    assert len(state.stock) == 18


def test_when_the_leader_wins_the_leader_draws_first():
    state, _ = play(fresh(), "4C", "5C")  # seat 1 wins and leads the second trick
    state, events = play(state, "3S", "10C")  # seat 0 holds no swords: seat 1 wins again
    assert events[2] == TrickWon(1, 1, 1, cards("3S 10C"))
    assert events[3:] == [CardDrawn(1, card("4D")), CardDrawn(0, card("5D"))]


def test_the_other_wins_and_draws_first_when_it_beats_the_leader():
    state, events = play(fresh(), "3D", "5C")  # seat 1 has no coins: seat 0 wins
    assert events[2] == TrickWon(0, 0, 0, cards("3D 5C"))
    assert events[3:] == [CardDrawn(0, card("9C")), CardDrawn(1, card("10C"))]
    assert state.to_play == 0


def test_drawn_cards_are_public_events():
    _, events = play(fresh(), "4C", "5C")
    drawn = [e for e in events if isinstance(e, CardDrawn)]
    assert len(drawn) == 2
    assert [e.visible_to for e in drawn] == [None, None]


def test_each_drawn_card_is_in_the_opponents_view_until_played():
    state, _ = play(fresh(), "4C", "5C")  # seat 1 drew 9C, seat 0 drew 10C
    assert set(state.view(0).known[1]) == {card("9C")}
    assert set(state.view(1).known[0]) == {card("10C")}
    assert state.view(0).known[0] == () and state.view(1).known[1] == ()
    # Seat 1 leads the 9C: it leaves the opponent's knowledge; the 10C stays until played.
    state, _ = play(state, "9C")
    assert state.view(0).known[1] == ()
    assert set(state.view(1).known[0]) == {card("10C")}
    state, _ = play(state, "10C")  # the king of cups wins: seat 0 draws 4D, seat 1 5D
    assert set(state.view(1).known[0]) == {card("4D")}
    assert set(state.view(0).known[1]) == {card("5D")}


def test_drawn_cards_accumulate_in_the_opponents_knowledge():
    state, _ = play(fresh(), "4C", "5C")  # seat 1 drew 9C, seat 0 drew 10C
    state, _ = play(state, "3S", "5B")  # seat 1 wins again: draws 4D, seat 0 draws 5D
    assert set(state.view(0).known[1]) == set(cards("9C 4D"))
    assert set(state.view(1).known[0]) == set(cards("10C 5D"))


def test_hands_return_to_ten_while_the_stock_lasts_then_ten_tricks_from_the_hands():
    state, _ = TressetteState.new_game(TressetteRules(players=2), seed=31)
    choose = random_chooser(31)
    tricks = draws = 0
    while True:
        stock_before = len(state.stock)
        events = state.apply(choose(state))
        if any(isinstance(e, HandScored) for e in events):
            tricks += 1
            assert stock_before == 0
            assert not any(isinstance(e, CardDrawn) for e in events)
            break
        if not any(isinstance(e, TrickWon) for e in events):
            continue
        tricks += 1
        drawn = [e for e in events if isinstance(e, CardDrawn)]
        if stock_before:
            assert len(drawn) == 2
            draws += 2
            assert len(state.stock) == stock_before - 2
            assert [len(h) for h in state.hands] == [10, 10]
        else:
            assert drawn == []
            assert [len(h) for h in state.hands] == [20 - tricks] * 2
    assert tricks == 20
    assert draws == 20


def test_once_the_stock_is_gone_the_opponents_whole_hand_is_known():
    state, _ = TressetteState.new_game(TressetteRules(players=2), seed=5)
    choose = random_chooser(5)
    while state.stock:
        for seat in (0, 1):
            known = set(state.view(seat).known[1 - seat])
            assert known < set(state.hands[1 - seat])
        state.apply(choose(state))
    # The last trick with draws just ended: ten cards each, all known to the other.
    assert [len(h) for h in state.hands] == [10, 10]
    while state.hands[0] or state.hands[1]:
        for seat in (0, 1):
            assert set(state.view(seat).known[1 - seat]) == set(state.hands[1 - seat])
            assert len(state.view(seat).known[1 - seat]) == len(state.hands[1 - seat])
        events = state.apply(choose(state))
        if any(isinstance(e, HandScored) for e in events):
            break


def test_with_the_stock_gone_known_is_every_card_not_yet_seen():
    state = make_state(hands=["1D 4B", "2D 5B"], leader=0, fill=0)
    seen = state.view(0)
    assert set(seen.known[1]) == set(cards("2D 5B"))
    assert seen.known[0] == ()


def test_the_last_draw_takes_the_last_two_cards_and_nothing_is_drawn_after():
    state = make_state(
        hands=["4B 9D 10D 5D 6D 7D 8D 1S 2S 3S", "5B 4S 5S 6S 7S 8S 9S 10S 1C 2C"],
        stock="3C 4C",
        leader=0,
        fill=0,
    )
    state, events = play(state, "4B", "5B")
    assert events[-2:] == [CardDrawn(1, card("3C")), CardDrawn(0, card("4C"))]
    assert state.stock == []
    state, events = play(state, "4S", "1S")
    assert events[2] == TrickWon(0, 0, 1, cards("4S 1S"))
    assert not any(isinstance(e, CardDrawn) for e in events)
    assert [len(h) for h in state.hands] == [9, 9]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_four_players_draw_nothing_and_know_nothing_of_other_hands(seed):
    state, events = TressetteState.new_game(TressetteRules(players=4), seed=seed)
    assert state.stock == []
    choose = random_chooser(seed)
    tricks = 0
    while True:
        for seat in range(4):
            assert state.view(seat).known == ((), (), (), ())
            assert state.view(seat).stock_size == 0
        events = state.apply(choose(state))
        assert not any(isinstance(e, CardDrawn) for e in events)
        tricks += sum(isinstance(e, TrickWon) for e in events)
        if any(isinstance(e, HandScored) for e in events):
            break
        if tricks and any(isinstance(e, TrickWon) for e in events):
            assert [len(h) for h in state.hands] == [10 - tricks] * 4
    assert tricks == 10
    assert any(isinstance(e, Deal) for e in events)
    assert any(isinstance(e, CardsDealt) for e in events)
    assert state.legal_moves()
