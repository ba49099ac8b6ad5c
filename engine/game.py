"""What every game module offers, and the values they share.

A game is an object with the :class:`Game` protocol (the registry maps
``"scopa"`` to one). States are immutable: ``apply`` returns a new state and
never changes the one it was given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from engine.cards import Card
from engine.events import Event


@dataclass(frozen=True, slots=True)
class Status:
    """The public summary of a game: whose turn, the dealer, the scores."""

    game: str
    players: int
    seat_to_play: int | None  # None once the game is over
    dealer: int
    hand_number: int
    scores: tuple[int, ...]  # by side
    winning_side: int | None
    target: int

    @property
    def game_over(self) -> bool:
        return self.winning_side is not None


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One rules option as the catalog shows it."""

    name: str
    type: str  # "int", "bool" or "enum"
    default: int | bool | str
    description: str
    allowed: tuple[str, ...] = ()
    min: int = 0
    max: int = 0


@dataclass(frozen=True, slots=True)
class Move:
    """A move: the seat, the card played and the table cards taken.

    ``take`` may be left empty when the taking is forced (nothing to take, or
    exactly one possible capture); the engine fills it in.
    """

    seat: int
    card: Card
    take: frozenset[Card] = frozenset()

    def __str__(self) -> str:
        if not self.take:
            return f"{self.seat}:{self.card}"
        return f"{self.seat}:{self.card}x" + "+".join(str(c) for c in sorted(self.take))


class Game(Protocol):
    name: str
    title: str
    description: str
    player_counts: tuple[int, ...]
    options: tuple[OptionSpec, ...]

    def new_game(
        self,
        rules: Any,
        *,
        seed: int,
        decks: Sequence[Sequence[Card]] = (),
        first_dealer: int | None = None,
    ) -> tuple[Any, list[Event]]: ...

    def legal_moves(self, state: Any) -> list[Move]: ...

    def resolve(self, state: Any, move: Move) -> Move: ...

    def apply(self, state: Any, move: Move) -> tuple[Any, list[Event]]: ...

    def view(self, state: Any, seat: int) -> Any: ...

    def status(self, state: Any) -> Status: ...

    def encode(self, state: Any) -> bytes: ...

    def decode(self, data: bytes) -> Any: ...
