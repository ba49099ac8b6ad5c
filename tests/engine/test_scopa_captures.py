"""docs/rules.md, Scopa, A turn: what a played card must, may and may not take; refusals."""

from __future__ import annotations

import copy

import pytest

from mazzo.engine import IllegalMove, InvalidInput, Move, Reason, dump_state
from mazzo.engine.events import Capture, CardPlayed
from mazzo.engine.scopa import ScopaRules, captures
from tests.engine.scopa_support import applied, card, cards, make_state, refusal


def takes(*groups: str) -> set[frozenset]:
    return {frozenset(cards(g)) for g in groups}


def seed_000_state(hand: str = "5D 8C 10C"):
    """the example of docs/rules.md: the table shows 2, 3, 5 and 8 (a jack)."""
    return make_state(hands=[hand, "6D 1S 4S"], table="2C 3S 5B 8D", fill="stock")


# ---------------------------------------------------------------- the example of docs/rules.md


def test_seed_000_a_five_takes_only_the_five_not_two_plus_three():
    state = seed_000_state()
    assert set(captures(card("5D"), state.table)) == takes("5B")
    assert state.resolve(Move(0, card("5D"))) == Move(0, card("5D"), frozenset(cards("5B")))
    err = refusal(state, Move(0, card("5D"), frozenset(cards("2C 3S"))))
    assert err.reason is Reason.MUST_TAKE_SAME_RANK


def test_seed_000_a_jack_takes_only_the_jack_not_three_plus_five():
    state = seed_000_state()
    assert set(captures(card("8C"), state.table)) == takes("8D")
    err = refusal(state, Move(0, card("8C"), frozenset(cards("3S 5B"))))
    assert err.reason is Reason.MUST_TAKE_SAME_RANK
    after, events = applied(state, Move(0, card("8C")))
    assert events[1] == Capture(0, 0, card("8C"), cards("8D"), sweep=False)
    assert after.table == cards("2C 3S 5B")
    assert after.piles[0] == list(cards("8C 8D"))


def test_seed_000_a_king_takes_two_plus_jack_or_two_plus_three_plus_five_by_choice():
    state = seed_000_state()
    assert set(captures(card("10C"), state.table)) == takes("2C 8D", "2C 3S 5B")
    for take in takes("2C 8D", "2C 3S 5B"):
        after, events = applied(state, Move(0, card("10C"), take))
        assert set(after.table) == set(state.table) - take
        assert set(after.piles[0]) == take | {card("10C")}
        assert events[1] == Capture(
            0, 0, card("10C"), tuple(c for c in state.table if c in take), sweep=False
        )


def test_seed_000_a_six_takes_nothing_and_stays_on_the_table():
    state = seed_000_state(hand="6C 5D 8C")
    assert captures(card("6C"), state.table) == [frozenset()]
    after, events = applied(state, Move(0, card("6C")))
    assert after.table == cards("2C 3S 5B 8D 6C")
    assert after.piles == [[], []]
    assert events == [CardPlayed(0, card("6C"))]
    assert after.last_capture_side is None


def test_seed_000_legal_moves_list_exactly_these_takings():
    state = seed_000_state(hand="5D 8C 10C")
    assert {(m.card, m.take) for m in state.legal_moves()} == {
        (card("5D"), frozenset(cards("5B"))),
        (card("8C"), frozenset(cards("8D"))),
        (card("10C"), frozenset(cards("2C 8D"))),
        (card("10C"), frozenset(cards("2C 3S 5B"))),
    }


# ---------------------------------------------------------------- same rank


def test_same_rank_capture_is_compulsory_over_a_sum():
    state = make_state(hands=["7D 1B", "2B"], table="3C 4S 7C", fill="stock")
    err = refusal(state, Move(0, card("7D"), frozenset(cards("3C 4S"))))
    assert err.reason is Reason.MUST_TAKE_SAME_RANK
    after, _ = applied(state, Move(0, card("7D")))
    assert after.table == cards("3C 4S")
    assert after.piles[0] == list(cards("7D 7C"))


