"""Information-set Monte Carlo tree search: an arena yardstick, as the PIMC baseline is.

The PIMC baseline (:mod:`benchmarks.baselines.pimc`) and the expert search
each sampled world as if every card were seen, and add up the worlds: a move
may look good because, in each world, the lines after it are chosen knowing
that world's cards (strategy fusion). This search instead grows one tree over
what the seat can tell apart (single-observer ISMCTS, Cowling, Powley and
Whitehouse, 2012): each walk deals a world that fits the view (dealt evenly,
leaning to the hands the other seats' plays point at, as the expert's), walks
down the tree choosing among the moves that world allows, by the upper
confidence bound (UCB1) of their worths over the walks where they were
allowed, adds one node, and values it as the expert values its horizon (the
hand's end as scored). Every seat's choice is then one choice for every deal
it stands for.

It plays Scopa's games and Tressette through the game's world search
(``GameBots.searcher``, walked through by :mod:`benchmarks.baselines.worlds`),
not Briscola. It spends its budget, reading the clock between walks, and
plays the root move walked most. Its ``simulations`` are its walks. Not a
Suggest level: measured in the arena (``python -m benchmarks.arena --rows
scopa:ismcts-pimc``), it is no stronger than the expert (benchmarks/RESULTS.md).
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Sequence
from typing import Any

from benchmarks.baselines.worlds import Walk, searcher_for, walk_through
from mazzo.engine.game import Move
from mazzo.engine.players import montecarlo
from mazzo.engine.players.base import Budget, Suggestion
from mazzo.engine.players.world_search import EVALUATION

#: UCB1's weight of the less walked moves, against worths in points: 1 won
#: more of 600 arena matches against the PIMC baseline than 0.5, 2 or 4.
EXPLORATION = 1.0


class _Node:
    """A move reached by the walks, and its children by the moves after it."""

    __slots__ = ("children", "walks", "total", "allowed")

    def __init__(self) -> None:
        self.children: dict[Hashable, _Node] = {}
        self.walks = 0
        self.total = 0.0  # the walks' worths, to the searching side
        self.allowed = 0  # the walks that could have chosen it


def _unbounded(_: int) -> bool:
    return True


def choose(
    view: Any, legal_moves: Sequence[Move], budget: Budget, rng: random.Random
) -> Suggestion:
    if len(legal_moves) == 1:
        return Suggestion(legal_moves[0])
    searcher = searcher_for(view, "the information-set search")
    world = searcher(view, even=True, inferred=True)
    more = budget.meter()
    root, walks = _Node(), 0
    keys: list[Hashable] = []
    while more(walks):
        walk = walk_through(world(rng, EVALUATION, _unbounded, walks))
        keys = keys or [walk.key(move) for move in legal_moves]
        _walk(root, walk, keys, rng)
        walks += 1
    if not walks:
        return montecarlo.sample(view, legal_moves, budget, rng, more)
    walked = [root.children[key].walks if key in root.children else 0 for key in keys]
    best = max(range(len(legal_moves)), key=walked.__getitem__)
    return Suggestion(legal_moves[best], None, walks)


def _walk(root: _Node, walk: Walk, root_actions: list[Hashable], rng: random.Random) -> None:
    """One walk down the tree in ``walk``'s world, one node added, and its
    worth added to every node on the way."""
    node, path, actions = root, [root], root_actions
    while True:
        mine = walk.searchers_turn()
        for action in actions:
            if action in node.children:
                node.children[action].allowed += 1
        untried = [action for action in actions if action not in node.children]
        if untried:
            action = untried[rng.randrange(len(untried))]
            child = node.children[action] = _Node()
            child.allowed = 1
        else:
            action = max(actions, key=lambda a: _bound(node.children[a], mine))
            child = node.children[action]
        walk.step(action)
        node = child
        path.append(node)
        if untried or walk.ended():
            break
        actions = walk.actions()
    worth = walk.worth()
    for reached in path:
        reached.walks += 1
        reached.total += worth


def _bound(node: _Node, mine: bool) -> float:
    """UCB1 of a move, to the seat choosing it (the other side's worth is the
    searching side's, negated), over the walks that could have chosen it."""
    mean = node.total / node.walks
    return (mean if mine else -mean) + EXPLORATION * math.sqrt(math.log(node.allowed) / node.walks)
