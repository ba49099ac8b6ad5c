"""docs/rules.md, Scopa, Points of a hand: cards, denari, settebello, primiera, sweeps, napola."""

from __future__ import annotations

import pytest

from mazzo.engine import Move
from mazzo.engine.events import HandScored, SideScore
from mazzo.engine.scopa import (
    PrimieraRule,
    ScopaRules,
    napola_points,
    primiera_total,
    primiera_winner_of,
    score_hand,
)
from tests.engine.scopa_support import applied, card, cards, make_state, rest_of

STANDARD, SEVENS, LENIENT = PrimieraRule.STANDARD, PrimieraRule.SEVENS, PrimieraRule.LENIENT


def score(piles, sweeps=None, players=None, **rules_kw):
    piles = [cards(p) if isinstance(p, str) else tuple(p) for p in piles]
    rules = ScopaRules(players=players or len(piles), **rules_kw)
    return score_hand(rules, piles, sweeps or [0] * len(piles))


def split(side0: str):
    """Two piles: ``side0`` and every other card."""
    mine = cards(side0)
    return [mine, rest_of(mine)]


# ---------------------------------------------------------------- cards


def test_the_side_with_most_cards_scores_the_cards_point():
    sides = score(["1C 2C 3C", "4C 5C"])
    assert [s.cards for s in sides] == [3, 2]
    assert [s.cards_point for s in sides] == [1, 0]


def test_21_cards_against_19_scores_the_cards_point():
    deck_half = rest_of("")[:21]
    sides = score([deck_half, rest_of(deck_half)])
    assert [s.cards_point for s in sides] == [1, 0]


def test_tied_cards_score_for_nobody():
    first = rest_of("")[:20]
    sides = score([first, rest_of(first)])
    assert [s.cards for s in sides] == [20, 20]
    assert [s.cards_point for s in sides] == [0, 0]


def test_with_three_players_most_cards_means_more_than_each_other_player():
    sides = score(["1C 2C 3C 4C", "5C 6C 7C 8C", "9C 10C"])
    assert [s.cards_point for s in sides] == [0, 0, 0]
    sides = score(["1C 2C 3C 4C 1S", "5C 6C 7C 8C", "9C 10C"])
    assert [s.cards_point for s in sides] == [1, 0, 0]
    sides = score(["1C", "5C 6C 7C 8C", "9C 10C 2S 3S 4S"])
    assert [s.cards_point for s in sides] == [0, 0, 1]


# ---------------------------------------------------------------- denari


def test_the_side_with_most_coins_scores_the_denari_point():
    sides = score(["1D 2D 3D 4D 5D 6D", "8D 9D 10D 1C 2C 3C 4C"])
    assert [s.denari for s in sides] == [6, 3]
    assert [s.denari_point for s in sides] == [1, 0]
    assert [s.cards_point for s in sides] == [0, 1]


def test_tied_coins_score_for_nobody():
    sides = score(["1D 2D 3D 4D 5D", "6D 7D 8D 9D 10D"])
    assert [s.denari_point for s in sides] == [0, 0]


def test_with_three_players_tied_most_coins_score_for_nobody():
    sides = score(["1D 2D", "3D 4D", "5D"])
    assert [s.denari_point for s in sides] == [0, 0, 0]
    sides = score(["1D 2D", "3D", "5D 6D 8D"])
    assert [s.denari_point for s in sides] == [0, 0, 1]


# ---------------------------------------------------------------- settebello


@pytest.mark.parametrize("holder", [0, 1])
def test_the_side_that_took_the_seven_of_coins_scores_the_settebello(holder):
    piles = ["7D 1C", "2C 3C 4C"] if holder == 0 else ["1C", "7D 2C"]
    sides = score(piles)
    assert [s.settebello_point for s in sides] == [int(holder == 0), int(holder == 1)]


def test_another_seven_is_no_settebello():
    sides = score(["7C 7S 7B", "1C"])
    assert [s.settebello_point for s in sides] == [0, 0]


# ---------------------------------------------------------------- primiera, standard


@pytest.mark.parametrize(
    ("pile", "total"),
    [
        ("7D 7C 7S 7B", 84),
        ("6D 6C 6S 6B", 72),
        ("1D 1C 1S 1B", 64),
        ("5D 4C 3S 2B", 15 + 14 + 13 + 12),
        ("8D 9C 10S 10B", 40),
        ("7D 1D 6D 5D 2C 8C 10S 4B 3B", 21 + 12 + 10 + 14),
        ("7D", 21),
        ("", 0),
    ],
)
def test_primiera_adds_the_best_card_of_each_suit_on_the_scale(pile, total):
    assert primiera_total(cards(pile)) == total


