"""The expert: a determinized Monte Carlo search over one seat's view.

Each simulation deals the unseen cards at random in a way that fits the view
(:mod:`engine.players.determinize`), plays one of the seat's legal moves, then
plays the rest of the hand out with a quick version of the greedy player's
rules for every seat, and scores the hand. The play-outs run on a fast path
of mutable lists (:mod:`engine.players.fast_scopa`,
:mod:`engine.players.fast_tressette`). The root moves share the simulations
by UCB1 (the bandit rule of UCT): the promising moves are simulated more, and
every move at least once. The reward is the seat's *side*
points minus the best other side's: partners play for the side, so in team
games the search counts the partner's points as its own and plays the
partner's moves in every simulation.

The choice is the move simulated most (ties: the best mean). With a budget
too small for one simulation per move, the greedy player chooses.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any

from engine.game import Move
from engine.players import determinize, fast_scopa, fast_tressette, greedy
from engine.players.base import Budget, Suggestion
from engine.players.voids import shown_voids
from engine.scopa import ScopaView

#: How often a simulated player plays a random move instead of its rule of
#: thumb, so that the simulations do not all follow one line.
EXPLORE = 0.15
#: UCB1's exploration constant, in points of a hand (a hand is worth about 11).
EXPLORATION = 4.0


def choose(
    view: Any, legal_moves: Sequence[Move], budget: Budget, rng: random.Random
) -> Suggestion:
    if len(legal_moves) == 1:
        return Suggestion(legal_moves[0])
    sample, play_out = _simulator(view)
    side = view.side
    count = len(legal_moves)
    visits = [0] * count
    rewards = [0.0] * count
    points = [0.0] * count
    more = budget.meter()
    done = 0
    while more(done):
        index = done if done < count else _ucb(visits, rewards, done)
        totals = play_out(sample(rng), legal_moves[index], rng)
        mine = totals[side]
        rewards[index] += mine - max(t for s, t in enumerate(totals) if s != side)
        points[index] += mine
        visits[index] += 1
        done += 1
    if done < count:
        return greedy.choose(view, legal_moves, budget, rng)._replace(simulations=done)
    best = max(range(count), key=lambda i: (visits[i], rewards[i] / visits[i]))
    return Suggestion(legal_moves[best], points[best] / visits[best], done)


def _ucb(visits: list[int], rewards: list[float], done: int) -> int:
    log_done = math.log(done)
    return max(
        range(len(visits)),
        key=lambda i: rewards[i] / visits[i] + EXPLORATION * math.sqrt(log_done / visits[i]),
    )


def _scopa_play_out(state: Any, move: Move, rng: random.Random) -> tuple[int, ...]:
    return fast_scopa.play_out(state, move, rng, EXPLORE)


def _tressette_play_out(state: Any, move: Move, rng: random.Random) -> tuple[int, ...]:
    return fast_tressette.play_out(state, move, rng, EXPLORE)


def _simulator(
    view: Any,
) -> tuple[Callable[[random.Random], Any], Callable[[Any, Move, random.Random], tuple[int, ...]]]:
    """How to deal a simulation from ``view``, and how to play one out."""
    if isinstance(view, ScopaView):
        return (lambda rng: determinize.scopa_state(view, rng)), _scopa_play_out
    voids = shown_voids(view)
    return (lambda rng: determinize.tressette_state(view, rng, voids)), _tressette_play_out
