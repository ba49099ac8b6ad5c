"""Suggest's searches in processes of their own: the same choices, the budget
counted from the call's arrival, and a dead process replaced."""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mazzo.engine import get_game
from mazzo.engine.players import Budget, greedy
from mazzo.service.search_pool import SearchPool, now, think
from tests.engine.players_support import SETUPS, positions

#: Long enough that only the simulations limit stops a search, on any machine.
FAR = 3600.0


@pytest.fixture(scope="module")
def pool() -> Iterator[SearchPool]:
    searches = SearchPool(1)
    searches.start()
    yield searches
    searches.close()


def _position(name: str, rules: Any, seed: int = 4) -> tuple[Any, list[Any]]:
    game = get_game(name)
    state = next(positions(game, rules, seed=seed, every=5))
    return game.view(state, state.to_play), game.legal_moves(state)


def test_a_search_in_the_pool_chooses_as_in_the_server_process(pool: SearchPool) -> None:
    # Every game and variant: its view crosses to the search process and back.
    for name, rules in (setup[1:] for setup in SETUPS):
        view, legal = _position(name, rules)
        here = think("expert", view, legal, 30, now() + FAR, 8)
        assert pool("expert", view, legal, 30, now() + FAR, 8) == here, name
        assert here.simulations > 0, name


def test_a_search_with_no_time_left_falls_back_to_the_greedy_player(pool: SearchPool) -> None:
    # The deadline counts from the call's arrival: time spent waiting for a
    # free search process is gone from the budget.
    name, rules = SETUPS[0][1:]
    view, legal = _position(name, rules)
    chosen = pool("expert", view, legal, 1 << 30, now() - 1, 8)
    assert chosen.simulations == 0
    assert chosen.move == greedy.choose(view, legal, Budget(0), random.Random(8)).move


@pytest.mark.parametrize("level", ["intermediate", "expert"])
def test_only_a_search_with_time_left_starts_a_process(level: str) -> None:
    searches = SearchPool(1)
    name, rules = SETUPS[0][1:]
    view, legal = _position(name, rules)
    before = len(multiprocessing.active_children())
    try:
        for quick in ("random", "greedy"):
            assert searches(quick, view, legal, 10, now() + FAR, 1).move in legal
        # Out of time already: greedy's move at once, with no search process.
        assert searches(level, view, legal, 10, now() - 1, 1).simulations == 0
        assert len(multiprocessing.active_children()) == before
        assert searches(level, view, legal, 10, now() + FAR, 1).simulations > 0
        assert len(multiprocessing.active_children()) == before + 1
    finally:
        searches.close()
    assert len(multiprocessing.active_children()) == before


def _dies_once(flag: str, view: Any) -> Any:
    """Unpickled in the search process: the first time, it dies there."""
    if not os.path.exists(flag):
        Path(flag).touch()
        os._exit(1)
    return view


class DeadlyView:
    """A view whose arrival in a search process kills that process, once."""

    def __init__(self, flag: Path, view: Any):
        self.flag, self.view = flag, view

    def __reduce__(self) -> tuple[Any, ...]:
        return _dies_once, (str(self.flag), self.view)


def test_a_search_process_that_died_is_replaced_and_the_search_answers(tmp_path: Path) -> None:
    searches = SearchPool(1)
    name, rules = SETUPS[0][1:]
    view, legal = _position(name, rules)
    try:
        chosen = searches("expert", DeadlyView(tmp_path / "died", view), legal, 20, now() + FAR, 3)
        assert (tmp_path / "died").exists()  # it did die, once
        assert chosen == think("expert", view, legal, 20, now() + FAR, 3)
    finally:
        searches.close()


def test_a_ctrl_c_that_reaches_search_processes_while_they_start_kills_none() -> None:
    # Ctrl-C reaches the whole process group, search processes that are still
    # importing included: each is sent SIGINT as soon as it exists.
    searches = SearchPool(2)
    before = set(multiprocessing.active_children())
    outcome: list[BaseException | None] = []

    def start() -> None:
        try:
            searches.start()
            outcome.append(None)
        except BaseException as error:
            outcome.append(error)

    starting = threading.Thread(target=start)
    starting.start()
    signalled: set[multiprocessing.process.BaseProcess] = set()
    deadline = time.monotonic() + FAR
    try:
        while len(signalled) < 2 and starting.is_alive():
            assert time.monotonic() < deadline
            for child in set(multiprocessing.active_children()) - before - signalled:
                assert child.pid is not None
                os.kill(child.pid, signal.SIGINT)
                signalled.add(child)
        starting.join()
        assert outcome == [None]
        assert len(signalled) == 2 and all(child.is_alive() for child in signalled)
        name, rules = SETUPS[0][1:]
        view, legal = _position(name, rules)
        assert searches("expert", view, legal, 10, now() + FAR, 1).simulations > 0
    finally:
        searches.close()


def test_a_pool_needs_a_process() -> None:
    with pytest.raises(ValueError, match="at least one process"):
        SearchPool(0)