def test_primiera_scale_values_rank_by_rank():
    scale = {1: 16, 2: 12, 3: 13, 4: 14, 5: 15, 6: 18, 7: 21, 8: 10, 9: 10, 10: 10}
    for rank, value in scale.items():
        assert primiera_total(cards(f"{rank}C")) == value


def test_the_highest_primiera_total_wins_the_point():
    sides = score(["7D 7C 1S 1B", "6D 6C 6S 6B"])
    assert [s.primiera for s in sides] == [74, 72]
    assert [s.primiera_point for s in sides] == [1, 0]


def test_a_side_lacking_a_suit_has_no_primiera_standard():
    # Side 0 has three sevens (63) but no batons; side 1's 2s make 48 and win.
    sides = score(["7D 7C 7S", "2D 2C 2S 2B"])
    assert [s.primiera_point for s in sides] == [0, 1]


def test_no_side_with_every_suit_means_no_primiera_standard():
    sides = score(["7D 7C 7S", "2D 2C 2B"])
    assert [s.primiera_point for s in sides] == [0, 0]


def test_equal_primiera_totals_score_for_nobody():
    sides = score(["7D 6C 1S 5B", "6D 7C 5S 1B"])
    assert sides[0].primiera == sides[1].primiera
    assert [s.primiera_point for s in sides] == [0, 0]


def test_primiera_with_three_players_needs_a_single_best():
    piles = [cards("7D 7C 7S 7B"), cards("6D 6C 6S 6B"), cards("1D 1C 1S 1B")]
    assert primiera_winner_of(STANDARD, piles) == 0
    piles = [cards("7D 7C 6S 6B"), cards("6D 6C 7S 7B"), cards("1D 1C 1S 1B")]
    assert primiera_winner_of(STANDARD, piles) is None
    piles = [cards("7D 7C 7S"), cards("6D 6C 6S 6B"), cards("1D 1C 1S 1B")]
    assert primiera_winner_of(STANDARD, piles) == 1


# ---------------------------------------------------------------- primiera, sevens


def test_sevens_rule_most_sevens_wins_whatever_the_totals():
    sides = score(["7D 7C", "7S 6D 6C 6S 6B 1D 1C"], primiera=SEVENS)
    assert [s.primiera_point for s in sides] == [1, 0]


def test_sevens_rule_equal_sevens_then_sixes_decide():
    sides = score(["7D 6D 6C", "7C 6S 5D 5C 5S 5B"], primiera=SEVENS)
    assert [s.primiera_point for s in sides] == [1, 0]


def test_sevens_rule_the_first_difference_decides_down_to_the_aces():
    # Equal sevens, sixes, fives, fours, threes and twos; one more ace wins.
    sides = score(["7D 6D 5D 4D 3D 2D 1D 1C", "7C 6C 5C 4C 3C 2C 1S"], primiera=SEVENS)
    assert [s.primiera_point for s in sides] == [1, 0]
    # Fewer fives loses even with more of everything lower.
    sides = score(["7D 6D 5D 4D 4C 4S 3D 2D 1D", "7C 6C 5C 5S 1S"], primiera=SEVENS)
    assert [s.primiera_point for s in sides] == [0, 1]


def test_sevens_rule_all_counts_equal_scores_for_nobody():
    sides = score(["7D 6D 1D 8D 9D 10D", "7C 6C 1C"], primiera=SEVENS)
    assert [s.primiera_point for s in sides] == [0, 0]


def test_sevens_rule_ignores_a_missing_suit():
    sides = score(["7D 7C", "7S 1D 1C 1S 1B"], primiera=SEVENS)
    assert [s.primiera_point for s in sides] == [1, 0]


def test_sevens_rule_with_three_players():
    piles = [cards("7D 6D"), cards("7C 6C"), cards("7S 5C")]
    assert primiera_winner_of(SEVENS, piles) is None
    piles = [cards("7D 6D 6S"), cards("7C 6C"), cards("7S 7B")]
    assert primiera_winner_of(SEVENS, piles) == 2


# ---------------------------------------------------------------- primiera, lenient


