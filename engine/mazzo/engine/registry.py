"""The games the engine knows, by name, and the state bytes that name them.

A state travels as ``tag byte + the game's own encoding``, so one decoder
serves every game.
"""

from __future__ import annotations

from typing import Any

from mazzo.engine.briscola import BriscolaState
from mazzo.engine.errors import InvalidInput, Reason
from mazzo.engine.game import Game, game_of_state
from mazzo.engine.scopa import SCOPA, ScopaState
from mazzo.engine.tressette import TressetteState

TRESSETTE = game_of_state(TressetteState)
BRISCOLA = game_of_state(BriscolaState)

GAMES: dict[str, Game] = {game.name: game for game in (SCOPA, TRESSETTE, BRISCOLA)}

# The tag is the first byte of every state: never reuse or renumber one.
_STATE_TYPES: dict[type, tuple[int, Game]] = {
    ScopaState: (1, SCOPA),
    TressetteState: (2, TRESSETTE),
    BriscolaState: (3, BRISCOLA),
}
_TAGS: dict[int, Game] = {tag: game for tag, game in _STATE_TYPES.values()}


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


def game_of(state: Any) -> Game:
    return _STATE_TYPES[type(state)][1]


def dump_state(state: Any) -> bytes:
    tag, game = _STATE_TYPES[type(state)]
    return bytes((tag,)) + game.encode(state)


def load_state(data: bytes) -> Any:
    """Read :func:`dump_state`'s bytes; ``InvalidInput(STATE_CORRUPT)`` if they are not."""
    game = _TAGS.get(data[0]) if data else None
    if game is None:
        raise InvalidInput(Reason.STATE_CORRUPT, "the state names no known game")
    return game.decode(data[1:])
