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

Use it through :data:`BRISCOLA` (its :class:`~mazzo.engine.game.Game` registry entry)
or the module functions, as with :mod:`mazzo.engine.tressette`.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import NamedTuple

from mazzo.engine import deal, options, packing, tricks
from mazzo.engine.cards import BATONS, COINS, CUPS, DECK, RANK_OF, SUIT_OF, SWORDS, Card
from mazzo.engine.errors import N_, Text
from mazzo.engine.events import BriscolaSideScore, CardPlayed, Event, TrumpTurnedUp
from mazzo.engine.game import (
    MAX_HAND_NUMBER,
    MAX_SCORE,
    Game,
    Move,
    Status,
    check_seat,
    close_hand,
    counters_out_of_range,
    status_of,
    unique_best,
)
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


class BriscolaState(NamedTuple):
    """A game of Briscola between two moves, hidden cards included (a named tuple,
    as the other games' states)."""

    rules: BriscolaRules
    dealer: int
    hand_number: int  # 1 for the first hand
    to_play: int
    leader: int  # the seat that led the trick in progress
    hands: tuple[tuple[Card, ...], ...]  # by seat
    trick: tuple[Card, ...]  # the trick in progress, in play order from the leader
    stock: tuple[Card, ...]  # the face-down stock, stock[0] the top card
    turn_up: Card | None  # the face-up trump under the stock; None once drawn
    trump: Card  # the card turned up this hand: its suit is trumps
    piles: tuple[tuple[Card, ...], ...]  # cards won, by side
    scores: tuple[int, ...]  # hands won by side, before this hand
    rng: int
    decks: tuple[tuple[Card, ...], ...]
    winner: int | None = None
    #: Started without a seed or decks: ``stock`` is in card order, ``rng`` is 0,
    #: and each draw and deal shuffles with the entropy apply() is given.
    fresh_draws: bool = False

    @property
    def game_over(self) -> bool:
        return self.winner is not None

    @property
    def stock_size(self) -> int:
        return len(self.stock) + (self.turn_up is not None)


@dataclass(frozen=True, slots=True)
class BriscolaView(tricks.TrickView):
    """What one seat may see: docs/rules.md, Hidden information. ``known``: by seat,
    the turn-up, once drawn, until played; ``stock_size`` counts the turn-up."""

    trump: Card  # the card turned up this hand
    turn_up: Card | None  # the turn-up while it lies under the stock
    removed: Card | None  # 3 players: the 2 out of the deck
    rules: BriscolaRules
    face: Face = Face.ITALIAN

    @property
    def trump_suit(self) -> int:
        return SUIT_OF[self.trump]

    @property
    def face_up(self) -> tuple[Card, ...]:
        """The cards every seat sees outside the piles and the known hands: the trick,
        the turn-up while it lies there, the 2 out of the deck."""
        extra = tuple(c for c in (self.turn_up, self.removed) if c is not None)
        return (*self.trick, *extra)


# ---------------------------------------------------------------- starting


def _start_hand(
    rules: BriscolaRules,
    dealer: int,
    hand_number: int,
    scores: tuple[int, ...],
    rng_state: int,
    decks: tuple[tuple[Card, ...], ...],
    fresh: bool = False,
) -> tuple[BriscolaState, list[Event]]:
    dealt = tricks.deal_hand(
        rules.players,
        dealer,
        HAND_SIZE,
        rng_state,
        decks,
        fresh=fresh,
        removed=rules.removed,
        set_aside=1,  # the turn-up
    )
    (turn_up,) = dealt.set_aside
    state = BriscolaState(
        **tricks.opening(rules, dealer, hand_number, scores, dealt, fresh),
        turn_up=turn_up,
        trump=turn_up,
    )
    events = deal.deal_events(hand_number, dealer, (), dealt.hands, state.stock_size)
    events.append(TrumpTurnedUp(turn_up))
    return state, events


#: Shuffle (or take ``decks[0]``) and deal the first hand (mazzo.engine.deal.new_game_of).
new_game = deal.new_game_of(_start_hand)


# ---------------------------------------------------------------- moves


def legal_moves(state: BriscolaState) -> list[Move]:
    """Every card of the seat to play: no one must follow suit."""
    if state.game_over:
        return []
    seat = state.to_play
    return [Move(seat, card) for card in state.hands[seat]]


_CARD_ALONE = N_("a Briscola move is a card alone: no take, no lay")


def resolve(state: BriscolaState, move: Move) -> Move:
    """Check ``move``; raise :class:`IllegalMove` (or :class:`InvalidInput`) if it is not legal."""
    tricks.check_card_alone(state, move, _CARD_ALONE)
    return move


# ---------------------------------------------------------------- playing


def apply(
    state: BriscolaState, move: Move, entropy: int | None = None
) -> tuple[BriscolaState, list[Event]]:
    """Play ``move``; return the new state and what happened.

    ``entropy``: as in :func:`mazzo.engine.scopa.apply` (here a draw needs it too).
    """
    tricks.check_card_alone(state, move, _CARD_ALONE)  # resolve's checks, without its call
    events: list[Event] = [CardPlayed(move.seat, move.card)]
    state = tricks.play_card(state, move.seat, move.card)
    if len(state.trick) < state.rules.players:
        return state, events
    return _finish_trick(state, events, entropy)


