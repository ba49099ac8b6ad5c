"""Briscola: docs/rules.md's Briscola section, for 2 or 3 players alone or 4 in pairs.

A trick-taking game with trumps and no duty to follow suit. Each seat holds
three cards; the card after the deal is turned up, names trumps (the
briscola) and lies face up under the stock, the last card drawn. The highest
trump wins a trick, else the highest card of the suit led (ace, 3, king,
knight, jack, 7 .. 4, 2); after each trick every seat draws, the winner
first. A hand's 120 card points (ace 11, 3 10, king 4, knight 3, jack 2) are
counted per side: the side with more than half (with 3 players, the single
best total) wins the hand, and the game goes to the first side to win
``target`` hands. With 3 players one 2 (of cups by default) leaves the deck.

What a seat sees: no card drawn from the stock is shown, except the turn-up,
known to all until played (docs/rules.md, Hidden information).

The game is :class:`BriscolaState`, a :class:`~mazzo.engine.tricks.TrickState`:
what differs from Tressette is the trump, the turn-up under the stock, the draws
seen by their drawer alone, and the scoring.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from mazzo.engine import options, packing, tricks
from mazzo.engine.cards import BATONS, COINS, CUPS, DECK, RANK_OF, SUIT_OF, SWORDS, Card
from mazzo.engine.errors import N_, Text
from mazzo.engine.events import BriscolaSideScore, Event, TrumpTurnedUp
from mazzo.engine.game import check_seat, unique_best
from mazzo.engine.options import choice, number
from mazzo.engine.scopa_rules import Face

PLAYER_COUNTS = (2, 3, 4)
HAND_SIZE = 3
DEFAULT_TARGET = 1
MAX_TARGET = 1000

#: Trick strength of ranks 1..10 (index 0 unused): ace > 3 > king > knight > jack > 7 .. 4 > 2.
STRENGTH = (0, 10, 1, 9, 2, 3, 4, 5, 6, 7, 8)
#: Card points of ranks 1..10: ace 11, 3 10, king 4, knight 3, jack 2.
POINTS = (0, 11, 0, 10, 0, 0, 0, 0, 2, 3, 4)
#: The same by card index (0..39): plain look-ups for the hot paths.
CARD_STRENGTH = tuple(STRENGTH[RANK_OF[c]] for c in DECK)
CARD_POINTS = tuple(POINTS[RANK_OF[c]] for c in DECK)
#: Half the card points of a deal: a side of two must take more to win the hand.
HALF_THE_POINTS = 60


class RemovedTwo(StrEnum):
    """With 3 players: the suit of the 2 taken out of the deck."""

    CUPS = "cups"
    COINS = "coins"
    SWORDS = "swords"
    BATONS = "batons"


_SUIT_OF_TWO = {
    RemovedTwo.COINS: COINS,
    RemovedTwo.CUPS: CUPS,
    RemovedTwo.SWORDS: SWORDS,
    RemovedTwo.BATONS: BATONS,
}


@dataclass(frozen=True, slots=True)
class BriscolaRules:
    """Every option of a game of Briscola, each declared once (mazzo.engine.options)."""

    players: int = 2
    target: int = number(DEFAULT_TARGET, "hands to win", low=1, high=MAX_TARGET)
    removed_two: RemovedTwo = choice(
        RemovedTwo.CUPS, "3 players: the 2 taken out of the deck (of cups by default)"
    )
    face: Face = choice(Face.ITALIAN, "the deck whose names the views give the cards")

    def __post_init__(self) -> None:
        options.check_players(
            self.players,
            PLAYER_COUNTS,
            N_("Briscola is played by 2, 3 or 4 players, not {players}"),
        )
        options.check(self)

    @property
    def sides(self) -> int:
        return 2 if self.players == 4 else self.players

    def side_of(self, seat: int) -> int:
        """Two or three players are a side each; four play in pairs, 0+2 against 1+3."""
        return seat % 2 if self.players == 4 else seat

    @property
    def removed(self) -> Card | None:
        """The card out of the deck: a 2 with three players, else none."""
        return Card.of(2, _SUIT_OF_TWO[self.removed_two]) if self.players == 3 else None


#: ``winning_index(trick, trump_suit)``: the position in ``trick`` (complete or not)
#: of the card that takes it, the highest trump, else the highest card of the suit led.
winning_index = tricks.winning_index_by(CARD_STRENGTH)


# ---------------------------------------------------------------- scoring


def side_scores(points: Sequence[int]) -> tuple[BriscolaSideScore, ...]:
    """A hand's score from the card points each side won; the hand, worth 1 towards
    the target, goes to the side with more than 60 (with three sides, the single
    best total)."""
    best = unique_best(points)
    if len(points) == 2 and best is not None and points[best] <= HALF_THE_POINTS:
        best = None
    return tuple(
        BriscolaSideScore(side=side, card_points=won, total=int(side == best))
        for side, won in enumerate(points)
    )


# ---------------------------------------------------------------- the state


@dataclass(frozen=True, slots=True)
class BriscolaView(tricks.TrickView):
    """What one seat may see: docs/rules.md, Hidden information. ``known``: by seat,
    the turn-up, once drawn, until played; ``stock_size`` counts the turn-up."""

    trump: Card  # the card turned up this hand
    turn_up: Card | None  # the turn-up while it lies under the stock
    removed: Card | None  # 3 players: the 2 out of the deck
    rules: BriscolaRules
    face: Face = Face.ITALIAN  # an option of the game

    @property
    def trump_suit(self) -> int:
        return SUIT_OF[self.trump]

    @property
    def face_up(self) -> tuple[Card, ...]:
        """The cards every seat sees outside the piles and the known hands: the trick,
        the turn-up while it lies there, the 2 out of the deck."""
        extra = tuple(c for c in (self.turn_up, self.removed) if c is not None)
        return (*self.trick, *extra)


@dataclass(eq=True, kw_only=True, slots=True)
class BriscolaState(tricks.TrickState[BriscolaRules, BriscolaView]):
    """A game of Briscola between two moves, hidden cards included."""

    turn_up: Card | None  # the face-up trump under the stock; None once drawn
    trump: Card  # the card turned up this hand: its suit is trumps

    name = "briscola"
    title = "Briscola"
    description = N_(
        "The trick-taking game with a trump turned up: no suit to follow, "
        "more than 60 card points win the hand."
    )
    player_counts = PLAYER_COUNTS
    tag = 3
    bots = "mazzo.engine.players.fast_briscola"
    rules_type = BriscolaRules
    options = options.catalog(BriscolaRules)
    hand_size = HAND_SIZE
    card_worth = CARD_POINTS
    # The stock's cards go to their drawers alone; the turn-up, drawn last, is seen by all.
    draws_private = True
    card_alone = N_("a Briscola move is a card alone: no take, no lay")
    codec_format = 1
    codec_flags = 0b1  # fresh draws

    # ------------------------------------------------------------ dealing

    @property
    def removed(self) -> Card | None:
        return self.rules.removed

    def set_aside(self, rest: tuple[Card, ...]) -> tuple[Card, ...]:
        """The card after the hands is turned up under the stock: it names trumps."""
        self.turn_up = self.trump = rest[0]
        return rest[1:]

    def deal(self, dealer: int, events: list[Event]) -> None:
        tricks.TrickState.deal(self, dealer, events)
        events.append(TrumpTurnedUp(self.trump))

    @property
    def stock_size(self) -> int:
        return len(self.stock) + (self.turn_up is not None)

    # ------------------------------------------------------------ playing

    @property
    def trump_suit(self) -> int:
        return SUIT_OF[self.trump]

    def winning_index(self, trick: Sequence[Card], trump_suit: int | None = None) -> int:
        """The highest trump takes the trick, else the highest card of the suit led."""
        return winning_index(trick, SUIT_OF[self.trump])

    def draw_last(self) -> Card:
        """The turn-up, drawn last, once the stock is out."""
        card = self.turn_up
        assert card is not None, "the stock ran out inside a round of draws"
        self.turn_up = None
        return card

    def hand_scores(self) -> tuple[BriscolaSideScore, ...]:
        return side_scores(self.worth_won())

    # ------------------------------------------------------------ seeing

    def known_cards(self, seat: int) -> tuple[tuple[Card, ...], ...]:
        """By seat, the cards in other hands that ``seat`` has seen: the turn-up, drawn
        by everyone's sight, until it is played."""
        if self.turn_up is not None:
            return ((),) * self.rules.players
        return tuple(
            (self.trump,) if other != seat and self.trump in hand else ()
            for other, hand in enumerate(self.hands)
        )

    def view(self, seat: int) -> BriscolaView:
        check_seat(seat, self.rules.players)
        rules = self.rules
        return BriscolaView(
            *self.trick_view(seat, tuple(self.hands[seat]), self.known_cards(seat)),
            trump=self.trump,
            turn_up=self.turn_up,
            removed=rules.removed,
            rules=rules,
            face=rules.face,
        )

    # ------------------------------------------------------------ the compact codec

    def encode(self) -> bytes:
        """The state as compact bytes (about 70 for two players)."""
        rules = self.rules
        out = self.write_head(int(self.fresh_draws))
        out += _PLAY.pack(
            _TWOS.index(rules.removed_two),
            _FACES.index(rules.face),
            self.hand_number,
            self.dealer,
            self.to_play,
            self.leader,
            packing.NONE if self.winner is None else self.winner,
            packing.NONE if self.turn_up is None else self.turn_up,
            self.rng,
        )
        out.append(self.trump)
        packing.write_scores(out, self.scores)
        self.write_zones(out)
        return bytes(out)

    @classmethod
    def read_unchecked(cls, data: bytes) -> BriscolaState:
        players, target, flags = cls.read_head(data)
        (two, face, hand_number, dealer, to_play, leader, winner, turn_up, rng_state) = (
            _PLAY.unpack_from(data, tricks.HEAD.size)
        )
        rules = _rules_read(players, target, _TWOS[two], _FACES[face])
        pos = tricks.HEAD.size + _PLAY.size
        trump = DECK[data[pos]]
        pos += 1
        scores, pos = packing.read_scores(data, pos, rules.sides)
        state, _ = cls.read_zones(rules, data, pos)
        state.dealer, state.hand_number, state.to_play = dealer, hand_number, to_play
        state.leader, state.winner = leader, None if winner == packing.NONE else winner
        state.scores, state.rng, state.fresh_draws = scores, rng_state, bool(flags & 1)
        state.turn_up = None if turn_up == packing.NONE else DECK[turn_up]
        state.trump = trump
        return state

    def inconsistencies(self) -> list[Text]:
        """What makes the state one no game can reach."""
        problems = [*self.counters_out_of_range(), *self.cards_misplaced()]
        if self.turn_up is not None and self.turn_up != self.trump:
            problems.append(Text("the turn-up is not the trump card"))
        if self.turn_up is None and self.stock:
            problems.append(Text("a stock without its turn-up"))
        if self.stock_size % self.rules.players:
            problems.append(Text("a stock that does not end at a round of draws"))
        return problems

    def set_aside_cards(self) -> tuple[Card, ...]:
        return () if self.turn_up is None else (self.turn_up,)


#: After the head: the removed two and the face (as indexes), the hand number,
#: the dealer, the seat to play, the leader, the winner and the turn-up (or
#: packing.NONE), the generator's state.
_PLAY = struct.Struct(">BBIBBBBBQ")
_TWOS = tuple(RemovedTwo)
_FACES = tuple(Face)

#: The rules a state's bytes name, made once: rules are immutable, checking
#: them costs a decode a fifth of its time, and a server sees the same few.
_rules_read = lru_cache(maxsize=64)(BriscolaRules)
