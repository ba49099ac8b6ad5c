"""The last round of a 2-player Scopa hand, searched exactly.

Once the stock is empty in a game of two, every card a seat cannot see is in
the other seat's hand: the view fixes the whole state, and sampling deals, as
the Monte Carlo search does, adds nothing but noise. The few moves left (at
most three cards each) are then searched to the end of the hand through the
engine's own state (``legal_moves``, ``step`` and ``hand_scores``), so every
variant's rules and scoring hold as they do in play.

The seat's own moves are chosen at their best. The other seat is taken to
play as the Monte Carlo search's simulated players do (the greedy player's
rules of thumb, and a random card with probability
:data:`mazzo.engine.players.montecarlo.EXPLORE`), so a node of its turn is worth the
average of its replies weighed by that model (expectimax). Taking it for a
perfect player instead (minimax) was measured worse against the greedy player
by 0.38 points a hand (600 last rounds): a perfect opponent makes most moves
look alike, and the search then gives away what a fallible one would concede.

A line is worth the seat's points minus the other's, plus
:data:`MATCH_WEIGHT` when it wins the match (minus when it loses it): points
past the target matter less than reaching it first.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TypeGuard

from mazzo.engine.game import Move, game_winner
from mazzo.engine.players import determinize, fast_scopa
from mazzo.engine.players.base import Suggestion
from mazzo.engine.players.games import bots_for
from mazzo.engine.scopa import ScopaState, ScopaView
from mazzo.engine.state import View

#: A won or lost match against a hand's points: more than any hand's difference.
MATCH_WEIGHT = 100.0


class _OutOfBudget(Exception):
    """The budget ran out before the search finished."""


def solvable(view: View) -> TypeGuard[ScopaView]:
    """Whether the view fixes the whole state (the game's ``exact_endgame`` hook:
    in Scopa, two players and no stock left). Scopa's hooks alone set it, as
    this search is Scopa's: a view it holds for is a :class:`ScopaView`."""
    return bots_for(view).exact_endgame(view)


def choose(
    view: ScopaView,
    legal: Sequence[Move],
    more: Callable[[int], bool],
    rng: random.Random,
    explore: float,
) -> tuple[Suggestion | None, int]:
    """The best move of ``legal`` and the hand ends searched to find it; no
    suggestion when ``more(ends searched)`` stops the search first. ``explore``:
    how often the other seat is taken to play a random card."""
    state = determinize.scopa_state(view, rng)  # the only deal that fits the view
    search = _Search(view.seat, view.side, more, explore)
    try:
        worths = [search.after(state, move) for move in legal]
    except _OutOfBudget:
        return None, search.ends
    best = max(range(len(legal)), key=worths.__getitem__)
    return Suggestion(legal[best], search.points[best], search.ends), search.ends


class _Search:
    def __init__(self, seat: int, side: int, more: Callable[[int], bool], explore: float) -> None:
        self.seat, self.side, self.more, self.explore = seat, side, more, explore
        self.ends = 0  # hand ends reached: the search's simulations
        self.points: list[float] = []  # by root move: the seat's expected points
        self._mine = 0.0  # the seat's expected points of the last worth found

    def after(self, state: ScopaState, move: Move) -> float:
        """What ``state`` is worth once ``move`` is played (and, at the root, the
        seat's points it may expect, kept in ``self.points``)."""
        worth = self._after(state, move)
        self.points.append(self._mine)
        return worth

    def _after(self, state: ScopaState, move: Move) -> float:
        child = state.clone()
        child.step(move)
        if child.hand_over:
            return self._end(child, tuple(side.total for side in child.hand_scores()))
        if child.to_play == self.seat:
            best, mine = -float("inf"), 0.0
            for reply in child.legal_moves():
                worth = self._after(child, reply)
                if worth > best:
                    best, mine = worth, self._mine
            self._mine = mine
            return best
        return self._expected(child)

    def _expected(self, state: ScopaState) -> float:
        """The other seat's turn: its replies weighed by the simulated players' model."""
        seat, table, rules = state.to_play, state.table, state.rules
        hand = list(state.hands[seat])
        card, take = fast_scopa.greedy_play(hand, table, rules)
        greedy = fast_scopa.move_of(seat, card, take, table, rules)
        worth = (1 - self.explore) * self._after(state, greedy)
        mine = (1 - self.explore) * self._mine
        for card in hand:  # a random card, then a random choice of it
            moves = fast_scopa.choice_moves(seat, card, table, rules)
            weight = self.explore / len(hand) / len(moves)
            for move in moves:
                worth += weight * self._after(state, move)
                mine += weight * self._mine
        self._mine = mine
        return worth

    def _end(self, state: ScopaState, totals: tuple[int, ...]) -> float:
        if not self.more(self.ends):
            raise _OutOfBudget
        self.ends += 1
        self._mine = mine = float(totals[self.side])
        worth = mine - totals[1 - self.side]
        scores = [score + total for score, total in zip(state.scores, totals, strict=True)]
        winner = game_winner(scores, state.rules.target)
        if winner is not None:
            worth += MATCH_WEIGHT if winner == self.side else -MATCH_WEIGHT
        return worth
