"""docs/rules.md, Scopa: sweeps, the last card of the hand, and the cards left on the table."""

from __future__ import annotations

from mazzo.engine import Move
from mazzo.engine.events import Capture, CardPlayed, HandScored, LeftoversTaken
from mazzo.engine.scopa import ScopaRules
from tests.engine.scopa_support import applied, card, cards, hands_of, make_state


def test_a_capture_that_empties_the_table_is_a_sweep():
    state = make_state(hands=["7D 1B", "2B 3B"], table="3C 4S", fill="stock")
    after, events = applied(state, Move(0, card("7D")))
    assert after.table == ()
    assert events == [
        CardPlayed(0, card("7D")),
        Capture(0, 0, card("7D"), cards("3C 4S"), sweep=True),
    ]
    assert after.sweeps == [1, 0]


def test_a_same_rank_capture_of_the_only_card_is_a_sweep():
    state = make_state(hands=["2B 3B", "7D 1B"], table="7C", to_play=1, fill="stock")
    after, events = applied(state, Move(1, card("7D")))
    assert events[-1].sweep is True
    assert after.sweeps == [0, 1]


def test_a_capture_that_leaves_cards_on_the_table_is_no_sweep():
    state = make_state(hands=["7D 1B", "2B 3B"], table="3C 4S 9B", fill="stock")
    after, events = applied(state, Move(0, card("7D")))
    assert events[-1].sweep is False
    assert after.sweeps == [0, 0]


def test_sweeps_add_up_during_a_hand():
    state = make_state(hands=["7D 1B", "2B 3B"], table="3C 4S", sweeps=[2, 1], fill="stock")
    after, _ = applied(state, Move(0, card("7D")))
    assert after.sweeps == [3, 1]


def test_the_next_player_plays_onto_the_empty_table_and_the_card_stays():
    state = make_state(hands=["7D 1B", "2B 3B"], table="3C 4S", fill="stock")
    state.apply(Move(0, card("7D")))
    assert state.to_play == 1
    assert {m.take for m in state.legal_moves()} == {frozenset()}
    events = state.apply(Move(1, card("2B")))
    assert state.table == cards("2B")
    assert events == [CardPlayed(1, card("2B"))]


def test_a_sweep_on_the_last_card_of_a_deal_counts_when_the_stock_is_not_empty():
    state = make_state(
        hands=["", "9D"], table="4C 5S", stock="1B 2B 3B 4B 5B 6B", to_play=1, dealer=1, fill=0
    )
    after, events = applied(state, Move(1, card("9D")))
    assert [e.sweep for e in events if isinstance(e, Capture)] == [True]
    assert after.sweeps == [0, 1]
    assert hands_of(after) == (cards("1B 3B 5B"), cards("2B 4B 6B"))


def test_no_sweep_on_the_last_card_played_in_the_hand():
    # Stock empty, seat 0 holds the hand's last card and takes the whole table with it.
    state = make_state(
        hands=["9D", ""],
        table="4C 5S",
        piles=["", ""],
        last_capture_side=1,
        rules=ScopaRules(players=2, target=1000),
        fill=1,
    )
    after, events = applied(state, Move(0, card("9D")))
    capture = next(e for e in events if isinstance(e, Capture))
    assert capture.sweep is False
    scored = next(e for e in events if isinstance(e, HandScored))
    assert [s.sweeps for s in scored.sides] == [0, 0]
    assert not any(isinstance(e, LeftoversTaken) for e in events)


def test_the_last_card_exception_needs_every_hand_empty():
    # The stock is empty but seat 1 still holds a card: seat 0's sweep counts.
    state = make_state(hands=["9D", "2B"], table="4C 5S", fill=1)
    after, events = applied(state, Move(0, card("9D")))
    assert events[-1] == Capture(0, 0, card("9D"), cards("4C 5S"), sweep=True)
    assert after.sweeps == [1, 0]


def test_no_sweep_on_the_last_card_with_four_players_either():
    rules = ScopaRules(players=4, target=1000)
    state = make_state(hands=["", "", "", "10D"], table="4C 6S", to_play=3, rules=rules, fill=0)
    _, events = applied(state, Move(3, card("10D")))
    capture = next(e for e in events if isinstance(e, Capture))
    assert capture.sweep is False
    assert capture.side == 1
    scored = next(e for e in events if isinstance(e, HandScored))
    assert [s.sweeps for s in scored.sides] == [0, 0]


def test_leftovers_go_to_the_side_that_captured_last_and_are_no_sweep():
    state = make_state(
        hands=["9D", ""],
        table="1C 2S",
        last_capture_side=1,
        sweeps=[1, 2],
        piles=["", "3B"],
        rules=ScopaRules(players=2, target=1000),
        fill=0,
    )
    after, events = applied(state, Move(0, card("9D")))
    # The 9 takes nothing and stays; then the table goes to side 1.
    assert events[0] == CardPlayed(0, card("9D"))
    assert events[1] == LeftoversTaken(side=1, cards=cards("1C 2S 9D"))
    assert isinstance(events[2], HandScored)
    scored = events[2]
    assert [s.sweeps for s in scored.sides] == [1, 2]
    assert scored.sides[1].cards == 4
    assert scored.sides[0].cards == 36


def test_leftovers_go_to_the_last_capturer_even_if_another_side_played_last():
    # Seat 1 captures with the second-to-last card; seat 0's last card takes nothing.
    state = make_state(
        hands=["9D", "5C"],
        table="5S 2B",
        to_play=1,
        dealer=0,
        last_capture_side=0,
        rules=ScopaRules(players=2, target=1000),
        fill=0,
    )
    events = state.apply(Move(1, card("5C")))
    assert events[-1] == Capture(1, 1, card("5C"), cards("5S"), sweep=False)
    assert state.last_capture_side == 1
    _, events = applied(state, Move(0, card("9D")))
    assert LeftoversTaken(side=1, cards=cards("2B 9D")) in events
    scored = next(e for e in events if isinstance(e, HandScored))
    assert scored.sides[1].cards == 4
    assert [s.sweeps for s in scored.sides] == [0, 0]


def test_leftovers_go_to_a_team_by_its_side_number():
    rules = ScopaRules(players=4, target=1000)
    state = make_state(
        hands=["", "", "", "9D"],
        table="1C 2S",
        to_play=3,
        last_capture_side=0,
        rules=rules,
        fill=1,
    )
    _, events = applied(state, Move(3, card("9D")))
    assert LeftoversTaken(side=0, cards=cards("1C 2S 9D")) in events


def test_nothing_left_on_the_table_means_no_leftovers_event():
    state = make_state(
        hands=["9D", ""], table="9C", rules=ScopaRules(players=2, target=1000), fill=1
    )
    _, events = applied(state, Move(0, card("9D")))
    assert not any(isinstance(e, LeftoversTaken) for e in events)
    assert [type(e) for e in events[:3]] == [CardPlayed, Capture, HandScored]
