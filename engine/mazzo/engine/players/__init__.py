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
from typing import Any

from mazzo.engine.game import Move
from mazzo.engine.players import greedy, montecarlo, random_player, world_search
from mazzo.engine.players.base import Budget, Player, Suggestion

#: By level name, weakest first.
PLAYERS: dict[str, Player] = {
    "random": random_player.choose,
    "greedy": greedy.choose,
    "intermediate": montecarlo.choose,
    "expert": world_search.choose,
}

__all__ = ["PLAYERS", "Budget", "Player", "Suggestion", "suggest"]


def suggest(
    level: str, view: Any, legal_moves: Sequence[Move], budget: Budget, rng: random.Random
) -> Suggestion:
    """The move the player named ``level`` chooses (``KeyError`` for an unknown one)."""
    return PLAYERS[level](view, legal_moves, budget, rng)
