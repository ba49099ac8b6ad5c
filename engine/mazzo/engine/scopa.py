"""Scopa and its family: docs/rules.md and docs/variants.md.

One game for every variant: :class:`~mazzo.engine.scopa_rules.ScopaRules` says which
deal, which capture rule, which bonuses. Use it through :data:`SCOPA` (the
:class:`~mazzo.engine.game.Game` registry entry) or the module functions::

    state, events = new_game(ScopaRules.preset("cirulla"), seed=42)
    move = legal_moves(state)[0]
    state, events = apply(state, move)

States are immutable values; every function returns new ones.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain
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
)
from mazzo.engine.game import (
    MAX_HAND_NUMBER,
    MAX_SCORE,
    Game,
    IllegalMove,
    Move,
    Status,
    check_seat,
    check_turn,
    close_hand,
    counters_out_of_range,
    hands_fit,
    outside,
    replace_at,
    status_of,
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

__all__ = [
    "SCOPA",
    "ScopaRules",
    "ScopaState",
    "ScopaView",
    "PrimieraRule",
    "Variant",
    "apply",
    "captures",
    "legal_moves",
    "napola_points",
    "new_game",
    "primiera_total",
    "primiera_winner_of",
    "resolve",
    "score_hand",
    "status",
    "view",
]

QUINDICI = 15
#: Cirulla's wild card, the 7 of cups: wild in the hand declarations only.
MATTA = Card.of(7, CUPS)
DECINO_POINTS = 10
#: The taking of a card that takes nothing.
NO_CAPTURE: tuple[frozenset[Card], ...] = (frozenset(),)
CIRULLA_POINTS = 3
#: States, moves and events are named tuples: tuple.__new__ makes one without the
#: Python-level constructor, for the values made on every move (bots make millions).
_new = tuple.__new__


#: The turns of the table a state keeps of the round's plays (each seat's last
#: two plays: what a player reasons from, :mod:`mazzo.engine.players.scopa_inference`,
#: at a bounded size whatever the hand's size).
PLAYS_KEPT = 2


class ScopaState(NamedTuple):
    """A game of Scopa between two moves: everything, hidden cards included.

    A named tuple rather than a frozen dataclass: ``apply`` makes one per move
    and a tuple is five times cheaper to build (bots make millions). Change one
    with ``state._replace(...)``.
    """

    rules: ScopaRules
    dealer: int
    hand_number: int  # 1 for the first hand
    to_play: int
    hands: tuple[tuple[Card, ...], ...]  # by seat, in the order dealt
    table: tuple[Card, ...]  # in the order the cards came
    stock: tuple[Card, ...]  # stock[0] is the top card
    piles: tuple[tuple[Card, ...], ...]  # captured cards by side
    sweeps: tuple[int, ...]  # this hand's sweeps by side
    last_capture_side: int | None
    scores: tuple[int, ...]  # game score by side, before this hand
    rng: int  # the shuffling generator's state
    decks: tuple[tuple[Card, ...], ...]  # explicit deck orders still to use
    winner: int | None = None
    revealed: tuple[Card, ...] = ()  # cards in hands that everyone has seen (declared)
    declared: tuple[int, ...] = ()  # this hand's declaration points by side; () for none
    #: Started without a seed or decks: ``stock`` is in card order (a set, not a
    #: sequence), ``rng`` is 0, and each deal shuffles with the entropy apply() is given.
    fresh_draws: bool = False
    #: This round's last plays, oldest first, at most :data:`PLAYS_KEPT` turns of
    #: the table: each the card played, then the cards it took in the table's
    #: order. Every seat saw them; a deal starts them again.
    round_plays: tuple[tuple[Card, ...], ...] = ()

    @property
    def game_over(self) -> bool:
        return self.winner is not None


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


# ---------------------------------------------------------------- starting


def _void_table(rules: ScopaRules, table: tuple[Card, ...]) -> bool:
    """A first table the rules send back: three or four kings, or (Cirulla) two aces."""
    ranks = [RANK_OF[c] for c in table]
    return (rules.redeal_kings and ranks.count(KING) >= 3) or (
        rules.redeal_aces and ranks.count(ACE) >= 2
    )


def _start_hand(
    rules: ScopaRules,
    dealer: int,
    hand_number: int,
    scores: tuple[int, ...],
    rng_state: int,
    decks: tuple[tuple[Card, ...], ...],
    fresh: bool = False,
) -> tuple[ScopaState, list[Event]]:
    events: list[Event] = []
    while True:
        rng_state, deck, decks = deal.next_deck(rng_state, decks)
        hands, rest = deal.deal_round(deck, rules.players, dealer, rules.hand_size)
        table, stock = rest[: rules.table_size], rest[rules.table_size :]
        if not _void_table(rules, table):
            break
        events.append(Redeal(dealer, table))
    if fresh:  # keep nothing that orders the cards still to come
        stock, rng_state = deal.unordered(stock), 0
    state = ScopaState(
        rules=rules,
        dealer=dealer,
        hand_number=hand_number,
        to_play=(dealer + 1) % rules.players,
        hands=hands,
        table=table,
        stock=stock,
        piles=((),) * rules.sides,
        sweeps=(0,) * rules.sides,
        last_capture_side=None,
        scores=scores,
        rng=rng_state,
        decks=decks,
        fresh_draws=fresh,
    )
    events.extend(_deal_events(state, table))
    bonus = first_table_sweeps(rules.first_table_bonus, table, rules.matta_wild_in_first_table)
    if bonus:
        side = rules.side_of(dealer)
        events.append(FirstTableTaken(dealer, side, table, bonus))
        state = state._replace(
            table=(),
            piles=replace_at(state.piles, side, table),
            sweeps=replace_at(state.sweeps, side, bonus),
            last_capture_side=side,
        )
    return state, events


#: Shuffle (or take ``decks[0]``) and deal the first hand (mazzo.engine.deal.new_game_of).
new_game = deal.new_game_of(_start_hand)


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


def _deal_events(state: ScopaState, table: tuple[Card, ...]) -> list[Event]:
    return deal.deal_events(state.hand_number, state.dealer, table, state.hands, len(state.stock))


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


def _options(state: ScopaState, card: Card) -> tuple[frozenset[Card], ...]:
    return _captures(RANK_OF[card], state.table, state.rules.capture_key)


def legal_moves(state: ScopaState) -> list[Move]:
    """Every legal move of the seat to play, takings spelled out."""
    if state.winner is not None:
        return []
    rules = state.rules
    if not rules.compulsory_capture:
        return _moves_with_lays(state)
    seat, table, key = state.to_play, state.table, rules.capture_key
    return [
        _new(Move, (seat, card, take, False))
        for card in state.hands[seat]
        for take in _captures(RANK_OF[card], table, key)
    ]


def _moves_with_lays(state: ScopaState) -> list[Move]:
    """Capture optional: each card's takings, then its lay where it could take."""
    seat, table, key = state.to_play, state.table, state.rules.capture_key
    moves = []
    for card in state.hands[seat]:
        takes = _captures(RANK_OF[card], table, key)
        moves += [_new(Move, (seat, card, take, False)) for take in takes]
        if takes is not NO_CAPTURE:
            moves.append(_new(Move, (seat, card, _NOTHING, True)))
    return moves


