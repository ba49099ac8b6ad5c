"""The random player: any legal move, uniformly."""

from __future__ import annotations

import random
from collections.abc import Sequence

from mazzo.engine.game import Move
from mazzo.engine.players.base import Budget, Suggestion
from mazzo.engine.state import View


def choose(
    view: View, legal_moves: Sequence[Move], budget: Budget, rng: random.Random
) -> Suggestion:
    return Suggestion(rng.choice(legal_moves))
