"""A played game as a file: the engine's game record (``mazzo-record/1``).

The format belongs to the engine library, mazzo-engine (``mazzo.engine.record``;
engine/README.md, Game records): the game, its options by their catalog
names, the seats, the seed, every move in its notation and the result. `mazzo
play --record` writes one, `--replay` reads one and plays it through the
server, so any record the library writes replays here too. The files of
earlier versions of `mazzo play` (``mazzo-play-record/1``: the NewGame request
and the moves as the API's JSON) are still read.

Both need the engine library next to this package; :func:`require_library`
says so before a game starts. The seat named ``human`` is the one whose view
a replay shows (the first seat if none is).
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from google.protobuf import json_format

from mazzo_client._gen.mazzo.v1 import engine_pb2 as pb

if TYPE_CHECKING:
    from mazzo.engine import Move
    from mazzo.engine.record import GameRecord

FORMAT = "mazzo-record/1"
OLD_FORMAT = "mazzo-play-record/1"
HUMAN = "human"
NEEDS_LIBRARY = (
    "--record and --replay read and write the engine's game records, which need the "
    "engine library: install mazzo-engine next to mazzo-client (Python 3.11 or newer; "
    "in a checkout of Mazzo: pip install ./engine)"
)


class RecordError(Exception):
    """A file that is no record this player reads, or one it cannot replay."""


@dataclass(frozen=True)
class Replay:
    """A record as a replay plays it: the NewGame request, who sat where, the
    moves as the API's messages and, for a finished game, its result."""

    request: pb.NewGameRequest
    seats: tuple[str, ...]
    moves: tuple[pb.Move, ...]
    scores: tuple[int, ...] | None = None
    winning_side: int | None = None

    @property
    def human(self) -> int:
        return self.seats.index(HUMAN) if HUMAN in self.seats else 0

    def ends_as(self, status: pb.Status) -> bool:
        """Whether the game ended as the record says (an earlier version's record
        gives no winning side)."""
        return self.scores == tuple(status.scores) and self.winning_side in (
            None,
            status.winning_side,
        )

    @property
    def ending(self) -> str:
        """How the record says the game ended: ``at 11 7, side 0 winning``."""
        if self.scores is None:
            return "unfinished"
        scores = "at " + " ".join(map(str, self.scores))
        return (
            scores if self.winning_side is None else f"{scores}, side {self.winning_side} winning"
        )

    @property
    def levels(self) -> dict[int, str]:
        """The other seats' names, by seat (a bot's level, as `mazzo play` writes them)."""
        return {seat: name for seat, name in enumerate(self.seats) if seat != self.human}


def require_library() -> None:
    """Refuse, before any game, to record or replay without the engine library."""
    try:
        found = importlib.util.find_spec("mazzo.engine.record") is not None
    except ModuleNotFoundError:
        found = False
    if not found:
        raise RecordError(NEEDS_LIBRARY)


# ---------------------------------------------------------------- writing


def save(
    path: Path,
    request: pb.NewGameRequest,
    seats: Sequence[str],
    moves: Sequence[pb.Move],
    final: pb.Status | None,
) -> None:
    """Write the game ``request`` started and ``moves`` played; ``final`` is the
    status at its end (``None``: left unfinished)."""
    from mazzo.engine.cards import parse_cards
    from mazzo.engine.record import GameRecord, Result, dumps

    game = request.WhichOneof("game")
    if game is None:  # the server starts no game without one: nothing to record
        raise RecordError("the game's request names no game")
    record = GameRecord(
        game=game,
        players=request.players,
        options=options_of(getattr(request, game)),
        seats=tuple(seats),
        seed=request.seed,
        moves=tuple(engine_move(move) for move in moves),
        result=(
            Result(tuple(final.scores), final.winning_side)
            if final is not None and final.game_over
            else None
        ),
        decks=tuple(parse_cards(deck.cards) for deck in request.decks),
        first_dealer=request.first_dealer if request.HasField("first_dealer") else None,
    )
    path.write_text(dumps(record), encoding="utf-8")


