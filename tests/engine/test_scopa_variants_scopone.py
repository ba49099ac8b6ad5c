"""docs/variants.md, Scopone: SCN-1..SCN-6 and the examples SCN-ex1..SCN-ex7.

Unless said otherwise the deck is the canonical order (1D..10D 1C..10C 1S..10S
1B..10B) given as an explicit deck, and the dealer is seat 3, so seat 0 leads.
"""

from __future__ import annotations

import pytest

from mazzo.engine import DECK, Move, Reason
from mazzo.engine.events import (
    Capture,
    CardPlayed,
    CardsDealt,
    Deal,
    GameOver,
    HandScored,
    LeftoversTaken,
    Redeal,
)
from mazzo.engine.game import game_winner
from mazzo.engine.scopa import ScopaState, captures
from mazzo.engine.scopa_rules import DealRule
from tests.engine.scopa_support import (
    applied,
    card,
    cards,
    first_move,
    hands_of,
    make_state,
    play_hand,
    refusal,
)
from tests.engine.scopa_variants_support import (
    choice_texts,
    choices_of,
    deck_ending_with,
    events_of,
    finish_at,
    option_refusal,
    play,
    preset,
    takes,
)

SCIENTIFICO, CLASSICO = "scopone_scientifico", "scopone_classico"
SEAT_0_TEN = "1D 5D 9D 3C 7C 1S 5S 9S 3B 7B"
SEAT_1_TEN = "2D 6D 10D 4C 8C 2S 6S 10S 4B 8B"
SEAT_2_TEN = "3D 7D 1C 5C 9C 3S 7S 1B 5B 9B"
SEAT_3_TEN = "4D 8D 2C 6C 10C 4S 8S 2B 6B 10B"


def canonical(variant: str, **overrides):
    return ScopaState.new_game(preset(variant, **overrides), seed=1, decks=[DECK])


# ---------------------------------------------------------------- SCN-1 players


def test_scn_1_scopone_is_for_four_players_in_pairs():
    for variant in (SCIENTIFICO, CLASSICO):
        rules = preset(variant)
        assert (rules.players, rules.sides) == (4, 2)
        assert [rules.side_of(seat) for seat in range(4)] == [0, 1, 0, 1]
        for players in (2, 3, 6):
            assert option_refusal(preset, variant, players=players).reason is (
                Reason.INVALID_PLAYERS
            )


# ---------------------------------------------------------------- SCN-2 the scientifico deal


def test_scn_ex1_the_scientifico_deals_ten_each_one_at_a_time_and_no_table():
    state, events = canonical(SCIENTIFICO)
    assert hands_of(state) == (
        cards(SEAT_0_TEN),
        cards(SEAT_1_TEN),
        cards(SEAT_2_TEN),
        cards(SEAT_3_TEN),
    )
    assert (state.table, state.stock, state.dealer, state.to_play) == ((), [], 3, 0)
    assert events[0] == Deal(
        hand_number=1, dealer=3, table=(), hand_sizes=(10, 10, 10, 10), stock_size=0
    )
    assert [e.seat for e in events_of(events, CardsDealt)] == [0, 1, 2, 3]


def test_scn_2_the_leader_plays_onto_an_empty_table_and_takes_nothing():
    state, _ = canonical(SCIENTIFICO)
    moves = state.legal_moves()
    assert len(moves) == 10
    assert {m.take for m in moves} == {frozenset()}