def test_lenient_rule_a_complete_side_beats_a_side_lacking_a_suit():
    sides = score(["2D 2C 2S 2B", "7D 7C 7S"], primiera=LENIENT)
    assert [s.primiera_point for s in sides] == [1, 0]


def test_lenient_rule_when_every_side_lacks_a_suit_partial_totals_compare():
    sides = score(["7D 7C 7S", "6D 6C 6S 8S"], primiera=LENIENT)
    assert [s.primiera for s in sides] == [63, 54]
    assert [s.primiera_point for s in sides] == [1, 0]
    sides = score(["7D 7C", "6D 6C 6S"], primiera=LENIENT)
    assert [s.primiera for s in sides] == [42, 54]
    assert [s.primiera_point for s in sides] == [0, 1]


def test_lenient_rule_equal_partial_totals_score_for_nobody():
    sides = score(["7D 6C", "6D 7C"], primiera=LENIENT)
    assert [s.primiera_point for s in sides] == [0, 0]


def test_lenient_rule_with_every_suit_on_both_sides_is_the_standard_comparison():
    sides = score(["7D 7C 1S 1B", "6D 6C 6S 6B"], primiera=LENIENT)
    assert [s.primiera_point for s in sides] == [1, 0]


def test_lenient_rule_with_three_players_only_complete_sides_compete():
    piles = [cards("7D 7C 7S"), cards("2D 2C 2S 2B"), cards("1D 1C 1S 1B")]
    assert primiera_winner_of(LENIENT, piles) == 2
    piles = [cards("7D 7C 7S"), cards("6D 6C"), cards("1D 1C 1S")]
    assert primiera_winner_of(LENIENT, piles) == 0


def test_the_standard_rule_differs_from_lenient_only_when_every_side_lacks_a_suit():
    piles = [cards("7D 7C 7S"), cards("6D 6C 6S")]
    assert primiera_winner_of(STANDARD, piles) is None
    assert primiera_winner_of(LENIENT, piles) == 0


# ---------------------------------------------------------------- sweeps and totals


def test_each_sweep_scores_one_point():
    sides = score(["1C", "2C"], sweeps=[3, 1])
    assert [s.sweeps for s in sides] == [3, 1]
    assert [s.total for s in sides] == [3, 1]


def test_the_total_is_the_sum_of_every_point():
    sides = score(
        split("7D 1D 2D 3D 4D 5D 6C 6S 6B 1C 2C 3C 4C 5C 7C 8C 9C 10C 1S 2S 3S"), sweeps=[2, 1]
    )
    side0, side1 = sides
    assert (
        side0.cards_point,
        side0.denari_point,
        side0.settebello_point,
        side0.primiera_point,
    ) == (1, 1, 1, 1)
    assert side0.total == 4 + 2
    assert side1.total == 1
    assert side0 == SideScore(
        side=0,
        cards=21,
        denari=6,
        primiera=21 + 21 + 18 + 18,
        cards_point=1,
        denari_point=1,
        settebello_point=1,
        primiera_point=1,
        sweeps=2,
        napola=0,
    )


# ---------------------------------------------------------------- napola


@pytest.mark.parametrize(
    ("coins", "points"),
    [
        ("1D 2D 3D", 3),
        ("1D 2D 3D 4D", 4),
        ("1D 2D 3D 4D 5D 6D 7D", 7),
        ("1D 2D 3D 4D 5D 6D 7D 8D 9D 10D", 10),
        ("1D 2D 3D 5D 6D 7D", 3),
        ("1D 2D 3D 4D 6D 10D", 4),
        ("2D 3D 4D 5D 6D 7D 8D 9D 10D", 0),
        ("1D 2D 4D 5D 6D 7D 8D 9D 10D", 0),
        ("1D 2D", 0),
        ("1C 2C 3C 4C", 0),
        ("", 0),
    ],
)
def test_napola_scores_the_run_of_coins_from_the_ace_once_it_reaches_the_three(coins, points):
    pile = cards(coins)
    assert napola_points(pile) == points
    sides = score([pile, rest_of(pile)], napola=True)
    assert sides[0].napola == points
    assert sides[0].total == points + sum(
        (
            sides[0].cards_point,
            sides[0].denari_point,
            sides[0].settebello_point,
            sides[0].primiera_point,
        )
    )


