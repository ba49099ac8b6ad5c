"""Golden playthroughs: one seeded game of every game and variant, kept in tests/golden.

Each file holds a game's options, seats and seed, every move in its notation
with every event it made, the state bytes at a few plies and the final status.
``tests/engine/test_goldens.py`` replays the moves and compares everything, so
any change of the engine's behaviour shows as a failing test, and then, once
the files are made again, as a diff to review::

    make golden                               # python -m tests.engine.goldens
    make golden GOLDEN_ARGS=--fresh           # new games, not the recorded moves

Making the files again keeps each file's seed and replays its moves while the
engine still takes them; from the first it refuses (or when the game goes on
past them), the file's seated players choose, seeded as at the start. With
``--fresh``, every game is played anew by its players, from the first seed that
shows what the setup is there for (a lay, a napoletana, a re bello point...).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mazzo.engine import Card, Game, Move, RuleError, Status, dump_state, get_game
from mazzo.engine.events import Event
from mazzo.engine.players import Budget, suggest
from mazzo.engine.record import FORMAT as RECORD_FORMAT
from mazzo.engine.record import GameRecord, Step, from_dict, to_dict
from mazzo.engine.scopa_rules import VARIANT_PLAYERS, Variant

FOLDER = Path(__file__).resolve().parents[1] / "golden"
FORMAT = "mazzo-golden/1"
#: The seats' players, in turn: a greedy player and a random one, so that the
#: games are played with purpose and still wander into the rarer moves.
LEVELS = ("greedy", "random")
MAX_SEED = 500


@dataclass(frozen=True)
class Setup:
    """A golden's game: its options, and what its playthrough must show."""

    name: str
    game: str
    players: int
    options: dict[str, Any] = field(default_factory=dict)
    #: Features (see :func:`features`) a fresh playthrough's seed is chosen to show.
    shows: frozenset[str] = frozenset()

    @property
    def path(self) -> Path:
        return FOLDER / f"{self.name}.json"

    @property
    def seats(self) -> tuple[str, ...]:
        return tuple(LEVELS[seat % len(LEVELS)] for seat in range(self.players))


#: What a variant's golden is chosen to show besides a sweep.
_SHOWS: dict[Variant, tuple[str, ...]] = {
    Variant.RE_BELLO: ("score:re_bello_point",),
    Variant.ESCOBA: ("lay",),
    Variant.SCOPA_D_ASSI: ("ace_takes_all",),
    Variant.CIRULLA: ("Declaration",),
}


def _scopa(variant: Variant, players: int) -> Setup:
    options = {} if variant is Variant.SCOPA else {"variant": variant.value}
    shows = frozenset(("sweep", *_SHOWS.get(variant, ())))
    return Setup(f"{variant.value}-{players}p", "scopa", players, options, shows)


#: Every Scopa variant at each player count it is played by, the napola,
#: Tressette for 2 and 4, with and without the napoletana, and Briscola for 2, 3, 4.
SETUPS: tuple[Setup, ...] = (
    *(_scopa(variant, n) for variant, counts in VARIANT_PLAYERS.items() for n in counts),
    Setup("scopa-napola-2p", "scopa", 2, {"napola": True}, frozenset(["score:napola"])),
    *(Setup(f"tressette-{n}p", "tressette", n) for n in (2, 4)),
    *(
        Setup(
            f"tressette-napoletana-{n}p",
            "tressette",
            n,
            {"napoletana": True},
            frozenset(["NapoletanaDeclared"]),
        )
        for n in (2, 4)
    ),
    *(Setup(f"briscola-{n}p", "briscola", n, {"target": 2}) for n in (2, 3, 4)),
)


# ---------------------------------------------------------------- values as JSON


def as_json(value: Any) -> Any:
    """An engine value as JSON: cards by their codes, named tuples (events and
    their scores) as objects of their fields, an event with its kind first."""
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, Event):
        return {"event": type(value).__name__, **as_json(value._asdict())}  # type: ignore[attr-defined]
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return as_json(value._asdict())
    if isinstance(value, dict):
        return {key: as_json(item) for key, item in value.items()}
    if isinstance(value, tuple | list | frozenset):
        return [as_json(item) for item in value]
    return value


def status_json(status: Status) -> dict[str, Any]:
    return as_json(status._asdict())  # type: ignore[no-any-return]


# ---------------------------------------------------------------- playing


