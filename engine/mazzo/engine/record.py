"""Game records: a whole game as a small JSON text, written, read and replayed.

A record holds what deals the game again and every move made in it: the game,
its player count and options (the catalog's names and values, as
:meth:`~mazzo.engine.state.State.rules_from` takes them), who sat at each seat,
the seed (and any explicit decks, the first dealer), the moves in their
notation (``0:7D``, ``1:10Bx3B+7B``, ``0:8D-``) and the result. The format,
``mazzo-record/1``, is described in the engine's guide (engine/README.md, Game
records)::

    from mazzo.engine import record

    text = record.dumps(record.GameRecord.of(game, rules, seed=42, moves=moves, final=state))
    final_state = record.replay(record.loads(text))  # every move legal, the result the same

Why JSON: the standard library reads and writes it, every language the API is
used from does too, the options keep their types (integer, true/false, text),
and one move a line diffs well.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

from mazzo.engine import deal
from mazzo.engine.cards import Card, parse_cards
from mazzo.engine.errors import Reason, RuleError
from mazzo.engine.events import Event
from mazzo.engine.game import Move, Status
from mazzo.engine.registry import AnyState, Game, get_game
from mazzo.engine.state import OptionValue, R, Rules, State, V

FORMAT = "mazzo-record/1"
FORMAT_FAMILY = "mazzo-record/"
#: The name of a seat nobody named, as PGN writes an unknown tag.
UNKNOWN_SEAT = "?"
#: The fields of a record, in the order it writes them.
_KEYS = (
    "format",
    "game",
    "players",
    "options",
    "seats",
    "seed",
    "decks",
    "first_dealer",
    "moves",
    "result",
)
_REQUIRED = ("format", "game", "players", "seed", "moves")

T = TypeVar("T")


class RecordError(Exception):
    """A record that cannot be read, or that does not replay as it says.

    ``ply`` is the move at fault (1 for the first), when one is; ``reason``
    the engine's reason when the engine refused something (an illegal move,
    an option out of range).
    """

    def __init__(self, message: str, *, ply: int | None = None, reason: Reason | None = None):
        super().__init__(message)
        self.message = message
        self.ply = ply
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Result:
    """How a game ended: the scores by side and the side that won."""

    scores: tuple[int, ...]
    winning_side: int

    @classmethod
    def of(cls, status: Status) -> Result | None:
        """The result of a game whose status this is; ``None`` while it goes on."""
        if status.winning_side is None:
            return None
        return cls(tuple(status.scores), status.winning_side)


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game, as a record holds it. ``result`` is ``None`` for a game left unfinished."""

    game: str
    players: int
    options: Mapping[str, OptionValue]
    seats: tuple[str, ...]
    seed: int
    moves: tuple[Move, ...] = ()
    result: Result | None = None
    decks: tuple[tuple[Card, ...], ...] = ()
    first_dealer: int | None = None

    @classmethod
    def of(
        cls,
        game: type[State[R, V]],
        rules: R,
        *,
        seed: int,
        moves: Sequence[Move],
        final: State[R, V] | None = None,
        seats: Sequence[str] | None = None,
        decks: Sequence[Sequence[Card]] = (),
        first_dealer: int | None = None,
    ) -> GameRecord:
        """The record of a game started with ``game.new_game(rules, seed=seed, ...)``
        and played with ``moves``; ``final``, the state they reached, gives the
        result (none while the game goes on). Seats nobody named are ``"?"``."""
        return cls(
            game=game.name,
            players=rules.players,
            options=game.options_of(rules),
            seats=tuple(seats) if seats is not None else (UNKNOWN_SEAT,) * rules.players,
            seed=seed,
            moves=tuple(moves),
            result=None if final is None else Result.of(final.status()),
            decks=tuple(tuple(d) for d in decks),
            first_dealer=first_dealer,
        )

    def rules(self) -> Rules:
        """The game's rules, from the record's options and player count."""
        return _engine("options", lambda: _game(self).rules_from(self.options, self.players))

    def start(self) -> tuple[AnyState, list[Event]]:
        """The game dealt as the record says: its first state and events."""
        rules = self.rules()
        return _engine(
            "deal",
            lambda: _game(self).new_game(
                rules, seed=self.seed, decks=self.decks, first_dealer=self.first_dealer
            ),
        )


