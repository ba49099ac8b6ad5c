"""docs/variants.md, Escoba: ESC-1..ESC-8 and the examples ESC-ex1..ESC-ex10.

Two players, dealer seat 1 (seat 0 leads) unless said otherwise.
"""

from __future__ import annotations

import pytest

from mazzo.engine import DECK, Reason
from mazzo.engine.events import (
    Capture,
    Deal,
    FirstTableTaken,
    HandScored,
    LeftoversTaken,
    Redeal,
)
from mazzo.engine.game import game_winner
from mazzo.engine.scopa import ScopaState, captures, primiera_winner_of, score_hand
from mazzo.engine.scopa_rules import CaptureRule, Face, PrimieraRule, TableBonus
from tests.engine.scopa_support import (
    applied,
    card,
    cards,
    first_move,
    hands_of,
    make_state,
    play_hand,
    refusal,
    replaced,
    rest_of,
)
from tests.engine.scopa_variants_support import (
    deck_dealing,
    deck_ending_with,
    events_of,
    finish_at,
    lay,
    play,
    preset,
    takes,
)

HANDS = ("3C 4C 9S", "5C 6C 9B")
OTHER_HANDS = ("3C 4C 2S", "5C 6C 2B")


def escoba_with_table(table: str, hands=HANDS, **overrides):
    """ESC-ex1's deal: seat 0 gets 3C 4C 9S, seat 1 (the dealer) 5C 6C 9B, then ``table``."""
    deck = deck_dealing(hands, table)
    return ScopaState.new_game(preset("escoba", **overrides), seed=1, decks=[deck])


def escoba(table: str, hand: str = "4B 2B", **overrides):
    rules = preset("escoba", **overrides)
    return make_state(hands=[hand, "10D"], table=table, rules=rules, dealer=1, fill="stock")


# ---------------------------------------------------------------- ESC-1 players and deal


def test_esc_1_two_three_four_and_six_players_each_alone_or_in_teams():
    assert [preset("escoba", players=n).sides for n in (2, 3, 4, 6)] == [2, 3, 2, 2]
    assert [preset("escoba", players=6).side_of(seat) for seat in range(6)] == [0, 1] * 3


def test_esc_1_the_deal_is_three_each_and_four_on_the_table():
    state, events = ScopaState.new_game(preset("escoba"), seed=1, decks=[DECK])
    assert [len(h) for h in state.hands] == [3, 3]
    assert events[0] == Deal(1, 1, cards("7D 8D 9D 10D"), (3, 3), 30)


def test_esc_1_no_redeal_on_kings_or_aces():
    for table in ("10D 10C 10S 1B", "1D 1C 1S 2B"):
        deck = deck_dealing(HANDS, table)
        state, events = ScopaState.new_game(preset("escoba"), seed=1, decks=[deck, DECK])
        assert events_of(events, Redeal) == []
        assert state.table == cards(table)


# ---------------------------------------------------------------- ESC-3 the dealer's escoba


def test_esc_ex1_a_first_table_of_fifteen_is_the_dealers_escoba():
    state, events = escoba_with_table("1B 2C 4S 8D")
    assert hands_of(state) == (cards("3C 4C 9S"), cards("5C 6C 9B"))
    assert events[0].table == cards("1B 2C 4S 8D")
    assert events_of(events, FirstTableTaken) == [
        FirstTableTaken(dealer=1, side=1, cards=cards("1B 2C 4S 8D"), sweeps=1)
    ]
    assert events[-1] == events_of(events, FirstTableTaken)[0]
    assert state.table == ()
    assert state.piles == [[], list(cards("1B 2C 4S 8D"))]
    assert state.sweeps == [0, 1]
    assert state.last_capture_side == 1
    assert state.to_play == 0
    assert {m.take for m in state.legal_moves()} == {frozenset()}


def test_esc_ex2_a_first_table_of_two_fifteens_is_two_escobas_and_the_velo():
    state, events = escoba_with_table("7D 8C 5S 10B")
    assert events_of(events, FirstTableTaken) == [
        FirstTableTaken(dealer=1, side=1, cards=cards("7D 8C 5S 10B"), sweeps=2)
    ]
    assert state.sweeps == [0, 2]
    assert card("7D") in state.piles[1]
    _, events = play_hand(state, first_move)
    (scored,) = events_of(events, HandScored)
    assert scored.sides[1].settebello_point == 1
    assert scored.sides[1].sweeps >= 2


