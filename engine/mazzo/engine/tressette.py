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
from typing import NamedTuple

from mazzo.engine import deal, options, packing, tricks
from mazzo.engine.cards import DECK, DECK_SIZE, RANK_OF, SUIT_OF, SUITS, Card
from mazzo.engine.errors import N_, Listing, Reason, Text
from mazzo.engine.events import CardPlayed, Event, NapoletanaDeclared, TressetteSideScore
from mazzo.engine.game import (
    MAX_HAND_NUMBER,
    MAX_SCORE,
    Game,
    IllegalMove,
    Move,
    Status,
    check_seat,
    close_hand,
    counters_out_of_range,
    outside,
    replace_at,
    status_of,
)
from mazzo.engine.options import number, switch
from mazzo.engine.scopa_rules import Face

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


class TressetteState(NamedTuple):
    """A game of Tressette between two moves, hidden cards included: a named tuple
    like ScopaState (cheap to build; change one with ``state._replace(...)``)."""

    rules: TressetteRules
    dealer: int
    hand_number: int  # 1 for the first hand
    to_play: int
    leader: int  # the seat that led the trick in progress
    hands: tuple[tuple[Card, ...], ...]  # by seat
    trick: tuple[Card, ...]  # the trick in progress, in play order from the leader
    stock: tuple[Card, ...]  # stock[0] is the top card
    piles: tuple[tuple[Card, ...], ...]  # cards won, by side
    revealed: tuple[tuple[Card, ...], ...]  # by seat: cards in hand everyone has seen
    declared: tuple[int, ...]  # by seat: bit s set when suit s's napoletana was declared
    napoletana: tuple[int, ...]  # this hand's napoletana points, by side
    scores: tuple[int, ...]  # game score by side, before this hand
    rng: int
    decks: tuple[tuple[Card, ...], ...]
    winner: int | None = None
    #: Started without a seed or decks: ``stock`` is in card order (a set, not a
    #: sequence), ``rng`` is 0, and each draw and deal shuffles with the entropy
    #: apply() is given.
    fresh_draws: bool = False

    @property
    def game_over(self) -> bool:
        return self.winner is not None

    @property
    def first_trick(self) -> bool:
        """No trick completed yet this hand: every card played now is a seat's first."""
        return not any(self.piles)


@dataclass(frozen=True, slots=True)
class TressetteView(tricks.TrickView):
    """What one seat may see: docs/rules.md, Hidden information. ``known``: by seat,
    the other seats' cards this seat knows."""

    # Public facts a player reasons with (mazzo.engine.players): the rules, and the
    # napoletane declared aloud (suit bits by seat, points by side).
    rules: TressetteRules | None = None
    napoletana_suits: tuple[int, ...] = ()
    napoletana: tuple[int, ...] = ()

    @property
    def face_up(self) -> tuple[Card, ...]:
        """The cards every seat sees outside the piles and the known hands: the trick."""
        return self.trick

    @property
    def face(self) -> Face:
        """Tressette's cards are named as the Italian deck names them."""
        return Face.ITALIAN


# ---------------------------------------------------------------- starting


def _start_hand(
    rules: TressetteRules,
    dealer: int,
    hand_number: int,
    scores: tuple[int, ...],
    rng_state: int,
    decks: tuple[tuple[Card, ...], ...],
    fresh: bool = False,
) -> tuple[TressetteState, list[Event]]:
    dealt = tricks.deal_hand(rules.players, dealer, HAND_SIZE, rng_state, decks, fresh=fresh)
    state = TressetteState(
        **tricks.opening(rules, dealer, hand_number, scores, dealt, fresh),
        revealed=((),) * rules.players,
        declared=(0,) * rules.players,
        napoletana=(0, 0),
    )
    return state, deal.deal_events(hand_number, dealer, (), dealt.hands, len(dealt.stock))


#: Shuffle (or take ``decks[0]``) and deal the first hand (mazzo.engine.deal.new_game_of).
new_game = deal.new_game_of(_start_hand)


# ---------------------------------------------------------------- moves


def playable(hand: Sequence[Card], trick: Sequence[Card]) -> Sequence[Card]:
    """The cards of ``hand`` that may be played to ``trick``: follow suit when you can."""
    if not trick:
        return hand
    led = SUIT_OF[trick[0]]
    return [c for c in hand if SUIT_OF[c] == led] or hand