class Step(NamedTuple):
    """One move of a replay: the ply it made (1 for the first), the state it led to
    and the events it made."""

    ply: int
    move: Move
    state: AnyState
    events: list[Event]


# ---------------------------------------------------------------- replaying


def steps(record: GameRecord) -> Iterator[Step]:
    """The record's moves played one by one through the engine; a move the rules
    refuse raises :class:`RecordError` with its ply and the engine's reason."""
    state, _ = record.start()
    for ply, move in enumerate(record.moves, start=1):
        state = state.clone()  # each step's state stays as that step left it
        try:
            events = state.apply(move)
        except RuleError as refused:
            raise RecordError(
                f"move {ply}, {move}, is refused: {refused.message}",
                ply=ply,
                reason=refused.reason,
            ) from None
        yield Step(ply, move, state, events)


def replay(record: GameRecord) -> AnyState:
    """Play the whole record through the engine: every move must be legal and the
    game must end as the record says (or go on, if it gives no result). Returns
    the last state; raises :class:`RecordError` saying where it went otherwise."""
    state = None
    for step in steps(record):
        state = step.state
    if state is None:  # no moves
        state, _ = record.start()
    ended = Result.of(_game(record).status(state))
    if ended == record.result:
        return state
    moves = len(record.moves)
    if record.result is None:
        raise RecordError(
            f"the record gives no result, but the game ended after its {moves} moves: "
            f"{_told(ended)}"
        )
    if ended is None:
        raise RecordError(
            f"the record ends after {moves} moves with {_told(record.result)}, but the game goes on"
        )
    raise RecordError(f"the record says {_told(record.result)}; the engine: {_told(ended)}")


def _told(result: Result | None) -> str:
    if result is None:
        return "no result"
    scores = " ".join(map(str, result.scores))
    return f"scores {scores}, side {result.winning_side} wins"


# ---------------------------------------------------------------- writing


def to_dict(record: GameRecord) -> dict[str, Any]:  # Any: JSON values, each field of its own type
    """The record as JSON values, in the format's order of keys."""
    data: dict[str, object] = {
        "format": FORMAT,
        "game": record.game,
        "players": record.players,
        "options": dict(record.options),
        "seats": list(record.seats),
        "seed": record.seed,
    }
    if record.decks:
        data["decks"] = [[str(card) for card in deck] for deck in record.decks]
    if record.first_dealer is not None:
        data["first_dealer"] = record.first_dealer
    data["moves"] = [str(move) for move in record.moves]
    data["result"] = (
        None
        if record.result is None
        else {"scores": list(record.result.scores), "winning_side": record.result.winning_side}
    )
    return data


