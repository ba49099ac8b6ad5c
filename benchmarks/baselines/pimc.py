"""The PIMC baseline: perfect-information Monte Carlo, the classic design, in the arena only.

It samples ``worlds`` deals that fit the seat's view
(:mod:`mazzo.engine.players.determinize`), searches each by alpha-beta
``depth`` moves deep with a static evaluation of the won cards
(:mod:`mazzo.engine.players.search`: settebello, coins, cards, primiera and
sweeps in Scopa; the thirds won in Tressette), and plays the move with the
best total over the worlds. Every seat is taken to play perfectly in each
world (minimax), as the classic design does. The game's ``searcher`` hook
(:mod:`mazzo.engine.players.games`) deals and searches a world.

A fixed amount of work a move, not a time: it is the arena's yardstick
(``python -m benchmarks.arena --rows scopa:expert-pimc --pimc 12x5``), and
ignores the budget. Its ``simulations`` are the worlds it searched.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from benchmarks.baselines.worlds import searcher_for
from mazzo.engine.game import Move
from mazzo.engine.players.base import Budget, Player, Suggestion
from mazzo.engine.players.search import Evaluation

WORLDS, DEPTH = 12, 5
_PLAIN = Evaluation()


def _unbounded(_: int) -> bool:
    return True


def player(worlds: int = WORLDS, depth: int = DEPTH) -> Player:
    """The baseline with ``worlds`` sampled worlds searched ``depth`` moves deep."""
    if worlds < 1 or depth < 1:
        raise ValueError("the PIMC baseline needs at least one world and a depth of one")

    def choose(
        view: Any, legal_moves: Sequence[Move], budget: Budget, rng: random.Random
    ) -> Suggestion:
        if len(legal_moves) == 1:
            return Suggestion(legal_moves[0])
        world = searcher_for(view, "the PIMC baseline")(view)
        totals = [0.0] * len(legal_moves)
        for _ in range(worlds):
            search = world(rng, _PLAIN, _unbounded, 0)
            for index, worth in enumerate(search.root(legal_moves, depth)):
                totals[index] += worth
        best = max(range(len(legal_moves)), key=totals.__getitem__)
        return Suggestion(legal_moves[best], None, worlds)

    return choose


choose = player()
