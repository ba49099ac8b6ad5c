"""What happens in a game, as values, each saying who may see it.

``visible_to`` is ``None`` for an event everyone may see, or the one seat that
may (the cards dealt to it). A caller routes events to players by that field.

Every event is a named tuple (its fields in a ``_...Fields`` base) with
:class:`Event` mixed in: a move makes one or two of them, and a tuple is three
times cheaper to build than a frozen dataclass. Events of different kinds never
compare equal, even when their fields do.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

from mazzo.engine.cards import Card


class Event:
    """What every event has: who may see it, and equality by kind and fields."""

    __slots__ = ()

    @property
    def visible_to(self) -> int | None:
        return None

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and super().__eq__(other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return super().__hash__()


class _DealFields(NamedTuple):
    hand_number: int
    dealer: int
    table: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    stock_size: int


class Deal(Event, _DealFields):
    """A deal: the cards it turned face up (none on later deals) and the counts."""

    __slots__ = ()


class _CardsDealtFields(NamedTuple):
    seat: int
    cards: tuple[Card, ...]


class CardsDealt(Event, _CardsDealtFields):
    """The cards one seat was dealt: for that seat's eyes only."""

    __slots__ = ()

    @property
    def visible_to(self) -> int | None:
        return self.seat


class _RedealFields(NamedTuple):
    dealer: int
    table: tuple[Card, ...]


class Redeal(Event, _RedealFields):
    """The first table was void (three or four kings; Cirulla: two aces): dealt again."""

    __slots__ = ()


class _CardPlayedFields(NamedTuple):
    seat: int
    card: Card


class CardPlayed(Event, _CardPlayedFields):
    """A card played to the table (or, in Tressette, to the trick)."""

    __slots__ = ()


class _CaptureFields(NamedTuple):
    seat: int
    side: int
    card: Card
    taken: tuple[Card, ...]
    sweep: bool


class Capture(Event, _CaptureFields):
    """The played card took ``taken`` from the table; ``sweep`` if it emptied it and
    that counts as a sweep."""

    __slots__ = ()


class _LeftoversTakenFields(NamedTuple):
    side: int
    cards: tuple[Card, ...]


class LeftoversTaken(Event, _LeftoversTakenFields):
    """At the end of a hand the table goes to the side that captured last."""

    __slots__ = ()


class SideTotal(Protocol):
    """What every game's score of a side for a hand has: the side and its total."""

    @property
    def side(self) -> int: ...

    @property
    def total(self) -> int: ...


class SideScore(NamedTuple):
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


class _FirstTableTakenFields(NamedTuple):
    dealer: int
    side: int
    cards: tuple[Card, ...]
    sweeps: int


class FirstTableTaken(Event, _FirstTableTakenFields):
    """Escoba and Cirulla: the first table totals 15 (or 30): the dealer's side takes it."""

    __slots__ = ()


class _DeclarationFields(NamedTuple):
    seat: int
    side: int
    kind: str
    cards: tuple[Card, ...]
    points: int
    matta_value: int | None


class Declaration(Event, _DeclarationFields):
    """Cirulla: a hand of three worth a declaration, shown when its first card is played.

    ``kind`` is "decino" (three of a kind, 10) or "cirulla" (a total under 10, 3);
    ``matta_value`` is the rank the matta (7 of cups) stood for, if it was used.
    """

    __slots__ = ()


class _TrickWonFields(NamedTuple):
    seat: int
    side: int
    leader: int
    cards: tuple[Card, ...]


class TrickWon(Event, _TrickWonFields):
    """A trick of Tressette: its cards in play order from ``leader``, and who won it."""

    __slots__ = ()


class _CardDrawnFields(NamedTuple):
    seat: int
    card: Card
    #: Seen by the drawer alone (Briscola's stock); else by everyone (Tressette's
    #: draws, Briscola's turn-up).
    private: bool = False


class CardDrawn(Event, _CardDrawnFields):
    """A card drawn from the stock: in Tressette for two shown to the opponent, in
    Briscola to the drawer alone but for the turn-up, drawn last, shown to all."""

    __slots__ = ()

    @property
    def visible_to(self) -> int | None:
        return self.seat if self.private else None


class _TrumpTurnedUpFields(NamedTuple):
    card: Card


class TrumpTurnedUp(Event, _TrumpTurnedUpFields):
    """Briscola: the card turned up after the deal, face up under the stock; its
    suit is trumps for the hand."""

    __slots__ = ()


class _NapoletanaDeclaredFields(NamedTuple):
    seat: int
    side: int
    suit: int
    cards: tuple[Card, ...]
    points: int


class NapoletanaDeclared(Event, _NapoletanaDeclaredFields):
    """Tressette: a player holds the 3, 2 and ace of ``suit``; the cards are shown."""

    __slots__ = ()


class TressetteSideScore(NamedTuple):
    """One side's points for one hand of Tressette."""

    side: int
    thirds: int
    card_points: int  # thirds // 3: the fraction is dropped
    last_trick_point: int
    napoletana: int

    @property
    def total(self) -> int:
        return self.card_points + self.last_trick_point + self.napoletana


class BriscolaSideScore(NamedTuple):
    """One side's card points for one hand of Briscola; ``total`` is 1 for the hand's
    winner (the target counts hands), 0 for the others and for everyone in a tie."""

    side: int
    card_points: int
    total: int


class _HandScoredFields(NamedTuple):
    hand_number: int
    sides: tuple[SideTotal, ...]
    scores: tuple[int, ...]


class HandScored(Event, _HandScoredFields):
    __slots__ = ()


class _GameOverFields(NamedTuple):
    winning_side: int
    scores: tuple[int, ...]


class GameOver(Event, _GameOverFields):
    __slots__ = ()