def legal_moves(state: TressetteState) -> list[Move]:
    """Every legal move of the seat to play: follow suit when you can."""
    if state.game_over:
        return []
    seat = state.to_play
    return [Move(seat, card) for card in playable(state.hands[seat], state.trick)]


def resolve(state: TressetteState, move: Move) -> Move:
    """Check ``move``; raise :class:`IllegalMove` (or :class:`InvalidInput`) if it is not legal."""
    tricks.check_card_alone(state, move, N_("a Tressette move is a card alone: no take, no lay"))
    followers = playable(state.hands[move.seat], state.trick)
    if move.card not in followers:  # it is in the hand: the hand holds the led suit
        led = SUITS[state.trick[0].suit]
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
    return move


# ---------------------------------------------------------------- playing


def apply(
    state: TressetteState, move: Move, entropy: int | None = None
) -> tuple[TressetteState, list[Event]]:
    """Play ``move``; return the new state and what happened.

    ``entropy``: as in :func:`mazzo.engine.scopa.apply` (here a draw needs it too).
    """
    move = resolve(state, move)
    seat = move.seat
    events: list[Event] = []
    if state.first_trick and state.rules.napoletana:
        # Declared when the player plays their first card of the hand.
        state = _declare(state, seat, state.hands[seat], events)
    events.append(CardPlayed(seat, move.card))
    shown = state.revealed[seat]
    if move.card in shown:  # a card everyone has seen leaves the hand: no longer shown
        revealed = replace_at(state.revealed, seat, tuple(c for c in shown if c != move.card))
        state = tricks.play_card(state, seat, move.card, revealed=revealed)
    else:
        state = tricks.play_card(state, seat, move.card)
    if len(state.trick) < state.rules.players:
        return state, events
    return _finish_trick(state, events, entropy)


def trick_winner(leader: int, trick: Sequence[Card], players: int) -> int:
    """The seat whose card is the strongest of the led suit."""
    return (leader + winning_index(trick)) % players


#: ``winning_index(trick)``: the position in ``trick`` (complete or not) of the
#: strongest card of the led suit (no trumps).
winning_index = tricks.winning_index_by(CARD_STRENGTH)


def _finish_trick(
    state: TressetteState, events: list[Event], entropy: int | None
) -> tuple[TressetteState, list[Event]]:
    winner = trick_winner(state.leader, state.trick, state.rules.players)
    declare = _declare_drawn if state.rules.napoletana else None
    # Two players: both draws are shown.
    state, over = tricks.finish_trick(
        state,
        winner,
        events,
        entropy,
        draws=bool(state.stock),
        reveal=True,
        on_draw=declare,
    )
    if over:
        return _end_hand(state, state.rules.side_of(winner), events)
    if state.rules.with_stock and not state.stock and any(state.revealed):
        # The stock is gone: every card is known now; nothing needs to be marked shown.
        state = state._replace(revealed=((),) * len(state.hands))
    return state, events


def _declare_drawn(
    state: TressetteState, seat: int, card: Card, events: list[Event]
) -> TressetteState:
    """A drawn card may complete a napoletana of the drawer's."""
    return _declare(state, seat, (card,), events)


def _declare(
    state: TressetteState, seat: int, among: Sequence[Card], events: list[Event]
) -> TressetteState:
    """Declare every napoletana of ``seat`` not yet declared that involves a card of ``among``."""
    hand = set(state.hands[seat])
    side = state.rules.side_of(seat)
    for suit in sorted({SUIT_OF[c] for c in among}):
        cards = NAPOLETANA_CARDS[suit]
        if state.declared[seat] & (1 << suit) or not hand.issuperset(cards):
            continue
        events.append(NapoletanaDeclared(seat, side, suit, cards, NAPOLETANA_POINTS))
        shown = state.revealed[seat] + tuple(c for c in cards if c not in state.revealed[seat])
        state = state._replace(
            declared=replace_at(state.declared, seat, state.declared[seat] | 1 << suit),
            napoletana=replace_at(
                state.napoletana, side, state.napoletana[side] + NAPOLETANA_POINTS
            ),
            revealed=replace_at(state.revealed, seat, shown),
        )
    return state


def _end_hand(
    state: TressetteState, last_trick_side: int, events: list[Event]
) -> tuple[TressetteState, list[Event]]:
    sides = score_hand(state.piles, last_trick_side, state.napoletana)
    return close_hand(state, sides, events, _start_hand)


# ---------------------------------------------------------------- scoring


def thirds(cards: Sequence[Card]) -> int:
    return sum(map(CARD_THIRDS.__getitem__, cards))


