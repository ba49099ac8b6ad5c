"""docs/variants.md, Scopa d'Assi (Asso piglia tutto): ASS-1..ASS-6 and ASS-ex1..ASS-ex8.

Two players, seat 0 to play, unless said otherwise. The sweep modes are
ORDINARY (the preset), ALWAYS and NEVER.
"""

from __future__ import annotations

import pytest

from mazzo.engine import DECK, Reason
from mazzo.engine.events import Capture, CardPlayed, HandScored, Redeal
from mazzo.engine.scopa import ScopaState, captures
from mazzo.engine.scopa_rules import AceSweep
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

ORDINARY, ALWAYS, NEVER = AceSweep.ORDINARY, AceSweep.ALWAYS, AceSweep.NEVER


def assi(table: str, hand: str = "1D 2B", mode: AceSweep = ORDINARY, **overrides):
    rules = preset("scopa_d_assi", ace_sweep=mode, **overrides)
    return make_state(hands=[hand, "10D"], table=table, rules=rules, fill="stock")


def options(state, played: str) -> set[frozenset]:
    return set(captures(card(played), state.table, state.rules))


# ---------------------------------------------------------------- ASS-1 the ace takes all


@pytest.mark.parametrize(("mode", "sweep"), [(ORDINARY, False), (NEVER, False), (ALWAYS, True)])
def test_ass_ex1_the_ace_takes_the_whole_table_a_sweep_only_when_always(mode, sweep):
    state = assi("3S 7C 10B", mode=mode)
    assert options(state, "1D") == takes("3S 7C 10B")
    after, events = applied(state, play(0, "1D"))
    assert events[-1] == Capture(0, 0, card("1D"), cards("3S 7C 10B"), sweep=sweep)
    assert after.table == ()
    assert after.sweeps == [int(sweep), 0]
    assert after.piles[0] == list(cards("1D 3S 7C 10B"))


def test_ass_1_the_take_all_is_compulsory_and_filled_in():
    state = assi("3S 7C 10B")
    assert [m for m in state.legal_moves() if m.card == card("1D")] == [play(0, "1D", "3S 7C 10B")]
    assert state.resolve(play(0, "1D")) == play(0, "1D", "3S 7C 10B")


@pytest.mark.parametrize("take", ["3S 7C", "3S", "10B"])
def test_ass_1_any_other_take_is_no_such_capture(take):
    state = assi("3S 7C 10B")
    assert refusal(state, play(0, "1D", take)).reason is Reason.NO_SUCH_CAPTURE


def test_ass_1_the_ace_takes_all_even_a_single_card_and_even_where_a_sum_exists():
    assert options(assi("5C"), "1D") == takes("5C")
    # Plain Scopa has no sum to 1; the take-all is the only capture.
    assert options(assi("2S 3S 4B"), "1D") == takes("2S 3S 4B")


# ---------------------------------------------------------------- ASS-2 an ace on the table


def test_ass_ex2_with_an_ace_on_the_table_the_ace_takes_only_that_ace():
    state = assi("1C 5S 8B")
    assert options(state, "1D") == takes("1C")
    after, events = applied(state, play(0, "1D"))
    assert events[-1] == Capture(0, 0, card("1D"), cards("1C"), sweep=False)
    assert after.table == cards("5S 8B")


def test_ass_ex2_taking_the_whole_table_past_an_ace_is_no_such_capture():
    state = assi("1C 5S 8B")
    assert refusal(state, play(0, "1D", "1C 5S 8B")).reason is Reason.NO_SUCH_CAPTURE


@pytest.mark.parametrize(("mode", "sweep"), [(ORDINARY, True), (ALWAYS, True), (NEVER, False)])
def test_ass_ex3_an_ace_taking_a_lone_ace(mode, sweep):
    state = assi("1C", mode=mode)
    assert options(state, "1D") == takes("1C")
    after, events = applied(state, play(0, "1D"))
    assert events[-1] == Capture(0, 0, card("1D"), cards("1C"), sweep=sweep)
    assert after.sweeps == [int(sweep), 0]


def test_ass_ex4_two_aces_on_the_table_ask_which():
    state = assi("1C 1S 6D", hand="1B 2B")
    assert options(state, "1B") == takes("1C", "1S")
    err = refusal(state, play(0, "1B"))
    assert err.reason is Reason.CAPTURE_CHOICE_REQUIRED
    assert choices_of(err.details) == choice_texts("1C", "1S")
    assert set(err.choices) == {play(0, "1B", "1C"), play(0, "1B", "1S")}


# ---------------------------------------------------------------- ASS-4, ASS-5


