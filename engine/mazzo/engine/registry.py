"""The games the engine knows, by name, and the state bytes that name them.

A game is its State class (:mod:`mazzo.engine.state`). A state travels as
``tag byte + the game's own encoding``, so one decoder serves every game.
"""

from __future__ import annotations

from typing import Any

from mazzo.engine.briscola import BriscolaState
from mazzo.engine.errors import InvalidInput, Reason
from mazzo.engine.scopa import ScopaState
from mazzo.engine.state import State
from mazzo.engine.tressette import TressetteState

#: A game: its State class. ``Any``: the registry holds games of every rules
#: and view type; a caller that knows its game holds its class.
Game = type[State[Any, Any]]
AnyState = State[Any, Any]  # Any: as ``Game``

GAMES: dict[str, Game] = {game.name: game for game in (ScopaState, TressetteState, BriscolaState)}
# The tag is the first byte of every state: never reuse or renumber one.
_TAGS: dict[int, Game] = {game.tag: game for game in GAMES.values()}


def get_game(name: str) -> Game:
    try:
        return GAMES[name]
    except KeyError:
        known = ", ".join(sorted(GAMES))
        raise InvalidInput(
            Reason.INVALID_GAME,
            "no game {name}; this engine knows: {known}",
            name=repr(name),
            known=known,
        ) from None


def game_of(state: AnyState) -> Game:
    return type(state)


def dump_state(state: AnyState) -> bytes:
    return bytes((state.tag,)) + state.encode()


def load_state(data: bytes) -> AnyState:
    """Read :func:`dump_state`'s bytes; ``InvalidInput(STATE_CORRUPT)`` if they are not."""
    game = _TAGS.get(data[0]) if data else None
    if game is None:
        raise InvalidInput(Reason.STATE_CORRUPT, "the state names no known game")
    return game.decode(data[1:])
