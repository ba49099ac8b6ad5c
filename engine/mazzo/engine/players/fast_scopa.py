"""Scopa's hooks for the players: simulated deals, the play-out's rules of thumb
(the greedy player's, quickly), and the world search.

A play-out plays the rest of a simulated hand on a clone of the engine's own
state (:meth:`~mazzo.engine.state.State.step`: the engine's rules, without
their checks and events) and scores it by the engine's scoring. The rules of
thumb weigh the engine's own takings (its capture search, cached).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from mazzo.engine.cards import DECK, RANK_OF, Card
from mazzo.engine.game import Move
from mazzo.engine.players import determinize
from mazzo.engine.players.games import GameBots, World
from mazzo.engine.players.greedy import (
    OPEN_SWEEP_PENALTY,
    SWEEP_VALUE,
    card_worth,
    scopa_move_value,
)
from mazzo.engine.scopa import QUINDICI, ScopaState, ScopaView, _captures
from mazzo.engine.scopa_rules import CaptureRule, ScopaRules

if TYPE_CHECKING:  # the search is built on this module: imported for its types alone
    from mazzo.engine.players.search import Evaluation

_BY_RANK, _BY_FIFTEEN = CaptureRule.SCOPA, CaptureRule.QUINDICI
MAX_RANK = 10
#: A simulated move: the card played and the cards it takes.
Play = tuple[Card, frozenset[Card]]


def play_out(state: ScopaState, move: Move, rng: random.Random, explore: float) -> tuple[int, ...]:
    """Play ``move`` then the rest of the hand with the rollout policy; the
    hand's points by side."""
    world = state.clone()
    world.step(move)
    rules = world.rules
    for _ in range(world.cards_to_play()):
        seat = world.to_play
        card, take = _policy(world.hands[seat], world.table, rules, rng, explore)
        # An empty taking lays the card: step reads the move as given.
        world.step(_new(Move, (seat, card, take, False)))
    return tuple(side.total for side in world.hand_scores())


#: Moves made as tuples (tuple.__new__, not the named tuple's Python-level
#: constructor): a play-out makes one a card.
_new = tuple.__new__


@lru_cache(maxsize=64)
def _worths(rules: ScopaRules) -> tuple[float, ...]:
    """The greedy player's worth of each card under ``rules``, by card index."""
    return tuple(card_worth(c, rules) for c in DECK)


def _policy(
    hand: list[Card],
    table: tuple[Card, ...],
    rules: ScopaRules,
    rng: random.Random,
    explore: float,
) -> Play:
    """The greedy player's rules of thumb, quickly (mazzo.engine.players.greedy): the
    takings worth most, a sweep above all; lay the cheapest card (where taking
    is optional, also one that could take); avoid leaving a table that one
    card sweeps (judged by its sum alone). With probability ``explore`` a
    random card and one of its :func:`choices` instead."""
    if rng.random() < explore:
        card = rng.choice(hand)
        options = choices(card, table, rules)
        return card, options[0] if len(options) == 1 else rng.choice(options)
    return greedy_play(hand, table, rules)


def choices(card: Card, table: tuple[Card, ...], rules: ScopaRules) -> tuple[frozenset[Card], ...]:
    """What ``card`` may do on ``table``: its takings, and, where taking is not
    compulsory and it could take, the lay (an empty taking) too."""
    takes = _captures(RANK_OF[card], table, rules.capture_key)
    if rules.compulsory_capture or not takes[0]:
        return takes
    return (*takes, _LAY)


_LAY: frozenset[Card] = frozenset()


def move_of(
    seat: int, card: Card, take: frozenset[Card], table: tuple[Card, ...], rules: ScopaRules
) -> Move:
    """The engine's move for a fast-path choice of ``card`` on ``table``."""
    could_take = bool(_captures(RANK_OF[card], table, rules.capture_key)[0])
    return _engine_move(seat, card, take, could_take)


def choice_moves(seat: int, card: Card, table: tuple[Card, ...], rules: ScopaRules) -> list[Move]:
    """Every :func:`choices` of ``card`` as the engine's move (its takings
    found once: the first is empty only when the card cannot take)."""
    options = choices(card, table, rules)
    could_take = bool(options[0])
    return [_engine_move(seat, card, take, could_take) for take in options]


