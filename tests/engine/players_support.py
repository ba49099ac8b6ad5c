"""Shared helpers for the players' tests: every game and variant the engine
knows, positions reached in them by random play, and a position's hidden cards
dealt otherwise (the same view)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from mazzo.engine import Game, game_of, get_game
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


def hidden_permuted(state: Any, seat: int, rng: random.Random) -> Any:
    """``state`` with the cards ``seat`` cannot see shuffled among the places it
    cannot see (other hands' unshown cards, the stock): the same view."""
    game = game_of(state)
    shown_of = [set(known) for known in game.view(state, seat).known]
    slots: list[tuple[int, int]] = []  # (seat or -1 for the stock, index)
    for other, hand in enumerate(state.hands):
        if other != seat:
            slots += [(other, i) for i, c in enumerate(hand) if c not in shown_of[other]]
    slots += [(-1, i) for i in range(len(state.stock))]
    hidden = [state.stock[i] if s < 0 else state.hands[s][i] for s, i in slots]
    rng.shuffle(hidden)
    hands = [list(h) for h in state.hands]
    stock = list(state.stock)
    for (s, i), c in zip(slots, hidden, strict=True):
        if s < 0:
            stock[i] = c
        else:
            hands[s][i] = c
    permuted = state.clone()
    permuted.hands, permuted.stock = hands, stock
    return permuted