def test_same_rank_capture_takes_exactly_one_card_even_when_two_match():
    state = make_state(hands=["7D 1B", "2B"], table="7C 7S 3B", fill="stock")
    err = refusal(state, Move(0, card("7D"), frozenset(cards("7C 7S"))))
    assert err.reason is Reason.MUST_TAKE_SAME_RANK


@pytest.mark.parametrize("chosen", ["7C", "7S"])
def test_the_player_chooses_which_same_rank_card_to_take(chosen):
    state = make_state(hands=["7D 1B", "2B"], table="7C 3D 7S 4B", fill="stock")
    assert set(captures(card("7D"), state.table)) == takes("7C", "7S")
    after, events = applied(state, Move(0, card("7D"), frozenset(cards(chosen))))
    assert after.piles[0] == [card("7D"), card(chosen)]
    assert card(chosen) not in after.table
    assert len(after.table) == 3
    assert events[1].taken == (card(chosen),)


def test_an_omitted_take_with_two_same_rank_cards_asks_which_listing_both():
    state = make_state(hands=["7D 1B", "2B"], table="7C 3D 7S 4B", fill="stock")
    err = refusal(state, Move(0, card("7D")))
    assert err.reason is Reason.CAPTURE_CHOICE_REQUIRED
    assert set(err.choices) == {
        Move(0, card("7D"), frozenset(cards("7C"))),
        Move(0, card("7D"), frozenset(cards("7S"))),
    }
    assert set(err.details["choices"].split(";")) == {"7C", "7S"}


# ---------------------------------------------------------------- sums


@pytest.mark.parametrize(
    ("played", "table", "expected"),
    [
        ("3D", "1C 2S 4B", ["1C 2S"]),
        ("5D", "1C 2S 4B", ["1C 4B"]),
        ("6D", "1C 2S 4B", ["2S 4B"]),
        ("7D", "1C 2S 4B", ["1C 2S 4B"]),
        ("10D", "1C 2S 3B 4D 6C", ["1C 2S 3B 4D", "4D 6C", "1C 3B 6C"]),
        ("9D", "4C 5S 4B 5D", ["4C 5S", "4C 5D", "4B 5S", "4B 5D"]),
        ("4D", "2C 2S 1B 3B", ["2C 2S", "1B 3B"]),
        ("10S", "1D 2D 3D 4D", ["1D 2D 3D 4D"]),
    ],
)
def test_a_card_may_take_any_set_of_two_or_more_cards_summing_to_its_value(played, table, expected):
    state = make_state(hands=[played, "6B"], table=table, fill="stock")
    assert set(captures(card(played), state.table)) == takes(*expected)
    for take in takes(*expected):
        after, events = applied(state, Move(0, card(played), take))
        assert set(after.piles[0]) == take | {card(played)}
        assert set(events[1].taken) == take


def test_a_sum_capture_must_be_exact():
    state = make_state(hands=["7D", "6B"], table="1C 2S 5B", fill="stock")
    assert set(captures(card("7D"), state.table)) == takes("2S 5B")
    for wrong in ("1C 5B", "1C 2S 5B", "1C 2S"):
        err = refusal(state, Move(0, card("7D"), frozenset(cards(wrong))))
        assert err.reason is Reason.NO_SUCH_CAPTURE


def test_a_single_card_of_a_different_rank_is_not_a_capture():
    state = make_state(hands=["7D", "6B"], table="3C 4S", fill="stock")
    for single in ("3C", "4S"):
        err = refusal(state, Move(0, card("7D"), frozenset(cards(single))))
        assert err.reason is Reason.NO_SUCH_CAPTURE
    assert captures(card("7D"), cards("3C")) == [frozenset()]
    assert captures(card("7D"), cards("6C 1S")) == [frozenset(cards("6C 1S"))]


def test_an_ace_cannot_be_a_sum_so_it_takes_only_an_ace():
    assert captures(card("1D"), cards("2C 3S 4B")) == [frozenset()]
    assert captures(card("1D"), cards("1C 2S")) == [frozenset(cards("1C"))]


