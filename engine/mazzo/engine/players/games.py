"""Each game's hooks for the players, found through the registry.

A player knows no game by name: what differs from game to game is in the
game's :class:`GameBots`, which its registry entry names (``Game.bots``, a
module holding ``BOTS``):

* ``simulator(view)``: how to deal simulated states that fit ``view`` (the
  determinization, with whatever the game's view lets a seat deduce, such as
  Tressette's shown voids, worked out once per choice);
* ``play_out(state, move, rng, explore)``: the fast play-out of the rest of the
  hand, the hand's points by side;
* ``move_value(view, move)``: the greedy player's rules of thumb;
* ``reward(points, side)``: what a simulated hand's points by side are worth to
  ``side`` (by default its points minus the best other side's; a game whose
  hands are won or lost, not scored, weighs the win).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import import_module
from typing import Any

from mazzo.engine.game import Move
from mazzo.engine.registry import get_game


def margin(points: Sequence[int], side: int) -> float:
    """``side``'s points minus the best other side's."""
    return points[side] - max(p for s, p in enumerate(points) if s != side)


@dataclass(frozen=True, slots=True)
class GameBots:
    simulator: Callable[[Any], Callable[[random.Random], Any]]
    play_out: Callable[[Any, Move, random.Random, float], tuple[int, ...]]
    move_value: Callable[[Any, Move], float]
    reward: Callable[[Sequence[int], int], float] = margin


def bots_for(view: Any) -> GameBots:
    """The hooks of the game ``view`` (any game's view: it carries its status) is of."""
    return bots_of(view.status.game)


@cache
def bots_of(name: str) -> GameBots:
    bots = import_module(get_game(name).bots).BOTS
    assert isinstance(bots, GameBots), f"{name}'s bots module holds no GameBots"
    return bots