def options_of(options: pb.ScopaOptions | pb.TressetteOptions) -> dict[str, bool | int | str]:
    """A game's options message as the record names them: each field set, by its
    name, an enum by its value's name without the enum's prefix, in lower case
    (``variant: SCOPA_VARIANT_ESCOBA`` is ``"variant": "escoba"``)."""
    named: dict[str, bool | int | str] = {}
    for field, value in options.ListFields():
        if field.enum_type is not None:
            name = field.enum_type.values_by_number[value].name
            value = name.removeprefix(enum_prefix(field.enum_type)).lower()
        named[field.name] = value
    return named


def engine_move(move: pb.Move) -> Move:
    from mazzo.engine import Card, Move
    from mazzo.engine.cards import parse_cards

    return Move(move.seat, Card.parse(move.card), frozenset(parse_cards(move.take)), move.lay)


# ---------------------------------------------------------------- reading


def load(path: Path) -> Replay:
    """Read a record (or a file of an earlier `mazzo play`) as a replay."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise RecordError(f"cannot read the record {path}: {error}") from error
    if isinstance(data, dict) and data.get("format") == OLD_FORMAT:
        return _old_replay(data, path)
    from mazzo.engine.record import RecordError as Malformed
    from mazzo.engine.record import from_dict

    try:
        record = from_dict(data)
    except Malformed as error:
        raise RecordError(f"{path} is not a record mazzo play can replay: {error}") from error
    return replay_of(record)


def replay_of(record: GameRecord) -> Replay:
    """A record of the library as the requests and moves of the API."""
    result = record.result
    return Replay(
        request=request_of(record),
        seats=record.seats,
        moves=tuple(
            pb.Move(seat=m.seat, card=str(m.card), take=[str(c) for c in sorted(m.take)], lay=m.lay)
            for m in record.moves
        ),
        scores=None if result is None else result.scores,
        winning_side=None if result is None else result.winning_side,
    )


def request_of(record: GameRecord) -> pb.NewGameRequest:
    """The NewGame request that deals the record's game: its options set by name
    on the game's options message (the catalog's names are the proto's)."""
    request = pb.NewGameRequest(players=record.players, seed=record.seed)
    games = [field.name for field in request.DESCRIPTOR.oneofs_by_name["game"].fields]
    if record.game not in games:
        raise RecordError(f"the API names no game {record.game!r}; it has {', '.join(games)}")
    options = getattr(request, record.game)
    options.SetInParent()
    _set_options(options, record.options)
    for deck in record.decks:
        request.decks.add(cards=[str(card) for card in deck])
    if record.first_dealer is not None:
        request.first_dealer = record.first_dealer
    return request


def _set_options(
    options: pb.ScopaOptions | pb.TressetteOptions, values: Mapping[str, bool | int | str]
) -> None:
    fields = options.DESCRIPTOR.fields_by_name
    for name, value in values.items():
        field = fields.get(name)
        if field is None:
            raise RecordError(f"the API's {options.DESCRIPTOR.name} have no option {name!r}")
        if field.enum_type is not None:
            wire_name = enum_prefix(field.enum_type) + str(value).upper()
            wire = field.enum_type.values_by_name.get(wire_name)
            if wire is None:
                raise RecordError(f"the API's {field.enum_type.name} has no value {value!r}")
            value = wire.number
        setattr(options, name, value)


def enum_prefix(enum: Any) -> str:  # an EnumDescriptor (protobuf's pure or upb one)
    """What every value's name of an enum starts with: its zero value's name
    without ``UNSPECIFIED`` (``SCOPA_VARIANT_``)."""
    zero: str = enum.values_by_number[0].name
    return zero.removesuffix("UNSPECIFIED")


def _old_replay(data: dict[str, Any], path: Path) -> Replay:
    """A file of an earlier `mazzo play`: its NewGame request, seats and moves."""
    try:
        request = json_format.ParseDict(data["newGame"], pb.NewGameRequest())
        if not request.HasField("seed"):
            raise RecordError(f"{path} holds a game without a seed: it cannot be dealt again")
        human = int(data["humanSeat"])
        bots = {int(seat): str(level) for seat, level in data["bots"].items()}
        seats = tuple(HUMAN if seat == human else bots[seat] for seat in range(request.players))
        moves = tuple(json_format.ParseDict(m, pb.Move()) for m in data["moves"])
        scores = data.get("finalScores")
        return Replay(request, seats, moves, None if scores is None else tuple(scores))
    except (ValueError, KeyError, TypeError, AttributeError, json_format.ParseError) as error:
        raise RecordError(f"cannot read the record {path}: {error}") from error