def state_plies(count: int) -> set[int]:
    """The plies whose state bytes a golden keeps: the first, the middle, the last."""
    return {1, count // 2, count} - {0}


def golden_of(
    record: GameRecord, start: tuple[Any, list[Event]], plies: Sequence[Step]
) -> dict[str, Any]:
    """The golden file's content: the record's game, played from ``start`` through ``plies``."""
    game = get_game(record.game)
    state, events = start
    kept = state_plies(len(plies))
    final = plies[-1].state if plies else state
    return {
        "format": FORMAT,
        **_header(record),
        "start": {"events": as_json(events), "state": dump_state(state).hex()},
        "plies": [
            {
                "move": str(ply.move),
                "events": as_json(ply.events),
                **({"state": dump_state(ply.state).hex()} if number in kept else {}),
            }
            for number, ply in enumerate(plies, start=1)
        ],
        "status": status_json(game.status(final)),
    }


def _header(record: GameRecord) -> dict[str, Any]:
    """What a golden holds of its record: all but its format, moves and result."""
    written = to_dict(record)
    return {
        key: value for key, value in written.items() if key not in ("format", "moves", "result")
    }


def record_of(golden: dict[str, Any]) -> GameRecord:
    """The golden's game as a game record: its moves, and the result of its final status."""
    status = golden["status"]
    header = {k: v for k, v in golden.items() if k not in ("format", "start", "plies", "status")}
    return from_dict(
        {
            "format": RECORD_FORMAT,
            **header,
            "moves": [ply["move"] for ply in golden["plies"]],
            "result": {"scores": status["scores"], "winning_side": status["winning_side"]},
        }
    )


def play(setup: Setup, seed: int, recorded: Sequence[Move] = ()) -> dict[str, Any]:
    """A whole game from ``seed``, as a golden: the ``recorded`` moves while the
    engine takes them, then the choices of the setup's seated players."""
    game = get_game(setup.game)
    record = GameRecord(setup.game, setup.players, setup.options, setup.seats, seed)
    start = record.start()
    state, plies, rng = start[0], [], random.Random(seed)
    following = True
    while not game.status(state).game_over:
        move = recorded[len(plies)] if following and len(plies) < len(recorded) else None
        if move is not None:
            try:
                game.resolve(state, move)
            except RuleError:
                move = None
        if move is None:
            following = False
            move = _choose(game, state, setup.seats[state.to_play], rng)
        state = state.clone()  # each step keeps the state it reached
        events = state.apply(move)
        plies.append(Step(len(plies) + 1, move, state, events))
    return golden_of(record, start, plies)


def _choose(game: Game, state: Any, level: str, rng: random.Random) -> Move:
    view = game.view(state, state.to_play)
    return suggest(level, view, game.legal_moves(state), Budget(0), rng).move


def features(golden: dict[str, Any]) -> set[str]:
    """What a golden's playthrough shows: each kind of event, ``sweep``, ``lay``,
    ``ace_takes_all`` (an ace that took two cards or more: the table), and
    ``score:FIELD`` for every point of a hand's score that some side made."""
    shown: set[str] = set()
    for ply in golden["plies"]:
        if ply["move"].endswith("-"):
            shown.add("lay")
        for event in ply["events"]:
            kind = event["event"]
            shown.add(kind)
            if kind == "Capture":
                if event["sweep"]:
                    shown.add("sweep")
                if Card.parse(event["card"]).rank == 1 and len(event["taken"]) > 1:
                    shown.add("ace_takes_all")
            if kind == "HandScored":
                shown.update(
                    f"score:{name}"
                    for side in event["sides"]
                    for name, value in side.items()
                    if value and name != "side"
                )
    return shown


def fresh(setup: Setup) -> dict[str, Any]:
    """A new golden: from the first seed whose game shows what the setup wants."""
    for seed in range(1, MAX_SEED + 1):
        golden = play(setup, seed)
        if setup.shows <= features(golden):
            return golden
    raise SystemExit(f"{setup.name}: no seed up to {MAX_SEED} shows {sorted(setup.shows)}")


def again(setup: Setup) -> dict[str, Any]:
    """The golden made again: its seed, and its moves while the engine takes them."""
    old = load(setup)
    return play(setup, old["seed"], [Move.parse(ply["move"]) for ply in old["plies"]])


# ---------------------------------------------------------------- the files


def dumps(golden: dict[str, Any]) -> str:
    """The file's text: JSON, a key a line, and each event and each ply on a line of its own."""
    lines = []
    for key, value in golden.items():
        if key == "start":
            events = ",\n".join(f"   {_json(e)}" for e in value["events"])
            text = f'{{"state": {_json(value["state"])}, "events": [\n{events}\n  ]}}'
        elif key == "plies":
            text = "[\n" + ",\n".join(f"  {_json(ply)}" for ply in value) + "\n ]"
        else:
            text = _json(value)
        lines.append(f" {_json(key)}: {text}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def load(setup: Setup) -> dict[str, Any]:
    return json.loads(setup.path.read_text())  # type: ignore[no-any-return]


def write_all(setups: Iterable[Setup], *, renew: bool) -> Iterator[str]:
    FOLDER.mkdir(exist_ok=True)
    for setup in setups:
        golden = fresh(setup) if renew or not setup.path.exists() else again(setup)
        text = dumps(golden)
        changed = not setup.path.exists() or setup.path.read_text() != text
        setup.path.write_text(text)
        yield f"{setup.path.name}: seed {golden['seed']}, {len(golden['plies'])} plies" + (
            " (changed)" if changed else ""
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Make the golden playthroughs again.")
    parser.add_argument("--fresh", action="store_true", help="play new games, from new seeds")
    parser.add_argument("names", nargs="*", help="only these goldens (e.g. escoba-2p)")
    args = parser.parse_args(argv)
    chosen = [s for s in SETUPS if not args.names or s.name in args.names]
    unknown = set(args.names) - {s.name for s in SETUPS}
    if unknown:
        parser.error(f"no golden {sorted(unknown)}; they are: {', '.join(s.name for s in SETUPS)}")
    stale = sorted(set(FOLDER.glob("*.json")) - {s.path for s in SETUPS})
    for line in write_all(chosen, renew=args.fresh):
        print(line)
    for path in stale:
        print(f"{path.name}: no setup makes it any more; delete it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
