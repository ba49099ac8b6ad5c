"""`make arena`: players against each other, whole matches on duplicate deals.

    python -m benchmarks.arena --rows scopa:expert-greedy --pairs 100 --budget-ms 100
    python -m benchmarks.arena --speed            # the play-outs a second
    python -m benchmarks.arena --last-rounds 600  # Scopa's last round: exact search vs sampling
    python -m benchmarks.arena --retry-cost 10    # a safe retry's search: its CPU by table
    python -m benchmarks.arena --smoke            # tiny counts: checks that it all runs
    python -m benchmarks.arena --rows scopa:expert-pimc --budget-ms 12 --search STOP_Z=1.5

A row ``SETUP:A-B`` plays ``--pairs`` pairs of matches to the game's target
between player A (side 0 in the first match of a pair) and player B. Each pair
plays one seed twice with the sides swapped (duplicate deals): the same cards
come to A in one match and to B in the other, so the luck of the deal cancels
out. In a game of three sides a "pair" is three matches, A on each side in
turn and B on the two others. Pairs run in parallel on ``--workers``
processes (default: every core but one). A player's budget is CPU time
(``time.process_time``), so a busy machine costs a player simulations, not
moves; ``--simulations`` bounds the searching levels by a count instead (the
intermediate level's simulated deals, the expert's worlds), which makes a run
reproducible. ``--search NAME=JSON`` sets one of the expert's world search's
constants or evaluation's fields for the run.

Each row prints A's match win rate and A's points per hand minus B's (the
mean of B's sides), each
with a 95% interval (mean of the pairs +- 1.96 standard errors), the CPU time
per move of each player and A's simulations (deals or worlds) per second. The
run's summary (the command, the commit, each row's seeds and figures: see
benchmarks.summaries) goes to benchmarks/results/arena-latest.json unless
--results names a file; --matches-log PATH writes every match's counts to PATH,
outside benchmarks/results, for research.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import itertools
import json
import math
import multiprocessing
import os
import pathlib
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from benchmarks.baselines import ARENA_ONLY, ismcts, pimc
from benchmarks.stats import Table, interval, machine, pair_margins, pair_win_rates, write_results
from benchmarks.summaries import RESULTS as KEPT_RESULTS
from benchmarks.summaries import command_line, run_summary
from mazzo.engine import get_game
from mazzo.engine.briscola import BriscolaRules
from mazzo.engine.events import HandScored
from mazzo.engine.players import (
    PLAYERS,
    Budget,
    Player,
    counted_simulations,
    greedy,
    montecarlo,
    suggest,
    world_search,
)
from mazzo.engine.players.search import Evaluation
from mazzo.engine.scopa import ScopaRules, ScopaState
from mazzo.engine.scopa_rules import Variant
from mazzo.engine.tressette import TressetteRules

RESULTS = KEPT_RESULTS / "arena-latest.json"
UNLIMITED = 1 << 30
#: The budget of the smoke run's safe retries (one world or a few play-outs).
SMOKE_RETRY_MS = 2.0
#: A move's CPU time past its budget is kept (for the overrun figures) from this many ms.
OVERRUN_KEPT_MS = 0.5

#: name -> (label, game, rules with an optional target). In a game of three
#: sides, A plays one and B the two others: A's fair share of wins is a third.
SETUPS: dict[str, tuple[str, str, Callable[..., Any]]] = {
    "scopa": ("Scopa, 2 players", "scopa", lambda **kw: ScopaRules(**kw)),
    "scopa3": (
        "Scopa, 3 players (A against two B)",
        "scopa",
        lambda **kw: ScopaRules(players=3, **kw),
    ),
    "scopa4": ("Scopa, 4 players (teams)", "scopa", lambda **kw: ScopaRules(players=4, **kw)),
    "scopa6": ("Scopa, 6 players (teams)", "scopa", lambda **kw: ScopaRules(players=6, **kw)),
    "napola": ("Scopa with the napola", "scopa", lambda **kw: ScopaRules(napola=True, **kw)),
    "scopone": (
        "Scopone scientifico",
        "scopa",
        lambda **kw: ScopaRules.preset(Variant.SCOPONE_SCIENTIFICO, **kw),
    ),
    "scopone-classico": (
        "Scopone classico",
        "scopa",
        lambda **kw: ScopaRules.preset(Variant.SCOPONE_CLASSICO, **kw),
    ),
    "quindici": ("Scopa di Quindici", "scopa", lambda **kw: ScopaRules.preset("quindici", **kw)),
    "escoba": ("Escoba", "scopa", lambda **kw: ScopaRules.preset(Variant.ESCOBA, **kw)),
    "assi": ("Scopa d'Assi", "scopa", lambda **kw: ScopaRules.preset(Variant.SCOPA_D_ASSI, **kw)),
    "cirulla": ("Cirulla", "scopa", lambda **kw: ScopaRules.preset(Variant.CIRULLA, **kw)),
    "re-bello": ("Re bello", "scopa", lambda **kw: ScopaRules.preset(Variant.RE_BELLO, **kw)),
    "tressette2": ("Tressette, 2 players", "tressette", lambda **kw: TressetteRules(**kw)),
    "tressette4": (
        "Tressette, 4 players",
        "tressette",
        lambda **kw: TressetteRules(players=4, **kw),
    ),
    "briscola2": ("Briscola, 2 players", "briscola", lambda **kw: BriscolaRules(**kw)),
    "briscola3": (
        "Briscola, 3 players (A against two B)",
        "briscola",
        lambda **kw: BriscolaRules(players=3, **kw),
    ),
    "briscola4": (
        "Briscola, 4 players (pairs)",
        "briscola",
        lambda **kw: BriscolaRules(players=4, **kw),
    ),
}


#: The engine's levels, and the baselines only the arena plays: the PIMC
#: baseline (its worlds and depth from --pimc) and the information-set search.
ARENA_PLAYERS = (*PLAYERS, *ARENA_ONLY)


@dataclass(frozen=True)
class Row:
    setup: str
    first: str  # player A
    second: str  # player B

    @classmethod
    def parse(cls, text: str) -> Row:
        setup, _, players = text.partition(":")
        first, _, second = players.partition("-")
        if setup not in SETUPS or first not in ARENA_PLAYERS or second not in ARENA_PLAYERS:
            raise argparse.ArgumentTypeError(
                f"{text!r}: write SETUP:A-B, SETUP one of {', '.join(SETUPS)},"
                f" A and B one of {', '.join(ARENA_PLAYERS)}"
            )
        return cls(setup, first, second)

    def __str__(self) -> str:
        return f"{self.setup}:{self.first}-{self.second}"


@dataclass(frozen=True)
class Settings:
    budget_ms: float
    simulations: int
    target: int | None
    seed: int
    pimc_worlds: int = pimc.WORLDS
    pimc_depth: int = pimc.DEPTH

    def player(self, level: str) -> Player:
        if level == "pimc":
            return pimc.player(self.pimc_worlds, self.pimc_depth)
        if level == "ismcts":
            return ismcts.choose
        return PLAYERS[level]


def play_match(row: Row, settings: Settings, seed: int, a_side: int) -> dict[str, Any]:
    """One match to the target; A plays side ``a_side``. Counts by player: A, B."""
    _, name, make_rules = SETUPS[row.setup]
    rules = make_rules(**({"target": settings.target} if settings.target else {}))
    game = get_game(name)
    state, _ = game.new_game(rules, seed=seed)
    rng = random.Random(seed * rules.sides + a_side)
    players = settings.player(row.first), settings.player(row.second)
    seconds, moves, sims = [0.0, 0.0], [0, 0], [0, 0]
    # By player: moves with a choice timed against the budget, and the CPU
    # milliseconds past the budget of those that overran it by OVERRUN_KEPT_MS.
    decisions, overruns = [0, 0], [[], []]  # type: tuple[list[int], list[list[float]]]
    points, hands = [0.0, 0.0], 0
    while state.winner is None:
        seat = state.to_play
        player = 0 if rules.side_of(seat) == a_side else 1
        budget = Budget(
            settings.simulations or UNLIMITED, settings.budget_ms / 1000, time.process_time
        )
        legal = game.legal_moves(state)
        started = time.process_time()
        chosen = players[player](game.view(state, seat), legal, budget, rng)
        spent = time.process_time() - started
        seconds[player] += spent
        if len(legal) > 1 and not settings.simulations:
            decisions[player] += 1
            over = 1000 * (spent - budget.seconds)
            if over > OVERRUN_KEPT_MS:
                overruns[player].append(round(over, 2))
        moves[player] += 1
        sims[player] += chosen.simulations
        events = state.apply(chosen.move)
        for event in events:
            if isinstance(event, HandScored):
                hands += 1
                totals = [side.total for side in event.sides]
                points[0] += totals[a_side]
                # B plays every other side: its points are their mean.
                points[1] += (sum(totals) - totals[a_side]) / (rules.sides - 1)
    return {
        "a_side": a_side,
        "a_won": state.winner == a_side,
        "hands": hands,
        "points": points,
        "seconds": seconds,
        "moves": moves,
        "simulations": sims,
        "decisions": decisions,
        "overruns_ms": overruns,
    }


def play_pair(task: tuple[Row, Settings, int]) -> list[dict[str, Any]]:
    """The duplicate matches of one seed: A on side 0, then on side 1 (and on
    each further side in a game of more sides, B on all the others)."""
    row, settings, seed = task
    sides = SETUPS[row.setup][2]().sides
    return [play_match(row, settings, seed, a_side) for a_side in range(sides)]


def summarise(row: Row, pairs: list[list[dict[str, Any]]], first_seed: int) -> dict[str, Any]:
    """A row's summary: its seeds, counts, rates with their 95% intervals, CPU
    and overruns (of ``pairs``, played from ``first_seed`` on)."""
    wins, margins = pair_win_rates(pairs), pair_margins(pairs)
    matches = [m for pair in pairs for m in pair]

    def total(key: str, player: int) -> float:
        return float(sum(m[key][player] for m in matches))

    def per_move_ms(player: int) -> float:
        return 1000 * total("seconds", player) / max(1.0, total("moves", player))

    def sims_per_second(player: int) -> float | None:
        spent = total("seconds", player)
        return total("simulations", player) / spent if total("simulations", player) else None

    win, win_lo, win_hi = interval(wins)
    # A rate lies in 0..1 whatever the normal approximation says near the ends.
    win_lo, win_hi = max(0.0, win_lo), min(1.0, win_hi)
    margin, margin_lo, margin_hi = interval(margins)
    return {
        "row": str(row),
        "game": SETUPS[row.setup][0],
        "a": row.first,
        "b": row.second,
        "seeds": [first_seed, first_seed + len(pairs) - 1],
        "matches": len(matches),
        "hands": sum(m["hands"] for m in matches),
        "a_win_rate": win,
        "a_win_rate_95": [win_lo, win_hi],
        "a_minus_b_points_per_hand": margin,
        "a_minus_b_points_per_hand_95": [margin_lo, margin_hi],
        "a_ms_per_move": per_move_ms(0),
        "b_ms_per_move": per_move_ms(1),
        "a_simulations_per_second": sims_per_second(0),
        "b_simulations_per_second": sims_per_second(1),
        "a_overrun": overrun_summary(matches, 0),
        "b_overrun": overrun_summary(matches, 1),
    }


def overrun_summary(matches: Sequence[dict[str, Any]], player: int) -> dict[str, Any]:
    """How far a player's moves with a choice ran past the budget (CPU ms): the
    worst, the 99th and 99.9th percentiles (0 when fewer overran by
    OVERRUN_KEPT_MS), and how many overran by more than 1, 5 and 20 ms."""
    count = sum(m.get("decisions", [0, 0])[player] for m in matches)
    over = sorted(
        (x for m in matches for x in m.get("overruns_ms", [[], []])[player]), reverse=True
    )

    def percentile(q: float) -> float:
        rank = int(count * (1 - q))  # values above the percentile
        return over[rank] if rank < len(over) else 0.0

    return {
        "decisions": count,
        "max_ms": over[0] if over else 0.0,
        "p99_ms": percentile(0.99),
        "p999_ms": percentile(0.999),
        "over_1ms": sum(x > 1 for x in over),
        "over_5ms": sum(x > 5 for x in over),
        "over_20ms": sum(x > 20 for x in over),
    }


def _range(pair: Sequence[float], digits: int = 2) -> str:
    if any(math.isnan(x) for x in pair):
        return "-"
    return f"{pair[0]:.{digits}f}..{pair[1]:.{digits}f}"


def match_table(summaries: list[dict[str, Any]], settings: Settings) -> Table:
    budget = (
        f"{settings.simulations} simulations"
        if settings.simulations
        else f"{settings.budget_ms:g} ms"
    )
    table = Table(
        "arena",
        f"Arena: A against B, duplicate pairs of matches, budget {budget} a move (CPU)",
        [
            "game",
            "A",
            "B",
            "matches",
            "A wins",
            "95% CI",
            "A-B pts/hand",
            "95% CI",
            "A ms/move",
            "B ms/move",
            "A sims/s",
        ],
    )
    for s in summaries:
        sims = s["a_simulations_per_second"]
        table.add(
            s["game"],
            s["a"],
            s["b"],
            s["matches"],
            round(s["a_win_rate"], 3),
            _range(s["a_win_rate_95"]),
            round(s["a_minus_b_points_per_hand"], 2),
            _range(s["a_minus_b_points_per_hand_95"]),
            round(s["a_ms_per_move"], 2),
            round(s["b_ms_per_move"], 2),
            round(sims) if sims else None,
        )
    table.notes.append("95% CI: mean of the duplicate pairs +- 1.96 standard errors.")
    return table


def speed_table(simulations: int, seeds: int) -> Table:
    """The intermediate level's simulated deals (the fast play-outs) a second
    (CPU) from the first position of ``seeds`` games."""
    table = Table(
        "playout_speed",
        f"Intermediate level: simulated deals a second (CPU), {simulations} a move",
        ["game", "positions", "simulations/s", "ms per simulation"],
    )
    for label, name, make_rules in SETUPS.values():
        game = get_game(name)
        spent, done = 0.0, 0
        for seed in range(seeds):
            state, _ = game.new_game(make_rules(), seed=seed)
            view = game.view(state, state.to_play)
            legal = game.legal_moves(state)
            started = time.process_time()
            chosen = suggest("intermediate", view, legal, Budget(simulations), random.Random(seed))
            spent += time.process_time() - started
            done += chosen.simulations
        rate = done / spent if spent else 0.0
        table.add(label, seeds, round(rate), round(1000 / rate, 3) if rate else None)
    return table


def last_round_table(count: int, budget_ms: float, seed: int) -> Table:
    """The intermediate level's exact search of 2-player Scopa's last round against the
    sampling search it replaces: ``count`` last rounds (of first hands played
    by two greedy players), each finished twice against the greedy player."""
    budget = Budget(UNLIMITED, budget_ms / 1000, time.process_time)
    margins, exact_ms = [], []
    for position in itertools.islice(last_rounds(ScopaRules(), itertools.count(seed)), count):
        spent: list[float] = []  # the exact search's CPU time, move by move
        exact = hand_margin(position, _timed(montecarlo.choose, spent), budget, random.Random(seed))
        sampled = hand_margin(position, montecarlo.sample, budget, random.Random(seed))
        margins.append(exact - sampled)
        exact_ms.append(spent[0])
    mean, low, high = interval(margins)
    table = Table(
        "last_round",
        f"Intermediate level, 2-player Scopa's last round: exact search against sampling,"
        f" {budget_ms:g} ms a move (CPU), against greedy",
        [
            "last rounds",
            "exact - sampling pts/hand",
            "95% CI",
            "exact better",
            "exact worse",
            "exact ms, median",
            "exact ms, 90th pct",
        ],  # fmt: skip
    )
    exact_ms.sort()
    table.add(
        len(margins),
        round(mean, 3),
        _range((low, high), 3),
        sum(m > 0 for m in margins),
        sum(m < 0 for m in margins),
        round(statistics.median(exact_ms), 2),
        round(exact_ms[int(0.9 * (len(exact_ms) - 1))], 2),
    )
    return table


def retry_cost_table(hands: int, budget_ms: float) -> Table:
    """What a safe retry's expert costs: the CPU time of its search bounded by the
    count for ``budget_ms`` (:func:`mazzo.engine.players.counted_simulations`,
    no clock), at every choice of ``hands`` first hands played by greedy, by table."""
    table = Table(
        "retry_cost",
        f"Expert on a safe retry (a count of simulations for {budget_ms:g} ms, no clock):"
        " CPU ms a choice, first hands played by greedy",
        ["game", "choices", "simulations", "median", "90th pct", "99th pct", "worst"],
    )
    for label, name, make_rules in SETUPS.values():
        spent: list[float] = []
        counts: set[int] = set()
        for seed in range(hands):
            for _, view, legal in first_hand(name, make_rules(), seed):
                if len(legal) == 1:
                    continue
                count = counted_simulations("expert", view, budget_ms)
                counts.add(count)
                started = time.process_time()
                suggest("expert", view, legal, Budget(count), random.Random(seed))
                spent.append(1000 * (time.process_time() - started))
        spent.sort()
        shares = (0.5, 0.9, 0.99, 1.0)
        # One count a table (its rate is the table's), else every count, or none at all.
        simulations: int | str | None = (
            counts.pop() if len(counts) == 1 else "/".join(map(str, sorted(counts))) or None
        )
        table.add(label, len(spent), simulations, *(_percentile(spent, share) for share in shares))
    return table


def _percentile(ordered: Sequence[float], share: float) -> float | None:
    """The value at ``share`` of ``ordered`` (None when it is empty)."""
    if not ordered:
        return None
    return round(ordered[int(share * (len(ordered) - 1))], 1)


def first_hand(name: str, rules: Any, seed: int) -> Iterator[tuple[Any, Any, list[Any]]]:
    """Every position of a first hand played by greedy for every seat: the state,
    the view of the seat to play and its legal moves."""
    game = get_game(name)
    state, _ = game.new_game(rules, seed=seed)
    rng = random.Random(seed)
    while state.winner is None and state.hand_number == 1:
        legal = game.legal_moves(state)
        view = game.view(state, state.to_play)
        yield state.clone(), view, legal
        state.apply(greedy.choose(view, legal, Budget(1), rng).move)


def _timed(player: Player, spent: list[float]) -> Player:
    """``player``, adding the CPU milliseconds of each choice to ``spent``."""

    def choose(view: Any, legal: Sequence[Any], budget: Budget, rng: random.Random) -> Any:
        started = time.process_time()
        chosen = player(view, legal, budget, rng)
        spent.append(1000 * (time.process_time() - started))
        return chosen

    return choose


def last_rounds(rules: ScopaRules, seeds: Iterable[int]) -> Iterator[ScopaState]:
    """The first move of the first hand's last round, after greedy play, by
    seed (a seed whose first hand ends the match gives none)."""
    for seed in seeds:
        for state, _, _ in first_hand("scopa", rules, seed):
            if not state.stock and len(state.hands[state.to_play]) == 3:
                yield state
                break


def hand_margin(state: ScopaState, me: Player, budget: Budget, rng: random.Random) -> int:
    """The seat to play plays ``me``, the other greedy, to the hand's end: the
    points of the seat to play minus the other's."""
    game, seat = get_game("scopa"), state.to_play
    state = state.clone()  # the caller finishes the same round again
    while True:
        player = me if state.to_play == seat else greedy.choose
        seen = game.view(state, state.to_play)
        chosen = player(seen, game.legal_moves(state), budget, rng)
        events = state.apply(chosen.move)
        for event in events:
            if isinstance(event, HandScored):
                totals = [side.total for side in event.sides]
                return totals[seat] - totals[1 - seat]


