"""The games the engine knows, by name, and the state bytes that name them.

A game is its State class (:mod:`mazzo.engine.state`). A state travels as
``tag byte + the game's own encoding``, so one decoder serves every game.
"""

from __future__ import annotations

from typing import cast

from mazzo.engine.briscola import BriscolaState
from mazzo.engine.errors import InvalidInput, Reason
from mazzo.engine.scopa import ScopaState
from mazzo.engine.state import R, Rules, State, V, View
from mazzo.engine.tressette import TressetteState

#: Some game's state, its game known only by name (a registry's game, a state's
#: bytes read back): its rules and view are what every game's are.
AnyState = State[Rules, View]
#: A game: its State class.
Game = type[AnyState]

#: Each game is ``State[its rules, its view]``, which mypy does not take for a
#: ``State[Rules, View]`` (a state's rules type is both read and written): the
#: registry holds them as such, and a caller passes a game's rules back to the
#: game they came from.
GAMES: dict[str, Game] = {
    game.name: cast(Game, game) for game in (ScopaState, TressetteState, BriscolaState)
}
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


def game_of(state: State[R, V]) -> type[State[R, V]]:
    return type(state)


def dump_state(state: State[R, V]) -> bytes:
    return bytes((state.tag,)) + state.encode()


def load_state(data: bytes) -> AnyState:
    """Read :func:`dump_state`'s bytes; ``InvalidInput(STATE_CORRUPT)`` if they are not."""
    game = _TAGS.get(data[0]) if data else None
    if game is None:
        raise InvalidInput(Reason.STATE_CORRUPT, "the state names no known game")
    return game.decode(data[1:])
