"""Scopa: the rules of RULES.md's Scopa section, for 2, 3, 4 and 6 players.

Use it through :data:`SCOPA` (the :class:`~engine.game.Game` protocol) or the
module functions::

    state, events = new_game(ScopaRules(players=2), seed=42)
    move = legal_moves(state)[0]
    state, events = apply(state, move)

States are immutable values; every function returns new ones.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import lru_cache

from engine import deal, packing
from engine.cards import (
    COINS,
    DECK_SIZE,
    KING,
    RANK_OF,
    SETTEBELLO,
    Card,
    format_cards,
)
from engine.errors import IllegalMove, InvalidInput, Reason
from engine.events import (
    Capture,
    CardPlayed,
    CardsDealt,
    Deal,
    Event,
    GameOver,
    HandScored,
    LeftoversTaken,
    Redeal,
    SideScore,
)
from engine.game import (
    Move,
    OptionSpec,
    Status,
    check_seat,
    check_turn,
    game_winner,
    hands_fit,
    replace_at,
    unique_best,
)

PLAYER_COUNTS = (2, 3, 4, 6)
HAND_SIZE = 3
FIRST_TABLE_SIZE = 4
MAX_TARGET = 1000

#: Primiera values of ranks 1..10 (index 0 unused).
PRIMIERA_SCALE = (0, 16, 12, 13, 14, 15, 18, 21, 10, 10, 10)
#: The sevens rule compares counts of these ranks, in this order.
SEVENS_ORDER = (7, 6, 5, 4, 3, 2, 1)


class PrimieraRule(StrEnum):
    """How the primiera point is decided (RULES.md, Scopa, Points of a hand)."""

    STANDARD = "standard"  # scale totals; a side lacking a suit has none (seed 000)
    SEVENS = "sevens"  # most sevens, then sixes, ... (seed 002)
    LENIENT = "lenient"  # lacking a suit wins only if every side lacks one (seed 003)


@dataclass(frozen=True, slots=True)
class ScopaRules:
    players: int = 2
    target: int = 11
    napola: bool = False
    primiera: PrimieraRule = PrimieraRule.STANDARD

    def __post_init__(self) -> None:
        try:
            # Accept the option's text ("sevens") as well as the member.
            object.__setattr__(self, "primiera", PrimieraRule(self.primiera))
        except ValueError:
            allowed = ", ".join(r.value for r in PrimieraRule)
            raise InvalidInput(
                Reason.INVALID_OPTION,
                f"primiera must be one of {allowed}, not {self.primiera!r}",
                {"option": "primiera"},
            ) from None
        if type(self.players) is not int or self.players not in PLAYER_COUNTS:
            raise InvalidInput(
                Reason.INVALID_PLAYERS,
                f"Scopa is played by 2, 3, 4 or 6 players, not {self.players}",
            )
        if type(self.target) is not int or not 1 <= self.target <= MAX_TARGET:
            raise InvalidInput(
                Reason.INVALID_OPTION,
                f"target must be between 1 and {MAX_TARGET}, not {self.target}",
                {"option": "target"},
            )

    @property
    def teams(self) -> bool:
        return self.players in (4, 6)

    @property
    def sides(self) -> int:
        return 2 if self.teams else self.players

    def side_of(self, seat: int) -> int:
        """Seats 0+2(+4) against 1+3(+5) with teams; every player alone otherwise."""
        return seat % 2 if self.teams else seat


@dataclass(frozen=True, slots=True)
class ScopaState:
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

    @property
    def game_over(self) -> bool:
        return self.winner is not None


@dataclass(frozen=True, slots=True)
class ScopaView:
    """What one seat may see: RULES.md, Hidden information."""

    seat: int
    side: int
    hand: tuple[Card, ...]
    table: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    stock_size: int
    piles: tuple[tuple[Card, ...], ...]
    sweeps: tuple[int, ...]
    status: Status


# ---------------------------------------------------------------- starting


def new_game(
    rules: ScopaRules,
    *,
    seed: int,
    decks: Sequence[Sequence[Card]] = (),
    first_dealer: int | None = None,
) -> tuple[ScopaState, list[Event]]:
    """Shuffle (or take ``decks[0]``) and deal the first hand."""
    return _start_hand(
        rules,
        deal.first_dealer(rules.players, first_dealer),
        1,
        (0,) * rules.sides,
        deal.check_seed(seed),
        deal.check_decks(decks),
    )


def _start_hand(
    rules: ScopaRules,
    dealer: int,
    hand_number: int,
    scores: tuple[int, ...],
    rng_state: int,
    decks: tuple[tuple[Card, ...], ...],
) -> tuple[ScopaState, list[Event]]:
    events: list[Event] = []
    while True:
        rng_state, deck, decks = deal.next_deck(rng_state, decks)
        hands, rest = deal.deal_round(deck, rules.players, dealer, HAND_SIZE)
        table, stock = rest[:FIRST_TABLE_SIZE], rest[FIRST_TABLE_SIZE:]
        if sum(1 for c in table if c.rank == KING) < 3:
            break
        # Three or four kings cannot all be taken by sums: the table is void.
        events.append(Redeal(dealer, table))
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
    )
    events.extend(_deal_events(state, table))
    return state, events


def _deal_events(state: ScopaState, table: tuple[Card, ...]) -> list[Event]:
    events: list[Event] = [
        Deal(
            hand_number=state.hand_number,
            dealer=state.dealer,
            table=table,
            hand_sizes=tuple(len(h) for h in state.hands),
            stock_size=len(state.stock),
        )
    ]
    events.extend(CardsDealt(seat, hand) for seat, hand in enumerate(state.hands))
    return events


# ---------------------------------------------------------------- captures


def captures(card: Card, table: Sequence[Card]) -> list[frozenset[Card]]:
    """Every taking ``card`` may make from ``table``; ``[frozenset()]`` if none.

    Same rank first and compulsory (one card, any of them); otherwise every set
    of two or more cards summing to the card's value.
    """
    return list(_captures(RANK_OF[card], tuple(table)))


@lru_cache(maxsize=4096)
def _captures(rank: int, table: tuple[Card, ...]) -> tuple[frozenset[Card], ...]:
    # Cached: a move is generated, checked and applied on the same table.
    same_rank = tuple(frozenset((t,)) for t in table if RANK_OF[t] == rank)
    if same_rank:
        return same_rank
    sums = tuple(frozenset(s) for s in _subsets_summing_to(rank, table, 0) if len(s) >= 2)
    return sums or (frozenset(),)


def _subsets_summing_to(
    total: int, cards: tuple[Card, ...], start: int
) -> Iterator[tuple[Card, ...]]:
    """Subsets of ``cards[start:]`` whose ranks sum to ``total`` (ranks are positive)."""
    for i in range(start, len(cards)):
        rank = RANK_OF[cards[i]]
        if rank == total:
            yield (cards[i],)
        elif rank < total:
            for rest in _subsets_summing_to(total - rank, cards, i + 1):
                yield (cards[i], *rest)


def legal_moves(state: ScopaState) -> list[Move]:
    """Every legal move of the seat to play, takings spelled out."""
    if state.game_over:
        return []
    seat, table = state.to_play, state.table
    return [
        Move(seat, card, take)
        for card in state.hands[seat]
        for take in _captures(RANK_OF[card], table)
    ]


def resolve(state: ScopaState, move: Move) -> Move:
    """Check ``move`` and return it with its taking filled in.

    Raises :class:`IllegalMove` (or :class:`InvalidInput` for a seat that does
    not exist) saying why not.
    """
    check_turn(
        move,
        players=state.rules.players,
        to_play=state.to_play,
        hand=state.hands[move.seat] if 0 <= move.seat < state.rules.players else (),
        game_over=state.game_over,
    )
    options = _captures(RANK_OF[move.card], state.table)
    if move.take in options:
        return move
    absent = sorted(move.take.difference(state.table))
    if absent:
        raise IllegalMove(Reason.CARD_NOT_ON_TABLE, f"{format_cards(absent)} not on the table")
    if not move.take:
        if len(options) == 1:
            return move._replace(take=options[0])
        choices = tuple(Move(move.seat, move.card, take) for take in options)
        raise IllegalMove(
            Reason.CAPTURE_CHOICE_REQUIRED,
            f"{move.card} can take {_describe(options)}: say which",
            {"choices": ";".join(_take_text(t) for t in options)},
            choices=choices,
        )
    raise _why_not(move, options)


def _why_not(move: Move, options: Sequence[frozenset[Card]]) -> IllegalMove:
    taken = _take_text(move.take)
    if any(len(t) == 1 and next(iter(t)).rank == move.card.rank for t in options):
        return IllegalMove(
            Reason.MUST_TAKE_SAME_RANK,
            f"{move.card} must take a card of the same rank ({_describe(options)}), not {taken}",
        )
    if options == (frozenset(),):
        return IllegalMove(Reason.NO_SUCH_CAPTURE, f"{move.card} cannot take anything here")
    return IllegalMove(
        Reason.NO_SUCH_CAPTURE,
        f"{move.card} cannot take {taken}: it can take {_describe(options)}",
    )


def _take_text(take: frozenset[Card]) -> str:
    return "+".join(str(c) for c in sorted(take))


def _describe(options: Sequence[frozenset[Card]]) -> str:
    return " or ".join(_take_text(t) for t in options)


# ---------------------------------------------------------------- playing


def apply(state: ScopaState, move: Move) -> tuple[ScopaState, list[Event]]:
    """Play ``move``; return the new state and what happened."""
    seat, card, take = resolve(state, move)
    rules = state.rules
    hand = tuple(c for c in state.hands[seat] if c != card)
    hands = (*state.hands[:seat], hand, *state.hands[seat + 1 :])
    events: list[Event] = [CardPlayed(seat, card)]
    table, piles, sweeps, last_capture_side = (
        state.table,
        state.piles,
        state.sweeps,
        state.last_capture_side,
    )
    if take:
        side = last_capture_side = rules.side_of(seat)
        taken = tuple(c for c in table if c in take)
        table = tuple(c for c in table if c not in take)
        # No sweep with the last card of the hand.
        sweep = not table and (bool(state.stock) or any(hands))
        piles = replace_at(piles, side, (*piles[side], card, *taken))
        if sweep:
            sweeps = replace_at(sweeps, side, sweeps[side] + 1)
        events.append(Capture(seat, side, card, taken, sweep))
    else:
        table = (*table, card)
    stock = state.stock
    dealt_more = not any(hands) and bool(stock)
    if dealt_more:
        # Every hand is empty and the stock is not: 3 more each, nothing to the table.
        hands, stock = deal.deal_round(stock, rules.players, state.dealer, HAND_SIZE)
    state = ScopaState(
        rules,
        state.dealer,
        state.hand_number,
        (seat + 1) % rules.players,
        hands,
        table,
        stock,
        piles,
        sweeps,
        last_capture_side,
        state.scores,
        state.rng,
        state.decks,
    )
    if dealt_more:
        events.extend(_deal_events(state, ()))
    elif not any(hands):
        return _end_hand(state, events)
    return state, events


def _end_hand(state: ScopaState, events: list[Event]) -> tuple[ScopaState, list[Event]]:
    if state.table and state.last_capture_side is not None:
        side = state.last_capture_side
        events.append(LeftoversTaken(side, state.table))
        piles = replace_at(state.piles, side, state.piles[side] + state.table)
        state = replace(state, piles=piles, table=())
    sides = score_hand(state.rules, state.piles, state.sweeps)
    scores = tuple(old + s.total for old, s in zip(state.scores, sides, strict=True))
    events.append(HandScored(state.hand_number, sides, scores))
    winner = game_winner(scores, state.rules.target)
    if winner is not None:
        events.append(GameOver(winner, scores))
        return replace(state, scores=scores, winner=winner), events
    next_state, deal_events = _start_hand(
        state.rules,
        (state.dealer + 1) % state.rules.players,
        state.hand_number + 1,
        scores,
        state.rng,
        state.decks,
    )
    events.extend(deal_events)
    return next_state, events


# ---------------------------------------------------------------- scoring


def score_hand(
    rules: ScopaRules, piles: Sequence[Sequence[Card]], sweeps: Sequence[int]
) -> tuple[SideScore, ...]:
    """Every side's points for one hand: RULES.md, Scopa, Points of a hand."""
    counts = [len(p) for p in piles]
    coins = [sum(1 for c in p if c.suit == COINS) for p in piles]
    cards_winner = unique_best(counts)
    coins_winner = unique_best(coins)
    primiera_winner = primiera_winner_of(rules.primiera, piles)
    return tuple(
        SideScore(
            side=side,
            cards=counts[side],
            denari=coins[side],
            primiera=primiera_total(pile),
            cards_point=int(cards_winner == side),
            denari_point=int(coins_winner == side),
            settebello_point=int(SETTEBELLO in pile),
            primiera_point=int(primiera_winner == side),
            sweeps=sweeps[side],
            napola=napola_points(pile) if rules.napola else 0,
        )
        for side, pile in enumerate(piles)
    )


