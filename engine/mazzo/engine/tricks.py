"""The trick-taking games' base: :class:`TrickState`, what Tressette and Briscola share.

Dealing a hand, playing a card to the trick, the trick's winner, the pile it
goes to, the draws after it (the winner first), the hand's end: each written
once here, as methods a game overrides where its rules differ (which card
takes a trick, what a draw shows, what lies under the stock, the scoring), as
python-chess's variants override its board's methods.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Protocol, Self, TypeVar

from mazzo.engine import deal, packing
from mazzo.engine.cards import SUIT_OF, Card
from mazzo.engine.errors import InvalidInput, Reason, Text
from mazzo.engine.events import CardDrawn, CardPlayed, Event, TrickWon
from mazzo.engine.game import Move, Status, check_turn, hands_fit
from mazzo.engine.scopa_rules import Face
from mazzo.engine.state import Rules, State

Hands = tuple[tuple[Card, ...], ...]


@dataclass(frozen=True, slots=True)
class TrickView:
    """What one seat of a trick game may see, the part every trick game shows:
    docs/rules.md, Hidden information. The games' views add their own fields."""

    seat: int
    side: int
    hand: tuple[Card, ...]
    trick: tuple[Card, ...]
    leader: int
    hand_sizes: tuple[int, ...]
    stock_size: int
    piles: Hands
    known: Hands  # by seat: other seats' cards this seat has seen or can deduce
    status: Status

    @property
    def face(self) -> Face:
        """The deck whose names the view gives the cards (Briscola's is an option)."""
        return Face.ITALIAN

    @property
    def face_up(self) -> tuple[Card, ...]:
        """The cards every seat sees outside the piles and the known hands: the trick."""
        return self.trick


class WinningIndex(Protocol):
    """A game's ``winning_index``: see :func:`winning_index_by`."""

    def __call__(self, trick: Sequence[Card], trump_suit: int | None = None) -> int: ...


def winning_index_by(strength: Sequence[int]) -> WinningIndex:
    """A game's ``winning_index(trick, trump_suit=None)``, its cards ranked by
    ``strength`` (by card index): the position in ``trick`` (complete or not) of the
    strongest trump if one was played, else of the strongest card of the suit led.
    A closure, not a function taking ``strength``: the players' rules of thumb call it."""

    def winning_index(trick: Sequence[Card], trump_suit: int | None = None) -> int:
        # One pass, no generator nor key function: every trick a search plays asks.
        best, top = 0, trick[0]
        suit = SUIT_OF[top]
        for index in range(1, len(trick)):
            card = trick[index]
            card_suit = SUIT_OF[card]
            if card_suit == suit:
                if strength[card] > strength[top]:
                    best, top = index, card
            elif card_suit == trump_suit:  # the first trump: only a higher trump beats it
                best, top, suit = index, card, card_suit
        return best

    return winning_index


#: :class:`TrickView`'s fields, in order.
PublicPart = tuple[
    int, int, tuple[Card, ...], tuple[Card, ...], int, tuple[int, ...], int, Hands, Hands, Status
]

R = TypeVar("R", bound=Rules)
V = TypeVar("V", bound=TrickView)

#: The head of every trick game's bytes: the format, the players, the target
#: and the flag bits (:meth:`TrickState.write_head`).
HEAD = struct.Struct(">BBHB")


