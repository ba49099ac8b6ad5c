"""Scopa and its family: docs/rules.md and docs/variants.md.

One game for every variant: :class:`~mazzo.engine.scopa_rules.ScopaRules` says which
deal, which capture rule, which bonuses, and :class:`ScopaState` plays them::

    state, events = ScopaState.new_game(ScopaRules.preset("cirulla"), seed=42)
    events = state.apply(state.legal_moves()[0])
"""

from __future__ import annotations

import struct
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain
from operator import itemgetter
from typing import NamedTuple

from mazzo.engine import deal, packing
from mazzo.engine.cards import ACE, CUPS, DECK, DECK_SIZE, KING, RANK_OF, RANKS, Card, format_cards
from mazzo.engine.errors import N_, InvalidInput, Listing, Reason, Text
from mazzo.engine.events import (
    Capture,
    CardPlayed,
    Declaration,
    Event,
    FirstTableTaken,
    LeftoversTaken,
    Redeal,
    SideScore,
)
from mazzo.engine.game import (
    IllegalMove,
    Move,
    Status,
    check_seat,
    check_turn,
    hands_fit,
)
from mazzo.engine.options import catalog
from mazzo.engine.scopa_rules import (
    BOOL_FIELDS,
    ENUM_FIELDS,
    PLAYER_COUNTS,
    AceSweep,
    CaptureRule,
    Face,
    PrimieraRule,
    ScopaRules,
    TableBonus,
    Variant,
)
from mazzo.engine.scopa_scoring import (
    napola_points,
    primiera_total,
    primiera_winner_of,
    score_hand,
)
from mazzo.engine.state import State, outside

__all__ = [
    "PrimieraRule",
    "ScopaRules",
    "ScopaState",
    "ScopaView",
    "Variant",
    "captures",
    "napola_points",
    "primiera_total",
    "primiera_winner_of",
    "score_hand",
]

QUINDICI = 15
#: Cirulla's wild card, the 7 of cups: wild in the hand declarations only.
MATTA = Card.of(7, CUPS)
DECINO_POINTS = 10
#: The taking of a card that takes nothing.
NO_CAPTURE: tuple[frozenset[Card], ...] = (frozenset(),)
#: The taking of a card laid to the table.
_NOTHING: frozenset[Card] = NO_CAPTURE[0]
CIRULLA_POINTS = 3
#: Moves and events are named tuples: tuple.__new__ makes one without the
#: Python-level constructor, for the values made on every move (bots make millions).
_new = tuple.__new__


#: The turns of the table a state keeps of the round's plays (each seat's last
#: two plays: what a player reasons from, :mod:`mazzo.engine.players.scopa_inference`,
#: at a bounded size whatever the hand's size).
PLAYS_KEPT = 2


@dataclass(frozen=True, slots=True)
class ScopaView:
    """What one seat may see: docs/rules.md, What a seat may see."""

    seat: int
    side: int
    hand: tuple[Card, ...]
    table: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    stock_size: int
    piles: tuple[tuple[Card, ...], ...]
    sweeps: tuple[int, ...]
    status: Status
    known: tuple[tuple[Card, ...], ...] = ()  # by seat: other seats' declared cards
    face: Face = Face.ITALIAN
    # Public facts a player reasons with (mazzo.engine.players): the rules, the side that
    # captured last (it takes the leftovers) and this hand's declaration points.
    rules: ScopaRules | None = None
    last_capture_side: int | None = None
    declared: tuple[int, ...] = ()
    #: This round's last plays, as the state keeps them (:attr:`ScopaState.round_plays`).
    round_plays: tuple[tuple[Card, ...], ...] = ()

    @property
    def face_up(self) -> tuple[Card, ...]:
        """The cards every seat sees outside the piles and the known hands: the table."""
        return self.table


# ---------------------------------------------------------------- dealing


def _void_table(rules: ScopaRules, table: tuple[Card, ...]) -> bool:
    """A first table the rules send back: three or four kings, or (Cirulla) two aces."""
    ranks = [RANK_OF[c] for c in table]
    return (rules.redeal_kings and ranks.count(KING) >= 3) or (
        rules.redeal_aces and ranks.count(ACE) >= 2
    )


