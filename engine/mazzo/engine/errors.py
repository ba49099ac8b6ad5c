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

from collections.abc import Callable, Iterable, Mapping
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


class Text:
    """A message as a template and its parameters, e.g.
    ``Text("{card} is not in seat {seat}'s hand", card=card, seat=0)``.

    ``str()`` gives the English text; :meth:`render` gives it through a
    translation (the service's gettext catalogs), so the engine names no
    language library. A parameter that is itself a :class:`Text`, a
    :class:`RuleError` or a :class:`Listing` is rendered through the same
    translation; any other parameter is inserted as ``str()`` gives it.
    A template without parameters is never formatted (its braces stay).
    """

    __slots__ = ("template", "params")

    def __init__(self, template: str, /, **params: object) -> None:
        self.template = template
        self.params = params

    def render(self, translate: Callable[[str], str] = str) -> str:
        template = translate(self.template)
        if not self.params:
            return template
        return template.format(**{k: render(v, translate) for k, v in self.params.items()})

    def __str__(self) -> str:
        return self.render()

    def __repr__(self) -> str:
        return f"Text({self.template!r}, **{self.params!r})"


class Listing:
    """Items written one after another with a separator that is itself a
    template (``" or "`` translates; ``", "`` is the same in every language)."""

    __slots__ = ("items", "separator")

    def __init__(self, items: Iterable[object], separator: str = ", ") -> None:
        self.items = tuple(items)
        self.separator = separator

    def render(self, translate: Callable[[str], str] = str) -> str:
        return translate(self.separator).join(render(item, translate) for item in self.items)

    def __str__(self) -> str:
        return self.render()


def render(value: object, translate: Callable[[str], str] = str) -> str:
    """A message parameter as text, through ``translate`` when it is a message."""
    if isinstance(value, Text | Listing):
        return value.render(translate)
    if isinstance(value, RuleError):
        return value.text.render(translate)
    return str(value)


def N_(template: str) -> str:  # noqa: N802 (gettext's marker name)
    """Marks a template for the message extractor; the text itself is unchanged."""
    return template


class RuleError(Exception):
    """Base of every refusal; ``details`` are short strings a program may read.

    The message is a template and its parameters (``text``), so that the
    service can give it in the caller's language; ``message`` is its English.
    """

    def __init__(
        self,
        reason: Reason,
        template: str,
        details: Mapping[str, str] | None = None,
        /,
        **params: object,
    ):
        self.text = Text(template, **params)
        self.message = self.text.render()
        super().__init__(self.message)
        self.reason = reason
        self.details: dict[str, str] = dict(details or {})


class InvalidInput(RuleError):
    """The request is malformed, whatever the state."""