def score_hand(
    piles: Sequence[Sequence[Card]], last_trick_side: int, napoletana: Sequence[int]
) -> tuple[TressetteSideScore, ...]:
    """Each side: its thirds floored to points, 1 for the last trick, its napoletana."""
    return side_scores([thirds(pile) for pile in piles], last_trick_side, napoletana)


def side_scores(
    thirds_won: Sequence[int], last_trick_side: int, napoletana: Sequence[int]
) -> tuple[TressetteSideScore, ...]:
    """:func:`score_hand` from the thirds each side won."""
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


# ---------------------------------------------------------------- seeing


def status(state: TressetteState) -> Status:
    return status_of("tressette", state)


def known_cards(state: TressetteState, seat: int) -> tuple[tuple[Card, ...], ...]:
    """By seat, the cards in other hands that ``seat`` has seen or can deduce.

    Drawn cards and declared napoletane are shown until played; with two
    players and the stock gone, the opponent's hand is everything not yet seen.
    """
    known: list[tuple[Card, ...]] = []
    for other, hand in enumerate(state.hands):
        if other == seat:
            known.append(())
        elif state.rules.with_stock and not state.stock:
            known.append(hand)
        else:
            known.append(state.revealed[other])
    return tuple(known)


def in_hand_order(hand: Sequence[Card]) -> tuple[Card, ...]:
    """A hand as a player holds it: by suit, and in each suit the strongest first."""
    return tuple(sorted(hand, key=lambda card: (SUIT_OF[card], -CARD_STRENGTH[card])))


def view(state: TressetteState, seat: int) -> TressetteView:
    check_seat(seat, state.rules.players)
    return TressetteView(
        *tricks.public_part(
            state,
            seat,
            hand=in_hand_order(state.hands[seat]),
            stock_size=len(state.stock),
            known=known_cards(state, seat),
            status=status(state),
        ),
        rules=state.rules,
        napoletana_suits=state.declared,
        napoletana=state.napoletana,
    )


# ---------------------------------------------------------------- the compact codec

_FORMAT = 1
_NONE = 0xFF
_HEADER = struct.Struct(">BBHBBIBBBQ")


def encode(state: TressetteState) -> bytes:
    """The state as compact bytes (about 75 for two players)."""
    rules = state.rules
    out = bytearray(
        _HEADER.pack(
            _FORMAT,
            rules.players,
            rules.target,
            int(rules.napoletana) | int(state.fresh_draws) << 1,
            state.dealer,
            state.hand_number,
            state.to_play,
            state.leader,
            _NONE if state.winner is None else state.winner,
            state.rng,
        )
    )
    packing.write_sides(out, state.scores, state.napoletana)
    out += bytes(state.declared)
    packing.write_zones(
        out, (*state.hands, state.trick, state.stock, *state.piles, *state.revealed)
    )
    packing.write_decks(out, state.decks)
    return bytes(out)


def decode(data: bytes) -> TressetteState:
    """Read :func:`encode`'s bytes back; ``InvalidInput(STATE_CORRUPT)`` if they are not."""
    return packing.decode_authentic(data, _read_whole, _decode, _inconsistencies)


@lru_cache(maxsize=64)
def _rules_of(players: int, target: int, napoletana: bool) -> TressetteRules | None:
    """The rules a state names, or None when there are no such rules (cached: a
    server sees the same few again and again)."""
    try:
        return TressetteRules(players, target, napoletana)
    except packing.UNREAD:
        return None


#: The most napoletana points a side may hold (one per suit), and the most a
#: seat's declared suits may say (bit s for suit s).
_MOST_NAPOLETANA = NAPOLETANA_POINTS * len(SUITS)
_ALL_SUITS = (1 << len(SUITS)) - 1