def first_table_sweeps(bonus: TableBonus, table: tuple[Card, ...], matta_wild: bool = False) -> int:
    """The dealer's sweeps for the first table: 15 gives one, 30 two (Escoba: if it
    splits into two fifteens). With ``matta_wild`` the matta on the table counts as
    whichever value from 1 to 10 scores most."""
    if bonus is TableBonus.NONE:
        return 0
    ranks = [RANK_OF[c] for c in table]
    if not (matta_wild and MATTA in table):
        return _table_bonus(bonus, ranks)
    at = table.index(MATTA)
    return max(_table_bonus(bonus, [*ranks[:at], value, *ranks[at + 1 :]]) for value in RANKS)


def _table_bonus(bonus: TableBonus, ranks: list[int]) -> int:
    total = sum(ranks)
    if total not in (QUINDICI, 2 * QUINDICI):
        return 0
    if total == QUINDICI:
        return 1
    sums = 1
    for rank in ranks:  # the sums some of the cards make, as a bit mask
        sums |= sums << rank
    return 0 if bonus is TableBonus.PAIRS and not sums >> QUINDICI & 1 else 2


# ---------------------------------------------------------------- captures


def captures(
    card: Card, table: Sequence[Card], rules: ScopaRules | None = None
) -> list[frozenset[Card]]:
    """Every taking ``card`` may make from ``table``; ``[frozenset()]`` if none.

    Plain Scopa: same rank first and compulsory (one card, any of them);
    otherwise every set of two or more cards summing to the card's value. The
    rules' capture switches change that (docs/variants.md).
    """
    rules = rules or ScopaRules()
    return list(_captures(RANK_OF[card], tuple(table), rules.capture_key))


# Module constants: reading an enum member off its class costs ten times more.
_BY_RANK, _BY_FIFTEEN, _EITHER = CaptureRule.SCOPA, CaptureRule.QUINDICI, CaptureRule.CIRULLA


@lru_cache(maxsize=64)
def _captures(
    rank: int, table: tuple[Card, ...], key: tuple[CaptureRule, bool, bool]
) -> tuple[frozenset[Card], ...]:
    # Cached: a move is generated, checked and applied on the same table, so a
    # few entries do (a hand holds at most ten cards). A small cache is also a
    # fast one: with 8,192 entries random games ran 7% slower (CPU caches).
    rule, ace_takes_all, fewest = key
    ranks, sums = _table_sums(table)
    if ace_takes_all and rank == ACE and table and ACE not in ranks:
        return (frozenset(table),)
    found: list[frozenset[Card]] = []
    if rule is not _BY_FIFTEEN:
        if rank in ranks:
            found += [_ALONE[t] for t in table if RANK_OF[t] == rank]
        elif sums >> rank & 1:  # no card of the rank: sums of two cards or more
            found += _fewest(_subsets_summing_to(rank, table, ranks, sums), fewest)
    if rule is not _BY_RANK:
        found += _fewest(_subsets_summing_to(QUINDICI - rank, table, ranks, sums), fewest)
        if rule is _EITHER:  # a set may be both a sum and a fifteen
            found = list(dict.fromkeys(found))
    return tuple(found) or NO_CAPTURE


#: Each card as a taking of its own (a same-rank capture), made once.
_ALONE = tuple(frozenset((card,)) for card in DECK)


@lru_cache(maxsize=64)
def _table_sums(table: tuple[Card, ...]) -> tuple[tuple[int, ...], int]:
    """The table's ranks, and the sums its cards make as a bit mask (bit s when
    some of them sum to s): most takings are settled by the mask alone.

    Cached for the few tables in play: every card of the hand asks about the same one.
    """
    ranks = tuple(map(RANK_OF.__getitem__, table))
    sums = 1
    for rank in ranks:
        sums |= sums << rank
    return ranks, sums


def _fewest(sums: list[frozenset[Card]], fewest: bool) -> list[frozenset[Card]]:
    """With the fewest-cards rule, only the smallest of the sums are legal."""
    if not fewest or not sums:
        return sums
    smallest = min(len(s) for s in sums)
    return [s for s in sums if len(s) == smallest]


