"""Tressette: docs/rules.md's Tressette section, for 2 players with a stock or 4 in pairs.

A trick-taking game without trumps: follow suit when you can; the strongest
card of the led suit wins (3, 2, ace, king, knight, jack, 7, 6, 5, 4). With two
players each trick's winner, then the loser, draws from the stock, and the
drawn cards are shown. Points come in thirds (ace 3; 3, 2 and the face cards
1), floored per side, plus 1 for the last trick: 11 a hand, plus the
napoletana when that option is on.

Use it through :data:`TRESSETTE` (its :class:`~mazzo.engine.game.Game` registry entry) or
the module functions, as with :mod:`mazzo.engine.scopa`.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from mazzo.engine import options, packing, tricks
from mazzo.engine.cards import CARDS_OF_SUIT, DECK, RANK_OF, SUIT_OF, SUITS, Card
from mazzo.engine.errors import N_, Listing, Reason, Text
from mazzo.engine.events import Event, NapoletanaDeclared, TressetteSideScore
from mazzo.engine.game import IllegalMove, Move, check_seat
from mazzo.engine.options import number, switch
from mazzo.engine.state import outside

PLAYER_COUNTS = (2, 4)
HAND_SIZE = 10
DEFAULT_TARGET = 21
MAX_TARGET = 1000
NAPOLETANA_POINTS = 3
NAPOLETANA_RANKS = (3, 2, 1)

#: Trick strength of ranks 1..10 (index 0 unused): 3 > 2 > ace > king > ... > 4.
STRENGTH = (0, 8, 9, 10, 1, 2, 3, 4, 5, 6, 7)
#: Value in thirds of a point of ranks 1..10: ace 3; 2, 3 and the face cards 1.
THIRDS = (0, 3, 1, 1, 0, 0, 0, 0, 1, 1, 1)
#: The same by card index (0..39): plain look-ups for the hot paths, the engine's
#: and the searching players' play-outs (mazzo.engine.players.fast_tressette).
CARD_STRENGTH = tuple(STRENGTH[RANK_OF[c]] for c in DECK)
CARD_THIRDS = tuple(THIRDS[RANK_OF[c]] for c in DECK)
#: By suit: the cards of its napoletana.
NAPOLETANA_CARDS = tuple(
    tuple(Card.of(rank, suit) for rank in NAPOLETANA_RANKS) for suit in range(len(SUITS))
)


@dataclass(frozen=True, slots=True)
class TressetteRules:
    """Every option of a game of Tressette, each declared once (mazzo.engine.options)."""

    players: int = 2
    target: int = number(DEFAULT_TARGET, "points to win", low=1, high=MAX_TARGET)
    napoletana: bool = switch(False, "3 points for holding the 3, 2 and ace of a suit")

    def __post_init__(self) -> None:
        options.check_players(
            self.players, PLAYER_COUNTS, N_("Tressette is played by 2 or 4 players, not {players}")
        )
        options.check(self)

    @property
    def with_stock(self) -> bool:
        return self.players == 2

    @property
    def sides(self) -> int:
        return 2

    def side_of(self, seat: int) -> int:
        """Two players are a side each; four play in pairs, 0+2 against 1+3."""
        return seat % 2


@dataclass(frozen=True, slots=True)
class TressetteView(tricks.TrickView):
    """What one seat may see: docs/rules.md, Hidden information. ``known``: by seat,
    the other seats' cards this seat knows."""

    # Public facts a player reasons with (mazzo.engine.players): the rules, and the
    # napoletane declared aloud (suit bits by seat, points by side).
    rules: TressetteRules | None = None
    napoletana_suits: tuple[int, ...] = ()
    napoletana: tuple[int, ...] = ()


# ---------------------------------------------------------------- rules on their own


def playable(hand: Sequence[Card], trick: Sequence[Card]) -> Sequence[Card]:
    """The cards of ``hand`` that may be played to ``trick``: follow suit when you can."""
    if not trick:
        return hand
    return list(filter(CARDS_OF_SUIT[SUIT_OF[trick[0]]].__contains__, hand)) or hand


#: ``winning_index(trick)``: the position in ``trick`` (complete or not) of the
#: strongest card of the led suit (no trumps).
winning_index = tricks.winning_index_by(CARD_STRENGTH)


