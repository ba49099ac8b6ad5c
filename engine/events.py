"""What happens in a game, as values, each saying who may see it.

``visible_to`` is ``None`` for an event everyone may see, or the one seat that
may (the cards dealt to it). A caller routes events to players by that field.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.cards import Card


@dataclass(frozen=True, slots=True)
class Event:
    @property
    def visible_to(self) -> int | None:
        return None


@dataclass(frozen=True, slots=True)
class Deal(Event):
    """A deal: the cards it turned face up (none on later deals) and the counts."""

    hand_number: int
    dealer: int
    table: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    stock_size: int


@dataclass(frozen=True, slots=True)
class CardsDealt(Event):
    """The cards one seat was dealt: for that seat's eyes only."""

    seat: int
    cards: tuple[Card, ...]

    @property
    def visible_to(self) -> int | None:
        return self.seat


@dataclass(frozen=True, slots=True)
class Redeal(Event):
    """The first table was void (three or four kings): the same dealer deals again."""

    dealer: int
    table: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class CardPlayed(Event):
    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class Capture(Event):
    seat: int
    side: int
    card: Card
    taken: tuple[Card, ...]
    sweep: bool


@dataclass(frozen=True, slots=True)
class LeftoversTaken(Event):
    """At the end of a hand the table goes to the side that captured last."""

    side: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class SideScore:
    """One side's points for one hand, with what earned them."""

    side: int
    cards: int
    denari: int
    primiera: int
    cards_point: int
    denari_point: int
    settebello_point: int
    primiera_point: int
    sweeps: int
    napola: int

    @property
    def total(self) -> int:
        return (
            self.cards_point
            + self.denari_point
            + self.settebello_point
            + self.primiera_point
            + self.sweeps
            + self.napola
        )


@dataclass(frozen=True, slots=True)
class HandScored(Event):
    hand_number: int
    sides: tuple[SideScore, ...]
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameOver(Event):
    winning_side: int
    scores: tuple[int, ...]