def _engine_move(seat: int, card: Card, take: frozenset[Card], could_take: bool) -> Move:
    # An empty taking of a card that could take is a lay.
    return Move(seat, card, take, not take and could_take)


def greedy_play(hand: Sequence[Card], table: tuple[Card, ...], rules: ScopaRules) -> Play:
    """The greedy player's choice, quickly: see :func:`_policy`. The first of
    the plays :func:`valued_plays` values most."""
    best: Play | None = None
    best_value = -1e9
    for value, card, take in valued_plays(hand, table, rules):
        if value > best_value:
            best, best_value = (card, take), value
    assert best is not None
    return best


def valued_plays(
    hand: Sequence[Card], table: tuple[Card, ...], rules: ScopaRules
) -> list[tuple[float, Card, frozenset[Card]]]:
    """Every play of ``hand`` on ``table`` with its worth to the greedy player's
    rules of thumb (:mod:`mazzo.engine.players.greedy`, quickly): a taking its
    cards, a sweep above all; a lay costs the card; leaving a table one card
    sweeps (judged by its sum alone) costs more."""
    key = rules.capture_key
    worth = _worths(rules).__getitem__
    rank_of = RANK_OF.__getitem__
    by_rank = key[0] is not _BY_FIFTEEN
    by_fifteen = key[0] is not _BY_RANK
    total = sum(map(rank_of, table))
    size = len(table)
    plays = []
    for card in hand:
        for take in choices(card, table, rules):
            if take:
                value = worth(card) + sum(map(worth, take))
                left = total - sum(map(rank_of, take))
                if len(take) == size:
                    value += SWEEP_VALUE
            else:
                value = -worth(card)
                left = total + rank_of(card)
            if left and (
                (by_rank and left <= MAX_RANK) or (by_fifteen and 0 < QUINDICI - left <= MAX_RANK)
            ):
                value -= OPEN_SWEEP_PENALTY
            plays.append((value, card, take))
    return plays


def _deal(view: ScopaView, even: bool) -> determinize.Deal:
    """The deals of a choice, none giving a seat a hand it would have declared
    and did not (Cirulla)."""
    # Imported here: the inference is built on this module's values.
    from mazzo.engine.players.scopa_inference import declarations_kept

    return declarations_kept(view, determinize.dealer(view, even))


def _simulator(view: ScopaView) -> Callable[[random.Random], ScopaState]:
    deal = _deal(view, even=False)
    return lambda rng: determinize.scopa_state(view, rng, deal(rng))


def _searcher(view: ScopaView, even: bool = False, inferred: bool = False) -> World:
    # Imported here: the world search and the inference are built on this
    # module's capture choices and values.
    from mazzo.engine.players.scopa_inference import inferring
    from mazzo.engine.players.search import ScopaSearch

    deal = _deal(view, even)
    if inferred:
        deal = inferring(view, deal)

    def world(
        rng: random.Random, evaluation: Evaluation, more: Callable[[int], bool], done: int
    ) -> ScopaSearch:
        state = determinize.scopa_state(view, rng, deal(rng))
        return ScopaSearch(state, view.side, evaluation, more, done)

    return world


def whole_deck_dealt(view: ScopaView) -> bool:
    """Whether a hand deals every card at its start (Scopone): no stock."""
    rules = view.rules
    assert rules is not None
    return rules.players * rules.hand_size + rules.table_size == len(DECK)


def searches_worlds(view: ScopaView) -> bool:
    """Whether the expert plays by the world search: at a table of two, or where
    a hand deals the whole deck (Scopone). With three to six seats and a
    stock, a search of a few moves, every other seat at its worst, sees less
    than a round ahead and lost to the play-outs (docs/bots.md, the arena)."""
    return len(view.hand_sizes) == 2 or whole_deck_dealt(view)


def solvable(view: ScopaView) -> bool:
    """Whether the view fixes the whole state: two players and no stock left."""
    return len(view.hand_sizes) == 2 and view.stock_size == 0


#: Scopa's hooks for the players (mazzo.engine.players.games); 3 moves deep as
#: the arena's pilots chose.
BOTS = GameBots(
    simulator=_simulator,
    play_out=play_out,
    move_value=scopa_move_value,
    searcher=_searcher,
    search_depth=3,
    exact_endgame=solvable,
    expert_searches_worlds=searches_worlds,
    whole_deck_dealt=whole_deck_dealt,
)