# ---------------------------------------------------------------- omitted take, compulsory


def test_an_omitted_take_is_filled_in_when_only_one_capture_exists():
    state = make_state(hands=["7D 1B", "2B"], table="3C 4S 9B", fill="stock")
    assert state.resolve(Move(0, card("7D"))) == Move(0, card("7D"), frozenset(cards("3C 4S")))
    after, events = applied(state, Move(0, card("7D")))
    assert after.table == cards("9B")
    assert events[1] == Capture(0, 0, card("7D"), cards("3C 4S"), sweep=False)


def test_an_omitted_take_with_several_sums_raises_capture_choice_required_listing_each():
    state = make_state(hands=["10C 1B", "2B"], table="2C 3S 5B 8D", fill="stock")
    err = refusal(state, Move(0, card("10C")))
    assert err.reason is Reason.CAPTURE_CHOICE_REQUIRED
    assert set(err.choices) == {
        Move(0, card("10C"), frozenset(cards("2C 8D"))),
        Move(0, card("10C"), frozenset(cards("2C 3S 5B"))),
    }
    assert len(err.choices) == 2
    listed = {frozenset(cards(t.replace("+", " "))) for t in err.details["choices"].split(";")}
    assert listed == takes("2C 8D", "2C 3S 5B")
    # Every listed choice is accepted as it is.
    for choice in err.choices:
        assert state.resolve(choice) == choice


def test_taking_is_compulsory_the_played_card_cannot_be_left_on_a_table_it_can_take_from():
    state = make_state(hands=["5D 6D", "2B"], table="5C 9S", fill="stock")
    assert [m.take for m in state.legal_moves() if m.card == card("5D")] == [frozenset(cards("5C"))]
    # Playing the 5 with no take named still takes the 5: it cannot just be laid down.
    after, _ = applied(state, Move(0, card("5D"), frozenset()))
    assert card("5D") not in after.table
    assert after.piles[0] == list(cards("5D 5C"))


def test_a_player_may_choose_to_play_a_card_that_takes_nothing():
    state = make_state(hands=["5D 6D", "2B"], table="5C 9S", fill="stock")
    after, events = applied(state, Move(0, card("6D")))
    assert after.table == cards("5C 9S 6D")
    assert after.hands[0] == list(cards("5D"))
    assert events == [CardPlayed(0, card("6D"))]


def test_a_card_that_can_take_nothing_stays_on_the_table_and_turn_passes():
    state = make_state(hands=["9D 1B", "2B"], table="1C 2S 3B", fill="stock")
    assert captures(card("9D"), state.table) == [frozenset()]
    after, _ = applied(state, Move(0, card("9D")))
    assert after.table == cards("1C 2S 3B 9D")
    assert after.to_play == 1


def test_a_card_that_can_take_nothing_refuses_a_take():
    state = make_state(hands=["9D 1B", "2B"], table="1C 2S 3B", fill="stock")
    err = refusal(state, Move(0, card("9D"), frozenset(cards("1C"))))
    assert err.reason is Reason.NO_SUCH_CAPTURE


def test_captured_cards_go_to_the_players_pile_played_card_first():
    state = make_state(hands=["9D 1B", "2B"], table="4C 2S 5B", piles=["3D", "3C"], fill="stock")
    after, _ = applied(state, Move(0, card("9D")))
    assert after.piles[0] == list(cards("3D 9D 4C 5B"))
    assert after.piles[1] == list(cards("3C"))
    assert after.last_capture_side == 0


def test_turn_passes_to_the_next_seat_and_wraps_around():
    state = make_state(hands=["9D", "9C", "9S"], table="1C", to_play=2, fill="stock")
    after, _ = applied(state, Move(2, card("9S")))
    assert after.to_play == 0


# ---------------------------------------------------------------- refusals


def base_state():
    return make_state(hands=["7D 2C 9B", "4B 6S 10C"], table="3C 4S 5D", fill="stock")