def test_esc_ex3_thirty_that_does_not_split_into_two_fifteens_gives_nothing():
    state, events = escoba_with_table("10C 10S 9B 1D", OTHER_HANDS)
    assert events_of(events, FirstTableTaken) == []
    assert state.table == cards("10C 10S 9B 1D")
    assert state.sweeps == [0, 0] and state.piles == [[], []]
    assert state.last_capture_side is None


def test_esc_ex3_the_same_table_under_cirullas_total_rule_gives_two():
    state, events = escoba_with_table("10C 10S 9B 1D", OTHER_HANDS, first_table_bonus="total")
    assert [e.sweeps for e in events_of(events, FirstTableTaken)] == [2]
    assert state.table == ()


def test_esc_ex4_a_partial_fifteen_is_no_bonus_and_a_five_then_chooses():
    state, events = escoba_with_table("7D 8C 3S 2B")
    assert events_of(events, FirstTableTaken) == []
    assert state.table == cards("7D 8C 3S 2B")
    assert set(captures(card("5D"), state.table, state.rules)) == takes("7D 3S", "8C 2B")


@pytest.mark.parametrize("table", ["1D 2D 3D 4D", "10D 10C 8S 3B", "5D 5S 5B 2B"])
def test_esc_3_any_other_total_leaves_the_table(table):
    state, events = escoba_with_table(table)
    assert events_of(events, FirstTableTaken) == []
    assert state.table == cards(table)


def test_esc_3_only_the_first_table_of_a_hand_counts():
    """Later deals put nothing on the table; a table of 15 left by play earns nothing."""
    state = make_state(
        hands=["", "5D"],
        table="10C 5S 9D 1B",
        rules=preset("escoba"),
        to_play=1,
        dealer=1,
        fill="stock",
    )
    after, events = applied(state, play(1, "5D", "10C"))
    assert after.table == cards("5S 9D 1B")
    assert sum(c.rank for c in after.table) == 15
    assert events_of(events, Deal)[0].table == ()
    assert events_of(events, FirstTableTaken) == []
    assert after.sweeps == [0, 0]


def test_esc_3_after_the_bonus_the_leftovers_go_to_the_dealer_if_nobody_captures_again():
    state, _ = escoba_with_table("1B 2C 4S 8D")
    # The hand's last card, with nothing captured since the dealer's escoba.
    left = "9S 9B 10C 10S"
    last = replaced(
        state,
        hands=[[card("2D")], []],
        table=cards(left),
        stock=[],
        piles=[[], [*state.piles[1], *rest_of(state.piles[1], left, "2D")]],
    )
    assert last.last_capture_side == 1
    _, events = applied(last, play(0, "2D"))
    assert events_of(events, Capture) == []
    assert events_of(events, LeftoversTaken) == [LeftoversTaken(1, cards(left + " 2D"))]
    assert events_of(events, HandScored)[0].sides[1].cards == 40


def test_esc_3_the_dealers_cards_count_for_cards_oros_velo_and_sevens():
    state, _ = escoba_with_table("7D 8C 5S 10B")
    piles = [(), state.piles[1]]
    (s0, s1) = score_hand(state.rules, piles, state.sweeps)
    assert (s1.cards, s1.denari, s1.settebello_point, s1.sweeps) == (4, 1, 1, 2)
    assert s1.cards_point == s1.denari_point == s1.primiera_point == 1
    assert s1.total == 6


def test_esc_3_the_four_player_nine_card_deal_takes_the_bonus_on_its_table():
    rules = preset("escoba", players=4, deal="scopone_nine")
    state, events = ScopaState.new_game(rules, seed=1, decks=[deck_ending_with("1B 2C 4S 8D")])
    assert events_of(events, FirstTableTaken) == [
        FirstTableTaken(dealer=3, side=1, cards=cards("1B 2C 4S 8D"), sweeps=1)
    ]
    assert [len(h) for h in state.hands] == [9, 9, 9, 9]
    assert state.table == ()


