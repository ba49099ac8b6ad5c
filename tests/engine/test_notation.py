"""Move notation both ways: ``Move.parse`` reads what ``str(move)`` writes.

The round trip is checked on every legal move of seeded random games of every
game, every Scopa variant at each of its player counts, and Tressette for 2
and 4; and on any move value and any text hypothesis makes up.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mazzo.engine import DECK, Card, InvalidInput, Move, Reason, get_game
from mazzo.engine.scopa_rules import VARIANT_PLAYERS, ScopaRules
from tests.engine.players_support import SETUPS

#: SETUPS, and every Scopa variant at each player count it is played by.
EVERY_SETUP: list[tuple[str, str, Any]] = [
    *SETUPS,
    *(
        (f"scopa-{variant.value}-{players}p", "scopa", rules)
        for variant, counts in VARIANT_PLAYERS.items()
        for players in counts
        if (rules := ScopaRules.preset(variant, players=players))
        not in {setup[2] for setup in SETUPS}
    ),
]
GAMES_PER_SETUP = 10


@pytest.mark.parametrize(
    ("name", "rules"), [s[1:] for s in EVERY_SETUP], ids=[s[0] for s in EVERY_SETUP]
)
def test_every_legal_move_of_random_games_reads_back_from_its_notation(
    name: str, rules: Any
) -> None:
    game = get_game(name)
    checked = set()
    for seed in range(GAMES_PER_SETUP):
        rng = random.Random(seed)
        state, _ = game.new_game(rules, seed=seed)
        while not state.status().game_over:
            legal = state.legal_moves()
            for move in legal:
                text = str(move)
                assert Move.parse(text) == move, text
                checked.add(text)
            state.apply(rng.choice(legal))
    assert checked


def test_the_notation_of_a_taking_a_lay_and_a_plain_card() -> None:
    assert Move.parse("0:7D") == Move(0, Card.parse("7D"))
    assert Move.parse("1:10Bx3B+7B") == Move(
        1, Card.parse("10B"), frozenset(map(Card.parse, ("3B", "7B")))
    )
    assert Move.parse("0:8D-") == Move(0, Card.parse("8D"), lay=True)


def test_the_parser_reads_lower_case_and_padding_and_writes_back_the_canonical_text() -> None:
    assert str(Move.parse(" 2:1dx1c+7b ")) == "2:1Dx1C+7B"
    assert str(Move.parse("3:10Sx7B+3S")) == "3:10Sx3S+7B"  # taken cards in card order


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("7D", Reason.INVALID_SEAT),
        (":7D", Reason.INVALID_SEAT),
        ("a:7D", Reason.INVALID_SEAT),
        ("-1:7D", Reason.INVALID_SEAT),
        ("1.5:7D", Reason.INVALID_SEAT),
        ("", Reason.INVALID_SEAT),
        ("0:", Reason.INVALID_CARD),
        ("0:11D", Reason.INVALID_CARD),
        ("0:7Dx", Reason.INVALID_CARD),
        ("0:7Dx3C+", Reason.INVALID_CARD),
        ("0:7D--", Reason.INVALID_CARD),
        ("0:7Dx3C-", Reason.INVALID_CARD),
        ("0:7D 3C", Reason.INVALID_CARD),
        ("0:7Dx3C+3C", Reason.DUPLICATE_CARD),
        ("0:7D-x3C", Reason.LAY_WITH_TAKE),
    ],
)
def test_text_that_is_not_a_move_is_refused_with_its_reason(text: str, reason: Reason) -> None:
    with pytest.raises(InvalidInput) as refused:
        Move.parse(text)
    assert refused.value.reason is reason
    assert repr(text) in refused.value.message


def test_a_value_that_is_not_text_is_refused() -> None:
    with pytest.raises(InvalidInput) as refused:
        Move.parse(7)  # type: ignore[arg-type]
    assert refused.value.reason is Reason.INVALID_CARD


CARDS = st.sampled_from(DECK)
SEATS = st.integers(min_value=0, max_value=99)
#: Any move a caller could make: a card and the cards it takes, or a lay.
MOVES = st.one_of(
    st.builds(lambda seat, card, take: Move(seat, card, take), SEATS, CARDS, st.frozensets(CARDS)),
    st.builds(lambda seat, card: Move(seat, card, lay=True), SEATS, CARDS),
)


@settings(max_examples=300, deadline=None)
@given(MOVES)
def test_any_move_value_reads_back_from_its_notation(move: Move) -> None:
    assert Move.parse(str(move)) == move


#: Text made of the notation's own characters, so that most of it nearly parses.
NOTATION_TEXT = st.text(alphabet="0123456789DCSBdcsbx+-: ", max_size=20)


@settings(max_examples=300, deadline=None)
@given(st.one_of(NOTATION_TEXT, st.text(max_size=20)))
def test_any_text_is_a_move_that_reads_back_or_is_refused_as_invalid_input(text: str) -> None:
    try:
        move = Move.parse(text)
    except InvalidInput as refused:
        assert refused.reason in {
            Reason.INVALID_SEAT,
            Reason.INVALID_CARD,
            Reason.DUPLICATE_CARD,
            Reason.LAY_WITH_TAKE,
        }
    else:
        assert Move.parse(str(move)) == move
