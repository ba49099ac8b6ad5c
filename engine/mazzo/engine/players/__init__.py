"""Players: programs that choose a move from what one seat may see.

Pure Python like the rest of the engine: no clock (the budget carries one if
the caller wants), no global randomness (the caller's seeded ``random.Random``).
Every player is a function ``choose(view, legal_moves, budget, rng)`` returning
a :class:`Suggestion` (see :mod:`mazzo.engine.players.base`)::

    from mazzo.engine.players import PLAYERS, Budget, suggest
    seen = game.view(state, seat)
    suggestion = suggest("expert", seen, game.legal_moves(state), Budget(200), random.Random(7))

The levels, weakest first: ``random`` plays any legal move, ``greedy`` the
rules of thumb one move ahead, ``intermediate`` a flat determinized Monte
Carlo search (:mod:`.montecarlo`), ``expert`` a search of every sampled world
(:mod:`.world_search`); docs/bots.md.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from mazzo.engine.game import Move
from mazzo.engine.players import greedy, montecarlo, random_player, world_search
from mazzo.engine.players.base import Budget, Player, Suggestion
from mazzo.engine.players.games import bots_for
from mazzo.engine.state import View

#: By level name, weakest first.
PLAYERS: dict[str, Player] = {
    "random": random_player.choose,
    "greedy": greedy.choose,
    "intermediate": montecarlo.choose,
    "expert": world_search.choose,
}

#: The levels that search, bounded by their budget (the others answer at once).
SEARCHING_LEVELS = frozenset({"intermediate", "expert"})

#: A search that must think the same twice is bounded by a count of simulations,
#: not by the clock: this many a millisecond of its budget, by what it counts. A
#: play-out takes a tenth to a fifth of a millisecond of a core; a world's search
#: 0.1 ms in 2-player Scopa, about 2 ms in Scopone, and 0.2 a millisecond keeps
#: the dearest near its budget.
PLAYOUTS_PER_MS = 2.0
WORLDS_PER_MS = 0.2

__all__ = [
    "PLAYERS",
    "SEARCHING_LEVELS",
    "Budget",
    "Player",
    "Suggestion",
    "counted_simulations",
    "suggest",
]


def suggest(
    level: str, view: View, legal_moves: Sequence[Move], budget: Budget, rng: random.Random
) -> Suggestion:
    """The move the player named ``level`` chooses (``KeyError`` for an unknown one)."""
    return PLAYERS[level](view, legal_moves, budget, rng)


def counted_simulations(level: str, view: View, milliseconds: float) -> int:
    """The simulations ``level`` runs for ``milliseconds`` of budget where a count
    must bound it instead of the clock (0 for a level that does not search):
    the expert's worlds where its game searches them, else play-outs."""
    if level not in SEARCHING_LEVELS:
        return 0
    worlds = level == "expert" and bots_for(view).expert_searches_worlds(view)
    return max(1, round(milliseconds * (WORLDS_PER_MS if worlds else PLAYOUTS_PER_MS)))
