"""The values every game shares: moves, the public status, the refusal of an
illegal move, and the checks every game makes first. A game itself is its
State class (:mod:`mazzo.engine.state`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from _typeshed import SupportsRichComparisonT

from mazzo.engine.cards import DECK, Card, parse_cards
from mazzo.engine.errors import N_, InvalidInput, Reason, RuleError


class Status(NamedTuple):
    """The public summary of a game: whose turn, the dealer, the scores.

    A named tuple, like states, moves and events: every Play answers one."""

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


class Move(NamedTuple):
    """A move: the seat, the card played and the table cards taken.

    ``take`` may be left empty when the taking is forced (nothing to take, or
    exactly one possible capture); the engine fills it in. ``lay`` says "play
    the card to the table without taking" where the rules let a card that could
    take be laid instead (Scopa's ``compulsory_capture`` off): an empty ``take``
    alone cannot say it, since it asks for the forced taking. A tuple, so that
    making one is cheap: bots make millions.
    """

    seat: int
    card: Card
    take: frozenset[Card] = frozenset()
    lay: bool = False

    def __str__(self) -> str:
        if self.lay:
            return f"{self.seat}:{self.card}-"
        if not self.take:
            return f"{self.seat}:{self.card}"
        return f"{self.seat}:{self.card}x" + "+".join(str(c) for c in sorted(self.take))

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read the notation ``str(move)`` writes: ``0:7D``, ``1:10Bx3B+7B``, ``0:8D-``.

        Refused with :class:`InvalidInput`: no seat before the colon
        (``INVALID_SEAT``), a card that is not one (``INVALID_CARD``), a card
        taken twice (``DUPLICATE_CARD``), a lay that also takes (``LAY_WITH_TAKE``).
        Whether the move is legal is for ``game.resolve`` to say.
        """
        if not isinstance(text, str):
            raise InvalidInput(
                Reason.INVALID_CARD, "a move is written as text, not {text}", text=repr(text)
            )
        seat, colon, rest = text.strip().partition(":")
        if not colon or not seat.isascii() or not seat.isdecimal():
            raise InvalidInput(
                Reason.INVALID_SEAT,
                "{text} is not a move: write SEAT:CARD, e.g. '0:7D', '1:10Bx3B+7B' or '0:8D-'",
                text=repr(text),
            )
        card, taking, taken = rest.partition("x")
        lay = card.endswith("-")
        if lay and taking:
            raise InvalidInput(
                Reason.LAY_WITH_TAKE, "{text} lays its card and takes too", text=repr(text)
            )
        try:
            take = parse_cards(taken.split("+")) if taking else ()
            played = Card.parse(card.removesuffix("-"))
        except InvalidInput as error:
            raise InvalidInput(
                error.reason, "{text} is not a move: {why}", text=repr(text), why=error
            ) from None
        return cls(int(seat), played, frozenset(take), lay)


#: The most seats a game has.
MAX_SEATS = 6
#: Every move that is a card alone (a trick game's), by seat then card: made once,
#: as moves are values, for the players' play-outs, which make one a card.
CARD_MOVES: tuple[tuple[Move, ...], ...] = tuple(
    tuple(Move(seat, card) for card in DECK) for seat in range(MAX_SEATS)
)


# ---------------------------------------------------------------- shared rule pieces


class IllegalMove(RuleError):
    """The move is well formed but the rules forbid it here (mazzo.engine.errors).

    ``choices`` lists the legal alternatives when that helps the caller (an
    ambiguous capture lists every capture the card could make).
    """

    def __init__(
        self,
        reason: Reason,
        template: str,
        details: Mapping[str, str] | None = None,
        /,
        *,
        choices: tuple[Move, ...] = (),
        **params: object,
    ):
        super().__init__(reason, template, details, **params)
        self.choices = choices


def check_turn(
    move: Move, *, players: int, to_play: int, hand: Sequence[Card], game_over: bool
) -> None:
    """The checks every game makes first: the game goes on, the seat exists,
    it is its turn, it holds the card."""
    if game_over:
        raise IllegalMove(Reason.GAME_OVER, N_("the game is over"))
    check_seat(move.seat, players)
    if move.seat != to_play:
        raise IllegalMove(
            Reason.NOT_YOUR_TURN,
            "it is seat {to_play}'s turn, not seat {seat}'s",
            {"seatToPlay": str(to_play)},
            to_play=to_play,
            seat=move.seat,
        )
    if move.card not in hand:
        raise IllegalMove(
            Reason.CARD_NOT_IN_HAND,
            "{card} is not in seat {seat}'s hand",
            card=move.card,
            seat=move.seat,
        )


def check_seat(seat: int, players: int) -> None:
    if not 0 <= seat < players:
        raise InvalidInput(
            Reason.INVALID_SEAT, "seat must be 0..{last}, not {seat}", last=players - 1, seat=seat
        )


def unique_best(values: Sequence[SupportsRichComparisonT]) -> int | None:
    """Index of the strictly greatest value; ``None`` when the best is shared."""
    best = max(values)
    leaders = [i for i, v in enumerate(values) if v == best]
    return leaders[0] if len(leaders) == 1 else None


def game_winner(scores: Sequence[int], target: int) -> int | None:
    """The side that reached the target alone in the lead, if any.

    With two sides this is also Tressette's rule: once a side has reached the
    target the side with more points wins; equal points, another hand.
    """
    best = unique_best(scores)
    return best if best is not None and scores[best] >= target else None


def hands_fit(hands: Sequence[Sequence[Card]], to_play: int, leader: int, played: int) -> bool:
    """The seat to play holds a card; the ``played`` seats from ``leader`` on (those
    that already played this round) hold one card fewer than the others."""
    size = len(hands[to_play])
    sizes = list(map(len, hands))
    # The sizes in the order the seats play from the leader (a decoded state's check:
    # list operations in C, no Python loop).
    in_turn = sizes[leader:] + sizes[:leader]
    return size > 0 and in_turn == [size - 1] * played + [size] * (len(hands) - played)
