"""What every player shares: the budget it may spend and the suggestion it returns.

A player is a function ``choose(view, legal_moves, budget, rng) -> Suggestion``:

* ``view`` is the engine's per-seat view (``engine.<game>.view(state, seat)``),
  never the state: a player cannot see a card its seat may not see.
* ``legal_moves`` are the seat's legal moves (what ``legal_moves(state)`` gives;
  they follow from the view alone: the seat's own hand, the table or trick).
* ``budget`` bounds the search. The engine has no clock, so the budget counts
  simulations and may carry a clock injected by the caller (the service passes
  ``time.perf_counter``; tests pass none, or a fake one, so that where a player
  stops is deterministic).
* ``rng`` is a ``random.Random`` the caller seeds: the same seed and budget give
  the same move.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from mazzo.engine.game import Move
from mazzo.engine.state import View


@dataclass(frozen=True, slots=True)
class Budget:
    """At most ``simulations`` simulated deals, and, with a ``clock``, at most
    ``seconds`` of it (read once before each simulation)."""

    simulations: int
    seconds: float = 0.0
    clock: Callable[[], float] | None = None

    def part(self, fraction: float) -> Budget:
        """A share of this budget, for one stage of a search."""
        return Budget(int(self.simulations * fraction), self.seconds * fraction, self.clock)

    def meter(self) -> Callable[[int], bool]:
        """A test ``more(done)``: may the player run one more simulation?"""
        limit, clock = self.simulations, self.clock
        if clock is None:
            return lambda done: done < limit
        deadline = clock() + self.seconds
        return lambda done: done < limit and clock() < deadline


class Suggestion(NamedTuple):
    """A player's choice and what it may explain of it."""

    move: Move
    #: The points its side may expect from this hand after the move (search players).
    expected_points: float | None = None
    #: Simulated deals played out to choose (0 for players that do not search).
    simulations: int = 0


class Player(Protocol):
    def __call__(
        self, view: View, legal_moves: Sequence[Move], budget: Budget, rng: random.Random
    ) -> Suggestion: ...
