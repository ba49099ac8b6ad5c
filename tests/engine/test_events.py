"""Events are values: immutable, hashable, equal only to an event of the same kind."""

from __future__ import annotations

import pytest

from mazzo.engine import events as ev
from mazzo.engine.cards import DECK


def test_events_of_different_kinds_are_never_equal_even_with_equal_fields():
    assert ev.CardPlayed(1, DECK[3]) != ev.CardDrawn(1, DECK[3])
    assert ev.LeftoversTaken(0, ()) != ev.Redeal(0, ())
    assert ev.CardPlayed(1, DECK[3]) != (1, DECK[3])


def test_events_of_one_kind_with_equal_fields_are_equal_and_hash_alike():
    first, second = (
        ev.Capture(0, 0, DECK[6], (DECK[1],), False),
        ev.Capture(0, 0, DECK[6], (DECK[1],), False),
    )
    assert first == second
    assert (first != second) is False
    assert len({first, second, ev.CardPlayed(0, DECK[6])}) == 2


def test_events_cannot_be_changed():
    event = ev.CardPlayed(0, DECK[0])
    with pytest.raises(AttributeError):
        event.seat = 1  # type: ignore[misc]


def test_only_dealt_cards_are_private_to_their_seat():
    assert ev.CardsDealt(2, (DECK[0],)).visible_to == 2
    assert ev.Deal(1, 0, (), (3, 3), 30).visible_to is None
    assert ev.CardPlayed(0, DECK[0]).visible_to is None
