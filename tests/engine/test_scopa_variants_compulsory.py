"""docs/variants.md, Taking: compulsory or optional (CAP-1..CAP-7 and CAP-ex1..CAP-ex9).

With ``compulsory_capture`` off (Escoba's preset) every card may also be laid to
the table without taking (``Move.lay``); the takings themselves are unchanged.
Two players, seat 0 to play, unless said otherwise.
"""

from __future__ import annotations

import struct

import pytest

from mazzo.engine import InvalidInput, Move, Reason, dump_state, load_state
from mazzo.engine.events import Capture, CardPlayed, Declaration, LeftoversTaken
from mazzo.engine.scopa import (
    _RULES,
    ScopaRules,
    ScopaState,
    _encode_rules,
)
from mazzo.engine.scopa_rules import BOOL_FIELDS, Variant
from mazzo.engine.tressette import TressetteRules, TressetteState
from tests.engine.scopa_support import (
    applied,
    card,
    cards,
    make_state,
    refusal,
    rest_of,
    steps,
)
from tests.engine.scopa_variants_support import (
    choices_of,
    deck_dealing,
    events_of,
    lay,
    play,
    preset,
    takes,
)


def escoba(table: str, hand: str = "8D 6S 9B", players: int = 2, **overrides):
    """Seat 0 leads with ``hand``; the others hold as many cards, from the rest."""
    rules = preset("escoba", players=players, **overrides)
    rest = rest_of(cards(hand), cards(table))
    size = len(cards(hand))
    hands = [cards(hand)] + [rest[size * k : size * (k + 1)] for k in range(players - 1)]
    return make_state(hands=hands, table=table, rules=rules, dealer=players - 1, fill="stock")


def laid_cards(moves: list[Move]) -> list[str]:
    return [str(m.card) for m in moves if m.lay]


# ---------------------------------------------------------------- CAP-1 the defaults


@pytest.mark.parametrize("variant", list(Variant))
def test_cap_1_every_variant_but_escoba_makes_taking_compulsory(variant):
    assert preset(variant).compulsory_capture is (variant is not Variant.ESCOBA)


def test_cap_1_the_switch_overrides_either_way():
    assert preset("escoba", compulsory_capture=True).compulsory_capture is True
    assert preset("quindici", compulsory_capture=False).compulsory_capture is False
    assert ScopaRules().compulsory_capture is True


# ---------------------------------------------------------------- CAP-2, CAP-3 the lay


def test_cap_ex1_escoba_lays_the_eight_that_could_make_fifteen():
    """The issue's example: hand 8D 6S 9B, table 7D 10D 10C 10S 10B."""
    state = escoba("7D 10D 10C 10S 10B")
    moves = state.legal_moves()
    assert moves == [play(0, "8D", "7D"), lay(0, "8D"), play(0, "6S"), play(0, "9B")]
    after, events = applied(state, lay(0, "8D"))
    assert events == [CardPlayed(0, card("8D"))]
    assert after.table == cards("7D 10D 10C 10S 10B 8D")
    assert after.piles == [[], []]


def test_cap_ex2_an_empty_take_is_no_lay_it_asks_which():
    state = escoba("7D 10D 10C 10S 10B")
    err = refusal(state, play(0, "8D"))
    assert err.reason is Reason.CAPTURE_CHOICE_REQUIRED
    assert choices_of(err.details) == {"7D", "lay"}
    assert set(err.choices) == {play(0, "8D", "7D"), lay(0, "8D")}
    # A card that can take nothing: an empty take and a lay are the same move.
    assert state.resolve(play(0, "6S")) == play(0, "6S")
    assert state.resolve(lay(0, "6S")) == lay(0, "6S")


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_cap_ex3_escoba_offers_the_lay_of_every_card_beside_its_takings(players):
    state = escoba("8C 3S 5B 2D", hand="7D 10B 4C", players=players)
    moves = state.legal_moves()
    assert {m.take for m in moves if m.card == card("7D") and not m.lay} == takes("8C", "3S 5B")
    assert {m.take for m in moves if m.card == card("10B") and not m.lay} == takes("5B", "3S 2D")
    assert {m.take for m in moves if m.card == card("4C") and not m.lay} == takes("8C 3S")
    assert laid_cards(moves) == ["7D", "10B", "4C"]
    for move in moves:
        assert state.resolve(move) == move


def test_cap_2_the_takings_keep_the_capture_rule_scopa_same_rank_first():
    rules = preset("scopa", compulsory_capture=False)
    state = make_state(hands=["7D 9S", ""], table="7C 3S 4B", rules=rules, fill="stock")
    assert state.legal_moves() == [play(0, "7D", "7C"), lay(0, "7D"), play(0, "9S")]
    assert refusal(state, play(0, "7D", "3S 4B")).reason is Reason.MUST_TAKE_SAME_RANK


def test_cap_ex4_an_ace_that_takes_all_may_be_laid_and_stays_an_ace():
    rules = preset("scopa_d_assi", compulsory_capture=False)
    state = make_state(hands=["1D 5S", "1C 6B"], table="3S 7C", rules=rules, fill="stock")
    assert state.legal_moves()[:2] == [play(0, "1D", "3S 7C"), lay(0, "1D")]
    after, _ = applied(state, lay(0, "1D"))
    assert after.table == cards("3S 7C 1D")
    # The next ace finds an ace on the table: it takes that ace only (ASS-2).
    assert [m for m in after.legal_moves() if m.card == card("1C")] == [
        play(1, "1C", "1D"),
        lay(1, "1C"),
    ]