#: ``winning_index(trick, trump_suit)``: the position in ``trick`` (complete or not)
#: of the card that takes it, the highest trump, else the highest card of the suit led.
winning_index = tricks.winning_index_by(CARD_STRENGTH)


def trick_winner(leader: int, trick: Sequence[Card], trump_suit: int, players: int) -> int:
    return (leader + winning_index(trick, trump_suit)) % players


def _finish_trick(
    state: BriscolaState, events: list[Event], entropy: int | None
) -> tuple[BriscolaState, list[Event]]:
    winner = trick_winner(state.leader, state.trick, SUIT_OF[state.trump], state.rules.players)
    # The stock's cards go to their drawers alone; the turn-up, drawn last, is seen by all.
    state, over = tricks.finish_trick(
        state,
        winner,
        events,
        entropy,
        draws=state.turn_up is not None,
        private=True,
        under="turn_up",
    )
    if not over:
        return state, events
    return close_hand(state, score_hand(state.piles), events, _start_hand)


# ---------------------------------------------------------------- scoring


def card_points(cards: Sequence[Card]) -> int:
    return sum(map(CARD_POINTS.__getitem__, cards))


def score_hand(piles: Sequence[Sequence[Card]]) -> tuple[BriscolaSideScore, ...]:
    """Each side's card points; the hand, worth 1 towards the target, goes to the side
    with more than 60 (with three sides, the single best total)."""
    return side_scores([card_points(pile) for pile in piles])


def side_scores(points: Sequence[int]) -> tuple[BriscolaSideScore, ...]:
    """:func:`score_hand` from the card points each side won: with two sides more
    than half of the 120 wins the hand, with three the single best total."""
    best = unique_best(points)
    if len(points) == 2 and best is not None and points[best] <= HALF_THE_POINTS:
        best = None
    return tuple(
        BriscolaSideScore(side=side, card_points=won, total=int(side == best))
        for side, won in enumerate(points)
    )


# ---------------------------------------------------------------- seeing


def status(state: BriscolaState) -> Status:
    return status_of("briscola", state)


def known_cards(state: BriscolaState, seat: int) -> tuple[tuple[Card, ...], ...]:
    """By seat, the cards in other hands that ``seat`` has seen: the turn-up, drawn
    by everyone's sight, until it is played."""
    if state.turn_up is not None:
        return ((),) * state.rules.players
    return tuple(
        (state.trump,) if other != seat and state.trump in hand else ()
        for other, hand in enumerate(state.hands)
    )


def view(state: BriscolaState, seat: int) -> BriscolaView:
    check_seat(seat, state.rules.players)
    rules = state.rules
    return BriscolaView(
        *tricks.public_part(
            state,
            seat,
            hand=state.hands[seat],
            stock_size=state.stock_size,
            known=known_cards(state, seat),
            status=status(state),
        ),
        trump=state.trump,
        turn_up=state.turn_up,
        removed=rules.removed,
        rules=rules,
        face=rules.face,
    )


# ---------------------------------------------------------------- the compact codec

_FORMAT = 1
_NONE = 0xFF
_HEADER = struct.Struct(">BBHBBBIBBBBBQ")
_TWOS = tuple(RemovedTwo)
_FACES = tuple(Face)


def encode(state: BriscolaState) -> bytes:
    """The state as compact bytes (about 70 for two players)."""
    rules = state.rules
    out = bytearray(
        _HEADER.pack(
            _FORMAT,
            rules.players,
            rules.target,
            int(state.fresh_draws),
            _TWOS.index(rules.removed_two),
            _FACES.index(rules.face),
            state.hand_number,
            state.dealer,
            state.to_play,
            state.leader,
            _NONE if state.winner is None else state.winner,
            _NONE if state.turn_up is None else state.turn_up,
            state.rng,
        )
    )
    out.append(state.trump)
    packing.write_scores(out, state.scores)
    packing.write_zones(out, (*state.hands, state.trick, state.stock, *state.piles))
    packing.write_decks(out, state.decks)
    return bytes(out)


def decode(data: bytes) -> BriscolaState:
    """Read :func:`encode`'s bytes back; ``InvalidInput(STATE_CORRUPT)`` if they are not."""
    return packing.decode_authentic(data, _read_whole, _decode, _inconsistencies)


@lru_cache(maxsize=64)
def _rules_of(players: int, target: int, two: int, face: int) -> BriscolaRules | None:
    """The rules a state names, or None when there are no such rules (cached: a
    server sees the same few again and again)."""
    try:
        return BriscolaRules(players, target, _TWOS[two], _FACES[face])
    except packing.UNREAD:
        return None


@lru_cache(maxsize=64)
def _cards_of(rules: BriscolaRules) -> frozenset[int]:
    """The cards a game of ``rules`` is played with (cached, as the rules are)."""
    return packing.ALL_CARDS - {rules.removed}


