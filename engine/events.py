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
    """The first table was void (three or four kings; Cirulla: two aces): dealt again."""

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
    """One side's points for one hand of Scopa, with what earned them."""

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
    re_bello_point: int = 0
    grande: int = 0
    piccola: int = 0
    declarations: int = 0

    @property
    def total(self) -> int:
        return (
            self.cards_point
            + self.denari_point
            + self.settebello_point
            + self.primiera_point
            + self.sweeps
            + self.napola
            + self.re_bello_point
            + self.grande
            + self.piccola
            + self.declarations
        )


@dataclass(frozen=True, slots=True)
class FirstTableTaken(Event):
    """Escoba and Cirulla: the first table totals 15 (or 30): the dealer's side takes it."""

    dealer: int
    side: int
    cards: tuple[Card, ...]
    sweeps: int


@dataclass(frozen=True, slots=True)
class Declaration(Event):
    """Cirulla: a hand of three worth a declaration, shown when its first card is played.

    ``kind`` is "decino" (three of a kind, 10) or "cirulla" (a total under 10, 3);
    ``matta_value`` is the rank the matta (7 of cups) stood for, if it was used.
    """

    seat: int
    side: int
    kind: str
    cards: tuple[Card, ...]
    points: int
    matta_value: int | None


@dataclass(frozen=True, slots=True)
class TrickWon(Event):
    """A trick of Tressette: its cards in play order from ``leader``, and who won it."""

    seat: int
    side: int
    leader: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class CardDrawn(Event):
    """Tressette for two: a card drawn from the stock, shown to the opponent."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class NapoletanaDeclared(Event):
    """Tressette: a player holds the 3, 2 and ace of ``suit``; the cards are shown."""

    seat: int
    side: int
    suit: int
    cards: tuple[Card, ...]
    points: int


@dataclass(frozen=True, slots=True)
class TressetteSideScore:
    """One side's points for one hand of Tressette."""

    side: int
    thirds: int
    card_points: int  # thirds // 3: the fraction is dropped
    last_trick_point: int
    napoletana: int

    @property
    def total(self) -> int:
        return self.card_points + self.last_trick_point + self.napoletana


@dataclass(frozen=True, slots=True)
class HandScored(Event):
    hand_number: int
    sides: tuple[SideScore, ...] | tuple[TressetteSideScore, ...]
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameOver(Event):
    winning_side: int
    scores: tuple[int, ...]
