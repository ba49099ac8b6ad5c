"""The ``intermediate`` level: flat determinized Monte Carlo search over one seat's view.

Each round of the search deals the unseen cards at random in a way that fits
the view (:mod:`mazzo.engine.players.determinize`), then, for every legal move of
the seat, plays that move and the rest of the hand out with a quick version of
the greedy player's rules for every seat, and scores the hand (perfect
information Monte Carlo, flat: the search's tree is the root's moves). All the
moves are tried on the same deals with the same random choices in the
play-outs (common random numbers): the difference between two moves is then
measured on the same cards, which takes far fewer simulations than
independent deals to tell them apart. The play-outs run on a fast path of
mutable lists, each game's own (its hooks, :mod:`mazzo.engine.players.games`).

The score of a play-out is the game's reward hook (``GameBots.reward``): by
default the seat's *side* points minus the best other side's (Briscola adds
the hand's win, :mod:`mazzo.engine.players.fast_briscola`). Partners play for
the side, so in team games the search counts the partner's points as its own
and plays the partner's moves in every simulation. The choice is the move
with the best total. With a budget too small for one deal, the greedy player
chooses.

In the last round of a 2-player Scopa hand nothing is hidden any more, and an
exact search replaces the sampling (:mod:`mazzo.engine.players.endgame`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from mazzo.engine.game import Move
from mazzo.engine.players import endgame, greedy
from mazzo.engine.players.base import Budget, Suggestion
from mazzo.engine.players.games import bots_for
from mazzo.engine.state import View

#: How often a simulated player plays a random move instead of its rule of
#: thumb, so that the simulations do not all follow one line.
EXPLORE = 0.1
#: The share of the budget the exact search of a last round may spend.
ENDGAME_SHARE = 0.5


def choose(
    view: View, legal_moves: Sequence[Move], budget: Budget, rng: random.Random
) -> Suggestion:
    if len(legal_moves) == 1:
        return Suggestion(legal_moves[0])
    more = budget.meter()
    done = 0
    if endgame.solvable(view):
        # Half the budget for the exact search (it nearly always needs far
        # less); should it not finish, the sampling search has the rest.
        exact = budget.part(ENDGAME_SHARE).meter()
        solved, done = endgame.choose(view, legal_moves, exact, rng, EXPLORE)
        if solved is not None:
            return solved
    return sample(view, legal_moves, budget, rng, more, done)


def sample(
    view: View,
    legal_moves: Sequence[Move],
    budget: Budget,
    rng: random.Random,
    more: Callable[[int], bool] | None = None,
    done: int = 0,
) -> Suggestion:
    """The sampling search alone (also where the exact one would do), from
    ``done`` simulations already spent under the meter ``more``."""
    more = more or budget.meter()
    count = len(legal_moves)
    if count == 1:
        return Suggestion(legal_moves[0])
    bots = bots_for(view)
    deal, reward = bots.simulator(view), bots.reward
    side = view.side
    rewards = [0.0] * count
    points = [0.0] * count
    deals = 0
    # A deal is played out once per move, or not at all: never past the budget.
    # The clock is read before every play-out, not only every deal, so that a
    # slow one (a garbage collection in it) costs at most one play-out past the
    # budget; a deal the clock cuts short is dropped.
    while more(done + count - 1):
        state = deal(rng)
        seed = rng.getrandbits(64)
        outcomes = []
        for index, move in enumerate(legal_moves):
            if index and not more(done + index):
                break
            # The same seed for every move: the simulated players' random
            # choices match too, so that the moves differ only by themselves.
            outcomes.append(bots.play_out(state, move, random.Random(seed), EXPLORE))
        if len(outcomes) < count:
            break
        for index, totals in enumerate(outcomes):
            rewards[index] += reward(totals, side)
            points[index] += totals[side]
        done += count
        deals += 1
    if not deals:
        return greedy.choose(view, legal_moves, budget, rng)
    best = max(range(count), key=rewards.__getitem__)
    return Suggestion(legal_moves[best], points[best] / deals, done)
