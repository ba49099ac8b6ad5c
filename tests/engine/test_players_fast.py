"""The expert's fast paths play and score a hand exactly as the engine does:
each simulated hand, replayed move by move through the engine's ``apply``, is
legal at every move and ends with the same points."""

from __future__ import annotations

import random
from typing import Any

import pytest

from mazzo.engine import get_game
from mazzo.engine.events import HandScored
from mazzo.engine.game import Move
from mazzo.engine.players import determinize, fast_scopa, fast_tressette
from mazzo.engine.players.voids import shown_voids
from tests.engine.players_support import SETUP_IDS, SETUPS, positions


def _engine_totals(game: Any, state: Any, moves: list[Move]) -> tuple[int, ...]:
    for move in moves:
        assert move in game.legal_moves(state), move
        state, events = game.apply(state, move)
    (scored,) = [e for e in events if isinstance(e, HandScored)]
    return tuple(side.total for side in scored.sides)


@pytest.mark.parametrize(("name", "rules"), [s[1:] for s in SETUPS], ids=SETUP_IDS)
def test_the_fast_path_scores_every_simulated_hand_as_the_engine_does(
    name: str, rules: Any
) -> None:
    game = get_game(name)
    rng = random.Random(4)
    checked = lays = 0
    for state in positions(game, rules, seed=41, every=6):
        seat = state.to_play
        seen = game.view(state, seat)
        for _ in range(3):
            move = rng.choice(game.legal_moves(state))
            if name == "scopa":
                simulated = determinize.scopa_state(seen, rng)
                moves: list[Move] = []
                fast = fast_scopa.play_out(simulated, move, rng, 0.3, moves)
            else:
                simulated = determinize.tressette_state(seen, rng, shown_voids(seen))
                trace: list[Any] = []
                fast = fast_tressette.play_out(simulated, move, rng, 0.3, trace)
                moves = [Move(s, c) for s, c in trace]
            assert moves[0] == move
            assert fast == _engine_totals(game, simulated, moves)
            checked += 1
            lays += sum(m.lay for m in moves[1:])
    assert checked >= 3
    if not getattr(rules, "compulsory_capture", True):
        # Where taking is optional the simulated players lay a card that could
        # take too, and the engine takes it as the lay it is.
        assert lays > 0
