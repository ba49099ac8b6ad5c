"""Why a request or a move is refused: a stable reason and a readable message.

Two kinds, because callers act on them differently:

* :class:`InvalidInput` -- the request itself is malformed (an unknown card,
  a bad option, a seat that does not exist). Retrying it unchanged never works.
* :class:`~mazzo.engine.game.IllegalMove` -- a well-formed move that the rules
  forbid in this state (not your turn, must take the same rank, ...). It lives
  with :class:`~mazzo.engine.game.Move`, whose legal alternatives it carries:
  this module is the engine's first, and imports none of it.

Either way the state the caller holds is untouched: the engine never mutates
a state.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum


class Reason(StrEnum):
    """Stable reason codes; the wire carries their names unchanged."""

    # Malformed input.
    INVALID_CARD = "INVALID_CARD"
    DUPLICATE_CARD = "DUPLICATE_CARD"
    INVALID_DECK = "INVALID_DECK"
    INVALID_PLAYERS = "INVALID_PLAYERS"
    INVALID_OPTION = "INVALID_OPTION"
    INVALID_SEAT = "INVALID_SEAT"
    INVALID_SEED = "INVALID_SEED"
    INVALID_GAME = "INVALID_GAME"
    TAKE_NOT_ALLOWED = "TAKE_NOT_ALLOWED"
    LAY_WITH_TAKE = "LAY_WITH_TAKE"
    STATE_CORRUPT = "STATE_CORRUPT"
    # Illegal moves.
    GAME_OVER = "GAME_OVER"
    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    CARD_NOT_IN_HAND = "CARD_NOT_IN_HAND"
    CARD_NOT_ON_TABLE = "CARD_NOT_ON_TABLE"
    MUST_TAKE_SAME_RANK = "MUST_TAKE_SAME_RANK"
    NO_SUCH_CAPTURE = "NO_SUCH_CAPTURE"
    CAPTURE_CHOICE_REQUIRED = "CAPTURE_CHOICE_REQUIRED"
    MUST_TAKE_FEWEST_CARDS = "MUST_TAKE_FEWEST_CARDS"
    MUST_TAKE = "MUST_TAKE"
    MUST_FOLLOW_SUIT = "MUST_FOLLOW_SUIT"


class RuleError(Exception):
    """Base of every refusal; ``details`` are short strings a program may read."""

    def __init__(self, reason: Reason, message: str, details: Mapping[str, str] | None = None):
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.details: dict[str, str] = dict(details or {})


class InvalidInput(RuleError):
    """The request is malformed, whatever the state."""