@dataclass(eq=True, kw_only=True, slots=True)
class TrickState(State[R, V]):
    """A trick game between two moves: the hands, the trick in progress and who
    led it, the stock, the cards won by each side."""

    leader: int  # the seat that led the trick in progress
    trick: list[Card]  # the trick in progress, in play order from the leader

    #: The cards a seat holds after each deal and, while the stock lasts, after each draw.
    hand_size: ClassVar[int]
    #: ``winning_index(trick)``: the position in ``trick`` (complete or not) of the
    #: card that takes it: the game's :func:`winning_index_by` its cards' strength,
    #: a staticmethod (Briscola's, a method: its trumps beat the suit led).
    winning_index: ClassVar[WinningIndex]
    #: What a card won is worth by card index (Tressette's thirds, Briscola's points).
    card_worth: ClassVar[tuple[int, ...]]
    #: A card drawn from the stock is seen by its drawer alone (else by everyone).
    draws_private: ClassVar[bool] = False
    #: The refusal of a move that takes or lays (a trick game's move is a card alone).
    card_alone: ClassVar[str]
    #: The format of the game's bytes (their first), and the flag bits it knows.
    codec_format: ClassVar[int]
    codec_flags: ClassVar[int]

    # ------------------------------------------------------------ dealing

    @property
    def removed(self) -> Card | None:
        """The card out of the deck (Briscola for three: a 2), if any."""
        return None

    def deal(self, dealer: int, events: list[Event]) -> None:
        rules = self.rules
        deck = self.next_deck()
        removed = self.removed
        if removed is not None:  # the others keep their order
            deck = tuple(c for c in deck if c != removed)
        hands, rest = deal.deal_round(deck, rules.players, dealer, self.hand_size)
        rest = self.set_aside(rest)
        if self.fresh_draws:  # keep nothing that orders the cards still to come
            rest, self.rng = deal.unordered(rest), 0
        self.dealer, self.hand_number = dealer, self.hand_number + 1
        self.to_play = self.leader = (dealer + 1) % rules.players
        self.hands = [list(hand) for hand in hands]
        self.trick, self.stock = [], list(rest)
        self.piles = [[] for _ in range(rules.sides)]
        events += deal.deal_events(self.hand_number, dealer, (), hands, self.stock_size)

    def set_aside(self, rest: tuple[Card, ...]) -> tuple[Card, ...]:
        """A new hand's own fields, from the cards left after the hands are dealt:
        the stock (Briscola turns its first card up)."""
        return rest

    @property
    def stock_size(self) -> int:
        """The cards still to draw."""
        return len(self.stock)

    # ------------------------------------------------------------ moves

    def legal_moves(self) -> list[Move]:
        if self.winner is not None:
            return []
        seat = self.to_play
        return [Move(seat, card) for card in self.playable(self.hands[seat])]

    def playable(self, hand: Sequence[Card]) -> Sequence[Card]:
        """The cards of ``hand`` the seat to play may play to the trick: any."""
        return hand

    def resolve(self, move: Move) -> Move:
        """The checks of every trick game's move: :func:`check_turn`'s, then a
        card alone; the game's own after them (:meth:`check_card`)."""
        players = self.rules.players
        check_turn(
            move,
            players=players,
            to_play=self.to_play,
            hand=self.hands[move.seat] if 0 <= move.seat < players else (),
            game_over=self.winner is not None,
        )
        if move.take or move.lay:
            raise InvalidInput(Reason.TAKE_NOT_ALLOWED, self.card_alone)
        self.check_card(move)
        return move

    def check_card(self, move: Move) -> None:
        """The game's own rule for the card played (Tressette: follow suit)."""

    def step(
        self, move: Move, events: list[Event] | None = None, entropy: int | None = None
    ) -> None:
        """The card leaves the hand for the trick; the next seat plays, or the
        complete trick goes to its winner."""
        seat, card = move[0], move[1]  # by position: the players' play-outs come here
        self.card_leaves(seat, card, events)
        self.hands[seat].remove(card)
        trick = self.trick
        trick.append(card)
        if events is not None:
            events.append(CardPlayed(seat, card))
        players = self.rules.players
        if len(trick) < players:
            self.to_play = (seat + 1) % players
        else:
            self.finish_trick(events, entropy)

    def card_leaves(self, seat: int, card: Card, events: list[Event] | None) -> None:
        """What happens as ``card`` leaves ``seat``'s hand, before it is played
        (Tressette: a napoletana is declared with the first card)."""

    def finish_trick(self, events: list[Event] | None, entropy: int | None) -> None:
        """The complete trick goes to its winner's side, the winner leads the next,
        and while the stock lasts every seat draws, the winner first."""
        trick = self.trick
        winner = (self.leader + self.winning_index(trick)) % self.rules.players
        side = self.rules.side_of(winner)
        if events is not None:
            events.append(TrickWon(winner, side, self.leader, tuple(trick)))
        self.piles[side] += trick
        self.trick = []
        self.leader = self.to_play = winner
        # A stock always runs out at the end of a round of draws, what lies under
        # it (Briscola's turn-up) drawn with its last card.
        if self.stock:
            self.draw_round(winner, events, entropy)

    def draw_round(self, winner: int, events: list[Event] | None, entropy: int | None) -> None:
        """Every seat draws a card, the winner first: the stock's top card, and,
        once the stock is out, the card under it (:meth:`draw_last`). A fresh
        game orders the stock with this move's ``entropy`` for the draws and keeps
        the rest in card order."""
        if self.fresh_draws:  # the cards drawn now are chosen now
            self.stock = list(deal.fresh_order(tuple(self.stock), entropy))
        stock, hands, players = self.stock, self.hands, self.rules.players
        for k in range(players):
            seat = (winner + k) % players
            if stock:
                card, private = stock.pop(0), self.draws_private
            else:  # the stock ran out within the round: the card under it is last
                card, private = self.draw_last(), False
            hands[seat].append(card)
            if events is not None:
                events.append(CardDrawn(seat, card, private))
            self.drew(seat, card, events)
        if self.fresh_draws:
            stock.sort()

    def draw_last(self) -> Card:
        """The card drawn last, once the stock is out (Briscola's turn-up)."""
        raise AssertionError("the stock ran out inside a round of draws")

    def drew(self, seat: int, card: Card, events: list[Event] | None) -> None:
        """What follows ``seat``'s draw of ``card`` (Tressette: it is shown, and may
        complete a napoletana)."""

    def cards_to_play(self) -> int:
        """The cards still to be played this hand: every card in a hand or the stock."""
        return sum(map(len, self.hands)) + self.stock_size

    @property
    def hand_over(self) -> bool:
        # At a trick's start every hand holds as many cards; within it the seat
        # to play has not played yet.
        return not self.hands[self.to_play]

    def worth_won(self) -> list[int]:
        """By side, what the cards it won are worth (:attr:`card_worth`)."""
        worth = self.card_worth
        return [sum(map(worth.__getitem__, pile)) for pile in self.piles]

    # ------------------------------------------------------------ seeing

    def trick_view(self, seat: int, hand: tuple[Card, ...], known: Hands) -> PublicPart:
        """:class:`TrickView`'s fields in order, for a game's view to start with
        (``seat`` checked by the game's view)."""
        return (
            seat,
            self.rules.side_of(seat),
            hand,
            tuple(self.trick),
            self.leader,
            tuple(map(len, self.hands)),
            self.stock_size,
            tuple(map(tuple, self.piles)),
            known,
            self.status(),
        )

    # ------------------------------------------------------------ imagined worlds

    @classmethod
    def imagined(
        cls,
        rules: R,
        view: TrickView,
        hands: Sequence[Sequence[Card]],
        stock: Sequence[Card],
        rng_state: int,
    ) -> Self:
        """A world a player imagines from its ``view``: the cards it cannot see
        dealt as ``hands`` and ``stock``, the rest as the view shows it. The game's
        own fields are the caller's to set."""
        status = view.status
        state = object.__new__(cls)
        state.rules, state.scores, state.winner = rules, status.scores, None
        state.dealer, state.hand_number = status.dealer, status.hand_number
        state.to_play = view.seat if status.seat_to_play is None else status.seat_to_play
        state.leader, state.trick = view.leader, list(view.trick)
        state.hands, state.stock = list(map(list, hands)), list(stock)
        state.piles = list(map(list, view.piles))
        state.rng, state.decks, state.fresh_draws = rng_state, (), False
        return state

    # ------------------------------------------------------------ bytes

    def write_head(self, flags: int) -> bytearray:
        """The state's bytes begun: :data:`HEAD` with the game's ``flags``."""
        rules = self.rules
        return bytearray(HEAD.pack(self.codec_format, rules.players, rules.target, flags))

    @classmethod
    def read_head(cls, data: bytes) -> tuple[int, int, int]:
        """:meth:`write_head`'s players, target and flags; ValueError for another
        format or a flag the format does not know."""
        fmt, players, target, flags = HEAD.unpack_from(data)
        if fmt != cls.codec_format:
            raise ValueError(f"unknown {cls.title} state format {fmt}")
        if flags & ~cls.codec_flags:
            raise ValueError(f"unknown flag bits {flags:#x}")
        return players, target, flags

    def write_zones(self, out: bytearray, extra: Sequence[Sequence[Card]] = ()) -> None:
        """The hands, the trick, the stock, the piles, the game's ``extra`` zones,
        then the decks: the tail of every trick game's bytes (:meth:`read_zones`)."""
        packing.write_zones(out, (*self.hands, self.trick, self.stock, *self.piles, *extra))
        packing.write_decks(out, self.decks)

    @classmethod
    def read_zones(cls, rules: R, data: bytes, pos: int, extra: int = 0) -> tuple[Self, Hands]:
        """:meth:`write_zones`' zones from ``pos`` to the end, in a new state of
        ``rules`` (the game's decoder sets its other fields), and the game's
        ``extra`` zones."""
        players, sides = rules.players, rules.sides
        zones, end = packing.read_zones(data, pos, players + 2 + sides + extra)
        state = object.__new__(cls)
        state.rules = rules
        state.hands = list(map(list, zones[:players]))
        state.trick = list(zones[players])
        state.stock = list(zones[players + 1])
        state.piles = list(map(list, zones[players + 2 : players + 2 + sides]))
        state.decks = packing.read_decks(data, end)
        return state, tuple(zones[players + 2 + sides :])

    def set_aside_cards(self) -> tuple[Card, ...]:
        """The cards of the hand outside the hands, the trick, the stock and the
        piles (Briscola's turn-up under the stock)."""
        return ()

    def cards_misplaced(self) -> list[Text]:
        """A decoded state's cards, seats and trick as a game leaves them: every card
        of the deck once; the dealer, the leader and the winner among the seats and
        sides; the trick fits the turn, and the hands fit the trick."""
        rules = self.rules
        zones = (*self.hands, self.trick, self.stock, self.set_aside_cards(), *self.piles)
        expected = packing.ALL_CARDS - {self.removed}
        problems = []
        if sum(map(len, zones)) != len(expected) or frozenset().union(*zones) != expected:
            problems.append(Text("the {count} cards are not there once each", count=len(expected)))
        if not (0 <= self.dealer < rules.players and 0 <= self.leader < rules.players):
            problems.append(Text("seat out of range"))
        if self.winner is not None and not 0 <= self.winner < rules.sides:
            problems.append(Text("winner out of range"))
        return problems + self.trick_misfits()

    def trick_misfits(self) -> list[Text]:
        """The trick in progress fits the turn, and the hands fit the trick: seats that
        played to it hold one card fewer; at the end, none; while the stock lasts the
        seat to play holds a full hand."""
        players = self.rules.players
        if len(self.trick) >= players or self.to_play != (self.leader + len(self.trick)) % players:
            return [Text("the trick does not fit the turn")]
        if self.game_over:
            fits = not any(self.hands) and not self.trick
        else:
            fits = hands_fit(self.hands, self.to_play, self.leader, len(self.trick)) and (
                not self.stock_size or len(self.hands[self.to_play]) == self.hand_size
            )
        return [] if fits else [Text("hand sizes do not fit the trick")]
