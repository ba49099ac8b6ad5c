"""Playing a simulated hand out to its end: the expert's inner loop.

The policy is a quick version of the greedy player's rules, with some chance
of a random move so that the simulations do not all agree on one line:

* Scopa: take the capture that takes most (a sweep first, the settebello
  counts double), else lay a card at random.
* Tressette: win a trick that carries points with the cheapest winning card,
  else play the lowest card.
"""

from __future__ import annotations

import random

from engine import scopa, tressette
from engine.cards import RANK_OF, SETTEBELLO, SUIT_OF
from engine.events import Event, HandScored
from engine.game import Move
from engine.scopa import ScopaState
from engine.tressette import STRENGTH, THIRDS, TressetteState

#: How often a simulated player plays a random legal move instead of its rule.
EXPLORE = 0.15


def _hand_totals(events: list[Event]) -> tuple[int, ...]:
    """The points by side of the HandScored event that closes a hand."""
    scored = next(e for e in events if type(e) is HandScored)
    return tuple(side.total for side in scored.sides)


def scopa_play_out(state: ScopaState, move: Move, rng: random.Random) -> tuple[int, ...]:
    """Play ``move`` then the rest of the hand; the hand's points by side."""
    apply, legal = scopa.apply, scopa.legal_moves
    hand_number = state.hand_number
    while True:
        state, events = apply(state, move)
        if state.hand_number != hand_number or state.winner is not None:
            return _hand_totals(events)
        move = _scopa_policy(legal(state), len(state.table), rng)


def _scopa_policy(moves: list[Move], table_size: int, rng: random.Random) -> Move:
    if rng.random() < EXPLORE:
        return rng.choice(moves)
    best, best_value = None, 0
    for move in moves:
        take = move.take
        if take:
            value = len(take) + (10 if len(take) == table_size else 0)
            if SETTEBELLO in take or move.card == SETTEBELLO:
                value += 3
            if value > best_value:
                best, best_value = move, value
    return best if best is not None else rng.choice(moves)


def tressette_play_out(state: TressetteState, move: Move, rng: random.Random) -> tuple[int, ...]:
    apply, legal = tressette.apply, tressette.legal_moves
    players, hand_number = state.rules.players, state.hand_number
    while True:
        state, events = apply(state, move)
        if state.hand_number != hand_number or state.winner is not None:
            return _hand_totals(events)
        move = _tressette_policy(state, legal(state), players, rng)


def _tressette_policy(
    state: TressetteState, moves: list[Move], players: int, rng: random.Random
) -> Move:
    if len(moves) == 1:
        return moves[0]
    if rng.random() < EXPLORE:
        return rng.choice(moves)
    trick = state.trick
    if trick:
        led = SUIT_OF[trick[0]]
        top = max(STRENGTH[RANK_OF[c]] for c in trick if SUIT_OF[c] == led)
        on_trick = sum(THIRDS[RANK_OF[c]] for c in trick)
        if on_trick or len(trick) == players - 1:
            winners = [
                m for m in moves if SUIT_OF[m.card] == led and STRENGTH[RANK_OF[m.card]] > top
            ]
            if winners:
                return min(winners, key=lambda m: STRENGTH[RANK_OF[m.card]])
    return min(moves, key=lambda m: (THIRDS[RANK_OF[m.card]], STRENGTH[RANK_OF[m.card]]))
