"""A game's world search for the arena's baselines, and a walk through a world.

The engine's world searches (:mod:`mazzo.engine.players.search`) search a
sampled world by alpha-beta. The information-set search
(:mod:`benchmarks.baselines.ismcts`) needs a world played one line at a time
instead: a walk, a move at a time, from the world's first position to where
the search stops, valued as the engine's search values what it reaches (the
hand's end as scored, else the horizon's evaluation). A walk subclasses the
game's search, so it plays on the same lists with the same helpers (a round's
deal, a trick's draws, the evaluation), and changes the world for good: a
walk is the world's last use.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, Protocol, cast

from mazzo.engine.cards import Card
from mazzo.engine.game import Move
from mazzo.engine.players.games import World, WorldSearch, bots_for
from mazzo.engine.players.search import Evaluation, ScopaSearch, TressetteSearch
from mazzo.engine.scopa import ScopaState, is_sweep
from mazzo.engine.tressette import CARD_THIRDS, TressetteState, playable, winning_index

_INF = float("inf")


def searcher_for(view: Any, player: str) -> Callable[..., World]:
    """The world search of ``view``'s game, for ``player`` (a name for the error):
    a ValueError where the game has none (Briscola)."""
    searcher = bots_for(view).searcher
    if searcher is None:
        raise ValueError(f"{player} has no world search of {view.status.game}")
    return searcher


class Walk(Protocol):
    """One line of play through a world, a move at a time."""

    def key(self, move: Move) -> Hashable:
        """The walk's name of an engine move (what :meth:`actions` lists)."""
        ...

    def actions(self) -> list[Hashable]:
        """The moves of the seat to play, in this world."""
        ...

    def searchers_turn(self) -> bool:
        """Whether the seat to play is on the searching side."""
        ...

    def step(self, action: Hashable) -> None:
        """Play ``action``, one of :meth:`actions`."""
        ...

    def ended(self) -> bool:
        """Whether the walk reached the hand's end."""
        ...

    def worth(self) -> float:
        """Where the walk stands, to the searching side."""
        ...


def _unbounded(_: int) -> bool:
    return True


def walk_through(search: WorldSearch) -> Walk:
    """A walk through the world ``search`` was dealt (the same cards)."""
    if isinstance(search, ScopaSearch):
        return ScopaWalk(search.start, search.side, search.evaluation)
    if isinstance(search, TressetteSearch):
        return TressetteWalk(search.start, search.side, search.evaluation)
    raise TypeError(f"no walk through a {type(search).__name__}")


class ScopaWalk(ScopaSearch):
    """A walk through one Scopa world, for the side ``side``."""

    def __init__(self, state: ScopaState, side: int, evaluation: Evaluation) -> None:
        super().__init__(state, side, evaluation, _unbounded)
        #: Where the walk stands: the seat to play, the table, the side that
        #: took last, the cards left to play.
        self._at = (
            state.to_play,
            state.table,
            state.last_capture_side,
            sum(map(len, self.hands)) + len(self.stock),
        )

    def key(self, move: Move) -> Hashable:
        return move.card, move.take

    def actions(self) -> list[Hashable]:
        seat, table = self._at[0], self._at[1]
        return [(card, take) for card, take in self._moves(self.hands[seat], table)]

    def searchers_turn(self) -> bool:
        return self.side_of[self._at[0]] == self.side

    def step(self, action: Hashable) -> None:
        """Play ``action``, and deal the next round when every hand is empty."""
        seat, table, last, left = self._at
        card, take = cast(tuple[Card, frozenset[Card]], action)
        self.hands[seat].remove(card)
        if take:
            side = self.side_of[seat]
            for played in (card, *take):
                self.masks[side] |= 1 << played
            if len(take) == len(table) and is_sweep(self.rules, card, table, left == 1):
                self.sweeps[side] += 1
            table, last = tuple([c for c in table if c not in take]), side
        else:
            table = (*table, card)
        seat, left = (seat + 1) % self.players, left - 1
        if left and not self.hands[seat]:
            self.hands = self._round(self.dealt)
            self.dealt += self.players * self.hand_size
        self._at = seat, table, last, left

    def ended(self) -> bool:
        return not self._at[3]

    def worth(self) -> float:
        """The hand's end as scored, else the horizon's evaluation."""
        seat, table, last, left = self._at
        if not left:
            return self._final(table, last)
        return self._horizon(seat, table, last, left, -_INF, _INF)


class TressetteWalk(TressetteSearch):
    """A walk through one Tressette world, for the side ``side``."""

    def __init__(self, state: TressetteState, side: int, evaluation: Evaluation) -> None:
        super().__init__(state, side, evaluation, _unbounded)
        #: Where the walk stands: the seat to play, the trick, its leader, the
        #: side that won the last trick.
        self._at: tuple[int, list[Card], int, int] = (
            state.to_play,
            list(state.trick),
            state.leader,
            0,
        )

    def key(self, move: Move) -> Hashable:
        return move.card

    def actions(self) -> list[Hashable]:
        seat, trick = self._at[0], self._at[1]
        return list(playable(self.hands[seat], trick))

    def searchers_turn(self) -> bool:
        return self._at[0] % 2 == self.side

    def step(self, action: Hashable) -> None:
        """Play the card ``action``; a full trick goes to its winner, who leads
        the next after each seat draws from the stock, the winner first."""
        seat, trick, leader, last_side = self._at
        card = cast(Card, action)
        self.hands[seat].remove(card)
        trick = [*trick, card]
        if len(trick) < self.players:
            self._at = (seat + 1) % self.players, trick, leader, last_side
            return
        winner = (leader + winning_index(trick)) % self.players
        self.thirds[winner % 2] += sum(CARD_THIRDS[c] for c in trick)
        self._draw(winner)
        self._at = winner, [], winner, winner % 2

    def ended(self) -> bool:
        return not self._at[1] and not self.hands[self._at[0]]

    def worth(self) -> float:
        """The hand's end as scored, else the thirds won (the horizon's)."""
        if self.ended():
            return self._final(self._at[3])
        return self._thirds_margin()
