"""Engine speed, in-process on one core: random games, and the cost of each call.

Every game of the table below that the engine has is measured; adding a game
(or a variant) is one line. Times are the CPU time of this process
(``time.process_time``), so other processes on the machine do not inflate them.
"""

from __future__ import annotations

import importlib
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import mazzo.engine
from benchmarks.stats import Figure, Table
from mazzo.engine import RuleError

#: (label, game name in mazzo.engine.GAMES, rules factory). A row whose game is not in
#: mazzo.engine.GAMES, or whose rules cannot be built by this engine, is skipped and said so.
RulesFactory = Callable[[], Any]


def _rules(module: str, name: str, **options: Any) -> RulesFactory:
    return lambda: getattr(importlib.import_module(module), name)(**options)


def _preset(module: str, name: str, variant: str, **options: Any) -> RulesFactory:
    return lambda: getattr(importlib.import_module(module), name).preset(variant, **options)


SCOPA = "mazzo.engine.scopa"
TRESSETTE = "mazzo.engine.tressette"
BRISCOLA = "mazzo.engine.briscola"

GAMES: list[tuple[str, str, RulesFactory]] = [
    ("Scopa, 2 players, to 11", "scopa", _rules(SCOPA, "ScopaRules", players=2, target=11)),
    ("Scopa, 4 players", "scopa", _rules(SCOPA, "ScopaRules", players=4)),
    ("Scopone scientifico", "scopa", _preset(SCOPA, "ScopaRules", "scopone_scientifico")),
    ("Tressette, 2 players", "tressette", _rules(TRESSETTE, "TressetteRules", players=2)),
    ("Tressette, 4 players", "tressette", _rules(TRESSETTE, "TressetteRules", players=4)),
    ("Briscola, 2 players", "briscola", _rules(BRISCOLA, "BriscolaRules", players=2)),
    ("Briscola, 4 players", "briscola", _rules(BRISCOLA, "BriscolaRules", players=4)),
]

#: A game that has not ended after this many plies is a bug, not a benchmark.
MAX_PLIES = 100_000
#: Events that open or close a hand: the positions next to them are not mid-hand.
HAND_EDGE_EVENTS = frozenset({"Deal", "CardsDealt", "Redeal", "HandScored", "GameOver"})


@dataclass(frozen=True)
class Case:
    label: str
    game: Any
    rules: Any


def available_cases() -> tuple[list[Case], list[str]]:
    """The rows this engine can run, and a note for each row skipped."""
    cases, skipped = [], []
    for label, name, factory in GAMES:
        game = mazzo.engine.GAMES.get(name)
        if game is None:
            skipped.append(f"{label}: skipped, no game {name!r} in mazzo.engine.GAMES")
            continue
        try:
            rules = factory()
        except (ImportError, AttributeError, TypeError, ValueError, RuleError) as error:
            skipped.append(f"{label}: skipped, rules not available ({error})")
            continue
        cases.append(Case(label, game, rules))
    return cases, skipped


def applied(state: Any, move: Any) -> tuple[Any, list[Any]]:
    """``move`` played on a copy of ``state``, as the service plays a call's state
    (its memory of states shares them): the copy and the events."""
    played = state.clone()
    return played, played.apply(move)


def play_random_game(game: Any, rules: Any, seed: int) -> int:
    """One game of uniformly random legal moves from ``seed``; the number of plies."""
    choose = random.Random(seed).choice
    state, _ = game.new_game(rules, seed=seed)
    plies = 0
    while moves := game.legal_moves(state):
        state.apply(choose(moves))
        plies += 1
        if plies > MAX_PLIES:
            raise RuntimeError(f"{game.name}: seed {seed} has not ended after {plies} plies")
    return plies


def mid_hand_positions(case: Case, games: int, first_seed: int) -> list[tuple[Any, Any]]:
    """(state, random legal move) at every mid-hand position of seeded random games.

    Mid-hand: neither the position a deal has just made nor one whose move
    ends the hand or starts a new deal.
    """
    positions = []
    for seed in range(first_seed, first_seed + games):
        choose = random.Random(seed).choice
        state, events = case.game.new_game(case.rules, seed=seed)
        fresh = True
        while moves := case.game.legal_moves(state):
            move = choose(moves)
            next_state, events = applied(state, move)
            edge = any(type(e).__name__ in HAND_EDGE_EVENTS for e in events)
            if not fresh and not edge:
                positions.append((state, move))
            state, fresh = next_state, edge
    return positions


def _games_run(case: Case, seconds: float) -> tuple[float, float]:
    """Random games until ``seconds`` of CPU have gone: (games/s, plies/s)."""
    games = plies = 0
    start = time.process_time()
    deadline = start + seconds
    seed = 0
    while True:
        plies += play_random_game(case.game, case.rules, seed)
        games += 1
        seed += 1
        now = time.process_time()
        if now >= deadline:
            return games / (now - start), plies / (now - start)


def _per_call_us(
    call: Callable[[Any, Any], Any], positions: list[tuple[Any, Any]], seconds: float
) -> float:
    """CPU microseconds per call of ``call(state, move)`` over the positions, looped."""
    calls = 0
    start = time.process_time()
    deadline = start + seconds
    while True:
        for state, move in positions:
            call(state, move)
        calls += len(positions)
        now = time.process_time()
        if now >= deadline:
            return (now - start) / calls * 1e6


def run(
    *, repeats: int, game_seconds: float, call_seconds: float, sample_games: int
) -> list[Table]:
    cases, skipped = available_cases()
    games = Table(
        "engine_games",
        "Engine: random full games, in-process, one core (median of runs, min..max)",
        ["game", "games/s", "plies/s", "plies/game"],
        notes=[
            "A game: new_game from a seed, then legal_moves and apply of a random legal move",
            "until the game ends. CPU time of the benchmark process.",
            *skipped,
        ],
    )
    calls = Table(
        "engine_calls",
        "Engine: microseconds per call on mid-hand positions, one core (median of runs, min..max)",
        ["game", "positions", "legal_moves us", "apply us", "resolve (validate) us"],
        notes=[
            f"Positions: every mid-hand position of {sample_games} seeded random games,",
            "each with the random legal move played from it (on a copy of the state, as",
            "the service plays); resolve checks that move.",
        ],
    )
    for case in cases:
        runs = [_games_run(case, game_seconds) for _ in range(repeats)]
        games_per_s = Figure.of([r[0] for r in runs], "games/s")
        plies_per_s = Figure.of([r[1] for r in runs], "plies/s")
        plies_per_game = Figure.of([r[1] / r[0] for r in runs], "plies")
        games.add(case.label, games_per_s, plies_per_s, plies_per_game.median)

        positions = mid_hand_positions(case, sample_games, first_seed=10_000)
        calls.add(
            case.label, len(positions), *_call_costs(case.game, positions, repeats, call_seconds)
        )
    return [games, calls]


def _call_costs(
    game: Any, positions: list[tuple[Any, Any]], repeats: int, seconds: float
) -> list[Figure]:
    """legal_moves, apply and resolve: microseconds per call, one Figure each."""

    def legal_moves(state: Any, move: Any) -> Any:
        return game.legal_moves(state)

    calls = (legal_moves, applied, game.resolve)
    runs: list[list[float]] = [[], [], []]
    for _ in range(repeats):
        for index, call in enumerate(calls):
            runs[index].append(_per_call_us(call, positions, seconds))
    return [Figure.of(r, "us") for r in runs]