# ---------------------------------------------------------------- ESC-2, ESC-4 the capture


def test_esc_ex5_a_four_onto_eleven_takes_all_three_an_escoba():
    state = escoba("5C 4S 2D", hand="4B 2B")
    assert set(captures(card("4B"), state.table, state.rules)) == takes("5C 4S 2D")
    after, events = applied(state, play(0, "4B", "5C 4S 2D"))
    assert events[-1] == Capture(0, 0, card("4B"), cards("5C 4S 2D"), sweep=True)
    assert after.sweeps == [1, 0]


def test_esc_ex6_no_rank_capture():
    state = escoba("5C 10S", hand="5D 2B")
    assert set(captures(card("5D"), state.table, state.rules)) == takes("10S")
    assert state.resolve(play(0, "5D", "10S")) == play(0, "5D", "10S")
    assert refusal(state, play(0, "5D", "5C")).reason is Reason.NO_SUCH_CAPTURE


def test_esc_ex6_with_compulsory_capture_the_one_fifteen_is_filled_in():
    state = escoba("5C 10S", hand="5D 2B", compulsory_capture=True)
    assert state.resolve(play(0, "5D")) == play(0, "5D", "10S")


def test_esc_2_the_capture_is_optional_and_free_among_fifteens():
    state = escoba("8C 3S 5B 2D", hand="7D 6B")
    sevens = [m for m in state.legal_moves() if m.card == card("7D")]
    assert {m.take for m in sevens if not m.lay} == takes("8C", "3S 5B")
    assert [m for m in sevens if m.lay] == [lay(0, "7D")]
    assert refusal(state, play(0, "7D")).reason is Reason.CAPTURE_CHOICE_REQUIRED
    assert state.resolve(lay(0, "7D")) == lay(0, "7D")
    assert preset("escoba").capture is CaptureRule.QUINDICI
    assert preset("escoba").compulsory_capture is False


def test_esc_ex11_the_last_card_of_the_hand_makes_no_escoba():
    state = make_state(
        hands=["4B", ""], table="5C 4S 2D", rules=preset("escoba"), last_capture_side=1, fill=1
    )
    _, events = applied(state, play(0, "4B", "5C 4S 2D"))
    assert events_of(events, Capture)[0].sweep is False


def test_esc_ex10_canonical_deck_no_bonus_on_thirty_four_and_the_five_takes_the_king():
    state, events = ScopaState.new_game(preset("escoba"), seed=1, decks=[DECK])
    assert events_of(events, FirstTableTaken) == []
    assert state.table == cards("7D 8D 9D 10D")
    assert state.resolve(play(0, "5D", "10D")) == play(0, "5D", "10D")
    fives = [m for m in state.legal_moves() if m.card == card("5D")]
    assert fives == [play(0, "5D", "10D"), lay(0, "5D")]


# ---------------------------------------------------------------- ESC-5, ESC-6 scoring

#: ESC-ex7's piles: side 0 24 cards, 7 oros with the velo, sevens 7D 7C, sixes 6S,
#: best bastos 1B; side 1 16 cards, oros 6D 8D 9D, sevens 7S 7B, sixes 6D 6C 6B.
EX7_SIDE_1 = cards("6D 8D 9D 6C 8C 9C 10C 7S 8S 9S 10S 6B 7B 8B 9B 10B")
EX7_SIDE_0 = rest_of(EX7_SIDE_1)


def ex7(rule: PrimieraRule):
    return score_hand(preset("escoba", primiera=rule), [EX7_SIDE_0, EX7_SIDE_1], [2, 2])


def test_esc_ex7_the_piles_are_as_the_example_says():
    assert len(EX7_SIDE_0) == 24 and len(EX7_SIDE_1) == 16
    s0, s1 = ex7(PrimieraRule.MOST_SEVENS)
    assert (s0.denari, s1.denari) == (7, 3)
    assert (s0.primiera, s1.primiera) == (76, 78)


