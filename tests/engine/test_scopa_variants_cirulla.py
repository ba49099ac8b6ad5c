"""docs/variants.md, Cirulla: CIR-1..CIR-11 and the examples CIR-ex1..CIR-ex20.

Two players, dealer seat 1 (seat 0 leads) unless said otherwise.
"""

from __future__ import annotations

import pytest

from mazzo.engine import DECK, Reason, dump_state, load_state
from mazzo.engine.events import (
    Capture,
    CardPlayed,
    CardsDealt,
    Deal,
    Declaration,
    FirstTableTaken,
    GameOver,
    HandScored,
    Redeal,
)
from mazzo.engine.game import game_winner
from mazzo.engine.scopa import (
    ScopaState,
    captures,
    judge_hand,
    primiera_total,
    primiera_winner_of,
    score_hand,
)
from mazzo.engine.scopa_rules import PrimieraRule
from mazzo.engine.scopa_scoring import grande_points, piccola_points
from tests.engine.scopa_support import (
    applied,
    card,
    cards,
    deck_starting_with,
    first_move,
    hands_of,
    make_state,
    play_hand,
    refusal,
    rest_of,
)
from tests.engine.scopa_variants_support import (
    choice_texts,
    choices_of,
    deck_dealing,
    events_of,
    finish_at,
    option_refusal,
    play,
    preset,
    takes,
)

HANDS = ("2C 3C 4C", "5C 6C 8C")  # seat 0 holds a cirulla (9); seat 1 nothing (19)


def cirulla(table: str, hand: str = "2B 3B 4B", other: str = "8D 9D 6C", **overrides):
    rules = preset("cirulla", **overrides)
    return make_state(hands=[hand, other], table=table, rules=rules, dealer=1, fill="stock")


def options(state, played: str) -> set[frozenset]:
    return set(captures(card(played), state.table, state.rules))


def with_table(table: str, hands=HANDS, **overrides):
    deck = deck_dealing(hands, table)
    return ScopaState.new_game(preset("cirulla", **overrides), seed=1, decks=[deck, DECK])


# ---------------------------------------------------------------- CIR-1 players and deal