def _subsets_summing_to(
    total: int, cards: tuple[Card, ...], ranks: tuple[int, ...], sums: int
) -> list[frozenset[Card]]:
    """Subsets of ``cards`` whose ranks sum to ``total``, in the order of the cards'
    positions (``ranks`` and ``sums`` from :func:`_table_sums`)."""
    if not sums >> total & 1:
        return []  # the common case: the mask says at once that no subset does
    # reach[i]: the sums the cards from position i on make, so that the search
    # below only enters a branch that leads to a subset.
    reach, tail = [1], 1
    for rank in reversed(ranks):
        tail |= tail << rank
        reach.append(tail)
    reach.reverse()
    return [frozenset(s) for s in _sums_from(total, cards, ranks, 0, reach)]


def _sums_from(
    total: int,
    cards: tuple[Card, ...],
    ranks: tuple[int, ...],
    start: int,
    reach: list[int],
) -> list[tuple[Card, ...]]:
    # Lists, not generators, and only branches that the masks say reach the total.
    found: list[tuple[Card, ...]] = []
    for i in range(start, len(cards)):
        if not reach[i] >> total & 1:
            break  # nothing from here on sums to the total
        rank = ranks[i]
        if rank == total:
            found.append((cards[i],))
        elif rank < total and reach[i + 1] >> (total - rank) & 1:
            card = cards[i]
            found += [
                (card, *rest) for rest in _sums_from(total - rank, cards, ranks, i + 1, reach)
            ]
    return found


#: How the ``choices`` metadata names the lay of the card.
LAY_TEXT = "lay"


def _take_text(take: frozenset[Card]) -> str:
    return "+".join(str(c) for c in sorted(take))


def _describe(options: Sequence[frozenset[Card]]) -> Listing:
    return Listing((_take_text(t) for t in options), N_(" or "))


# ---------------------------------------------------------------- rules of play


def is_sweep(rules: ScopaRules, card: Card, table: Sequence[Card], last_card: bool) -> bool:
    """Whether ``card`` taking the whole ``table`` sweeps: it does, except with the
    last card of the hand and, as ``rules.ace_sweep`` says, with an ace that takes all."""
    if last_card:
        return False
    if not rules.ace_takes_all or RANK_OF[card] != ACE:
        return True
    if rules.ace_sweep is AceSweep.NEVER:
        return False
    took_all = ACE not in (RANK_OF[t] for t in table)
    return rules.ace_sweep is AceSweep.ALWAYS or not took_all


def judge_hand(hand: Sequence[Card]) -> tuple[str, int, int | None] | None:
    """Cirulla's declaration for a hand of three: (kind, points, matta value) or None.

    Three of a kind is a decino (10); a total under 10 a cirulla (3). The matta
    takes the rank that pairs the other two, else counts as 1; at most one
    declaration, the better.
    """
    ranks = [RANK_OF[c] for c in hand]
    if len(set(ranks)) == 1:
        return ("decino", DECINO_POINTS, None)
    others = [RANK_OF[c] for c in hand if c != MATTA]
    if MATTA in hand and others[0] == others[1]:
        return ("decino", DECINO_POINTS, others[0])
    matta_value = 1 if MATTA in hand else None
    if sum(others) + (matta_value or 0) < 10:
        return ("cirulla", CIRULLA_POINTS, matta_value)
    return None


# ---------------------------------------------------------------- the compact codec

