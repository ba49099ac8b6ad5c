"""docs/variants.md, Re bello: REB-1..REB-4 and the examples REB-ex1..REB-ex4."""

from __future__ import annotations

import pytest

from mazzo.engine import Reason
from mazzo.engine.cards import Card
from mazzo.engine.events import HandScored
from mazzo.engine.scopa import score_hand
from mazzo.engine.scopa_rules import Variant
from tests.engine.scopa_support import applied, card, cards, make_state, rest_of
from tests.engine.scopa_variants_support import events_of, option_refusal, play, preset


def sides(rules, side0: str):
    pile = cards(side0)
    return score_hand(rules, [pile, rest_of(pile)], [0, 0])


# ---------------------------------------------------------------- REB-1, REB-2


def test_reb_ex1_the_king_of_coins_and_the_settebello_score_for_the_sides_that_took_them():
    rules = preset("re_bello")
    assert rules.re_bello == card("10D")
    s0, s1 = sides(rules, "7D 1C")
    assert (s0.settebello_point, s0.re_bello_point) == (1, 0)
    assert (s1.settebello_point, s1.re_bello_point) == (0, 1)


def test_reb_1_one_side_may_take_both_bonus_cards():
    s0, s1 = sides(preset("re_bello"), "7D 10D")
    assert (s0.settebello_point, s0.re_bello_point) == (1, 1)
    assert s0.total == 2  # the other side has more cards, coins and the primiera
    assert s1.re_bello_point == 0


def test_reb_ex2_a_re_bello_of_six_of_coins_leaves_the_king_plain():
    rules = preset("scopa", re_bello=card("6D"))
    s0, s1 = sides(rules, "6D 1C")
    assert (s0.re_bello_point, s1.re_bello_point) == (1, 0)
    s0, s1 = sides(rules, "10D 1C")
    assert (s0.re_bello_point, s1.re_bello_point) == (0, 1)


def test_reb_2_any_card_but_the_settebello_may_be_named():
    for index in range(40):
        chosen = Card(index)
        if chosen == card("7D"):
            continue
        rules = preset("scopa", re_bello=chosen)
        s0, s1 = sides(rules, str(chosen))
        assert (s0.re_bello_point, s1.re_bello_point) == (1, 0)


def test_reb_1_without_re_bello_no_card_scores_it():
    for variant in Variant:
        if variant is Variant.RE_BELLO:
            continue
        s0, s1 = score_hand(preset(variant), [cards("10D 6D"), rest_of(cards("10D 6D"))], [0, 0])
        assert (s0.re_bello_point, s1.re_bello_point) == (0, 0)


def test_reb_1_the_re_bello_point_is_part_of_the_hand_total_through_play():
    state = make_state(
        hands=["8D", ""],
        table="8C 4S",
        piles=["", "10D"],
        rules=preset("re_bello"),
        last_capture_side=1,
        fill=0,
    )
    _, events = applied(state, play(0, "8D"))
    (scored,) = events_of(events, HandScored)
    assert [s.re_bello_point for s in scored.sides] == [0, 1]
    assert scored.sides[1].total == 1


def test_re_bello_keeps_the_scopa_players_and_target():
    rules = preset("re_bello")
    assert (rules.players, rules.target) == (2, 11)
    assert preset("re_bello", re_bello=None).re_bello is None


# ---------------------------------------------------------------- REB-3, REB-4


def test_reb_ex3_the_settebello_is_refused_as_re_bello():
    refused = option_refusal(preset, "scopa", re_bello=card("7D"))
    assert (refused.reason, refused.details) == (Reason.INVALID_OPTION, {"option": "re_bello"})


def test_reb_ex3_a_code_that_is_not_a_card_is_invalid_card():
    refused = option_refusal(Card.parse, "11D")
    assert refused.reason is Reason.INVALID_CARD


def test_reb_ex4_escoba_with_the_rey_de_oros():
    rules = preset("escoba", re_bello=card("10D"))
    s0, s1 = sides(rules, "10D 1C")
    assert (s0.re_bello_point, s1.re_bello_point) == (1, 0)
    plain_s0, _ = sides(preset("escoba"), "10D 1C")
    assert s0.total == plain_s0.total + 1


@pytest.mark.parametrize("variant", list(Variant))
def test_reb_4_re_bello_combines_with_every_variant(variant):
    rules = preset(variant, re_bello=card("10D"))
    s0, _ = score_hand(rules, [cards("10D"), rest_of(cards("10D"))], [0, 0])
    assert s0.re_bello_point == 1


def test_reb_4_in_cirulla_a_re_bello_king_of_coins_also_counts_in_the_grande():
    rules = preset("cirulla", re_bello=card("10D"))
    s0, _ = sides(rules, "8D 9D 10D")
    assert (s0.grande, s0.re_bello_point) == (5, 1)