def markdown(summaries: list[dict[str, Any]]) -> str:
    """The rows as a Markdown table, for docs/bots.md."""
    lines = [
        "| game | A | B | matches | A wins (95% CI) | A-B points/hand (95% CI) "
        "| A ms/move | B ms/move | A sims/s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for s in summaries:
        sims = s["a_simulations_per_second"]
        margin = _range(s["a_minus_b_points_per_hand_95"])
        lines.append(
            f"| {s['game']} | {s['a']} | {s['b']} | {s['matches']} "
            f"| {s['a_win_rate']:.0%} ({_range(s['a_win_rate_95'])}) "
            f"| {s['a_minus_b_points_per_hand']:+.2f} ({margin}) "
            f"| {s['a_ms_per_move']:.2f} | {s['b_ms_per_move']:.2f} "
            f"| {f'{sims:,.0f}' if sims else '-'} |"
        )
    return "\n".join(lines)


DEFAULT_ROWS = [
    "scopa:greedy-random",
    "scopa:expert-greedy",
    "scopone:expert-greedy",
    "tressette2:expert-greedy",
    "tressette4:expert-greedy",
    "briscola2:expert-greedy",
]


def _freeze_heap() -> None:
    gc.collect()
    gc.freeze()


def _worlds_by_depth(text: str) -> tuple[int, int]:
    worlds, _, depth = text.partition("x")
    if not (worlds.isdigit() and depth.isdigit() and int(worlds) and int(depth)):
        raise argparse.ArgumentTypeError(f"{text!r}: write WORLDSxDEPTH, e.g. 12x5")
    return int(worlds), int(depth)


def _outside_the_kept_results(text: str) -> pathlib.Path:
    """A path for the per-match log: benchmarks/results keeps summaries only."""
    path = pathlib.Path(text)
    if path.resolve().is_relative_to(KEPT_RESULTS):
        raise argparse.ArgumentTypeError(
            f"{text!r}: benchmarks/results keeps summaries only; write the log elsewhere"
        )
    return path


def _setting(text: str) -> tuple[str, Any]:
    name, _, value = text.partition("=")
    try:
        return name, json.loads(value)
    except json.JSONDecodeError as error:
        raise argparse.ArgumentTypeError(f"{text!r}: the value is not JSON") from error


def tune_search(settings: dict[str, Any]) -> None:
    """The expert's world search with its module's constants (upper case) or its
    evaluation's fields (lower case) set as ``settings`` says."""
    fields = {f.name for f in dataclasses.fields(Evaluation)}
    evaluation = {k: v for k, v in settings.items() if k in fields}
    for name, value in settings.items():
        if name in fields:
            continue
        if not name.isupper() or not hasattr(world_search, name):
            raise SystemExit(f"--search {name}: no such constant or evaluation field")
        setattr(world_search, name, value)
    if evaluation:
        world_search.EVALUATION = dataclasses.replace(world_search.EVALUATION, **evaluation)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.arena", description=__doc__)
    parser.add_argument(
        "--rows", nargs="+", type=Row.parse, help="SETUP:A-B (default: the targets)"
    )
    parser.add_argument("--pairs", type=int, default=100, help="duplicate pairs of matches a row")
    parser.add_argument("--budget-ms", type=float, default=100.0, help="CPU time a move")
    parser.add_argument("--simulations", type=int, default=0, help="simulations a move (0: time)")
    parser.add_argument("--target", type=int, help="play matches to this many points instead")
    parser.add_argument("--seed", type=int, default=1, help="first pair's seed")
    parser.add_argument(
        "--pimc",
        type=_worlds_by_depth,
        default=(pimc.WORLDS, pimc.DEPTH),
        help="the PIMC baseline's worlds and depth, WORLDSxDEPTH (default 12x5)",
    )
    parser.add_argument(
        "--search",
        type=_setting,
        action="append",
        default=[],
        metavar="NAME=JSON",
        help="set one of the expert's world search's constants (STOP_Z=1.5) or evaluation's"
        " fields (captures=true) for this run",
    )
    parser.add_argument("--workers", type=int, default=max(1, (os.cpu_count() or 2) - 1))
    parser.add_argument("--speed", action="store_true", help="measure simulations a second too")
    parser.add_argument(
        "--last-rounds",
        type=int,
        default=0,
        help="compare the exact search of Scopa's last round with sampling on N rounds",
    )
    parser.add_argument(
        "--retry-cost",
        type=int,
        default=0,
        metavar="HANDS",
        help="the CPU of a safe retry's expert search at --budget-ms, by table, over the"
        " choices of HANDS first hands",
    )
    parser.add_argument("--smoke", action="store_true", help="tiny counts, to check it runs")
    parser.add_argument(
        "--results", type=pathlib.Path, default=RESULTS, help="the summary's JSON file"
    )
    parser.add_argument(
        "--matches-log",
        type=_outside_the_kept_results,
        metavar="PATH",
        help="write every match's counts to PATH too (outside benchmarks/results, e.g. build/)",
    )
    args = parser.parse_args(argv)
    command = command_line("benchmarks.arena", sys.argv[1:] if argv is None else argv)
    if args.smoke:
        args.pairs, args.simulations, args.target, args.workers = 1, 4, 1, 1
    # --last-rounds or --retry-cost alone runs no matches.
    alone = args.last_rounds or args.retry_cost
    default = [] if alone else [Row.parse(r) for r in DEFAULT_ROWS]
    rows: list[Row] = args.rows or default
    settings = Settings(args.budget_ms, args.simulations, args.target, args.seed, *args.pimc)
    tune_search(dict(args.search))  # before the workers fork: they inherit it
    about = machine()
    print(
        f"Mazzo arena on {about['nproc']} x {about['cpu_model']}, Python {about['python']}"
        f" (commit {about['git_commit']}), {args.workers} worker(s)",
        flush=True,
    )
    tables: list[Table] = []
    summaries: list[dict[str, Any]] = []
    raw: dict[str, Any] = {}
    for row in rows:
        started = time.monotonic()
        tasks = [(row, settings, args.seed + k) for k in range(args.pairs)]
        if args.workers > 1:
            # Each worker leaves its start-up heap out of garbage collections, as
            # the server's search processes do (mazzo.service.search_pool).
            context = multiprocessing.get_context("fork")
            with context.Pool(args.workers, initializer=_freeze_heap) as pool:
                pairs = pool.map(play_pair, tasks, chunksize=1)
        else:
            _freeze_heap()
            pairs = [play_pair(task) for task in tasks]
        summary = summarise(row, pairs, args.seed)
        summaries.append(summary)
        raw[str(row)] = pairs
        print(
            f"  {row}: A wins {summary['a_win_rate']:.0%} ({_range(summary['a_win_rate_95'])}),"
            f" {time.monotonic() - started:.0f} s; overruns A {summary['a_overrun']},"
            f" B {summary['b_overrun']}",
            flush=True,
        )
    if summaries:
        tables.append(match_table(summaries, settings))
    if args.speed or args.smoke:
        tables.append(
            speed_table(simulations=8 if args.smoke else 200, seeds=1 if args.smoke else 5)
        )
    if args.last_rounds or args.smoke:
        tables.append(
            last_round_table(2 if args.smoke else args.last_rounds, args.budget_ms, args.seed)
        )
    if args.retry_cost or args.smoke:
        hands, budget_ms = (1, SMOKE_RETRY_MS) if args.smoke else (args.retry_cost, args.budget_ms)
        tables.append(retry_cost_table(hands, budget_ms))
    for table in tables:
        print()
        print(table.render(), flush=True)
    print()
    print(markdown(summaries))
    run_settings = {
        "smoke": args.smoke,
        "pairs": args.pairs,
        "budget_ms": args.budget_ms,
        "simulations": args.simulations,
        "target": args.target,
        "seed": args.seed,
        "pimc_worlds_depth": list(args.pimc),
        "search": dict(args.search),
        "workers": args.workers,
        "speed": args.speed,
        "last_rounds": args.last_rounds,
        "retry_cost": args.retry_cost,
    }
    tables_json = [table.as_json() for table in tables]
    kept = run_summary("arena", command, about, run_settings, tables_json, summaries)
    write_results(args.results, kept)
    print(f"\nwritten to {args.results}")
    if args.matches_log:
        write_results(args.matches_log, {"command": command, "machine": about, "pairs": raw})
        print(f"every match's counts written to {args.matches_log}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