def test_cir_1_two_three_or_four_players_four_in_pairs():
    assert [preset("cirulla", players=n).sides for n in (2, 3, 4)] == [2, 3, 2]
    assert [preset("cirulla", players=4).side_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert option_refusal(preset, "cirulla", players=6).reason is Reason.INVALID_PLAYERS


@pytest.mark.parametrize(("players", "deals"), [(2, 6), (3, 4), (4, 3)])
def test_cir_1_every_hand_a_player_holds_has_three_cards(players, deals):
    state, events = ScopaState.new_game(preset("cirulla", players=players), seed=players)
    assert all(len(e.cards) == 3 for e in events_of(events, CardsDealt))
    _, hand = play_hand(state, first_move)
    scored_at = next(i for i, e in enumerate(hand) if isinstance(e, HandScored))
    later = events_of(hand[:scored_at], Deal)
    assert len(later) + 1 == deals
    assert all(len(e.cards) == 3 for e in events_of(hand[:scored_at], CardsDealt))


# ---------------------------------------------------------------- CIR-2 redeal on aces


def test_cir_ex5_two_aces_on_a_first_table_of_fifteen_are_a_redeal_not_a_bonus():
    state, events = with_table("1D 1C 6S 7B")
    assert events_of(events, Redeal) == [Redeal(1, cards("1D 1C 6S 7B"))]
    assert events_of(events, FirstTableTaken) == []
    assert state.table == cards("7D 8D 9D 10D")  # the next deck
    assert state.sweeps == [0, 0]


def test_cir_2_three_aces_are_a_redeal_one_ace_is_not():
    _, events = with_table("1D 1C 1S 7B")
    assert len(events_of(events, Redeal)) == 1
    state, events = with_table("1D 2D 6S 9B")
    assert events_of(events, Redeal) == []
    assert state.table == cards("1D 2D 6S 9B")


def test_cir_ex5_three_kings_are_no_redeal():
    state, events = with_table("10D 10C 10S 2B")
    assert events_of(events, Redeal) == []
    assert events_of(events, FirstTableTaken) == []
    assert state.table == cards("10D 10C 10S 2B")


# ---------------------------------------------------------------- CIR-3 the dealer's bonus


def test_cir_ex3_a_first_table_of_fifteen_with_one_ace_gives_the_dealer_one_sweep():
    deck = deck_starting_with("3C 5C 4C 6C 9S 9B 1D 3D 5S 6B")
    state, events = ScopaState.new_game(preset("cirulla"), seed=1, decks=[deck])
    assert hands_of(state) == (cards("3C 4C 9S"), cards("5C 6C 9B"))
    assert events_of(events, FirstTableTaken) == [
        FirstTableTaken(dealer=1, side=1, cards=cards("1D 3D 5S 6B"), sweeps=1)
    ]
    assert (state.table, state.sweeps, state.last_capture_side) == ((), [0, 1], 1)
    assert state.piles[1] == list(cards("1D 3D 5S 6B"))
    assert state.to_play == 0
    assert {m.take for m in state.legal_moves()} == {frozenset()}


@pytest.mark.parametrize("table", ["10D 9C 8S 3B", "10C 10S 9B 1D"])
def test_cir_ex4_a_first_table_of_thirty_gives_two_sweeps_whatever_the_split(table):
    state, events = with_table(table)
    assert [e.sweeps for e in events_of(events, FirstTableTaken)] == [2]
    assert state.sweeps == [0, 2]
    assert state.table == ()


def test_cir_3_the_matta_counts_seven_in_the_first_table():
    state, events = with_table("7C 5D 2S 1B")
    assert [e.sweeps for e in events_of(events, FirstTableTaken)] == [1]


def test_cir_3_the_four_player_bonus_goes_to_the_dealers_side():
    hands = ("2C 3C 4C", "5C 6C 8C", "2S 3S 4S", "5S 6S 8S")
    deck = deck_dealing(hands, "1D 3D 5B 6B")
    state, events = ScopaState.new_game(preset("cirulla", players=4), seed=1, decks=[deck])
    assert events_of(events, FirstTableTaken) == [
        FirstTableTaken(dealer=3, side=1, cards=cards("1D 3D 5B 6B"), sweeps=1)
    ]
    assert state.sweeps == [0, 1]


# ---------------------------------------------------------------- CIR-4 the captures


def test_cir_ex1_ex2_canonical_deck_ace_takes_all_five_takes_the_king_three_nothing():
    state, events = ScopaState.new_game(preset("cirulla"), seed=1, decks=[DECK])
    assert hands_of(state) == (cards("1D 3D 5D"), cards("2D 4D 6D"))
    assert state.table == cards("7D 8D 9D 10D")
    assert events_of(events, FirstTableTaken) == events_of(events, Redeal) == []
    assert {(m.card, m.take) for m in state.legal_moves()} == {
        (card("1D"), frozenset(cards("7D 8D 9D 10D"))),
        (card("3D"), frozenset()),
        (card("5D"), frozenset(cards("10D"))),
    }
    after, events = applied(state, play(0, "1D"))
    assert events[-1] == Capture(0, 0, card("1D"), cards("7D 8D 9D 10D"), sweep=True)
    assert after.sweeps == [1, 0]


def test_cir_ex6_pairing_or_fifteen():
    state = cirulla("3C 5S 6B 7D", hand="7S 2B")
    assert options(state, "7S") == takes("7D", "3C 5S")
    assert refusal(state, play(0, "7S")).reason is Reason.CAPTURE_CHOICE_REQUIRED


def test_cir_ex6_a_sum_to_the_rank_past_a_same_rank_card_is_must_take_same_rank():
    state = cirulla("3C 4S 7D", hand="7S 2B")
    assert options(state, "7S") == takes("7D")
    assert refusal(state, play(0, "7S", "3C 4S")).reason is Reason.MUST_TAKE_SAME_RANK


def test_cir_4_a_take_that_is_neither_a_sum_nor_a_fifteen_is_no_such_capture():
    state = cirulla("3C 5S 6B 7D", hand="7S 2B")
    assert refusal(state, play(0, "7S", "5S 6B")).reason is Reason.NO_SUCH_CAPTURE


def test_cir_ex7_summing_or_fifteen():
    state = cirulla("2C 4S 9B", hand="6D 2B")
    assert options(state, "6D") == takes("2C 4S", "9B")


def test_cir_ex8_three_ways_one_of_them_a_sweep():
    state = cirulla("5C 3D 2B", hand="10S 4B")
    assert options(state, "10S") == takes("5C 3D 2B", "5C", "3D 2B")
    after, events = applied(state, play(0, "10S", "5C 3D 2B"))
    assert events[-1] == Capture(0, 0, card("10S"), cards("5C 3D 2B"), sweep=True)
    after, events = applied(state, play(0, "10S", "3D 2B"))
    assert events[-1].sweep is False and after.table == cards("5C")


def test_cir_ex9_two_fifteens():
    state = cirulla("2D 5S 7B", hand="8C 4B")
    assert options(state, "8C") == takes("7B", "2D 5S")


def test_cir_4_fewest_cards_applies_to_the_sums_and_the_fifteens_separately():
    state = cirulla("1C 5S 2B 4D 3B 9C", hand="6D 7B")
    every = options(state, "6D")
    assert every == takes("1C 5S", "2B 4D", "1C 2B 3B", "9C", "5S 4D", "1C 5S 3B", "2B 4D 3B")
    state = cirulla("1C 5S 2B 4D 3B 9C", hand="6D 7B", fewest_cards=True)
    assert options(state, "6D") == takes("1C 5S", "2B 4D", "9C")
    err = refusal(state, play(0, "6D", "1C 2B 3B"))
    assert err.reason is Reason.MUST_TAKE_FEWEST_CARDS
    assert choices_of(err.details) == choice_texts("1C 5S", "2B 4D", "9C")
    assert refusal(state, play(0, "6D", "5S 4D")).reason is Reason.MUST_TAKE_FEWEST_CARDS


# ---------------------------------------------------------------- CIR-5 the ace


def test_cir_ex10_an_ace_with_an_ace_on_the_table_pairs_it_or_makes_fifteen():
    state = cirulla("1C 4S 10B", hand="1D 2B")
    assert options(state, "1D") == takes("1C", "4S 10B")
    for take in ("1C", "4S 10B"):
        _, events = applied(state, play(0, "1D", take))
        assert events[-1].sweep is False


def test_cir_ex11_the_ace_may_take_the_table_ace_in_a_fifteen_a_sweep():
    state = cirulla("1C 3S 10B", hand="1D 2B")
    assert options(state, "1D") == takes("1C", "1C 3S 10B")
    after, events = applied(state, play(0, "1D", "1C 3S 10B"))
    assert events[-1] == Capture(0, 0, card("1D"), cards("1C 3S 10B"), sweep=True)
    assert after.sweeps == [1, 0]


def test_cir_ex12_with_no_ace_on_the_table_the_take_all_is_the_only_capture():
    state = cirulla("4C 10B 6S", hand="1D 2B")
    assert options(state, "1D") == takes("4C 10B 6S")
    assert state.resolve(play(0, "1D")) == play(0, "1D", "4C 10B 6S")
    assert refusal(state, play(0, "1D", "4C 10B")).reason is Reason.NO_SUCH_CAPTURE
    _, events = applied(state, play(0, "1D"))
    assert events[-1].sweep is True


def test_cir_ex12_an_ace_onto_an_empty_table_stays():
    state = cirulla("", hand="1D 2B")
    assert options(state, "1D") == {frozenset()}
    after, events = applied(state, play(0, "1D"))
    assert events == [CardPlayed(0, card("1D"))]
    assert after.table == cards("1D")


# ---------------------------------------------------------------- CIR-6 compulsory


def test_cir_ex13_the_five_must_take_the_king_and_the_two_stays():
    state = cirulla("10C", hand="5S 2B")
    assert {(m.card, m.take) for m in state.legal_moves()} == {
        (card("5S"), frozenset(cards("10C"))),
        (card("2B"), frozenset()),
    }
    after, _ = applied(state, play(0, "2B"))
    assert after.table == cards("10C 2B")


# ---------------------------------------------------------------- CIR-7 sweeps


def test_cir_7_the_ace_take_all_is_a_sweep_by_default_and_by_the_house_rule_not():
    assert preset("cirulla").ace_sweep.value == "always"
    _, events = applied(cirulla("4C 10B 6S", hand="1D 2B", ace_sweep="ordinary"), play(0, "1D"))
    assert events[-1].sweep is False


def test_cir_ex18_the_last_card_takes_all_but_is_no_sweep():
    state = make_state(
        hands=["1B", ""],
        table="6C 9D",
        rules=preset("cirulla"),
        dealer=1,
        last_capture_side=1,
        fill=1,
    )
    _, events = applied(state, play(0, "1B"))
    assert events_of(events, Capture) == [Capture(0, 0, card("1B"), cards("6C 9D"), sweep=False)]
    assert events_of(events, HandScored)[0].sides[0].sweeps == 0


# ---------------------------------------------------------------- CIR-8 the matta in play


def test_cir_ex14_the_matta_in_play_is_a_seven_of_cups():
    state = cirulla("8S", hand="7C 2B")
    assert options(state, "7C") == takes("8S")
    state = cirulla("8S 3D", hand="7C 2B")
    assert options(state, "7C") == takes("8S")


def test_cir_ex14_the_matta_must_pair_the_seven_no_fifteen_exists():
    state = cirulla("7D 2S", hand="7C 2B")
    assert options(state, "7C") == takes("7D")
    assert state.resolve(play(0, "7C")) == play(0, "7C", "7D")
    assert refusal(state, play(0, "7C", "7D 2S")).reason is Reason.NO_SUCH_CAPTURE


def test_cir_8_the_matta_is_a_seven_in_the_primiera_and_the_sevens():
    assert primiera_total(cards("7C")) == 21
    piles = [cards("7C 7D"), cards("7S 1B")]
    assert primiera_winner_of(PrimieraRule.MOST_SEVENS, piles) == 0


# ---------------------------------------------------------------- CIR-9 declarations

EX15 = [
    ("1S 3C 4B", ("cirulla", 3, None)),
    ("2S 3C 4B", ("cirulla", 3, None)),
    ("2S 3C 5B", None),
    ("9S 9C 9B", ("decino", 10, None)),
    ("2D 2S 2B", ("decino", 10, None)),
    ("7C 2S 5B", ("cirulla", 3, 1)),
    ("7C 6S 2B", ("cirulla", 3, 1)),
    ("7C 4S 5B", None),
    ("7C 8S 8B", ("decino", 10, 8)),
    ("7C 7D 7S", ("decino", 10, None)),
]


@pytest.mark.parametrize(("hand", "judged"), EX15)
def test_cir_ex15_judge_hand(hand, judged):
    assert judge_hand(cards(hand)) == judged


@pytest.mark.parametrize("order", [(0, 1, 2), (2, 1, 0), (1, 2, 0)])
def test_cir_9_the_order_of_the_cards_does_not_matter(order):
    for hand, judged in EX15:
        held = cards(hand)
        assert judge_hand(tuple(held[i] for i in order)) == judged


def test_cir_9_the_matta_pairs_any_rank_and_never_makes_a_hand_worse():
    for rank in range(1, 11):
        if rank == 7:
            continue
        pair = cards(f"{rank}S {rank}B")
        assert judge_hand((card("7C"), *pair)) == ("decino", 10, rank)
    assert judge_hand(cards("7C 1S 1B")) == ("decino", 10, 1)  # not a cirulla of 3
    assert judge_hand(cards("7C 3S 4B")) == ("cirulla", 3, 1)
    assert judge_hand(cards("7C 3S 6B")) is None  # 1 + 3 + 6 = 10
    assert judge_hand(cards("7D 1S 2B")) is None  # a plain seven: 7 + 1 + 2 = 10
    assert judge_hand(cards("7D 1S 1B")) == ("cirulla", 3, None)  # 7 + 1 + 1 = 9
    assert judge_hand(cards("6D 1S 1B")) == ("cirulla", 3, None)


@pytest.mark.parametrize(("hand", "judged"), EX15)
def test_cir_ex15_through_play_declared_before_the_card_and_shown_to_the_others(hand, judged):
    state = cirulla("", hand=hand, other="8D 9D 10C")
    first, *rest = cards(hand)
    after, events = applied(state, play(0, str(first)))
    if judged is None:
        assert events == [CardPlayed(0, first)]
        assert after.declared == []
        assert after.view(1).known == ((), ())
        return
    kind, points, matta = judged
    assert events == [
        Declaration(0, 0, kind, cards(hand), points, matta),
        CardPlayed(0, first),
    ]
    assert events[0].visible_to is None
    assert after.declared == [points, 0]
    assert after.view(1).known == (tuple(rest), ())
    assert after.view(0).known == ((), ())


def test_cir_ex1_the_leaders_cirulla_is_declared_and_the_dealer_declares_nothing():
    state, _ = ScopaState.new_game(preset("cirulla"), seed=1, decks=[DECK])
    events = state.apply(play(0, "3D"))
    assert events[0] == Declaration(0, 0, "cirulla", cards("1D 3D 5D"), 3, None)
    assert state.view(1).known == (cards("1D 5D"), ())
    events = state.apply(play(1, "2D"))
    assert events_of(events, Declaration) == []
    assert state.declared == [3, 0]


def test_cir_9_the_dealer_declares_too():
    state = cirulla("", hand="2B 3B 4B", other="9S 9C 9B")
    state.apply(play(0, "2B"))
    events = state.apply(play(1, "9C"))
    assert events[:2] == [
        Declaration(1, 1, "decino", cards("9S 9C 9B"), 10, None),
        CardPlayed(1, card("9C")),
    ]
    assert state.declared == [3, 10]


def test_cir_9_only_the_first_card_of_a_hand_declares():
    state = cirulla("", hand="2B 3B 4B", other="9S 9C 9B")
    state.apply(play(0, "2B"))
    state.apply(play(1, "9C"))
    events = state.apply(play(0, "3B"))
    assert events_of(events, Declaration) == []
    assert state.declared == [3, 10]


def test_cir_9_every_deal_of_the_hand_is_judged():
    deck = deck_dealing(HANDS, "10D 9D 8D 6D", rest="9S 1D 9C 1B 9B 1S")
    state, events = ScopaState.new_game(preset("cirulla"), seed=1, decks=[deck])
    declarations = []
    for _ in range(8):
        events = state.apply(first_move(state))
        declarations += [(e.seat, e.kind, e.cards) for e in events_of(events, Declaration)]
    assert declarations == [
        (0, "cirulla", cards("2C 3C 4C")),
        (0, "decino", cards("9S 9C 9B")),
        (1, "decino", cards("1D 1B 1S")),
    ]
    assert state.declared == [13, 10]


def test_cir_9_declared_cards_stay_known_until_played_and_survive_the_codec():
    state = cirulla("", hand="1S 3C 4B", other="8D 9D 10C")
    state.apply(play(0, "1S"))
    assert load_state(dump_state(state)) == state
    assert state.view(1).known[0] == cards("3C 4B")
    state.apply(play(1, "8D"))
    assert state.view(1).known[0] == cards("3C 4B")
    state.apply(play(0, "4B"))
    assert state.view(1).known[0] == cards("3C")
    assert load_state(dump_state(state)) == state
    state.apply(play(1, "9D"))
    state.apply(play(0, "3C"))
    assert state.view(1).known == ((), ())
    assert state.revealed == []


def four_player_last_round():
    """Four players, the last round of a hand: seats 0 and 2 (side 0) both declare."""
    return make_state(
        hands=["1S 3C 4B", "8D 9D 10C", "9S 9C 9B", "5S 6S 8B"],
        table="",
        rules=preset("cirulla", players=4),
        dealer=3,
        fill=1,
    )


def test_cir_ex15_with_four_players_both_partners_declarations_count_for_their_side():
    state = four_player_last_round()
    state.apply(play(0, "1S"))
    for seat in (1, 2, 3):
        assert state.view(seat).known[0] == cards("3C 4B")
    state.apply(play(1, "10C"))
    events = state.apply(play(2, "9S"))
    assert events[0] == Declaration(2, 0, "decino", cards("9S 9C 9B"), 10, None)
    assert state.declared == [13, 0]
    for seat in (0, 1, 3):
        assert state.view(seat).known[2] == cards("9C 9B")
    assert state.view(2).known == (cards("3C 4B"), (), (), ())


def test_cir_9_the_declarations_score_in_the_hand_for_the_side_and_are_no_sweeps():
    state = four_player_last_round()
    _, events = play_hand(state, first_move)
    (scored,) = events_of(events, HandScored)
    assert [s.declarations for s in scored.sides] == [13, 0]
    for side in (0, 1):
        swept = sum(e.sweep for e in events_of(events, Capture) if e.side == side)
        assert scored.sides[side].sweeps == swept
    assert sum(e.points for e in events_of(events, Declaration)) == 13


# ---------------------------------------------------------------- CIR-10 scoring


@pytest.mark.parametrize(
    ("coins", "grande", "piccola"),
    [
        ("8D 9D 10D", 5, 0),
        ("8D 10D", 0, 0),
        ("1D 2D 3D", 0, 3),
        ("1D 2D 3D 4D 5D", 0, 5),
        ("1D 2D 3D 4D 5D 6D 7D", 0, 7),
        ("1D 2D 3D 4D 5D 6D 7D 8D 9D 10D", 5, 7),
        ("1D 2D 4D", 0, 0),
        ("1D 2D 3D 5D 6D 7D", 0, 3),
        ("2D 3D 4D 5D 6D", 0, 0),
    ],
)
def test_cir_ex16_grande_and_piccola(coins, grande, piccola):
    pile = cards(coins)
    assert (grande_points(pile), piccola_points(pile)) == (grande, piccola)
    s0, s1 = score_hand(preset("cirulla"), [pile, rest_of(pile)], [0, 0])
    assert (s0.grande, s0.piccola) == (grande, piccola)


def test_cir_ex16_all_ten_coins_with_the_denari_and_settebello():
    pile = cards("1D 2D 3D 4D 5D 6D 7D 8D 9D 10D")
    s0, _ = score_hand(preset("cirulla"), [pile, rest_of(pile)], [0, 0])
    assert (s0.piccola, s0.grande, s0.denari_point, s0.settebello_point) == (7, 5, 1, 1)
    assert s0.total == 14  # the cards and primiera go to the other side


def test_cir_10_grande_and_piccola_are_off_without_the_switch():
    pile = cards("1D 2D 3D 8D 9D 10D")
    s0, _ = score_hand(preset("cirulla", grande_piccola=False), [pile, rest_of(pile)], [0, 0])
    assert (s0.grande, s0.piccola) == (0, 0)


#: CIR-ex17's piles: side 0 23 cards (coins 1D-4D 7D-10D; best 6C 6S 6B), side 1 17.
EX17_SIDE_1 = cards("5D 6D 7C 7S 7B 1C 2C 3C 4C 1S 2S 3S 4S 1B 2B 3B 4B")
EX17_SIDE_0 = rest_of(EX17_SIDE_1)


def test_cir_ex17_a_whole_hand_seventeen_to_twelve():
    assert (len(EX17_SIDE_0), len(EX17_SIDE_1)) == (23, 17)
    s0, s1 = score_hand(preset("cirulla"), [EX17_SIDE_0, EX17_SIDE_1], [2, 1], [3, 10])
    assert (s0.primiera, s1.primiera) == (75, 81)
    assert (s0.cards_point, s0.denari_point, s0.settebello_point, s0.primiera_point) == (
        1,
        1,
        1,
        0,
    )
    assert (s0.sweeps, s0.declarations, s0.piccola, s0.grande) == (2, 3, 4, 5)
    assert (s1.primiera_point, s1.sweeps, s1.declarations, s1.grande, s1.piccola) == (
        1,
        1,
        10,
        0,
        0,
    )
    assert (s0.total, s1.total) == (17, 12)


# ---------------------------------------------------------------- CIR-11, CIR-ex19, CIR-ex20


@pytest.mark.parametrize(
    ("totals", "winner"), [((50, 40), None), ((52, 51), 0), ((51, 52), 1), ((51, 51), None)]
)
def test_cir_ex19_target_fifty_one(totals, winner):
    state = make_state(
        hands=["1B", ""],
        table="6C 9D",
        rules=preset("cirulla"),
        dealer=1,
        last_capture_side=1,
        fill=1,
    )
    assert state.rules.target == 51
    after, events = finish_at(state, play(0, "1B"), totals)
    assert events_of(events, HandScored)[0].scores == totals
    assert after.winner == winner == game_winner(totals, 51)
    assert len(events_of(events, GameOver)) == (winner is not None)


def test_cir_ex20_the_napola_is_refused_with_the_piccola():
    refused = option_refusal(preset, "cirulla", napola=True)
    assert refused.reason is Reason.INVALID_OPTION
    assert refused.details["option"] in ("napola", "grande_piccola")
    assert "piccola" in refused.message


# ---------------------------------------------------------------- combinations


def test_cirulla_with_re_bello_ten_of_coins_counts_it_in_the_grande_too():
    pile = cards("8D 9D 10D")
    s0, _ = score_hand(preset("cirulla", re_bello=card("10D")), [pile, rest_of(pile)], [0, 0])
    assert (s0.grande, s0.re_bello_point) == (5, 1)


def test_cirulla_with_the_sevens_primiera():
    sides = score_hand(
        preset("cirulla", primiera="sevens"), [EX17_SIDE_0, EX17_SIDE_1], [0, 0], [0, 0]
    )
    assert [s.primiera_point for s in sides] == [0, 1]  # sevens 1 against 3


# ---------------------------------------------------------------- CIR-12, CIR-13 the switches


@pytest.mark.parametrize(
    ("table", "plain", "wild"),
    [
        ("7C 1D 3S 2B", [], [1]),  # 13, or 15 with the matta as 9
        ("7C 10D 9S 2B", [], [2]),  # 28, or 30 with the matta as 9
        ("7C 5D 2S 1B", [1], [1]),  # 15 either way
        ("7C 10D 10S 10B", [], []),  # 37: no value from 1 to 10 makes 15 or 30
        ("7D 1C 3S 2B", [], []),  # the settebello is no matta
    ],
)
def test_cir_ex21_the_matta_wild_in_the_first_table_total(table, plain, wild):
    _, events = with_table(table)
    assert [e.sweeps for e in events_of(events, FirstTableTaken)] == plain
    _, events = with_table(table, matta_wild_in_first_table=True)
    assert [e.sweeps for e in events_of(events, FirstTableTaken)] == wild


def test_cir_12_the_wild_matta_leaves_it_a_seven_in_play():
    state = cirulla("7C 9S", hand="8B 2B 3B", matta_wild_in_first_table=True)
    assert options(state, "8B") == takes("7C")  # 8 + 7 = 15
    assert preset("cirulla").matta_wild_in_first_table is False


def test_cir_12_the_matta_switch_needs_a_first_table_bonus():
    refused = option_refusal(preset, "scopa", matta_wild_in_first_table=True)
    assert (refused.reason, refused.details) == (
        Reason.INVALID_OPTION,
        {"option": "matta_wild_in_first_table"},
    )
    assert preset("escoba", matta_wild_in_first_table=True).matta_wild_in_first_table


@pytest.mark.parametrize(
    ("coins", "to_seven", "to_six"),
    [
        ("1D 2D 3D 4D 5D 6D 7D", 7, 6),
        ("1D 2D 3D 4D 5D 6D", 6, 6),
        ("1D 2D 3D 4D 5D 7D", 5, 5),
        ("1D 2D 3D", 3, 3),
        ("1D 2D 4D", 0, 0),
    ],
)
def test_cir_ex22_the_piccola_stops_at_the_seven_or_the_six(coins, to_seven, to_six):
    pile = cards(coins)
    s0, _ = score_hand(preset("cirulla"), [pile, rest_of(pile)], [0, 0])
    short, _ = score_hand(
        preset("cirulla", piccola_stops_at_six=True), [pile, rest_of(pile)], [0, 0]
    )
    assert (s0.piccola, short.piccola) == (to_seven, to_six)
    assert (piccola_points(pile), piccola_points(pile, top=6)) == (to_seven, to_six)


def test_cir_13_the_piccola_switch_needs_the_grande_and_piccola():
    refused = option_refusal(preset, "scopa", piccola_stops_at_six=True)
    assert (refused.reason, refused.details) == (
        Reason.INVALID_OPTION,
        {"option": "piccola_stops_at_six"},
    )
    assert preset("cirulla").piccola_stops_at_six is False


def test_cir_12_13_the_switches_survive_the_state_bytes():
    state, _ = with_table("7C 1D 3S 2B", matta_wild_in_first_table=True, piccola_stops_at_six=True)
    again = load_state(dump_state(state))
    assert again == state
    assert (again.rules.matta_wild_in_first_table, again.rules.piccola_stops_at_six) == (True, True)
