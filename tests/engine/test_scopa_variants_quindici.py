"""docs/variants.md, Scopa di Quindici: QUI-1..QUI-5 and the examples QUI-ex1..QUI-ex8.

Two players unless said otherwise; seat 0 is to play.
"""

from __future__ import annotations

import pytest

from mazzo.engine import DECK, Reason
from mazzo.engine.events import Capture, CardPlayed, HandScored, LeftoversTaken, Redeal
from mazzo.engine.scopa import ScopaState, captures
from mazzo.engine.scopa_rules import CaptureRule
from tests.engine.scopa_support import applied, card, cards, make_state, refusal
from tests.engine.scopa_variants_support import (
    choice_texts,
    choices_of,
    deck_dealing,
    events_of,
    play,
    preset,
    takes,
)


def quindici(table: str, hand: str = "7D 2B", **overrides):
    rules = preset("quindici", **overrides)
    return make_state(hands=[hand, "10D"], table=table, rules=rules, fill="stock")


def options(state, played: str) -> set[frozenset]:
    return set(captures(card(played), state.table, state.rules))


# ---------------------------------------------------------------- QUI-1, QUI-2 the capture


def test_qui_ex1_a_seven_takes_the_eight_or_three_plus_five():
    state = quindici("8C 3S 5B 2D")
    assert options(state, "7D") == takes("8C", "3S 5B")
    err = refusal(state, play(0, "7D"))
    assert err.reason is Reason.CAPTURE_CHOICE_REQUIRED
    assert choices_of(err.details) == choice_texts("8C", "3S 5B")
    after, events = applied(state, play(0, "7D", "3S 5B"))
    assert events[-1] == Capture(0, 0, card("7D"), cards("3S 5B"), sweep=False)
    assert after.table == cards("8C 2D")


def test_qui_ex1_with_fewest_cards_only_the_eight():
    state = quindici("8C 3S 5B 2D", fewest_cards=True)
    assert options(state, "7D") == takes("8C")
    assert state.resolve(play(0, "7D")) == play(0, "7D", "8C")
    assert refusal(state, play(0, "7D", "3S 5B")).reason is Reason.MUST_TAKE_FEWEST_CARDS


def test_qui_ex2_no_rank_capture_a_five_takes_the_king_not_the_five():
    state = quindici("5C 10S", hand="5D 2B")
    assert options(state, "5D") == takes("10S")
    assert state.resolve(play(0, "5D")) == play(0, "5D", "10S")
    assert refusal(state, play(0, "5D", "5C")).reason is Reason.NO_SUCH_CAPTURE


def test_qui_1_a_sum_to_the_played_value_is_no_capture():
    """3 + 4 make 7, but 7 + 3 + 4 = 14: the seven takes nothing here."""
    state = quindici("3C 4S", hand="7D 2B")
    assert options(state, "7D") == {frozenset()}
    assert refusal(state, play(0, "7D", "3C 4S")).reason is Reason.NO_SUCH_CAPTURE
    after, events = applied(state, play(0, "7D"))
    assert events == [CardPlayed(0, card("7D"))]
    assert after.table == cards("3C 4S 7D")


@pytest.mark.parametrize(
    ("played", "table_card"), [("7D", "8C"), ("5D", "10C"), ("9D", "6C"), ("6D", "9C")]
)
def test_qui_2_one_table_card_can_do(played, table_card):
    state = quindici(f"{table_card} 1S", hand=f"{played} 2B")
    assert options(state, played) == takes(table_card)


def test_qui_ex3_an_ace_needs_fourteen_from_two_cards_or_more():
    state = quindici("4C 10B 2S", hand="1D 2B")
    assert options(state, "1D") == takes("4C 10B")
    after, events = applied(state, play(0, "1D"))
    assert events[-1] == Capture(0, 0, card("1D"), cards("4C 10B"), sweep=False)
    assert after.table == cards("2S")


def test_qui_2_an_ace_never_takes_a_single_card():
    state = quindici("10B 9C 5S", hand="1D 2B")
    assert options(state, "1D") == takes("9C 5S")
    state = quindici("10B", hand="1D 2B")
    assert options(state, "1D") == {frozenset()}


def test_qui_ex4_an_eight_onto_seven_in_four_cards_sweeps():
    """From naipes-casino: 3 + 2 + 1 + 1 + 8 = 15."""
    state = quindici("3C 2S 1B 1D", hand="8D 2B")
    assert options(state, "8D") == takes("3C 2S 1B 1D")
    after, events = applied(state, play(0, "8D"))
    assert events[-1] == Capture(0, 0, card("8D"), cards("3C 2S 1B 1D"), sweep=True)
    assert after.sweeps == [1, 0]
    assert after.table == ()