def test_a_seat_playing_out_of_turn_is_refused_not_your_turn():
    err = refusal(base_state(), Move(1, card("4B")))
    assert err.reason is Reason.NOT_YOUR_TURN
    assert err.details["seatToPlay"] == "0"


def test_a_card_not_in_the_players_hand_is_refused_card_not_in_hand():
    state = base_state()
    for not_held in ("4B", "3C", "1D", state.stock[0].name):
        err = refusal(state, Move(0, card(not_held)))
        assert err.reason is Reason.CARD_NOT_IN_HAND


def test_taking_a_card_not_on_the_table_is_refused_card_not_on_table():
    state = base_state()
    for take in ("3C 1D", "2C 5D", "4B 3C", "1S"):
        err = refusal(state, Move(0, card("7D"), frozenset(cards(take))))
        assert err.reason is Reason.CARD_NOT_ON_TABLE


def test_a_take_that_is_no_capture_is_refused_no_such_capture():
    state = base_state()
    err = refusal(state, Move(0, card("9B"), frozenset(cards("3C 5D"))))
    assert err.reason is Reason.NO_SUCH_CAPTURE
    err = refusal(state, Move(0, card("2C"), frozenset(cards("3C"))))
    assert err.reason is Reason.NO_SUCH_CAPTURE


def test_any_move_once_the_game_is_over_is_refused_game_over():
    state = make_state(hands=["7D", "4B"], table="3C 4S", winner=0, fill="stock")
    err = refusal(state, Move(0, card("7D")))
    assert err.reason is Reason.GAME_OVER
    assert state.legal_moves() == []


@pytest.mark.parametrize("seat", [2, -1, 7])
def test_a_seat_that_does_not_exist_is_refused_invalid_seat(seat):
    with pytest.raises(InvalidInput) as err:
        base_state().apply(Move(seat, card("7D")))
    assert err.value.reason is Reason.INVALID_SEAT


def test_a_seat_that_does_not_exist_is_refused_with_four_players_too():
    state = make_state(hands=["7D", "4B", "1B", "2B"], table="3C 4S", fill="stock")
    with pytest.raises(InvalidInput) as err:
        state.resolve(Move(4, card("7D")))
    assert err.value.reason is Reason.INVALID_SEAT


REFUSED_MOVES = [
    Move(1, card("4B")),
    Move(0, card("4B")),
    Move(0, card("7D"), frozenset(cards("1D"))),
    Move(0, card("9B"), frozenset(cards("3C 5D"))),
    Move(0, card("7D"), frozenset(cards("3C"))),
    Move(0, card("10C")),
]


@pytest.mark.parametrize("move", REFUSED_MOVES, ids=str)
def test_a_refused_move_leaves_the_given_state_unchanged(move):
    state = base_state()
    before = copy.deepcopy(state)
    before_bytes = dump_state(state)
    with pytest.raises(IllegalMove):
        state.apply(move)
    assert state == before
    assert dump_state(state) == before_bytes


def test_a_refused_choice_leaves_the_given_state_unchanged():
    state = make_state(hands=["10C 1B", "2B"], table="2C 3S 5B 8D", fill="stock")
    before = copy.deepcopy(state)
    with pytest.raises(IllegalMove):
        state.apply(Move(0, card("10C")))
    assert state == before


def test_a_move_played_on_a_clone_leaves_the_original_unchanged():
    state = base_state()
    before = copy.deepcopy(state)
    after = state.clone()
    after.apply(Move(0, card("7D"), frozenset(cards("3C 4S"))))
    assert state == before
    assert after != state


def test_a_team_capture_goes_to_the_team_pile():
    rules = ScopaRules(players=4)
    state = make_state(
        hands=["1D", "1C", "9D 2D", "1B"], table="4C 5S", to_play=2, rules=rules, fill="stock"
    )
    after, events = applied(state, Move(2, card("9D")))
    assert after.piles == [list(cards("9D 4C 5S")), []]
    assert events[1].side == 0
    assert events[1].seat == 2