def test_ass_ex5_an_ace_onto_an_empty_table_stays_and_the_next_ace_takes_it_as_a_sweep():
    rules = preset("scopa_d_assi")
    state = make_state(hands=["1B 2B", "1S 3S"], table="", rules=rules, fill="stock")
    assert options(state, "1B") == {frozenset()}
    events = state.apply(play(0, "1B"))
    assert events == [CardPlayed(0, card("1B"))]
    assert state.table == cards("1B")
    assert options(state, "1S") == takes("1B")
    events = state.apply(play(1, "1S"))
    assert events[-1] == Capture(1, 1, card("1S"), cards("1B"), sweep=True)
    assert state.sweeps == [0, 1]


def test_ass_ex6_aces_on_the_table_count_one_in_other_cards_sums():
    state = assi("1C 2S", hand="3D 2B")
    assert options(state, "3D") == takes("1C 2S")
    after, events = applied(state, play(0, "3D"))
    assert events[-1] == Capture(0, 0, card("3D"), cards("1C 2S"), sweep=True)
    state = assi("1C 4S 5B", hand="6D 2B")
    assert options(state, "6D") == takes("1C 5B")
    assert refusal(state, play(0, "6D", "4S")).reason is Reason.NO_SUCH_CAPTURE


def test_ass_5_other_cards_keep_the_same_rank_rule():
    state = assi("3C 4S 7B", hand="7D 2B")
    assert options(state, "7D") == takes("7B")
    assert refusal(state, play(0, "7D", "3C 4S")).reason is Reason.MUST_TAKE_SAME_RANK


# ---------------------------------------------------------------- the last card, ASS-6


@pytest.mark.parametrize("mode", list(AceSweep))
def test_ass_ex7_the_last_card_of_the_hand_takes_all_but_never_sweeps(mode):
    rules = preset("scopa_d_assi", ace_sweep=mode)
    state = make_state(hands=["1D", ""], table="4C 9S", rules=rules, last_capture_side=1, fill=1)
    _, events = applied(state, play(0, "1D"))
    assert events_of(events, Capture) == [Capture(0, 0, card("1D"), cards("4C 9S"), sweep=False)]
    assert events_of(events, HandScored)[0].sides[0].sweeps == 0


def test_ass_ex8_canonical_deck_the_ace_takes_all_four_and_the_settebello():
    state, _ = ScopaState.new_game(preset("scopa_d_assi"), seed=1, decks=[DECK])
    assert state.hands[0] == list(cards("1D 3D 5D"))
    assert state.table == cards("7D 8D 9D 10D")
    after, events = applied(state, play(0, "1D"))
    assert events[-1] == Capture(0, 0, card("1D"), cards("7D 8D 9D 10D"), sweep=False)
    assert card("7D") in after.piles[0]
    assert after.sweeps == [0, 0]


def test_ass_6_three_kings_on_the_first_table_are_still_a_redeal():
    deck = deck_dealing(["2C 3C 4C", "5C 6C 7C"], "10D 10C 10S 1B")
    state, events = ScopaState.new_game(preset("scopa_d_assi"), seed=1, decks=[deck, DECK])
    assert events_of(events, Redeal) == [Redeal(1, cards("10D 10C 10S 1B"))]
    assert state.table == cards("7D 8D 9D 10D")


def test_ass_6_target_eleven_and_scoring_as_scopa():
    rules = preset("scopa_d_assi")
    assert rules.target == 11
    state = make_state(
        hands=["1D", ""], table="4C 9S", rules=rules, piles=["7D", ""], last_capture_side=1, fill=1
    )
    _, events = applied(state, play(0, "1D"))
    (scored,) = events_of(events, HandScored)
    assert scored.sides[0].settebello_point == 1
    assert (scored.sides[0].grande, scored.sides[0].piccola) == (0, 0)


# ---------------------------------------------------------------- combinations


def test_the_ace_takes_all_with_the_scopone_deal():
    rules = preset("scopa_d_assi", players=4, deal="scopone_ten")
    state = make_state(
        hands=["1D 2B", "3B", "4B", "5B"], table="6C 7C", rules=rules, dealer=3, fill=1
    )
    assert options(state, "1D") == takes("6C 7C")


@pytest.mark.parametrize(("mode", "sweep"), [(ORDINARY, True), (ALWAYS, True), (NEVER, False)])
def test_under_quindici_an_ace_with_an_ace_on_the_table_makes_fifteen(mode, sweep):
    """1 + 1 + 3 + 10 = 15: an ordinary Quindici capture, so a sweep under ORDINARY."""
    state = assi("1C 3S 10B", mode=mode, capture="quindici")
    assert options(state, "1D") == takes("1C 3S 10B")
    _, events = applied(state, play(0, "1D"))
    assert events[-1].sweep is sweep
