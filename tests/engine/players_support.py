"""Shared helpers for the players' tests: every game and variant the engine
knows, and positions reached in them by random play."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from mazzo.engine import Game, get_game
from mazzo.engine.briscola import BriscolaRules
from mazzo.engine.scopa import ScopaRules
from mazzo.engine.scopa_rules import Variant
from mazzo.engine.tressette import TressetteRules

#: (id, game name, rules): every Scopa variant at its default player count, the
#: other player counts of plain Scopa, and both Tressettes.
SETUPS: list[tuple[str, str, Any]] = [
    *((f"scopa-{v.value}", "scopa", ScopaRules.preset(v)) for v in Variant),
    ("scopa-3p", "scopa", ScopaRules(players=3)),
    ("scopa-6p", "scopa", ScopaRules(players=6)),
    ("cirulla-4p", "scopa", ScopaRules.preset(Variant.CIRULLA, players=4)),
    ("escoba-4p", "scopa", ScopaRules.preset(Variant.ESCOBA, players=4)),
    ("tressette-2p", "tressette", TressetteRules(players=2, napoletana=True)),
    ("tressette-4p", "tressette", TressetteRules(players=4, napoletana=True)),
    *((f"briscola-{n}p", "briscola", BriscolaRules(players=n)) for n in (2, 3, 4)),
]
SETUP_IDS = [setup[0] for setup in SETUPS]


def positions(game: Game, rules: Any, seed: int, every: int) -> Iterator[Any]:
    """Every ``every``-th position of one hand (and its first), reached by random play."""
    state, _ = game.new_game(rules, seed=seed)
    rng = random.Random(seed)
    ply = 0
    hand = state.hand_number
    while state.winner is None and state.hand_number == hand:
        if ply % every == 0:
            yield state
        state = state.clone()  # the position yielded stays as it was
        state.apply(rng.choice(state.legal_moves()))
        ply += 1


def game_named(name: str) -> Game:
    return get_game(name)