def test_napola_is_off_unless_the_option_is_on():
    pile = cards("1D 2D 3D 4D 5D 6D 7D 8D 9D 10D")
    assert score([pile, rest_of(pile)])[0].napola == 0
    assert score([pile, rest_of(pile)], napola=True)[0].napola == 10


def test_napola_counts_for_the_other_side_too():
    pile = cards("1D 2D 3D 4D 5D")
    sides = score([rest_of(pile), pile], napola=True)
    assert [s.napola for s in sides] == [0, 5]


# ---------------------------------------------------------------- teams


def hand_end(rules, hands, piles, to_play, table="", last_capture_side=None):
    return make_state(
        hands=hands,
        table=table,
        piles=piles,
        to_play=to_play,
        rules=rules,
        last_capture_side=last_capture_side,
    )


def test_four_players_in_two_teams_pool_their_captures():
    # Seats 0 and 2 captured (in side 0's pile), seats 1 and 3 in side 1's.
    rules = ScopaRules(players=4, target=1000)
    table = cards("4S 5S")
    mine = cards("9D")
    pile0 = cards("7D 1D 2D 3D 4D 5D 6C 6S 6B 1C 2C 3C 4C 5C 7C 8C 9C 10C")
    pile1 = rest_of(pile0, table, mine)
    state = hand_end(rules, ["", "", "9D", ""], [pile0, pile1], to_play=2, table=table)
    _, events = applied(state, Move(2, card("9D")))
    scored = next(e for e in events if isinstance(e, HandScored))
    assert len(scored.sides) == 2
    assert [s.cards for s in scored.sides] == [21, 19]
    assert scored.sides[0].total == 4
    assert scored.scores == (4, 0)


def test_six_players_in_two_teams_of_three():
    rules = ScopaRules(players=6)
    assert rules.sides == 2
    assert [rules.side_of(seat) for seat in range(6)] == [0, 1, 0, 1, 0, 1]
    # The dealer, seat 5, plays last in the round: every other seat has played once.
    state = make_state(
        hands=["1D", "2D", "3D", "6D", "7D", "9D 1B"],
        table="4C 5S",
        to_play=5,
        dealer=5,
        rules=rules,
        fill="stock",
    )
    after, events = applied(state, Move(5, card("9D")))
    assert after.piles == [[], list(cards("9D 4C 5S"))]
    assert events[-1].side == 1
    assert len(score_hand(rules, after.piles, after.sweeps)) == 2


def test_four_players_team_seats():
    rules = ScopaRules(players=4)
    assert [rules.side_of(seat) for seat in range(4)] == [0, 1, 0, 1]
    assert rules.sides == 2


def test_two_and_three_players_are_each_a_side():
    assert [ScopaRules(players=3).side_of(s) for s in range(3)] == [0, 1, 2]
    assert ScopaRules(players=3).sides == 3
    assert ScopaRules(players=2).sides == 2


# ---------------------------------------------------------------- through a full hand


def test_a_played_hand_scores_what_score_hand_says_of_its_final_piles():
    rules = ScopaRules(players=3, target=1000, napola=True, primiera=LENIENT)
    table = cards("3C 9S")
    pile0 = cards("1D 2D 3D 4D 7D 6C 6S 1B")
    pile1 = cards("9C 9S 9B 8C 8S 8B")
    pile2 = rest_of(pile0, pile1, table, "3B")
    state = make_state(
        hands=["", "", "3B"],
        table=table,
        piles=[pile0, pile1, pile2],
        to_play=2,
        rules=rules,
        sweeps=[1, 0, 2],
    )
    after, events = applied(state, Move(2, card("3B")))
    scored = next(e for e in events if isinstance(e, HandScored))
    final_piles = [pile0, pile1, (*pile2, *cards("3B 3C 9S"))]
    assert scored.sides == score_hand(rules, final_piles, [1, 0, 2])
    side0, side1, side2 = scored.sides
    assert (side0.settebello_point, side0.napola, side0.sweeps, side0.total) == (1, 4, 1, 6)
    assert side1.total == 0  # no coins: no primiera while other sides have every suit
    assert [s.denari for s in scored.sides] == [5, 0, 5]  # tied: nobody
    assert (side2.cards_point, side2.denari_point, side2.primiera_point) == (1, 0, 1)
    assert side2.sweeps == 2
    assert scored.scores == tuple(s.total for s in scored.sides)
    assert after.scores == scored.scores