def primiera_total(pile: Sequence[Card]) -> int:
    """Sum over the suits present of the best card's primiera value."""
    best = [0, 0, 0, 0]
    for card in pile:
        best[card.suit] = max(best[card.suit], PRIMIERA_SCALE[card.rank])
    return sum(best)


def _has_every_suit(pile: Sequence[Card]) -> bool:
    return len({c.suit for c in pile}) == 4


def primiera_winner_of(rule: PrimieraRule, piles: Sequence[Sequence[Card]]) -> int | None:
    """The side that wins the primiera point under ``rule``; ``None`` on a tie."""
    if rule is PrimieraRule.SEVENS:
        keys = [tuple(sum(1 for c in p if c.rank == r) for r in SEVENS_ORDER) for p in piles]
        return unique_best(keys)
    complete = [_has_every_suit(p) for p in piles]
    if rule is PrimieraRule.LENIENT and not any(complete):
        # Every side lacks a suit: compare what they have.
        return unique_best([primiera_total(p) for p in piles])
    totals = [primiera_total(p) if full else -1 for p, full in zip(piles, complete, strict=True)]
    if max(totals) < 0:
        return None
    return unique_best(totals)


def napola_points(pile: Sequence[Card]) -> int:
    """Length of the run of coins from the ace, when it reaches the 3; else 0."""
    coins = {c.rank for c in pile if c.suit == COINS}
    run = 0
    while run + 1 in coins:
        run += 1
    return run if run >= 3 else 0