def test_cap_ex5_cirullas_choices_and_the_lay():
    rules = preset("cirulla", compulsory_capture=False)
    state = make_state(
        hands=["7S 2B 3B", "8D 9D 6C"], table="3C 5S 6B 7D", rules=rules, fill="stock"
    )
    sevens = [m for m in state.legal_moves() if m.card == card("7S")]
    assert sevens == [play(0, "7S", "7D"), play(0, "7S", "3C 5S"), lay(0, "7S")]


def test_cap_ex9_a_lay_is_never_a_sweep_and_the_last_lay_leaves_the_leftovers():
    state = make_state(
        hands=["5D", ""],
        table="10C",
        rules=preset("escoba"),
        last_capture_side=1,
        fill=1,
        dealer=0,  # seat 0 plays the round's last card
    )
    _, events = applied(state, lay(0, "5D"))
    assert events_of(events, Capture) == []
    assert events_of(events, LeftoversTaken) == [LeftoversTaken(1, cards("10C 5D"))]


# ---------------------------------------------------------------- CAP-4, CAP-5 refusals


def test_cap_ex6_with_taking_compulsory_a_lay_of_a_card_that_can_take_is_must_take():
    state = make_state(hands=["5S 2B", ""], table="10C", rules=preset("quindici"), fill="stock")
    err = refusal(state, lay(0, "5S"))
    assert err.reason is Reason.MUST_TAKE
    assert choices_of(err.details) == {"10C"}
    assert err.choices == (play(0, "5S", "10C"),)
    assert state.resolve(lay(0, "2B")) == lay(0, "2B")  # 2 + 10 = 12: nothing to take
    assert lay(0, "5S") not in state.legal_moves()


def test_cap_ex7_a_lay_that_names_a_take_is_malformed():
    state = escoba("7D 10D 10C 10S 10B")
    with pytest.raises(InvalidInput) as err:
        state.resolve(Move(0, card("8D"), frozenset(cards("7D")), lay=True))
    assert err.value.reason is Reason.LAY_WITH_TAKE


def test_cap_5_a_lay_still_checks_the_turn_and_the_hand():
    state = escoba("7D 10D 10C 10S 10B")
    assert refusal(state, lay(0, "5C")).reason is Reason.CARD_NOT_IN_HAND
    assert refusal(state, lay(1, "8D")).reason is Reason.NOT_YOUR_TURN


def test_cap_5_tressette_has_no_lay():
    state, _ = TressetteState.new_game(TressetteRules(), seed=3)
    held = state.hands[state.to_play][0]
    with pytest.raises(InvalidInput) as err:
        state.resolve(Move(state.to_play, held, lay=True))
    assert err.value.reason is Reason.TAKE_NOT_ALLOWED


# ---------------------------------------------------------------- CAP-6 whole games


def lay_when_it_could_take(state):
    """Lay a card that could take whenever there is one; else the first move."""
    moves = state.legal_moves()
    return next((m for m in moves if m.lay), moves[0])


def test_cap_ex8_a_whole_escoba_game_where_fifteens_are_laid():
    deck = deck_dealing(["8D 6S 9B", "5C 6C 9S"], "7D 10D 10C 10S")
    # To 5 points, not 21: players who lay whenever they could take score
    # slowly, and 600 moves make the point as well as 3,700.
    state, _ = ScopaState.new_game(preset("escoba", target=5), seed=7, decks=[deck])
    played = list(steps(state, lay_when_it_could_take))
    first = played[0]
    assert first.move == lay(0, "8D")  # 8 + 7 would have made 15
    assert first.after.table == cards("7D 10D 10C 10S 8D")
    lays = [s for s in played if s.move.lay]
    assert len(lays) > 10
    assert played[-1].after.game_over


def test_cap_6_the_same_game_with_taking_compulsory_never_lays():
    state, _ = ScopaState.new_game(preset("escoba", compulsory_capture=True), seed=7)
    assert not any(s.move.lay for s in steps(state, lay_when_it_could_take))


# ---------------------------------------------------------------- CAP-7 the state bytes


def test_cap_7_the_switch_survives_the_state_bytes():
    for compulsory in (True, False):
        state, _ = ScopaState.new_game(preset("escoba", compulsory_capture=compulsory), seed=2)
        assert load_state(dump_state(state)).rules.compulsory_capture is compulsory


def test_cap_7_plain_rules_encode_as_before_the_switch_existed():
    """Its bit is set when taking is optional, so a token from before the switch
    (every bit clear but redeal_kings, 1 << 3) still reads as compulsory."""
    flags = _RULES.unpack(_encode_rules(ScopaRules()))[-2]
    assert flags == 1 << BOOL_FIELDS.index("redeal_kings") == 8
    escoba_flags = _RULES.unpack(_encode_rules(preset("escoba")))[-2]
    assert escoba_flags == 1 << BOOL_FIELDS.index("compulsory_capture")
    assert struct.calcsize(_RULES.format) == _RULES.size


def test_cap_3_a_lay_of_a_fresh_hands_first_card_makes_cirullas_declaration():
    rules = preset("cirulla", compulsory_capture=False)
    state = make_state(hands=["1C 2C 5C", "8D 9D 6C"], table="10S 3B", rules=rules, fill="stock")
    assert lay(0, "5C") in state.legal_moves()  # 5 + 10 would make 15
    _, events = applied(state, lay(0, "5C"))
    (declared,) = events_of(events, Declaration)
    assert (declared.kind, declared.points) == ("cirulla", 3)
    assert events[-1] == CardPlayed(0, card("5C"))
