"""docs/rules.md, Cards: the 40 cards, their notation, and what a deck must be."""

from __future__ import annotations

import pytest

from mazzo.engine import DECK, Card, InvalidInput, Reason, parse_cards
from mazzo.engine.cards import COINS, SETTEBELLO, SUITS, check_full_deck
from mazzo.engine.scopa import ScopaRules, ScopaState

ALL_CODES = [f"{rank}{suit}" for suit in "DCSB" for rank in range(1, 11)]


def test_the_deck_holds_forty_distinct_cards_ranks_1_to_10_in_four_suits():
    assert len(DECK) == 40
    assert len(set(DECK)) == 40
    assert {(c.rank, c.suit) for c in DECK} == {(r, s) for r in range(1, 11) for s in range(4)}
    assert SUITS == "DCSB"


@pytest.mark.parametrize("code", ALL_CODES)
def test_notation_round_trips_for_every_card(code):
    card = Card.parse(code)
    assert str(card) == code
    assert card.name == code
    assert Card.parse(str(card)) is card
    assert Card.of(card.rank, card.suit) is card
    assert card.rank == int(code[:-1])
    assert SUITS[card.suit] == code[-1]


def test_the_40_codes_name_the_40_cards():
    assert {Card.parse(code) for code in ALL_CODES} == set(DECK)
    assert [str(c) for c in DECK] == ALL_CODES


def test_the_settebello_is_the_seven_of_coins():
    assert Card.parse("7D") == SETTEBELLO
    assert (SETTEBELLO.rank, SETTEBELLO.suit) == (7, COINS)


@pytest.mark.parametrize(
    "code",
    ["", "0D", "11D", "7X", "D7", "7", "D", "10", "7DD", "1 D", "-1D", "7D7", "ace", "10E"],
)
def test_a_bad_card_code_is_refused_as_invalid_card(code):
    with pytest.raises(InvalidInput) as err:
        Card.parse(code)
    assert err.value.reason is Reason.INVALID_CARD


def test_a_code_that_is_not_text_is_refused_as_invalid_card():
    with pytest.raises(InvalidInput) as err:
        Card.parse(7)  # type: ignore[arg-type]
    assert err.value.reason is Reason.INVALID_CARD


def test_parse_cards_reads_several_cards_in_order():
    assert parse_cards(["7D", "1B", "10S"]) == (
        Card.of(7, 0),
        Card.of(1, 3),
        Card.of(10, 2),
    )


def test_a_card_named_twice_is_refused_as_duplicate_card():
    with pytest.raises(InvalidInput) as err:
        parse_cards(["7D", "3C", "7D"])
    assert err.value.reason is Reason.DUPLICATE_CARD
    assert "7D" in err.value.message


def test_a_bad_code_among_several_is_refused_as_invalid_card():
    with pytest.raises(InvalidInput) as err:
        parse_cards(["7D", "11C"])
    assert err.value.reason is Reason.INVALID_CARD


def test_a_card_index_outside_0_to_39_is_not_a_card():
    with pytest.raises(ValueError):
        Card(40)
    with pytest.raises(ValueError):
        Card(-1)


@pytest.mark.parametrize(
    "deck",
    [
        DECK[:39],  # one card short
        (),  # nothing
        (*DECK, DECK[0]),  # 41 cards
        (DECK[0], *DECK[:39]),  # 40 cards, 1D twice and 10B missing
        tuple(reversed(DECK))[:20] * 2,  # 40 cards, half of them twice
    ],
    ids=["39-cards", "empty", "41-cards", "a-card-twice", "half-the-deck-twice"],
)
def test_a_deck_that_is_not_the_40_cards_is_refused_as_invalid_deck(deck):
    with pytest.raises(InvalidInput) as err:
        check_full_deck(tuple(deck))
    assert err.value.reason is Reason.INVALID_DECK
    with pytest.raises(InvalidInput) as err:
        ScopaState.new_game(ScopaRules(players=2), seed=1, decks=[deck])
    assert err.value.reason is Reason.INVALID_DECK


def test_a_bad_deck_after_a_good_one_is_refused_too():
    with pytest.raises(InvalidInput) as err:
        ScopaState.new_game(ScopaRules(players=2), seed=1, decks=[DECK, DECK[1:]])
    assert err.value.reason is Reason.INVALID_DECK


def test_any_order_of_the_40_cards_is_a_deck():
    check_full_deck(tuple(reversed(DECK)))
    state, _ = ScopaState.new_game(ScopaRules(players=2), seed=1, decks=[tuple(reversed(DECK))])
    assert state.hands[0][0] == Card.parse("10B")