# ---------------------------------------------------------------- seeing


def status(state: ScopaState) -> Status:
    return Status(
        game="scopa",
        players=state.rules.players,
        seat_to_play=None if state.game_over else state.to_play,
        dealer=state.dealer,
        hand_number=state.hand_number,
        scores=state.scores,
        winning_side=state.winner,
        target=state.rules.target,
    )


def view(state: ScopaState, seat: int) -> ScopaView:
    """What ``seat`` may see: its hand, the table, the counts, the captured piles."""
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
    )


# ---------------------------------------------------------------- the compact codec

_FORMAT = 1
_NONE = 0xFF
_HEADER = struct.Struct(">BBHBBIBBBQ")
_SIDE = struct.Struct(">IB")
_PRIMIERA_CODES = tuple(PrimieraRule)


def encode(state: ScopaState) -> bytes:
    """The state as compact bytes (about 70 for two players)."""
    rules = state.rules
    flags = int(rules.napola) | _PRIMIERA_CODES.index(rules.primiera) << 1
    out = bytearray(
        _HEADER.pack(
            _FORMAT,
            rules.players,
            rules.target,
            flags,
            state.dealer,
            state.hand_number,
            state.to_play,
            _NONE if state.winner is None else state.winner,
            _NONE if state.last_capture_side is None else state.last_capture_side,
            state.rng,
        )
    )
    for score, sweeps in zip(state.scores, state.sweeps, strict=True):
        out += _SIDE.pack(score, sweeps)
    packing.write_zones(out, (*state.hands, state.table, state.stock, *state.piles))
    packing.write_decks(out, state.decks)
    return bytes(out)