def side_scores(
    thirds_won: Sequence[int], last_trick_side: int, napoletana: Sequence[int]
) -> tuple[TressetteSideScore, ...]:
    """A hand's score from the thirds of a point each side won: each side's thirds
    floored to points, 1 for the last trick, its napoletana."""
    return tuple(
        TressetteSideScore(
            side=side,
            thirds=won,
            card_points=won // 3,
            last_trick_point=int(side == last_trick_side),
            napoletana=napoletana[side],
        )
        for side, won in enumerate(thirds_won)
    )


def in_hand_order(hand: Sequence[Card]) -> tuple[Card, ...]:
    """A hand as a player holds it: by suit, and in each suit the strongest first."""
    return tuple(sorted(hand, key=lambda card: (SUIT_OF[card], -CARD_STRENGTH[card])))


# ---------------------------------------------------------------- the state


@dataclass(eq=True, kw_only=True, slots=True)
class TressetteState(tricks.TrickState[TressetteRules, TressetteView]):
    """A game of Tressette between two moves, hidden cards included."""

    revealed: list[list[Card]]  # by seat: cards in hand everyone has seen
    declared: list[int]  # by seat: bit s set when suit s's napoletana was declared
    napoletana: list[int]  # this hand's napoletana points, by side

    name = "tressette"
    title = "Tressette"
    description = N_("The trick-taking game without trumps: follow suit, win the 3s, 2s and aces.")
    player_counts = PLAYER_COUNTS
    tag = 2
    bots = "mazzo.engine.players.fast_tressette"
    rules_type = TressetteRules
    options = options.catalog(TressetteRules)
    hand_size = HAND_SIZE
    winning_index = staticmethod(winning_index)
    card_worth = CARD_THIRDS
    card_alone = N_("a Tressette move is a card alone: no take, no lay")
    codec_format = 1
    codec_flags = 0b11  # the napoletana option, fresh draws

    @property
    def first_trick(self) -> bool:
        """No trick completed yet this hand: every card played now is a seat's first."""
        return not any(self.piles)

    # ------------------------------------------------------------ dealing

    def set_aside(self, rest: tuple[Card, ...]) -> tuple[Card, ...]:
        players = self.rules.players
        self.revealed = [[] for _ in range(players)]
        self.declared, self.napoletana = [0] * players, [0, 0]
        return rest

    # ------------------------------------------------------------ moves

    def playable(self, hand: Sequence[Card]) -> Sequence[Card]:
        """Follow suit when you can."""
        return playable(hand, self.trick)

    def check_card(self, move: Move) -> None:
        followers = playable(self.hands[move.seat], self.trick)
        if move.card not in followers:  # it is in the hand: the hand holds the led suit
            led = SUITS[self.trick[0].suit]
            # Made first: a call inside the refusal's would hide its template from the extractor.
            playable_cards = Listing(followers, N_(" or "))
            raise IllegalMove(
                Reason.MUST_FOLLOW_SUIT,
                "{led} was led and seat {seat} holds {led}: play {cards}",
                {"ledSuit": led},
                led=led,
                seat=move.seat,
                cards=playable_cards,
            )

    # ------------------------------------------------------------ playing

    def card_leaves(self, seat: int, card: Card, events: list[Event] | None) -> None:
        if self.rules.napoletana and not any(self.piles):  # the first trick
            # Declared when the player plays their first card of the hand.
            self.declare(seat, self.hands[seat], events)
        shown = self.revealed[seat]
        if card in shown:  # a card everyone has seen leaves the hand: no longer shown
            shown.remove(card)

    def drew(self, seat: int, card: Card, events: list[Event] | None) -> None:
        """Both draws are shown; a drawn card may complete a napoletana of the drawer's."""
        self.revealed[seat].append(card)
        if self.rules.napoletana:
            self.declare(seat, (card,), events)
        if not self.stock:  # the last card drawn: the hands are known, none is marked shown
            self.revealed = [[] for _ in self.hands]

    def declare(self, seat: int, among: Sequence[Card], events: list[Event] | None) -> None:
        """Declare every napoletana of ``seat`` not yet declared that involves a card
        of ``among``."""
        hand = self.hands[seat]
        side = self.rules.side_of(seat)
        for suit in sorted({SUIT_OF[c] for c in among}):
            cards = NAPOLETANA_CARDS[suit]
            if self.declared[seat] >> suit & 1 or not all(c in hand for c in cards):
                continue
            if events is not None:
                events.append(NapoletanaDeclared(seat, side, suit, cards, NAPOLETANA_POINTS))
            shown = self.revealed[seat]
            shown += [c for c in cards if c not in shown]
            self.declared[seat] |= 1 << suit
            self.napoletana[side] += NAPOLETANA_POINTS

    def hand_scores(self) -> tuple[TressetteSideScore, ...]:
        # The last trick's winner leads the next: none now.
        return side_scores(self.worth_won(), self.rules.side_of(self.leader), self.napoletana)

    # ------------------------------------------------------------ seeing

    def known_cards(self, seat: int) -> tuple[tuple[Card, ...], ...]:
        """By seat, the cards in other hands that ``seat`` has seen or can deduce.

        Drawn cards and declared napoletane are shown until played; with two
        players and the stock gone, the opponent's hand is everything not yet seen.
        """
        known: list[tuple[Card, ...]] = []
        for other, hand in enumerate(self.hands):
            if other == seat:
                known.append(())
            elif self.rules.with_stock and not self.stock:
                known.append(tuple(hand))
            else:
                known.append(tuple(self.revealed[other]))
        return tuple(known)

    def view(self, seat: int) -> TressetteView:
        check_seat(seat, self.rules.players)
        return TressetteView(
            *self.trick_view(seat, in_hand_order(self.hands[seat]), self.known_cards(seat)),
            rules=self.rules,
            napoletana_suits=tuple(self.declared),
            napoletana=tuple(self.napoletana),
        )

    # ------------------------------------------------------------ the compact codec

    def encode(self) -> bytes:
        """The state as compact bytes (about 75 for two players)."""
        rules = self.rules
        out = self.write_head(int(rules.napoletana) | int(self.fresh_draws) << 1)
        out += _PLAY.pack(
            self.dealer,
            self.hand_number,
            self.to_play,
            self.leader,
            packing.NONE if self.winner is None else self.winner,
            self.rng,
        )
        packing.write_sides(out, self.scores, self.napoletana)
        out += bytes(self.declared)
        self.write_zones(out, self.revealed)
        return bytes(out)

    @classmethod
    def read_unchecked(cls, data: bytes) -> TressetteState:
        players, target, flags = cls.read_head(data)
        dealer, hand_number, to_play, leader, winner, rng_state = _PLAY.unpack_from(
            data, tricks.HEAD.size
        )
        rules = _rules_read(players, target, bool(flags & 1))
        pos = tricks.HEAD.size + _PLAY.size
        scores, napoletana, pos = packing.read_sides(data, pos, rules.sides)
        declared = list(data[pos : pos + players])
        state, revealed = cls.read_zones(rules, data, pos + players, extra=players)
        state.dealer, state.hand_number, state.to_play = dealer, hand_number, to_play
        state.leader, state.winner = leader, None if winner == packing.NONE else winner
        state.scores, state.rng, state.fresh_draws = scores, rng_state, bool(flags & 2)
        state.revealed = list(map(list, revealed))
        state.declared, state.napoletana = declared, list(napoletana)
        return state

    def inconsistencies(self) -> list[Text]:
        """What makes the state one no game can reach."""
        problems = [
            *self.counters_out_of_range(),
            # One napoletana per suit at most, bit s for suit s.
            *outside("napoletana points", self.napoletana, 0, NAPOLETANA_POINTS * len(SUITS)),
            *outside("declared suits", self.declared, 0, (1 << len(SUITS)) - 1),
            *self.cards_misplaced(),
        ]
        if not all(map(set.issubset, map(set, self.revealed), self.hands)):
            problems.append(Text("a shown card is not in its hand"))
        if self.stock and not self.rules.with_stock:
            problems.append(Text("a stock with four players"))
        return problems


#: After the head: the dealer, the hand number, the seat to play, the leader,
#: the winner (or packing.NONE), the generator's state.
_PLAY = struct.Struct(">BIBBBQ")

#: The rules a state's bytes name, made once: rules are immutable, checking
#: them costs a decode a fifth of its time, and a server sees the same few.
_rules_read = lru_cache(maxsize=64)(TressetteRules)