def dumps(record: GameRecord) -> str:
    """The record's text: JSON, a key a line, and a move (or a deck) a line."""
    lines = []
    for key, value in to_dict(record).items():
        if key in ("moves", "decks") and value:
            items = ",\n".join(f"  {_json(item)}" for item in value)
            lines.append(f" {_json(key)}: [\n{items}\n ]")
        else:
            lines.append(f" {_json(key)}: {_json(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


# ---------------------------------------------------------------- reading


def loads(text: str) -> GameRecord:
    """Read a record's text; :class:`RecordError` says what is wrong with it."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, TypeError) as error:
        raise RecordError(f"a record is JSON text: {error}") from None
    return from_dict(data)


def from_dict(data: object) -> GameRecord:
    """Read a record from its JSON values, checking each field (the options
    and decks as the engine would take them)."""
    if not isinstance(data, dict):
        raise RecordError("a record is a JSON object")
    _check_format(data.get("format"))
    unknown = [key for key in data if key not in _KEYS]
    if unknown:
        raise RecordError(f"a {FORMAT} record has no field {unknown[0]!r}")
    missing = [key for key in _REQUIRED if key not in data]
    if missing:
        raise RecordError(f"the record has no {missing[0]!r}")
    game = _text(data["game"], "game")
    players = _integer(data["players"], "players")
    options = _options(data.get("options", {}))
    # The game, its player count and options first: the other fields are read by them.
    rules_of = _engine("game", lambda: get_game(game)).rules_from
    _engine("options", lambda: rules_of(options, players))
    return GameRecord(
        game=game,
        players=players,
        options=options,
        seats=_seats(data.get("seats"), players),
        seed=_engine("seed", lambda: deal.check_seed(_integer(data["seed"], "seed"))),
        moves=_moves(data["moves"]),
        result=_result(data.get("result")),
        decks=_decks(data.get("decks", [])),
        first_dealer=_first_dealer(data.get("first_dealer"), players),
    )


def _check_format(found: object) -> None:
    if found == FORMAT:
        return
    if isinstance(found, str) and found.startswith(FORMAT_FAMILY):
        raise RecordError(f"the record is of format {found!r}; this engine reads {FORMAT!r}")
    raise RecordError(f'not a game record: its "format" is {found!r}, not {FORMAT!r}')


def _game(record: GameRecord) -> Game:
    return _engine("game", lambda: get_game(record.game))


def _engine(where: str, make: Callable[[], T]) -> T:
    """``make()``, with the engine's refusal told as the record's, at ``where``."""
    try:
        return make()
    except RuleError as refused:
        raise RecordError(f"{where}: {refused.message}", reason=refused.reason) from None


def _integer(value: object, name: str) -> int:
    if type(value) is not int:
        raise RecordError(f"{name} must be an integer, not {value!r}")
    return value


def _text(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise RecordError(f"{name} must be text, not {value!r}")
    return value


def _list(value: object, name: str) -> list[object]:
    if not isinstance(value, list):
        raise RecordError(f"{name} must be a list, not {value!r}")
    return value


def _options(value: object) -> dict[str, OptionValue]:
    if not isinstance(value, dict):
        raise RecordError(f"options must be an object of option names, not {value!r}")
    for name, option in value.items():
        if not isinstance(option, bool | int | str):
            raise RecordError(f"options: {name} must be an integer, true/false or text")
    return dict(value)


def _seats(value: object, players: int) -> tuple[str, ...]:
    if value is None:
        return (UNKNOWN_SEAT,) * players
    seats = tuple(_text(seat, "each seat") for seat in _list(value, "seats"))
    if len(seats) != players:
        raise RecordError(f"seats names {len(seats)} seats for {players} players")
    return seats


def _moves(value: object) -> tuple[Move, ...]:
    moves = []
    for ply, text in enumerate(_list(value, "moves"), start=1):
        try:
            moves.append(Move.parse(_text(text, f"move {ply}")))
        except RuleError as refused:
            raise RecordError(
                f"move {ply}: {refused.message}", ply=ply, reason=refused.reason
            ) from None
    return tuple(moves)


def _decks(value: object) -> tuple[tuple[Card, ...], ...]:
    decks = [_deck(deck, number) for number, deck in enumerate(_list(value, "decks"), start=1)]
    return _engine("decks", lambda: deal.check_decks(decks))


def _deck(value: object, number: int) -> tuple[Card, ...]:
    cards = [_text(card, f"deck {number}'s cards") for card in _list(value, f"deck {number}")]
    return _engine(f"deck {number}", lambda: parse_cards(cards))


def _first_dealer(value: object, players: int) -> int | None:
    if value is None:
        return None
    dealer = _integer(value, "first_dealer")
    return _engine("first_dealer", lambda: deal.first_dealer(players, dealer))


def _result(value: object) -> Result | None:
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) != {"scores", "winning_side"}:
        raise RecordError('result must be null or {"scores": [...], "winning_side": N}')
    scores = tuple(_integer(s, "each score") for s in _list(value["scores"], "scores"))
    return Result(scores, _integer(value["winning_side"], "winning_side"))


__all__ = [
    "FORMAT",
    "GameRecord",
    "RecordError",
    "Result",
    "Step",
    "dumps",
    "from_dict",
    "loads",
    "replay",
    "steps",
    "to_dict",
]