# ---------------------------------------------------------------- QUI-3 compulsory


def test_qui_ex5_the_five_must_take_the_king_the_two_stays():
    state = quindici("10C", hand="5S 2B")
    assert {(m.card, m.take) for m in state.legal_moves()} == {
        (card("5S"), frozenset(cards("10C"))),
        (card("2B"), frozenset()),
    }
    assert state.resolve(play(0, "5S")) == play(0, "5S", "10C")
    after, events = applied(state, play(0, "2B"))
    assert events == [CardPlayed(0, card("2B"))]
    assert after.table == cards("10C 2B")


def test_qui_3_a_card_that_can_take_must_take():
    state = quindici("10C", hand="5S 2B")
    assert [m for m in state.legal_moves() if m.card == card("5S")] == [play(0, "5S", "10C")]


def test_qui_ex6_fewest_cards_under_quindici_applies_to_the_fifteens():
    state = quindici("2C 3S 5D 10B", hand="5S 2B")
    assert options(state, "5S") == takes("10B", "2C 3S 5D")
    state = quindici("2C 3S 5D 10B", hand="5S 2B", fewest_cards=True)
    assert options(state, "5S") == takes("10B")
    err = refusal(state, play(0, "5S", "2C 3S 5D"))
    assert err.reason is Reason.MUST_TAKE_FEWEST_CARDS
    assert choices_of(err.details) == choice_texts("10B")


# ---------------------------------------------------------------- QUI-4 no king redeal


def test_qui_ex7_three_kings_on_the_first_table_are_no_redeal_and_a_five_takes_one():
    deck = deck_dealing(["5C 1C 2C", "3C 4C 6C"], "10D 10C 10S 4B")
    state, events = ScopaState.new_game(preset("quindici"), seed=1, decks=[deck, DECK])
    assert events_of(events, Redeal) == []
    assert state.table == cards("10D 10C 10S 4B")
    assert options(state, "5C") == takes("10D", "10C", "10S")
    after, events = applied(state, play(0, "5C", "10S"))
    assert events[-1] == Capture(0, 0, card("5C"), cards("10S"), sweep=False)


def test_qui_4_the_preset_has_no_king_redeal():
    assert preset("quindici").redeal_kings is False
    assert preset("quindici").capture is CaptureRule.QUINDICI


def test_qui_ex8_canonical_deck_the_five_of_coins_takes_the_king():
    state, _ = ScopaState.new_game(preset("quindici"), seed=1, decks=[DECK])
    assert state.hands[0] == list(cards("1D 3D 5D"))
    assert state.table == cards("7D 8D 9D 10D")
    assert {(m.card, m.take) for m in state.legal_moves()} == {
        (card("1D"), frozenset()),
        (card("3D"), frozenset()),
        (card("5D"), frozenset(cards("10D"))),
    }


# ---------------------------------------------------------------- QUI-5 sweeps and scoring


def test_qui_5_the_last_card_of_the_hand_never_sweeps():
    state = make_state(
        hands=["8D", ""],
        table="3C 4S",
        rules=preset("quindici"),
        last_capture_side=1,
        fill=1,
    )
    _, events = applied(state, play(0, "8D"))
    assert events_of(events, Capture) == [Capture(0, 0, card("8D"), cards("3C 4S"), sweep=False)]
    assert events_of(events, LeftoversTaken) == []
    (scored,) = events_of(events, HandScored)
    assert [s.sweeps for s in scored.sides] == [0, 0]


def test_qui_5_scoring_is_scopa_and_the_target_is_eleven():
    rules = preset("quindici")
    assert rules.target == 11
    state = make_state(
        hands=["8D", ""],
        table="3C 4S",
        piles=["7D 1D 2D 3D 4D 5D 6D 7C 7S 7B", ""],
        rules=rules,
        sweeps=[1, 0],
        last_capture_side=0,
        fill=1,
    )
    _, events = applied(state, play(0, "8D"))
    (scored,) = events_of(events, HandScored)
    side0 = scored.sides[0]
    assert (side0.denari_point, side0.settebello_point, side0.primiera_point) == (1, 1, 1)
    assert side0.sweeps == 1
    assert side0.cards_point == 0  # 13 cards against 27
    assert (side0.grande, side0.piccola, side0.re_bello_point, side0.declarations) == (0, 0, 0, 0)
    assert side0.total == 4


def test_quindici_with_the_ace_that_takes_all():
    """QUI combinations: an ace on a table with no ace takes everything instead of 14."""
    state = quindici("4C 10B 2S", hand="1D 2B", ace_takes_all=True)
    assert options(state, "1D") == takes("4C 10B 2S")
    state = quindici("1C 4S 10B", hand="1D 2B", ace_takes_all=True)
    assert options(state, "1D") == takes("4S 10B")