def test_esc_ex7_cartas_oros_velo_to_side_0_sevens_tied_five_to_two():
    s0, s1 = ex7(PrimieraRule.MOST_SEVENS)
    assert (s0.cards_point, s0.denari_point, s0.settebello_point) == (1, 1, 1)
    assert (s0.primiera_point, s1.primiera_point) == (0, 0)
    assert (s0.sweeps, s1.sweeps) == (2, 2)
    assert (s0.total, s1.total) == (5, 2)


def test_esc_ex7_with_the_setenta_side_1_takes_the_point():
    s0, s1 = ex7(PrimieraRule.STANDARD)
    assert (s0.primiera_point, s1.primiera_point) == (0, 1)
    assert (s0.total, s1.total) == (5, 3)


def test_esc_ex7_with_the_sevens_then_sixes_rule_side_1_takes_the_point():
    s0, s1 = ex7(PrimieraRule.SEVENS)
    assert (s0.primiera_point, s1.primiera_point) == (0, 1)


def test_esc_6_most_sevens_scores_the_side_with_more_sevens():
    sevens_3 = cards("7D 7C 7S 1B")
    assert primiera_winner_of(PrimieraRule.MOST_SEVENS, [sevens_3, rest_of(sevens_3)]) == 0
    assert primiera_winner_of(PrimieraRule.MOST_SEVENS, [rest_of(sevens_3), sevens_3]) == 1


def test_esc_6_a_tie_does_not_fall_through_to_the_sixes():
    side0 = cards("7D 7C 6D 6C 6S")
    piles = [side0, rest_of(side0)]
    assert primiera_winner_of(PrimieraRule.MOST_SEVENS, piles) is None
    assert primiera_winner_of(PrimieraRule.SEVENS, piles) == 0


def test_esc_ex8_three_players_two_one_one_scores_two_two_nothing_nobody():
    piles = [cards("7D 7C"), cards("7S"), cards("7B")]
    assert primiera_winner_of(PrimieraRule.MOST_SEVENS, piles) == 0
    piles = [cards("7D 7C"), cards("7S 7B"), cards("1B")]
    assert primiera_winner_of(PrimieraRule.MOST_SEVENS, piles) is None
    sides = score_hand(preset("escoba", players=3), piles, [0, 0, 0])
    assert [s.primiera_point for s in sides] == [0, 0, 0]


def test_esc_5_ties_for_the_most_score_for_nobody_with_three_players():
    piles = [cards("1D 2D 3C"), cards("3D 4D 5C"), cards("5D 6C")]
    sides = score_hand(preset("escoba", players=3), piles, [0, 0, 0])
    assert [s.cards_point for s in sides] == [0, 0, 0]
    assert [s.denari_point for s in sides] == [0, 0, 0]


def test_esc_5_a_hand_scores_escobas_cartas_oros_velo_and_sevens_only():
    s0, _ = ex7(PrimieraRule.MOST_SEVENS)
    assert (s0.napola, s0.re_bello_point, s0.grande, s0.piccola, s0.declarations) == (0,) * 5


# ---------------------------------------------------------------- ESC-7, ESC-8


@pytest.mark.parametrize(
    ("totals", "winner"), [((21, 19), 0), ((19, 21), 1), ((22, 22), None), ((20, 19), None)]
)
def test_esc_ex9_target_twenty_one(totals, winner):
    state = make_state(
        hands=["8D", ""], table="3C 4S", rules=preset("escoba"), last_capture_side=1, fill=1
    )
    after, events = finish_at(state, play(0, "8D", "3C 4S"), totals)
    assert events_of(events, HandScored)[0].scores == totals
    assert after.winner == winner == game_winner(totals, 21)


@pytest.mark.parametrize("target", [15, 11])
def test_esc_7_fifteen_and_eleven_are_played(target):
    assert preset("escoba", target=target).target == target


def test_esc_8_escoba_shows_spanish_cards_and_keeps_the_bonus_rule():
    rules = preset("escoba")
    assert rules.face is Face.SPANISH
    assert rules.first_table_bonus is TableBonus.PAIRS
    assert rules.target == 21


def test_escoba_with_italian_faces_plays_the_same():
    state, events = escoba_with_table("1B 2C 4S 8D", face="italian")
    spanish, spanish_events = escoba_with_table("1B 2C 4S 8D")
    assert events == spanish_events
    assert replaced(state, rules=spanish.rules) == spanish
