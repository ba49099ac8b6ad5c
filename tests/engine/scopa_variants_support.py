"""Helpers for the tests of the Scopa family (docs/variants.md): presets, decks, refusals.

The situations themselves are built with ``scopa_support.make_state`` and
explicit decks; these helpers only add what the variants need.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from mazzo.engine import InvalidInput, Move
from mazzo.engine.events import Event, HandScored
from mazzo.engine.scopa import ScopaRules, ScopaState
from tests.engine.scopa_support import applied, card, cards, replaced, rest_of

preset = ScopaRules.preset


def takes(*groups: str) -> set[frozenset]:
    """``takes("1C 8C", "4B 5D")`` -> the two takings as a set of frozensets."""
    return {frozenset(cards(g)) for g in groups}


def choice_texts(*groups: str) -> set[str]:
    """The ``choices`` metadata spelling of the takings: cards in deck order, joined by +."""
    return {"+".join(str(c) for c in sorted(cards(g))) for g in groups}


def choices_of(details: dict[str, str]) -> set[str]:
    return set(details["choices"].split(";"))


def play(seat: int, played: str, take: str = "") -> Move:
    """``play(0, "9D", "1C 8C")`` -> the move."""
    return Move(seat, card(played), frozenset(cards(take)) if take else frozenset())


def lay(seat: int, played: str) -> Move:
    """``lay(0, "8D")`` -> the move that lays the card without taking."""
    return Move(seat, card(played), frozenset(), lay=True)


def option_refusal(make: Callable[..., Any], *args: Any, **kw: Any) -> InvalidInput:
    """The InvalidInput that ``make(*args, **kw)`` raises (fails if it does not)."""
    with pytest.raises(InvalidInput) as refused:
        make(*args, **kw)
    return refused.value


def events_of(events: Sequence[Event], kind: type) -> list:
    return [e for e in events if isinstance(e, kind)]


def deck_dealing(
    hands: Sequence[str], table: str, rest: str = "", *, dealer: int | None = None
) -> tuple:
    """A 40-card deck that deals ``hands`` (3 cards by seat) and turns up ``table``.

    One card at a time from the top, from the seat after the dealer (default:
    the last seat), three rounds; then the table; then ``rest``; then every card
    not named yet in canonical order.
    """
    players = len(hands)
    dealer = players - 1 if dealer is None else dealer
    by_seat = [cards(h) for h in hands]
    order = [(dealer + k) % players for k in range(1, players + 1)]
    top = tuple(by_seat[seat][i] for i in range(3) for seat in order)
    top += cards(table) + (cards(rest) if rest else ())
    assert len(set(top)) == len(top)
    return top + rest_of(top)


def deck_ending_with(last: str) -> tuple:
    """A deck whose last cards are ``last`` (Scopone classico's table); the rest canonical."""
    return rest_of(last) + cards(last)


def score_of(state: ScopaState, move: Move) -> tuple[ScopaState, list[Event], HandScored]:
    """Apply the hand's last ``move`` (on a clone); the state after, the events and
    the HandScored."""
    after, events = applied(state, move)
    (scored,) = events_of(events, HandScored)
    return after, events, scored


def finish_at(
    state: ScopaState, move: Move, wanted: Sequence[int]
) -> tuple[ScopaState, list[Event]]:
    """Play the hand's last ``move`` from scores chosen so that the game totals after
    the hand are exactly ``wanted`` (on a clone: ``state`` is left as it was)."""
    _, _, scored = score_of(state, move)
    points = [s.total for s in scored.sides]
    before = [w - p for w, p in zip(wanted, points, strict=True)]
    assert min(before) >= 0, (wanted, points)
    return applied(replaced(state, scores=tuple(before)), move)
