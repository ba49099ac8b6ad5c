"""The searching players keep to their time budget by construction.

A fake clock stands for the machine's: it moves only when the search does
work (a play-out, a searched node), and one piece of work takes far longer
than the rest, as one with a garbage collection in it does. Whatever that
pause, no new work starts once the clock says the budget is spent: the
overrun is at most the piece of work in progress (a play-out), or the few
nodes between two readings of the clock (the world search).
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from mazzo.engine import get_game
from mazzo.engine.players import (
    Budget,
    fast_scopa,
    fast_tressette,
    montecarlo,
    search,
    world_search,
)
from mazzo.engine.scopa import ScopaRules
from mazzo.engine.tressette import TressetteRules

UNLIMITED = 1 << 30
#: The one slow piece of work, in the fake clock's units (a normal one takes 1).
PAUSE = 500.0


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0
        self.works = 0

    def __call__(self) -> float:
        return self.now

    def work(self, pause_at: int) -> float:
        """One piece of work: the clock's time when it starts, then moved on."""
        started = self.now
        self.works += 1
        self.now += PAUSE if self.works == pause_at else 1.0
        return started


def _first_position(name: str, rules: Any, moves: int) -> tuple[Any, Any, list[Any]]:
    """A position some greedy-free random moves in, with several legal moves."""
    game = get_game(name)
    state, _ = game.new_game(rules, seed=3)
    rng = random.Random(3)
    for _ in range(moves):
        state.apply(rng.choice(state.legal_moves()))
    legal = state.legal_moves()
    assert len(legal) > 1
    return state.view(state.to_play), state, legal


@pytest.mark.parametrize("pause_at", [7, 40, 95])
@pytest.mark.parametrize(
    ("name", "rules", "fast"),
    [("scopa", ScopaRules(), fast_scopa), ("tressette", TressetteRules(players=4), fast_tressette)],
)
def test_the_flat_search_starts_no_play_out_past_its_deadline(
    monkeypatch: pytest.MonkeyPatch, name: str, rules: Any, fast: Any, pause_at: int
) -> None:
    clock = FakeClock()
    starts: list[float] = []
    real = fast.play_out

    def timed(*args: Any) -> Any:
        starts.append(clock.work(pause_at))
        return real(*args)

    # The intermediate finds the play-out through the game's hooks (players/games.py).
    monkeypatch.setattr(montecarlo, "bots_for", lambda view: replace(fast.BOTS, play_out=timed))
    view, _, legal = _first_position(name, rules, moves=1)
    seconds = 100.0
    chosen = montecarlo.choose(view, legal, Budget(UNLIMITED, seconds, clock), random.Random(1))
    assert chosen.move in legal
    assert len(starts) > len(legal)  # it searched more than one deal
    assert max(starts) < seconds  # no play-out began at or past the deadline
    # So the overrun is the one play-out in progress, the slow one included.
    assert clock.now <= seconds + PAUSE


@pytest.mark.parametrize("pause_at", [10, 150, 700])
@pytest.mark.parametrize(
    ("name", "rules", "kind"),
    [
        ("scopa", ScopaRules(), search.ScopaSearch),
        ("scopa", ScopaRules.preset("scopone_scientifico"), search.ScopaSearch),
    ],
    ids=["scopa2", "scopone"],
)
def test_the_world_search_stops_within_a_few_nodes_of_its_deadline(
    monkeypatch: pytest.MonkeyPatch, name: str, rules: Any, kind: Any, pause_at: int
) -> None:
    clock = FakeClock()
    starts: list[float] = []
    real = kind._tick

    def timed(self: Any) -> None:
        starts.append(clock.work(pause_at))
        real(self)

    monkeypatch.setattr(kind, "_tick", timed)
    view, _, legal = _first_position(name, rules, moves=1)
    seconds = 1000.0
    chosen = world_search.choose(view, legal, Budget(UNLIMITED, seconds, clock), random.Random(1))
    assert chosen.move in legal
    assert chosen.simulations > 0
    late = [t for t in starts if t >= seconds]
    # Between two readings of the clock at most CHECK_EVERY nodes go by.
    assert len(late) < search.CHECK_EVERY
    assert clock.now <= seconds + PAUSE + search.CHECK_EVERY