def decode(data: bytes) -> ScopaState:
    """Read :func:`encode`'s bytes back; ``InvalidInput(STATE_CORRUPT)`` if they are not."""
    try:
        state = _decode(memoryview(data))
    except (struct.error, IndexError, ValueError, KeyError, InvalidInput) as exc:
        raise InvalidInput(Reason.STATE_CORRUPT, f"the state does not decode: {exc}") from exc
    _check_cards_accounted(state)
    _check_consistent(state)
    return state


def _decode(data: memoryview) -> ScopaState:
    fields = _HEADER.unpack_from(data)
    fmt, players, target, flags, dealer, hand_number, to_play, winner, last, rng_state = fields
    if fmt != _FORMAT:
        raise ValueError(f"unknown Scopa state format {fmt}")
    rules = ScopaRules(players, target, bool(flags & 1), _PRIMIERA_CODES[flags >> 1])
    pos = _HEADER.size
    scores, sweeps = [], []
    for _ in range(rules.sides):
        score, sweep = _SIDE.unpack_from(data, pos)
        scores.append(score)
        sweeps.append(sweep)
        pos += _SIDE.size
    zones, pos = packing.read_zones(data, pos, players + 2 + rules.sides)
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
        piles=tuple(zones[players + 2 :]),
        sweeps=tuple(sweeps),
        last_capture_side=None if last == _NONE else last,
        scores=tuple(scores),
        rng=rng_state,
        decks=decks,
        winner=None if winner == _NONE else winner,
    )