def _read_whole(data: bytes) -> BriscolaState | None:
    """The state in ``data`` when it is whole: what :func:`_decode` reads, when
    :func:`_inconsistencies` finds nothing wrong with it; else None."""
    (fmt, players, target, flags, two, face, hand_number, dealer, to_play, leader, winner,
     turn_up, rng_state) = _HEADER.unpack_from(data)  # fmt: skip
    rules = _rules_of(players, target, two, face)
    if fmt != _FORMAT or flags & ~1 or rules is None:
        return None
    pos = _HEADER.size
    trump = DECK[data[pos]]
    scores, pos = packing.read_scores(data, pos + 1, rules.sides)
    span = packing.card_span(data, pos)
    zones, end = packing.split_zones(data, span, pos, pos, players + 2 + rules.sides)
    decks = packing.split_decks(data, end)
    turned = () if turn_up == _NONE else (DECK[turn_up],)
    stock = zones[players + 1]
    cards = _cards_of(rules)
    if (
        decks is None
        or not 1 <= hand_number <= MAX_HAND_NUMBER
        or max(scores) > MAX_SCORE
        or sum(map(len, zones)) + len(turned) != len(cards)
        or frozenset(turned).union(*zones) != cards
        or (turned and turned[0] != trump)
        or (stock and not turned)
        or (len(stock) + len(turned)) % players
    ):
        return None
    state: BriscolaState = tuple.__new__(
        BriscolaState,
        (
            rules,
            dealer,
            hand_number,
            to_play,
            leader,
            tuple(zones[:players]),
            zones[players],
            stock,
            turned[0] if turned else None,
            trump,
            tuple(zones[players + 2 :]),
            scores,
            rng_state,
            decks,
            None if winner == _NONE else winner,
            bool(flags & 1),
        ),
    )
    if tricks.seats_out_of_range(state) or tricks.trick_misfits(state, stock_full_hand=HAND_SIZE):
        return None
    return state


def _decode(data: memoryview) -> BriscolaState:
    (fmt, players, target, flags, two, face, hand_number, dealer, to_play, leader, winner,
     turn_up, rng_state) = _HEADER.unpack_from(data)  # fmt: skip
    if fmt != _FORMAT:
        raise ValueError(f"unknown Briscola state format {fmt}")
    if flags & ~1:
        raise ValueError(f"unknown flag bits {flags:#x}")
    rules = BriscolaRules(players, target, _TWOS[two], _FACES[face])
    pos = _HEADER.size
    trump = DECK[data[pos]]
    pos += 1
    scores, pos = packing.read_scores(data, pos, rules.sides)
    zones, pos = packing.read_zones(data, pos, players + 2 + rules.sides)
    decks = packing.read_decks(data, pos)
    return BriscolaState(
        rules=rules,
        dealer=dealer,
        hand_number=hand_number,
        to_play=to_play,
        leader=leader,
        hands=tuple(zones[:players]),
        trick=zones[players],
        stock=zones[players + 1],
        turn_up=None if turn_up == _NONE else DECK[turn_up],
        trump=trump,
        piles=tuple(zones[players + 2 :]),
        scores=scores,
        rng=rng_state,
        decks=decks,
        winner=None if winner == _NONE else winner,
        fresh_draws=bool(flags & 1),
    )


def _inconsistencies(state: BriscolaState) -> list[Text]:
    """What makes the state one no game can reach."""
    rules = state.rules
    problems = counters_out_of_range(state)
    turn_up = () if state.turn_up is None else (state.turn_up,)
    cards = [
        c for zone in (*state.hands, state.trick, state.stock, turn_up, *state.piles) for c in zone
    ]
    expected = set(DECK) - {rules.removed}
    if len(cards) != len(expected) or set(cards) != expected:
        problems.append(Text("the {count} cards are not there once each", count=len(expected)))
    if state.turn_up is not None and state.turn_up != state.trump:
        problems.append(Text("the turn-up is not the trump card"))
    if state.turn_up is None and state.stock:
        problems.append(Text("a stock without its turn-up"))
    if state.stock_size % rules.players:
        problems.append(Text("a stock that does not end at a round of draws"))
    problems += tricks.seats_out_of_range(state)
    # While the stock lasts, the seat to play holds a full hand.
    problems += tricks.trick_misfits(state, stock_full_hand=HAND_SIZE)
    return problems


# ---------------------------------------------------------------- the registry entry


BRISCOLA = Game(
    name="briscola",
    title="Briscola",
    description=N_(
        "The trick-taking game with a trump turned up: no suit to follow, "
        "more than 60 card points win the hand."
    ),
    player_counts=PLAYER_COUNTS,
    options=options.catalog(BriscolaRules),
    new_game=new_game,
    legal_moves=legal_moves,
    resolve=resolve,
    apply=apply,
    view=view,
    status=status,
    encode=encode,
    decode=decode,
    make_rules=BriscolaRules,
    bots="mazzo.engine.players.fast_briscola",
)