#: 4: the round's plays after the shown cards. Format 3 (without them) is still
#: read, as a state whose round's plays are unknown (``()``), so that games in
#: progress survive the upgrade.
_FORMAT = 4
_FORMATS = (3, _FORMAT)
#: The most declaration points a side can hold: a declaration shows three cards
#: just dealt, so at most 13 decini in a hand.
_MOST_DECLARED = DECINO_POINTS * (DECK_SIZE // 3)
#: format, players, target, then the rules' enums, bool switches and re bello card.
_RULES = struct.Struct(">BBHBBBBBBBHB")
_PLAY = struct.Struct(">BIBBBQB")
_ENUMS = tuple((name, tuple(kind)) for name, kind in ENUM_FIELDS.items())
#: Each flag's bit is set when the switch differs from its value in the tokens
#: written before it existed (bit clear): compulsory_capture was always on.
_FLAGS = tuple((name, name == "compulsory_capture") for name in BOOL_FIELDS)


@lru_cache(maxsize=256)
def _encode_rules(rules: ScopaRules) -> bytes:
    # Cached: rules are immutable values and every encoded state starts with them.
    flags = sum(1 << i for i, (name, old) in enumerate(_FLAGS) if getattr(rules, name) is not old)
    return _RULES.pack(
        _FORMAT,
        rules.players,
        rules.target,
        *(members.index(getattr(rules, name)) for name, members in _ENUMS),
        flags,
        packing.NONE if rules.re_bello is None else rules.re_bello,
    )


class _Layout(NamedTuple):
    """What a state's rules header says about the bytes after it."""

    rules: ScopaRules
    #: The play fields (:data:`_PLAY`) and each side's score and sweeps, one unpack.
    fields: struct.Struct
    #: The zones before the round's plays: hands, table, stock, piles, shown cards.
    zones: int
    #: Format 4: the round's plays follow the zones.
    with_plays: bool


@lru_cache(maxsize=256)
def _layout(header: bytes) -> _Layout:
    # Cached: rules are immutable, and a server sees the same few again and again.
    fmt, players, target, *enums, flags, re_bello = _RULES.unpack(header)
    if fmt not in _FORMATS:
        raise ValueError(f"unknown Scopa state format {fmt}")
    if flags >> len(_FLAGS):
        raise ValueError(f"unknown option bits {flags:#x}")
    values = {name: members[i] for (name, members), i in zip(_ENUMS, enums, strict=True)}
    values.update({name: bool(flags >> i & 1) is not old for i, (name, old) in enumerate(_FLAGS)})
    rules = ScopaRules(
        players=players,
        target=target,
        re_bello=None if re_bello == packing.NONE else Card(re_bello),
        **values,
    )
    fields = struct.Struct(_PLAY.format + packing.SIDE_FORMAT * rules.sides)
    return _Layout(rules, fields, players + 3 + rules.sides, fmt == _FORMAT)


# ---------------------------------------------------------------- the state


@dataclass(eq=True, kw_only=True, slots=True)
class ScopaState(State[ScopaRules, ScopaView]):
    """A game of Scopa between two moves: everything, hidden cards included."""

    table: tuple[
        Card, ...
    ]  # in the order the cards came (a tuple: the capture search caches by it)
    sweeps: list[int]  # this hand's sweeps by side
    last_capture_side: int | None
    revealed: list[Card] = field(
        default_factory=list
    )  # cards in hands everyone has seen (declared)
    declared: list[int] = field(
        default_factory=list
    )  # this hand's declaration points by side; [] for none
    #: This round's last plays, oldest first, at most :data:`PLAYS_KEPT` turns of
    #: the table (a deque that drops the oldest by itself): each the card played,
    #: then the cards it took in the table's order. Every seat saw them; a deal
    #: starts them again.
    round_plays: deque[tuple[Card, ...]] = field(default_factory=deque)

    def __post_init__(self) -> None:
        self.round_plays = deque(self.round_plays, maxlen=PLAYS_KEPT * self.rules.players)

    name = "scopa"
    title = "Scopa"
    description = N_(
        "The Italian fishing game and its family: take by rank, by sum or by fifteen, "
        "sweep the table."
    )
    player_counts = PLAYER_COUNTS
    tag = 1
    bots = "mazzo.engine.players.fast_scopa"
    # A variant's presets first, then the options given.
    rules_type = ScopaRules.preset
    options = catalog(ScopaRules)

    # ------------------------------------------------------------ dealing

    def deal(self, dealer: int, events: list[Event]) -> None:
        """A hand: the table dealt again while the rules send it back, the dealer's
        side takes a first table worth a sweep (Escoba, Cirulla)."""
        rules = self.rules
        while True:
            deck = self.next_deck()
            hands, rest = deal.deal_round(deck, rules.players, dealer, rules.hand_size)
            table, stock = rest[: rules.table_size], rest[rules.table_size :]
            if not _void_table(rules, table):
                break
            events.append(Redeal(dealer, table))
        if self.fresh_draws:  # keep nothing that orders the cards still to come
            stock, self.rng = deal.unordered(stock), 0
        self.dealer, self.hand_number = dealer, self.hand_number + 1
        self.to_play = (dealer + 1) % rules.players
        self.hands, self.table, self.stock = [list(hand) for hand in hands], table, list(stock)
        self.piles = [[] for _ in range(rules.sides)]
        self.sweeps = [0] * rules.sides
        self.last_capture_side = None
        self.revealed, self.declared = [], []
        self.round_plays = deque(maxlen=PLAYS_KEPT * rules.players)
        events += deal.deal_events(self.hand_number, dealer, table, hands, len(stock))
        bonus = first_table_sweeps(rules.first_table_bonus, table, rules.matta_wild_in_first_table)
        if bonus:
            side = rules.side_of(dealer)
            events.append(FirstTableTaken(dealer, side, table, bonus))
            self.table, self.piles[side], self.sweeps[side] = (), list(table), bonus
            self.last_capture_side = side

    # ------------------------------------------------------------ moves

    def legal_moves(self) -> list[Move]:
        """Every legal move of the seat to play, takings spelled out."""
        if self.winner is not None:
            return []
        rules = self.rules
        seat, table, key = self.to_play, self.table, rules.capture_key
        if not rules.compulsory_capture:
            return self._moves_with_lays()
        return [
            _new(Move, (seat, card, take, False))
            for card in self.hands[seat]
            for take in _captures(RANK_OF[card], table, key)
        ]

    def _moves_with_lays(self) -> list[Move]:
        """Capture optional: each card's takings, then its lay where it could take."""
        seat, table, key = self.to_play, self.table, self.rules.capture_key
        moves = []
        for card in self.hands[seat]:
            takes = _captures(RANK_OF[card], table, key)
            moves += [_new(Move, (seat, card, take, False)) for take in takes]
            if takes is not NO_CAPTURE:
                moves.append(_new(Move, (seat, card, _NOTHING, True)))
        return moves

    def _options(self, card: Card) -> tuple[frozenset[Card], ...]:
        return _captures(RANK_OF[card], self.table, self.rules.capture_key)

    def resolve(self, move: Move) -> Move:
        """Check ``move`` and return it with its taking filled in.

        Raises :class:`IllegalMove` (or :class:`InvalidInput` for a seat that does
        not exist) saying why not.
        """
        # The legal moves' path, checked first because it is the common one.
        seat, card, take, lay = move
        if (
            seat == self.to_play
            and self.winner is None
            and card in self.hands[seat]
            and take in _captures(RANK_OF[card], self.table, self.rules.capture_key)
            and not lay  # a lay's take is empty: a lay that could take goes the long way
        ):
            return move
        if lay and take:
            raise InvalidInput(
                Reason.LAY_WITH_TAKE,
                "{card} cannot be laid and take {take}",
                card=card,
                take=_take_text(take),
            )
        check_turn(
            move,
            players=self.rules.players,
            to_play=self.to_play,
            hand=self.hands[move.seat] if 0 <= move.seat < self.rules.players else (),
            game_over=self.game_over,
        )
        options = self._options(move.card)
        if lay:
            return self._lay(move, options)
        absent = sorted(move.take.difference(self.table))
        if absent:
            raise IllegalMove(
                Reason.CARD_NOT_ON_TABLE, "{cards} not on the table", cards=format_cards(absent)
            )
        if not move.take:
            return self._taking_left_out(move, options)
        raise self._why_not(move, options)

    def _taking_left_out(self, move: Move, options: tuple[frozenset[Card], ...]) -> Move:
        """A move that leaves its taking out: the one it may make, else which to say."""
        compulsory = self.rules.compulsory_capture
        if len(options) == 1 and (compulsory or options == NO_CAPTURE):
            return move._replace(take=options[0])
        choices = tuple(Move(move.seat, move.card, take) for take in options)
        texts = [_take_text(t) for t in options]
        if not compulsory:  # laying it is a choice too
            choices += (Move(move.seat, move.card, _NOTHING, True),)
            texts.append(LAY_TEXT)
        template = (
            N_("{card} can take {takes}: say which")
            if compulsory
            else N_("{card} can take {takes} or be laid: say which")
        )
        raise IllegalMove(
            Reason.CAPTURE_CHOICE_REQUIRED,
            template,
            {"choices": ";".join(texts)},
            choices=choices,
            card=move.card,
            takes=_describe(options),
        )

    def _lay(self, move: Move, options: tuple[frozenset[Card], ...]) -> Move:
        """A card laid to the table without taking: legal unless it must take."""
        if options == NO_CAPTURE or not self.rules.compulsory_capture:
            return move
        raise IllegalMove(
            Reason.MUST_TAKE,
            "{card} must take ({takes}): taking is compulsory",
            {"choices": ";".join(_take_text(t) for t in options)},
            choices=tuple(Move(move.seat, move.card, take) for take in options),
            card=move.card,
            takes=_describe(options),
        )

    def _why_not(self, move: Move, options: Sequence[frozenset[Card]]) -> IllegalMove:
        rules, taken = self.rules, _take_text(move.take)
        rank = RANK_OF[move.card]
        if rules.fewest_cards and move.take in _captures(
            rank, self.table, (rules.capture, rules.ace_takes_all, False)
        ):
            return IllegalMove(
                Reason.MUST_TAKE_FEWEST_CARDS,
                "{card} must take as few cards as it can ({takes}), not {taken}",
                {"choices": ";".join(_take_text(t) for t in options)},
                card=move.card,
                takes=_describe(options),
                taken=taken,
            )
        # MUST_TAKE_SAME_RANK names the Scopa rule a same-rank card blocks; under Cirulla
        # that is a sum to the card's value, and an ace that takes all has no such rule:
        # any other wrong take there is NO_SUCH_CAPTURE (docs/variants.md, Moves).
        same_rank_rule = (
            rules.capture is CaptureRule.SCOPA and not (rules.ace_takes_all and rank == ACE)
        ) or sum(RANK_OF[c] for c in move.take) == rank
        if same_rank_rule and any(len(t) == 1 and RANK_OF[next(iter(t))] == rank for t in options):
            return IllegalMove(
                Reason.MUST_TAKE_SAME_RANK,
                "{card} must take a card of the same rank ({takes}), not {taken}",
                card=move.card,
                takes=_describe(options),
                taken=taken,
            )
        if options == NO_CAPTURE:
            return IllegalMove(
                Reason.NO_SUCH_CAPTURE, "{card} cannot take anything here", card=move.card
            )
        return IllegalMove(
            Reason.NO_SUCH_CAPTURE,
            "{card} cannot take {taken}: it can take {takes}",
            card=move.card,
            taken=taken,
            takes=_describe(options),
        )

    # ------------------------------------------------------------ playing

    def step(
        self, move: Move, events: list[Event] | None = None, entropy: int | None = None
    ) -> None:
        """The card leaves the hand and takes its taking (an empty one lays it: the
        move is read as given, nothing filled in); once every hand is empty the
        stock deals again, and at the hand's end the table's leftovers go to the
        side that took last."""
        seat, card, take, _ = move
        rules = self.rules
        hand = self.hands[seat]
        if rules.declarations and len(hand) == rules.hand_size:
            # Declared when the first card of a fresh hand of three is played.
            self._declare(seat, events)
        if self.revealed and card in self.revealed:
            self.revealed.remove(card)
        hand.remove(card)
        last_of_round = not hand and not any(self.hands)
        if events is not None:
            events.append(_new(CardPlayed, (seat, card)))
        table = self.table
        if take:
            side = self.last_capture_side = seat % 2 if rules.teams else seat
            sweep = len(take) == len(table) and is_sweep(
                rules, card, table, last_card=last_of_round and not self.stock
            )
            if len(take) == 1:  # the usual capture, by rank: cut the one card out
                at = table.index(*take)
                taken, self.table = table[at : at + 1], table[:at] + table[at + 1 :]
            else:
                taken = tuple([c for c in table if c in take])
                self.table = tuple([c for c in table if c not in take])
            pile = self.piles[side]
            pile.append(card)
            pile += taken
            if sweep:
                self.sweeps[side] += 1
            if events is not None:
                events.append(_new(Capture, (seat, side, card, taken, sweep)))
            play: tuple[Card, ...] = (card, *taken)
        else:
            self.table = (*table, card)
            play = (card,)
        self.to_play = (seat + 1) % rules.players
        self.round_plays.append(play)
        if last_of_round:
            if self.stock:
                self._deal_round(events, entropy)
            else:
                self._take_leftovers(events)

    def _deal_round(self, events: list[Event] | None, entropy: int | None) -> None:
        """Every hand is empty and the stock is not: more each, nothing to the table."""
        rules, stock = self.rules, tuple(self.stock)
        if self.fresh_draws:
            stock = deal.fresh_order(stock, entropy)
        hands, rest = deal.deal_round(stock, rules.players, self.dealer, rules.hand_size)
        self.hands = [list(hand) for hand in hands]
        self.stock = list(deal.unordered(rest) if self.fresh_draws else rest)
        self.round_plays.clear()
        if events is not None:
            events += deal.deal_events(self.hand_number, self.dealer, (), hands, len(rest))

    def _take_leftovers(self, events: list[Event] | None) -> None:
        """The hand's last card is played: the table goes to the side that took last."""
        side = self.last_capture_side
        if self.table and side is not None:
            if events is not None:
                events.append(LeftoversTaken(side, self.table))
            self.piles[side] += self.table
            self.table = ()

    def _declare(self, seat: int, events: list[Event] | None) -> None:
        """Cirulla: a hand of three worth a declaration is shown, its points counted."""
        hand = self.hands[seat]
        judged = judge_hand(hand)
        if judged is None:
            return
        kind, points, matta_value = judged
        side = self.rules.side_of(seat)
        if events is not None:
            events.append(Declaration(seat, side, kind, tuple(hand), points, matta_value))
        if not self.declared:
            self.declared = [0] * self.rules.sides
        self.declared[side] += points
        self.revealed += hand

    @property
    def hand_over(self) -> bool:
        # The seat to play holds no card only once every hand is empty, the
        # stock too (an empty round with a stock deals again within the move).
        return not self.hands[self.to_play]

    def hand_scores(self) -> tuple[SideScore, ...]:
        return score_hand(self.rules, self.piles, self.sweeps, self.declared)

    def match_won(self) -> None:
        self.declared = []
        self.round_plays.clear()

    # ------------------------------------------------------------ seeing

    def view(self, seat: int) -> ScopaView:
        """What ``seat`` may see: its hand, the table, the counts, the captured piles,
        and the cards others declared."""
        check_seat(seat, self.rules.players)
        revealed = self.revealed
        return ScopaView(
            seat=seat,
            side=self.rules.side_of(seat),
            hand=tuple(self.hands[seat]),
            table=self.table,
            hand_sizes=tuple(map(len, self.hands)),
            stock_size=len(self.stock),
            piles=tuple(map(tuple, self.piles)),
            sweeps=tuple(self.sweeps),
            status=self.status(),
            known=tuple(
                () if other == seat else tuple(c for c in hand if c in revealed)
                for other, hand in enumerate(self.hands)
            ),
            face=self.rules.face,
            rules=self.rules,
            last_capture_side=self.last_capture_side,
            declared=tuple(self.declared),
            round_plays=tuple(self.round_plays),
        )

    # ------------------------------------------------------------ the compact codec

    def encode(self) -> bytes:
        """The state as compact bytes (about 80 for two players)."""
        out = bytearray(_encode_rules(self.rules))
        out += _PLAY.pack(
            self.dealer,
            self.hand_number,
            self.to_play,
            packing.NONE if self.winner is None else self.winner,
            packing.NONE if self.last_capture_side is None else self.last_capture_side,
            self.rng,
            self.fresh_draws,
        )
        packing.write_sides(out, self.scores, self.sweeps)
        out.append(len(self.declared))
        out += bytes(self.declared)
        packing.write_zones(out, (*self.hands, self.table, self.stock, *self.piles, self.revealed))
        out.append(len(self.round_plays))
        packing.write_zones(out, self.round_plays)
        packing.write_decks(out, self.decks)
        return bytes(out)

    @classmethod
    def read_unchecked(cls, data: bytes) -> ScopaState:
        # On every call's path: one unpack for the fixed fields, one pass of C that
        # maps the zones' bytes to cards, slots set without the keyword __init__.
        # A byte that is no card reads as None, which inconsistencies() refuses.
        rules, fields, zones_count, with_plays = _layout(data[: _RULES.size])
        dealer, hand_number, to_play, winner, last, rng_state, fresh, *counters = (
            fields.unpack_from(data, _RULES.size)
        )
        if fresh > 1:
            raise ValueError("the fresh-draws flag is neither 0 nor 1")
        pos = _RULES.size + fields.size
        declared = list(data[pos + 1 : pos + 1 + data[pos]])
        if len(declared) not in (0, rules.sides):
            raise ValueError("declarations do not match the sides")
        pos += 1 + len(declared)
        span = packing.card_span(data, pos)
        zones, end = packing.split_zones(data, span, pos, pos, zones_count)
        round_plays: Sequence[tuple[Card, ...]] = ()
        if with_plays:
            round_plays, end = packing.split_zones(data, span, pos, end + 1, data[end])
        players = rules.players
        if not (dealer < players and to_play < players):
            raise ValueError("seat out of range")
        state = object.__new__(cls)
        state.rules = rules
        state.dealer = dealer
        state.hand_number = hand_number
        state.to_play = to_play
        state.hands = list(map(list, zones[:players]))
        state.table = zones[players]
        state.stock = list(zones[players + 1])
        state.piles = list(map(list, zones[players + 2 : -1]))
        state.scores = tuple(counters[0::2])
        state.sweeps = counters[1::2]
        state.last_capture_side = None if last == packing.NONE else last
        state.rng = rng_state
        state.decks = packing.read_decks(data, end)
        state.winner = None if winner == packing.NONE else winner
        state.revealed = list(zones[-1])
        state.declared = declared
        state.fresh_draws = bool(fresh)
        state.round_plays = deque(round_plays, maxlen=PLAYS_KEPT * players)
        return state

    def inconsistencies(self) -> list[Text]:
        """What makes the state one no game can reach, so that no later call trips on it."""
        problems = self.counters_out_of_range()
        problems += outside("sweeps", self.sweeps, 0, DECK_SIZE)
        if self.declared:
            # A declaration shows three cards just dealt: at most 13 of them in a hand.
            problems += outside("declaration points", self.declared, 0, _MOST_DECLARED)
        zones = (*self.hands, self.table, self.stock, *self.piles)
        if sum(map(len, zones)) != DECK_SIZE or frozenset().union(*zones) != packing.ALL_CARDS:
            problems.append(Text("the {count} cards are not there once each", count=DECK_SIZE))
        sides = self.rules.sides
        if self.winner is not None and not 0 <= self.winner < sides:
            problems.append(Text("winner out of range"))
        if self.last_capture_side is not None and not 0 <= self.last_capture_side < sides:
            problems.append(Text("last capturing side out of range"))
        if self.revealed and not set(self.revealed).issubset(chain(*self.hands)):
            problems.append(Text("a shown card is not in a hand"))
        if not self._hands_fit_turn():
            problems.append(Text("hand sizes do not fit the turn"))
        if self.round_plays and not self._round_plays_fit():
            problems.append(Text("the round's plays do not fit the cards played"))
        return problems

    def _round_plays_fit(self) -> bool:
        """As many plays as cards played since the deal (at most the turns kept),
        each a card, then what it took; their cards on the table or in a pile, each
        played once."""
        plays, players = self.round_plays, self.rules.players
        played = players * self.rules.hand_size - sum(map(len, self.hands))
        if self.winner is not None or len(plays) != min(played, PLAYS_KEPT * players):
            return False
        if not all(plays) or len(set(map(itemgetter(0), plays))) != len(plays):
            return False
        return frozenset(self.table).union(*self.piles).issuperset(chain(*plays))

    def _hands_fit_turn(self) -> bool:
        """The seats that already played this round (from the seat after the dealer up
        to the seat to play) hold one card fewer than the others; at the end, none."""
        if self.game_over:
            return not any(self.hands)
        players = self.rules.players
        leader = (self.dealer + 1) % players
        return hands_fit(self.hands, self.to_play, leader, (self.to_play - leader) % players)