def _check_consistent(state: ScopaState) -> None:
    """Refuse states no game can reach, so that no later call trips on one."""
    sides = state.rules.sides
    problems = []
    if state.winner is not None and not 0 <= state.winner < sides:
        problems.append("winner out of range")
    if state.last_capture_side is not None and not 0 <= state.last_capture_side < sides:
        problems.append("last capturing side out of range")
    if state.hand_number < 1:
        problems.append("hand number below 1")
    if not _hands_fit_turn(state):
        problems.append("hand sizes do not fit the turn")
    if problems:
        raise InvalidInput(
            Reason.STATE_CORRUPT, "the state is inconsistent: " + ", ".join(problems)
        )


def _hands_fit_turn(state: ScopaState) -> bool:
    """The seats that already played this round (from the seat after the dealer up
    to the seat to play) hold one card fewer than the others; at the end, none."""
    if state.game_over:
        return not any(state.hands)
    players = state.rules.players
    leader = (state.dealer + 1) % players
    played = {(leader + k) % players for k in range((state.to_play - leader) % players)}
    return hands_fit(state.hands, state.to_play, played)


def _check_cards_accounted(state: ScopaState) -> None:
    cards = [c for zone in (*state.hands, state.table, state.stock, *state.piles) for c in zone]
    if len(cards) != DECK_SIZE or len(set(cards)) != DECK_SIZE:
        raise InvalidInput(Reason.STATE_CORRUPT, "the state does not hold the 40 cards once each")


# ---------------------------------------------------------------- the Game protocol


class ScopaGame:
    """Scopa behind the :class:`~engine.game.Game` protocol."""

    name: str = "scopa"
    title: str = "Scopa"
    description: str = "The Italian fishing game: take by rank or by sum, sweep the table."
    player_counts: tuple[int, ...] = PLAYER_COUNTS
    options: tuple[OptionSpec, ...] = (
        OptionSpec("target", "int", 11, "points to win", min=1, max=MAX_TARGET),
        OptionSpec("napola", "bool", False, "score the run of coins from the ace"),
        OptionSpec(
            "primiera",
            "enum",
            PrimieraRule.STANDARD.value,
            "how the primiera point is decided",
            allowed=tuple(r.value for r in PrimieraRule),
        ),
    )

    def new_game(
        self,
        rules: ScopaRules,
        *,
        seed: int,
        decks: Sequence[Sequence[Card]] = (),
        first_dealer: int | None = None,
    ) -> tuple[ScopaState, list[Event]]:
        return new_game(rules, seed=seed, decks=decks, first_dealer=first_dealer)

    def legal_moves(self, state: ScopaState) -> list[Move]:
        return legal_moves(state)

    def resolve(self, state: ScopaState, move: Move) -> Move:
        return resolve(state, move)

    def apply(self, state: ScopaState, move: Move) -> tuple[ScopaState, list[Event]]:
        return apply(state, move)

    def view(self, state: ScopaState, seat: int) -> ScopaView:
        return view(state, seat)

    def status(self, state: ScopaState) -> Status:
        return status(state)

    def encode(self, state: ScopaState) -> bytes:
        return encode(state)

    def decode(self, data: bytes) -> ScopaState:
        return decode(data)


SCOPA = ScopaGame()