def _read_whole(data: bytes) -> TressetteState | None:
    """The state in ``data`` when it is whole: what :func:`_decode` reads, when
    :func:`_inconsistencies` finds nothing wrong with it; else None."""
    fmt, players, target, flags, dealer, hand_number, to_play, leader, winner, rng_state = (
        _HEADER.unpack_from(data)
    )
    rules = _rules_of(players, target, bool(flags & 1))
    if fmt != _FORMAT or flags & ~3 or rules is None:
        return None
    sides = rules.sides
    scores, napoletana, pos = packing.read_sides(data, _HEADER.size, sides)
    declared = tuple(data[pos : pos + players])
    pos += players
    span = packing.card_span(data, pos)
    zones, end = packing.split_zones(data, span, pos, pos, players + 2 + sides + players)
    decks = packing.split_decks(data, end)
    dealt = zones[: players + 2 + sides]  # the hands, the trick, the stock and the piles
    hands, stock = tuple(zones[:players]), zones[players + 1]
    revealed = tuple(zones[players + 2 + sides :])
    if (
        decks is None
        or not 1 <= hand_number <= MAX_HAND_NUMBER
        or max(scores) > MAX_SCORE
        or max(napoletana) > _MOST_NAPOLETANA
        or max(declared, default=0) > _ALL_SUITS
        or sum(map(len, dealt)) != DECK_SIZE
        or frozenset().union(*dealt) != packing.ALL_CARDS
        or not all(map(frozenset.issubset, map(frozenset, revealed), hands))
        or (stock and not rules.with_stock)
    ):
        return None
    state: TressetteState = tuple.__new__(
        TressetteState,
        (
            rules,
            dealer,
            hand_number,
            to_play,
            leader,
            hands,
            zones[players],
            stock,
            tuple(zones[players + 2 : players + 2 + sides]),
            revealed,
            declared,
            napoletana,
            scores,
            rng_state,
            decks,
            None if winner == _NONE else winner,
            bool(flags & 2),
        ),
    )
    if tricks.seats_out_of_range(state) or tricks.trick_misfits(state):
        return None
    return state


def _decode(data: memoryview) -> TressetteState:
    fmt, players, target, flags, dealer, hand_number, to_play, leader, winner, rng_state = (
        _HEADER.unpack_from(data)
    )
    if fmt != _FORMAT:
        raise ValueError(f"unknown Tressette state format {fmt}")
    if flags & ~3:
        raise ValueError(f"unknown option bits {flags:#x}")
    rules = TressetteRules(players, target, bool(flags & 1))
    pos = _HEADER.size
    scores, napoletana, pos = packing.read_sides(data, pos, rules.sides)
    declared = tuple(data[pos : pos + players])
    pos += players
    zones, pos = packing.read_zones(data, pos, players + 2 + rules.sides + players)
    decks = packing.read_decks(data, pos)
    return TressetteState(
        rules=rules,
        dealer=dealer,
        hand_number=hand_number,
        to_play=to_play,
        leader=leader,
        hands=tuple(zones[:players]),
        trick=zones[players],
        stock=zones[players + 1],
        piles=tuple(zones[players + 2 : players + 4]),
        revealed=tuple(zones[players + 4 :]),
        declared=declared,
        napoletana=napoletana,
        scores=scores,
        rng=rng_state,
        decks=decks,
        winner=None if winner == _NONE else winner,
        fresh_draws=bool(flags & 2),
    )


def _out_of_range(state: TressetteState) -> list[Text]:
    """Every counter of a decoded state within what a game can reach (seats are checked
    below, cards by the 40-card check)."""
    return [
        *counters_out_of_range(state),
        # One napoletana per suit at most, bit s for suit s.
        *outside("napoletana points", state.napoletana, 0, NAPOLETANA_POINTS * len(SUITS)),
        *outside("declared suits", state.declared, 0, (1 << len(SUITS)) - 1),
    ]


def _inconsistencies(state: TressetteState) -> list[Text]:
    """What makes the state one no game can reach."""
    problems = _out_of_range(state)
    cards = [c for zone in (*state.hands, state.trick, state.stock, *state.piles) for c in zone]
    if len(cards) != DECK_SIZE or len(set(cards)) != DECK_SIZE:
        problems.append(Text("the 40 cards are not there once each"))
    problems += tricks.seats_out_of_range(state)
    if any(
        not set(shown) <= set(hand) for shown, hand in zip(state.revealed, state.hands, strict=True)
    ):
        problems.append(Text("a shown card is not in its hand"))
    if state.stock and not state.rules.with_stock:
        problems.append(Text("a stock with four players"))
    problems += tricks.trick_misfits(state)
    return problems


# ---------------------------------------------------------------- the registry entry


TRESSETTE = Game(
    name="tressette",
    title="Tressette",
    description=N_("The trick-taking game without trumps: follow suit, win the 3s, 2s and aces."),
    player_counts=PLAYER_COUNTS,
    options=options.catalog(TressetteRules),
    new_game=new_game,
    legal_moves=legal_moves,
    resolve=resolve,
    apply=apply,
    view=view,
    status=status,
    encode=encode,
    decode=decode,
    make_rules=TressetteRules,
    bots="mazzo.engine.players.fast_tressette",
)