def test_scn_2_the_scientifico_never_redeals_even_with_four_kings_in_a_hand():
    """No table, so no redeal: seat 0 may be dealt all four kings."""
    kings = cards("10D 10C 10S 10B")
    deck = []
    rest = [c for c in DECK if c not in kings]
    for i in range(40):
        deck.append(kings[i // 4] if i % 4 == 0 and i < 16 else rest.pop(0))
    state, events = ScopaState.new_game(preset(SCIENTIFICO), seed=1, decks=[deck])
    assert events_of(events, Redeal) == []
    assert set(kings) <= set(state.hands[0])


def test_scn_ex2_a_seven_onto_five_and_two_must_take_both_a_sweep_for_side_0():
    state, _ = canonical(SCIENTIFICO)
    events = state.apply(play(0, "5S"))
    assert events == [CardPlayed(0, card("5S"))]
    state.apply(play(1, "2S"))
    assert state.table == cards("5S 2S")
    assert set(captures(card("7S"), state.table, state.rules)) == takes("5S 2S")
    events = state.apply(play(2, "7S"))
    assert events[-1] == Capture(2, 0, card("7S"), cards("5S 2S"), sweep=True)
    assert state.sweeps == [1, 0]
    assert state.piles[0] == list(cards("7S 5S 2S"))


# ---------------------------------------------------------------- SCN-3 the classic deal


def test_scn_ex3_the_classico_deals_nine_each_and_four_to_the_table():
    state, events = canonical(CLASSICO)
    assert state.hands[0] == list(cards("1D 5D 9D 3C 7C 1S 5S 9S 3B"))
    assert state.hands[3] == list(cards("4D 8D 2C 6C 10C 4S 8S 2B 6B"))
    assert [len(h) for h in state.hands] == [9, 9, 9, 9]
    assert state.table == cards("7B 8B 9B 10B")
    assert state.stock == []
    assert events_of(events, Redeal) == []
    assert events[0].table == cards("7B 8B 9B 10B")


def test_scn_ex3_the_nine_of_coins_must_take_the_nine_of_batons():
    state, _ = canonical(CLASSICO)
    assert set(captures(card("9D"), state.table, state.rules)) == takes("9B")
    assert state.resolve(play(0, "9D")) == play(0, "9D", "9B")
    after, events = applied(state, play(0, "9D"))
    assert events[-1] == Capture(0, 0, card("9D"), cards("9B"), sweep=False)
    assert after.table == cards("7B 8B 10B")


@pytest.mark.parametrize("kings", ["10D 10C 10S 4B", "10D 10C 10S 10B"])
def test_scn_ex3_three_or_four_kings_on_the_classic_table_void_the_deal(kings):
    void = deck_ending_with(kings)
    state, events = ScopaState.new_game(preset(CLASSICO), seed=1, decks=[void, DECK])
    assert events_of(events, Redeal) == [Redeal(3, cards(kings))]
    assert state.table == cards("7B 8B 9B 10B")  # the next deck
    assert state.dealer == 3


def test_scn_3_two_kings_on_the_classic_table_are_no_redeal():
    state, events = ScopaState.new_game(
        preset(CLASSICO), seed=1, decks=[deck_ending_with("10D 10C 1S 4B")]
    )
    assert events_of(events, Redeal) == []
    assert state.table == cards("10D 10C 1S 4B")


# ---------------------------------------------------------------- SCN-4 fewest cards


def fewest_state(fewest: bool, table: str = "1C 3S 4B 5D 8C", hand: str = "9D 2B"):
    rules = preset(CLASSICO, fewest_cards=fewest)
    others = ["10C", "10S", "10B"]
    return make_state(hands=[hand, *others], table=table, rules=rules, dealer=3, fill=1)


def test_scn_ex4_without_fewest_cards_every_sum_is_a_choice():
    state = fewest_state(False)
    assert set(captures(card("9D"), state.table, state.rules)) == takes(
        "1C 8C", "4B 5D", "1C 3S 5D"
    )
    err = refusal(state, play(0, "9D"))
    assert err.reason is Reason.CAPTURE_CHOICE_REQUIRED
    assert choices_of(err.details) == choice_texts("1C 8C", "4B 5D", "1C 3S 5D")
    after, events = applied(state, play(0, "9D", "1C 3S 5D"))
    assert after.table == cards("4B 8C")


def test_scn_ex4_with_fewest_cards_only_the_two_card_sums_are_legal():
    state = fewest_state(True)
    assert set(captures(card("9D"), state.table, state.rules)) == takes("1C 8C", "4B 5D")
    assert {m.take for m in state.legal_moves() if m.card == card("9D")} == takes("1C 8C", "4B 5D")
    err = refusal(state, play(0, "9D", "1C 3S 5D"))
    assert err.reason is Reason.MUST_TAKE_FEWEST_CARDS
    assert choices_of(err.details) == choice_texts("1C 8C", "4B 5D")
    err = refusal(state, play(0, "9D"))
    assert err.reason is Reason.CAPTURE_CHOICE_REQUIRED
    assert set(err.choices) == {play(0, "9D", "1C 8C"), play(0, "9D", "4B 5D")}
    after, _ = applied(state, play(0, "9D", "4B 5D"))
    assert after.table == cards("1C 3S 8C")


def test_scn_4_with_fewest_cards_a_single_smallest_sum_is_filled_in():
    state = fewest_state(True, table="2C 8S 1B 3B 6C 4C")
    assert set(captures(card("9D"), state.table, state.rules)) == takes("1B 8S", "3B 6C")
    state = fewest_state(True, table="2C 7S 1B 3B 5S")
    assert set(captures(card("9D"), state.table, state.rules)) == takes("2C 7S")
    assert state.resolve(play(0, "9D")) == play(0, "9D", "2C 7S")
    assert refusal(state, play(0, "9D", "1B 3B 5S")).reason is Reason.MUST_TAKE_FEWEST_CARDS


def test_scn_4_a_take_that_is_no_sum_at_all_is_no_such_capture_not_fewest_cards():
    state = fewest_state(True)
    assert refusal(state, play(0, "9D", "1C 3S")).reason is Reason.NO_SUCH_CAPTURE


@pytest.mark.parametrize("fewest", [False, True])
def test_scn_ex5_the_same_rank_comes_first_with_or_without_fewest_cards(fewest):
    state = fewest_state(fewest, table="2S 4D 6C", hand="6B 2B")
    assert set(captures(card("6B"), state.table, state.rules)) == takes("6C")
    assert state.resolve(play(0, "6B")) == play(0, "6B", "6C")
    assert refusal(state, play(0, "6B", "2S 4D")).reason is Reason.MUST_TAKE_SAME_RANK


# ---------------------------------------------------------------- SCN-5 target


def test_scn_5_the_target_is_21_by_default_and_11_16_31_are_played():
    assert preset(SCIENTIFICO).target == preset(CLASSICO).target == 21
    for target in (11, 16, 31):
        assert preset(CLASSICO, target=target).target == target


def last_scientifico_play():
    """SCN-ex6's position: seat 3 holds the 40th card, 10B; the table holds 10C."""
    return make_state(
        hands=["", "", "", "10B"],
        table="10C",
        piles=["", "1B 2B"],
        rules=preset(SCIENTIFICO),
        to_play=3,
        dealer=3,
        last_capture_side=1,
        fill=0,
    )


@pytest.mark.parametrize(
    ("totals", "winner"),
    [((20, 19), None), ((19, 20), None), ((22, 21), 0), ((21, 22), 1), ((21, 21), None)],
)
def test_scn_ex7_after_a_hand_twenty_one_alone_in_the_lead_wins(totals, winner):
    state = last_scientifico_play()
    assert state.rules.target == 21
    after, events = finish_at(state, play(3, "10B"), totals)
    (scored,) = events_of(events, HandScored)
    assert scored.scores == totals
    assert game_winner(totals, 21) == winner
    assert after.winner == winner
    assert [e.winning_side for e in events_of(events, GameOver)] == (
        [] if winner is None else [winner]
    )
    if winner is None:
        assert after.hand_number == 2 and after.dealer == 0
        assert [len(h) for h in after.hands] == [10, 10, 10, 10]


# ---------------------------------------------------------------- SCN-6 the last card


def test_scn_ex6_the_fortieth_card_takes_the_king_but_is_no_sweep():
    _, events = applied(last_scientifico_play(), play(3, "10B"))
    captured = events_of(events, Capture)
    assert captured == [Capture(3, 1, card("10B"), cards("10C"), sweep=False)]
    (scored,) = events_of(events, HandScored)
    assert scored.sides[1].sweeps == 0


@pytest.mark.parametrize(("variant", "plays"), [(SCIENTIFICO, 40), (CLASSICO, 36)])
def test_scn_6_a_hand_is_one_deal_of_forty_or_thirty_six_plays(variant, plays):
    state, _ = canonical(variant)
    _, events = play_hand(state, first_move)
    assert len(events_of(events, CardPlayed)) == plays
    # One deal only: no later Deal inside the hand.
    scored_at = next(i for i, e in enumerate(events) if isinstance(e, HandScored))
    assert events_of(events[:scored_at], Deal) == []
    assert events_of(events[:scored_at], CardsDealt) == []


def test_scn_6_the_thirty_sixth_card_of_the_classico_never_sweeps():
    rules = preset(CLASSICO)
    state = make_state(
        hands=["", "", "8C", ""],
        table="3S 5B",
        rules=rules,
        to_play=2,
        dealer=1,
        last_capture_side=1,
        fill=1,
    )
    _, events = applied(state, play(2, "8C"))
    assert events_of(events, Capture) == [Capture(2, 0, card("8C"), cards("3S 5B"), sweep=False)]
    assert events_of(events, HandScored)[0].sides[0].sweeps == 0


def test_scn_6_a_sweep_before_the_last_card_counts():
    rules = preset(CLASSICO)
    state = make_state(
        hands=["8C 1S", "2S", "3S", "4S"],
        table="3D 5B",
        rules=rules,
        dealer=3,
        fill=1,
    )
    after, events = applied(state, Move(0, card("8C")))
    assert events[-1].sweep is True
    assert after.sweeps == [1, 0]


def test_scopone_deal_rules_name_the_hand_and_table_sizes():
    assert (preset(SCIENTIFICO).hand_size, preset(SCIENTIFICO).table_size) == (10, 0)
    assert (preset(CLASSICO).hand_size, preset(CLASSICO).table_size) == (9, 4)
    assert preset(SCIENTIFICO).deal is DealRule.SCOPONE_TEN


def test_scn_6_the_cards_left_at_the_end_go_to_the_side_that_captured_last():
    state = make_state(
        hands=["", "", "", "2B"],
        table="9C 10S",
        rules=preset(SCIENTIFICO),
        to_play=3,
        dealer=3,
        last_capture_side=0,
        fill=1,
    )
    after, events = applied(state, play(3, "2B"))
    (left,) = events_of(events, LeftoversTaken)
    assert left == LeftoversTaken(0, cards("9C 10S 2B"))
    assert events_of(events, HandScored)[0].sides[0].cards == 3