#: The taking of a card laid to the table.
_NOTHING: frozenset[Card] = NO_CAPTURE[0]


def resolve(state: ScopaState, move: Move) -> Move:
    """Check ``move`` and return it with its taking filled in.

    Raises :class:`IllegalMove` (or :class:`InvalidInput` for a seat that does
    not exist) saying why not.
    """
    # The legal moves' path, checked first because bots take it millions of times.
    seat, card, take, lay = move
    if (
        seat == state.to_play
        and state.winner is None
        and card in state.hands[seat]
        and take in _captures(RANK_OF[card], state.table, state.rules.capture_key)
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
        players=state.rules.players,
        to_play=state.to_play,
        hand=state.hands[move.seat] if 0 <= move.seat < state.rules.players else (),
        game_over=state.game_over,
    )
    options = _options(state, move.card)
    if lay:
        return _lay(state, move, options)
    absent = sorted(move.take.difference(state.table))
    if absent:
        raise IllegalMove(
            Reason.CARD_NOT_ON_TABLE, "{cards} not on the table", cards=format_cards(absent)
        )
    if not move.take:
        if len(options) == 1 and (state.rules.compulsory_capture or options == NO_CAPTURE):
            return move._replace(take=options[0])
        choices = tuple(Move(move.seat, move.card, take) for take in options)
        texts = [_take_text(t) for t in options]
        if not state.rules.compulsory_capture:  # laying it is a choice too
            choices += (Move(move.seat, move.card, _NOTHING, True),)
            texts.append(LAY_TEXT)
        template = (
            N_("{card} can take {takes}: say which")
            if state.rules.compulsory_capture
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
    raise _why_not(state, move, options)


#: How the ``choices`` metadata names the lay of the card.
LAY_TEXT = "lay"


def _lay(state: ScopaState, move: Move, options: tuple[frozenset[Card], ...]) -> Move:
    """A card laid to the table without taking: legal unless it must take."""
    if options == NO_CAPTURE or not state.rules.compulsory_capture:
        return move
    raise IllegalMove(
        Reason.MUST_TAKE,
        "{card} must take ({takes}): taking is compulsory",
        {"choices": ";".join(_take_text(t) for t in options)},
        choices=tuple(Move(move.seat, move.card, take) for take in options),
        card=move.card,
        takes=_describe(options),
    )


def _why_not(state: ScopaState, move: Move, options: Sequence[frozenset[Card]]) -> IllegalMove:
    rules, taken = state.rules, _take_text(move.take)
    rank = RANK_OF[move.card]
    if rules.fewest_cards and move.take in _captures(
        rank, state.table, (rules.capture, rules.ace_takes_all, False)
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


def _take_text(take: frozenset[Card]) -> str:
    return "+".join(str(c) for c in sorted(take))


def _describe(options: Sequence[frozenset[Card]]) -> Listing:
    return Listing((_take_text(t) for t in options), N_(" or "))


# ---------------------------------------------------------------- playing


def apply(
    state: ScopaState, move: Move, entropy: int | None = None
) -> tuple[ScopaState, list[Event]]:
    """Play ``move``; return the new state and what happened.

    ``entropy`` (64 bits) shuffles the cards a deal takes in a game started with
    ``fresh=True``, and must then be given; seeded games ignore it.
    """
    seat, card, take, _ = resolve(state, move)
    # One unpacking instead of a dozen attribute reads: this runs on every move.
    (rules, dealer, hand_number, _, hands, table, stock, piles, sweeps, last_capture_side,
     scores, rng_state, decks, _, revealed, declared, fresh, round_plays) = state  # fmt: skip
    events: list[Event] = []
    hand = hands[seat]
    if rules.declarations and len(hand) == rules.hand_size:
        # Declared when the first card of a fresh hand of three is played.
        revealed, declared = _declare(state, seat, events)
    if revealed and card in revealed:
        revealed = tuple([c for c in revealed if c != card])
    at = hand.index(card)
    hands = (*hands[:seat], hand[:at] + hand[at + 1 :], *hands[seat + 1 :])
    hands_empty = not any(hands)
    events.append(_new(CardPlayed, (seat, card)))
    if take:
        side = last_capture_side = seat % 2 if rules.teams else seat
        sweep = len(take) == len(table) and is_sweep(
            rules, card, table, last_card=hands_empty and not stock
        )
        if len(take) == 1:  # the usual capture, by rank: cut the one card out
            at = table.index(*take)
            taken, table = table[at : at + 1], table[:at] + table[at + 1 :]
        else:
            taken = tuple([c for c in table if c in take])
            table = tuple([c for c in table if c not in take])
        piles = replace_at(piles, side, (*piles[side], card, *taken))
        if sweep:
            sweeps = replace_at(sweeps, side, sweeps[side] + 1)
        events.append(_new(Capture, (seat, side, card, taken, sweep)))
        play: tuple[Card, ...] = (card, *taken)
    else:
        table = (*table, card)
        play = (card,)
    round_plays = (*round_plays[1 - PLAYS_KEPT * rules.players :], play)
    dealt_more = hands_empty and bool(stock)
    if dealt_more:
        round_plays = ()
        # Every hand is empty and the stock is not: more each, nothing to the table.
        if fresh:
            stock = deal.fresh_order(stock, entropy)
        hands, stock = deal.deal_round(stock, rules.players, dealer, rules.hand_size)
        if fresh:
            stock = deal.unordered(stock)
    state = _new(
        ScopaState,
        (
            rules,
            dealer,
            hand_number,
            (seat + 1) % rules.players,
            hands,
            table,
            stock,
            piles,
            sweeps,
            last_capture_side,
            scores,
            rng_state,
            decks,
            None,
            revealed,
            declared,
            fresh,
            round_plays,
        ),
    )
    if dealt_more:
        events.extend(_deal_events(state, ()))
    elif hands_empty:
        if fresh:  # the next hand, if any, is shuffled with this move's entropy
            state = state._replace(rng=deal.required_entropy(entropy))
        return _end_hand(state, events)
    return state, events


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


def _declare(
    state: ScopaState, seat: int, events: list[Event]
) -> tuple[tuple[Card, ...], tuple[int, ...]]:
    hand = state.hands[seat]
    judged = judge_hand(hand)
    if judged is None:
        return state.revealed, state.declared
    kind, points, matta_value = judged
    side = state.rules.side_of(seat)
    events.append(Declaration(seat, side, kind, hand, points, matta_value))
    declared = state.declared or (0,) * state.rules.sides
    return (*state.revealed, *hand), replace_at(declared, side, declared[side] + points)


def _end_hand(state: ScopaState, events: list[Event]) -> tuple[ScopaState, list[Event]]:
    if state.table and state.last_capture_side is not None:
        side = state.last_capture_side
        events.append(LeftoversTaken(side, state.table))
        piles = replace_at(state.piles, side, state.piles[side] + state.table)
        state = state._replace(piles=piles, table=())
    sides = score_hand(state.rules, state.piles, state.sweeps, state.declared)
    return close_hand(state, sides, events, _start_hand, declared=(), round_plays=())


# ---------------------------------------------------------------- seeing


def status(state: ScopaState) -> Status:
    return status_of("scopa", state)


def view(state: ScopaState, seat: int) -> ScopaView:
    """What ``seat`` may see: its hand, the table, the counts, the captured piles,
    and the cards others declared."""
    check_seat(seat, state.rules.players)
    return ScopaView(
        seat=seat,
        side=state.rules.side_of(seat),
        hand=state.hands[seat],
        table=state.table,
        hand_sizes=tuple(len(h) for h in state.hands),
        stock_size=len(state.stock),
        piles=state.piles,
        sweeps=state.sweeps,
        status=status(state),
        known=tuple(
            () if other == seat else tuple(c for c in hand if c in state.revealed)
            for other, hand in enumerate(state.hands)
        ),
        face=state.rules.face,
        rules=state.rules,
        last_capture_side=state.last_capture_side,
        declared=state.declared,
        round_plays=state.round_plays,
    )


# ---------------------------------------------------------------- the compact codec

#: 4: the round's plays after the shown cards. Format 3 (without them) is still
#: read, as a state whose round's plays are unknown (``()``), so that games in
#: progress survive the upgrade.
_FORMAT = 4
_FORMATS = (3, _FORMAT)
_NONE = 0xFF
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
        _NONE if rules.re_bello is None else rules.re_bello,
    )


def _decode_rules(data: memoryview) -> ScopaRules:
    return _rules_from_bytes(bytes(data[: _RULES.size]))


@lru_cache(maxsize=256)
def _rules_from_bytes(data: bytes) -> ScopaRules:
    # Cached: rules are immutable, and a server sees the same few again and again.
    fmt, players, target, *enums, flags, re_bello = _RULES.unpack_from(data)
    if fmt not in _FORMATS:
        raise ValueError(f"unknown Scopa state format {fmt}")
    if flags >> len(_FLAGS):
        raise ValueError(f"unknown option bits {flags:#x}")
    values = {name: members[i] for (name, members), i in zip(_ENUMS, enums, strict=True)}
    values.update({name: bool(flags >> i & 1) is not old for i, (name, old) in enumerate(_FLAGS)})
    return ScopaRules(
        players=players,
        target=target,
        re_bello=None if re_bello == _NONE else Card(re_bello),
        **values,
    )


def encode(state: ScopaState) -> bytes:
    """The state as compact bytes (about 80 for two players)."""
    out = bytearray(_encode_rules(state.rules))
    out += _PLAY.pack(
        state.dealer,
        state.hand_number,
        state.to_play,
        _NONE if state.winner is None else state.winner,
        _NONE if state.last_capture_side is None else state.last_capture_side,
        state.rng,
        state.fresh_draws,
    )
    packing.write_sides(out, state.scores, state.sweeps)
    out.append(len(state.declared))
    out += bytes(state.declared)
    packing.write_zones(out, (*state.hands, state.table, state.stock, *state.piles, state.revealed))
    out.append(len(state.round_plays))
    packing.write_zones(out, state.round_plays)
    packing.write_decks(out, state.decks)
    return bytes(out)


def decode(data: bytes) -> ScopaState:
    """Read :func:`encode`'s bytes back; ``InvalidInput(STATE_CORRUPT)`` if they are not."""
    return packing.decode_authentic(data, _read_whole, _decode, _inconsistencies)


class _Layout(NamedTuple):
    """What the rules of a state say of the bytes after them."""

    rules: ScopaRules
    fields: struct.Struct  # the play's fields, then each side's score and sweeps
    with_plays: bool  # format 4: the round's plays follow the zones
    players: int
    sides: int


@lru_cache(maxsize=256)
def _layout(head: bytes) -> _Layout | None:
    """The layout of a state whose first bytes are ``head``, or None when they name
    no rules (cached: a server sees the same few rules again and again)."""
    try:
        rules = _rules_from_bytes(head)
    except packing.UNREAD:
        return None
    fields = struct.Struct(_PLAY.format + "IB" * rules.sides)
    return _Layout(rules, fields, head[0] == _FORMAT, rules.players, rules.sides)


#: The most declaration points a side may hold: a declaration shows three cards
#: just dealt, so at most 13 of them in a hand.
_MOST_DECLARED = DECINO_POINTS * (DECK_SIZE // 3)


def _read_whole(data: bytes) -> ScopaState | None:
    """The state in ``data`` when it is whole: what :func:`_decode` reads, when
    :func:`_inconsistencies` finds nothing wrong with it; else None."""
    layout = _layout(data[: _RULES.size])
    if layout is None:
        return None
    rules, fields, with_plays, players, sides = layout
    dealer, hand_number, to_play, winner, last, rng_state, fresh, *counters = fields.unpack_from(
        data, _RULES.size
    )
    scores, sweeps = tuple(counters[0::2]), tuple(counters[1::2])
    pos = _RULES.size + fields.size
    declared = tuple(data[pos + 1 : pos + 1 + data[pos]])
    pos += 1 + len(declared)
    span = packing.card_span(data, pos)
    zones, end = packing.split_zones(data, span, pos, pos, players + 3 + sides)
    revealed = zones[-1]
    # The cards of the hands, the table, the stock and the piles: the zones' bytes
    # but for their lengths and the shown cards'.
    dealt_count = end - pos - len(zones) - len(revealed)
    plays: list[tuple[Card, ...]] = []
    if with_plays:
        plays, end = packing.split_zones(data, span, pos, end + 1, data[end])
    decks = packing.split_decks(data, end)
    dealt = zones[:-1]
    hands = tuple(zones[:players])
    if (
        decks is None
        or fresh > 1
        or len(declared) not in (0, sides)
        or dealer >= players
        or to_play >= players
        or not 1 <= hand_number <= MAX_HAND_NUMBER
        or max(scores) > MAX_SCORE
        or max(sweeps) > DECK_SIZE
        or (declared and max(declared) > _MOST_DECLARED)
        or dealt_count != DECK_SIZE
        or frozenset().union(*dealt) != packing.ALL_CARDS
        or (winner != _NONE and winner >= sides)
        or (last != _NONE and last >= sides)
        or (revealed and not frozenset(revealed).issubset(chain(*hands)))
    ):
        return None
    state: ScopaState = _new(
        ScopaState,
        (
            rules,
            dealer,
            hand_number,
            to_play,
            hands,
            zones[players],
            zones[players + 1],
            tuple(zones[players + 2 : -1]),
            sweeps,
            None if last == _NONE else last,
            scores,
            rng_state,
            decks,
            None if winner == _NONE else winner,
            revealed,
            declared,
            bool(fresh),
            tuple(plays),
        ),
    )
    if not _hands_fit_turn(state) or (plays and not _round_plays_fit(state)):
        return None
    return state


def _decode(data: memoryview) -> ScopaState:
    rules = _decode_rules(data)
    dealer, hand_number, to_play, winner, last, rng_state, fresh = _PLAY.unpack_from(
        data, _RULES.size
    )
    if fresh > 1:
        raise ValueError("the fresh-draws flag is neither 0 nor 1")
    pos = _RULES.size + _PLAY.size
    scores, sweeps, pos = packing.read_sides(data, pos, rules.sides)
    declared = tuple(data[pos + 1 : pos + 1 + data[pos]])
    if len(declared) not in (0, rules.sides):
        raise ValueError("declarations do not match the sides")
    pos += 1 + len(declared)
    players = rules.players
    zones, pos = packing.read_zones(data, pos, players + 3 + rules.sides)
    round_plays: list[tuple[Card, ...]] = []
    if data[0] == _FORMAT:
        round_plays, pos = packing.read_zones(data, pos + 1, data[pos])
    decks = packing.read_decks(data, pos)
    if not (0 <= dealer < players and 0 <= to_play < players):
        raise ValueError("seat out of range")
    return ScopaState(
        rules=rules,
        dealer=dealer,
        hand_number=hand_number,
        to_play=to_play,
        hands=tuple(zones[:players]),
        table=zones[players],
        stock=zones[players + 1],
        piles=tuple(zones[players + 2 : players + 2 + rules.sides]),
        sweeps=sweeps,
        last_capture_side=None if last == _NONE else last,
        scores=scores,
        rng=rng_state,
        decks=decks,
        winner=None if winner == _NONE else winner,
        revealed=zones[-1],
        declared=declared,
        fresh_draws=bool(fresh),
        round_plays=tuple(round_plays),
    )


def _out_of_range(state: ScopaState) -> list[Text]:
    """Every counter of a decoded state within what a game can reach (seats are checked
    on reading, cards by the 40-card check)."""
    # A declaration shows three cards just dealt: at most 13 of them in a hand.
    declarations = DECK_SIZE // 3
    return [
        *counters_out_of_range(state),
        *outside("sweeps", state.sweeps, 0, DECK_SIZE),
        *outside("declaration points", state.declared, 0, DECINO_POINTS * declarations),
    ]


def _inconsistencies(state: ScopaState) -> list[Text]:
    """What makes the state one no game can reach, so that no later call trips on it."""
    sides = state.rules.sides
    problems = _out_of_range(state)
    cards = [c for zone in (*state.hands, state.table, state.stock, *state.piles) for c in zone]
    if len(cards) != DECK_SIZE or len(set(cards)) != DECK_SIZE:
        problems.append(Text("the 40 cards are not there once each"))
    if state.winner is not None and not 0 <= state.winner < sides:
        problems.append(Text("winner out of range"))
    if state.last_capture_side is not None and not 0 <= state.last_capture_side < sides:
        problems.append(Text("last capturing side out of range"))
    if not set(state.revealed) <= {c for hand in state.hands for c in hand}:
        problems.append(Text("a shown card is not in a hand"))
    if not _hands_fit_turn(state):
        problems.append(Text("hand sizes do not fit the turn"))
    if state.round_plays and not _round_plays_fit(state):
        problems.append(Text("the round's plays do not fit the cards played"))
    return problems


def _round_plays_fit(state: ScopaState) -> bool:
    """As many plays as cards played since the deal (at most the turns kept),
    each a card, then what it took; their cards on the table or in a pile, each
    played once."""
    rules, plays = state.rules, state.round_plays
    played = rules.players * rules.hand_size - sum(map(len, state.hands))
    kept = min(played, PLAYS_KEPT * rules.players)
    if state.game_over or len(plays) != kept or not all(plays):
        return False
    shown = frozenset(state.table).union(*state.piles)
    return len({play[0] for play in plays}) == len(plays) and shown.issuperset(chain(*plays))


def _hands_fit_turn(state: ScopaState) -> bool:
    """The seats that already played this round (from the seat after the dealer up
    to the seat to play) hold one card fewer than the others; at the end, none."""
    if state.game_over:
        return not any(state.hands)
    players = state.rules.players
    leader = (state.dealer + 1) % players
    return hands_fit(state.hands, state.to_play, leader, (state.to_play - leader) % players)


# ---------------------------------------------------------------- the registry entry


SCOPA = Game(
    name="scopa",
    title="Scopa",
    description=N_(
        "The Italian fishing game and its family: take by rank, by sum or by fifteen, "
        "sweep the table."
    ),
    player_counts=PLAYER_COUNTS,
    options=catalog(ScopaRules),
    new_game=new_game,
    legal_moves=legal_moves,
    resolve=resolve,
    apply=apply,
    view=view,
    status=status,
    encode=encode,
    decode=decode,
    make_rules=ScopaRules.preset,
    bots="mazzo.engine.players.fast_scopa",
)
