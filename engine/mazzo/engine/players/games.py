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
  hands are won or lost, not scored, weighs the win);
* ``searcher(view, even=False, inferred=False)``, for the games the world
  search knows (else ``None``): how to deal a world that fits ``view`` and
  make its search (:mod:`mazzo.engine.players.search`), as
  ``world(rng, evaluation, more, done)``; with ``even``, the successive
  worlds' other hands cover the unseen cards evenly
  (:func:`mazzo.engine.players.determinize.even_dealer`), else each is dealt
  independently (the classic design's sampling); with ``inferred``, the
  worlds lean to the hands the other seats' plays point at, where the game
  knows how (:mod:`mazzo.engine.players.scopa_inference`);
  ``search_depth``, the moves the expert searches ahead in each world;
  ``expert_searches_worlds(view)``, whether the expert plays by that search
  at ``view``'s table (else it plays as the intermediate level: in Tressette,
  where a few cards' search judged by the points won so far loses to the
  rules of thumb, while play-outs to the hand's end beat both them and the
  search; in Scopa with three to six seats and a stock);
  ``whole_deck_dealt(view)``, whether a hand deals every card at its start
  (no stock): the expert then searches a count of worlds a millisecond of
  its budget (:data:`mazzo.engine.players.world_search.WORLDS_PER_MS`);
* ``exact_endgame(view)``: whether the view fixes the whole state, so that
  one exact search (:mod:`mazzo.engine.players.endgame`) replaces the sampling
  (the last round of a 2-player Scopa hand).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from mazzo.engine.game import Move
from mazzo.engine.registry import AnyState, get_game
from mazzo.engine.state import View

if TYPE_CHECKING:  # the search is built on the games' hooks: imported for its types alone
    from mazzo.engine.players.search import Evaluation

#: A game's view and state, as its hooks take them (``GameBots[ScopaView, ScopaState]``).
V = TypeVar("V", bound=View)
V_in = TypeVar("V_in", bound=View, contravariant=True)
S = TypeVar("S")


def margin(points: Sequence[int], side: int) -> float:
    """``side``'s points minus the best other side's."""
    return points[side] - max(p for s, p in enumerate(points) if s != side)


class WorldSearch(Protocol):
    """One sampled world's search (:class:`mazzo.engine.players.search.ScopaSearch`)."""

    #: By root move, the side's own points this hand on the line found.
    points: list[float]
    #: The nodes searched so far.
    nodes: int

    def root(self, moves: Sequence[Move], depth: int, cap: float | None = None) -> list[float]: ...


#: ``world(rng, evaluation, more, done)``: a world dealt with ``rng`` and its search.
World = Callable[[random.Random, "Evaluation", Callable[[int], bool], int], WorldSearch]


class Searcher(Protocol[V_in]):
    """``searcher(view, even=False, inferred=False)``: the worlds of a choice at ``view``."""

    def __call__(self, view: V_in, even: bool = False, inferred: bool = False) -> World: ...


def _never(_: object) -> bool:
    return False


@dataclass(frozen=True, slots=True)
class GameBots(Generic[V, S]):
    simulator: Callable[[V], Callable[[random.Random], S]]
    play_out: Callable[[S, Move, random.Random, float], tuple[int, ...]]
    move_value: Callable[[V, Move], float]
    reward: Callable[[Sequence[int], int], float] = margin
    searcher: Searcher[V] | None = None
    search_depth: int = 0
    expert_searches_worlds: Callable[[V], bool] = _never
    whole_deck_dealt: Callable[[V], bool] = _never
    exact_endgame: Callable[[V], bool] = _never


def bots_for(view: View) -> GameBots[View, AnyState]:
    """The hooks of the game ``view`` (any game's view: it carries its status) is of."""
    return bots_of(view.status.game)


@cache
def bots_of(name: str) -> GameBots[View, AnyState]:
    """The hooks of the game named ``name``: its own view and state types, known
    here, as the registry's games are, by the contract every game keeps (a
    caller passes them the view of that game and the states its simulator deals)."""
    bots = import_module(get_game(name).bots).BOTS
    assert isinstance(bots, GameBots), f"{name}'s bots module holds no GameBots"
    return bots
