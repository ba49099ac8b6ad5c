"""A game's options, each declared once: as a field of the game's rules.

A game's rules are a frozen dataclass (:class:`~mazzo.engine.scopa_rules.ScopaRules`,
:class:`~mazzo.engine.tressette.TressetteRules`) whose option fields are declared
with :func:`number`, :func:`switch`, :func:`choice` or :func:`card`: the default,
what the option does, the values it takes. Everything else is read from there:

* the catalog's entries (:func:`catalog`, a game's ``Game.options``);
* the checks of a value, and an enum read from its text (:func:`check`);
* the fields a state codec packs (:func:`enum_fields`, :func:`bool_fields`);
* the server's mapping of a game's options message, field by field by name.

A game adds an option by adding its field (and its field to the options message).
An option's description is a message template, as a refusal's is: the server's
message extractor reads it from the declaration, and the catalog answers it in
the caller's language.
"""

from __future__ import annotations

from dataclasses import Field, dataclass, field, fields
from enum import StrEnum
from functools import cache
from typing import NoReturn, TypeVar

from mazzo.engine.cards import Card
from mazzo.engine.errors import N_, InvalidInput, Reason

E = TypeVar("E", bound=StrEnum)


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One rules option as the catalog shows it."""

    name: str
    type: str  # "int", "bool", "enum" or "card"
    default: int | bool | str
    description: str
    allowed: tuple[str, ...] = ()
    min: int = 0
    max: int = 0


@dataclass(frozen=True, slots=True)
class _Declared:
    """What a field's declaration says beyond its name."""

    type: str
    default: int | bool | StrEnum | None
    description: str
    low: int = 0
    high: int = 0
    #: The option whose value presets the others (Scopa's variant): the catalog lists it first.
    presets: bool = False


_KEY = "mazzo.option"


def number(default: int, description: str, *, low: int, high: int) -> int:
    """An integer option from ``low`` to ``high``."""
    declared = _Declared("int", default, description, low, high)
    return field(default=default, metadata={_KEY: declared})


def switch(default: bool, description: str) -> bool:
    """An option that is on or off."""
    return field(default=default, metadata={_KEY: _Declared("bool", default, description)})


def choice(default: E, description: str, *, presets: bool = False) -> E:
    """One member of the default's enum (or its text: ``"sevens"``). ``presets``: the
    option's value presets the others (the catalog lists it first)."""
    declared = _Declared("enum", default, description, presets=presets)
    return field(default=default, metadata={_KEY: declared})


def card(description: str) -> Card | None:
    """A card, or ``None`` (the default): off."""
    return field(default=None, metadata={_KEY: _Declared("card", None, description)})


@cache
def _declared(rules: type) -> tuple[tuple[Field[object], _Declared], ...]:
    """The option fields of a rules class, in field order."""
    return tuple((f, f.metadata[_KEY]) for f in fields(rules) if _KEY in f.metadata)


@cache
def catalog(rules: type) -> tuple[OptionSpec, ...]:
    """The catalog's entries of a rules class's options: the one that presets the
    others first, then the rest in field order."""
    specs = [(declared.presets, _spec(f.name, declared)) for f, declared in _declared(rules)]
    return tuple(spec for first, spec in specs if first) + tuple(
        spec for first, spec in specs if not first
    )


def _spec(name: str, declared: _Declared) -> OptionSpec:
    default = declared.default
    if isinstance(default, StrEnum):
        allowed = tuple(member.value for member in type(default))
        return OptionSpec(name, "enum", default.value, declared.description, allowed)
    return OptionSpec(
        name,
        declared.type,
        "" if default is None else default,
        declared.description,
        min=declared.low,
        max=declared.high,
    )


@cache
def enum_fields(rules: type) -> dict[str, type[StrEnum]]:
    """The enum options of a rules class and their enums, in field order."""
    return {
        f.name: type(declared.default)
        for f, declared in _declared(rules)
        if isinstance(declared.default, StrEnum)
    }


@cache
def bool_fields(rules: type) -> tuple[str, ...]:
    """The on/off options of a rules class, in field order."""
    return tuple(f.name for f, declared in _declared(rules) if declared.type == "bool")


def check_players(players: object, counts: tuple[int, ...], refusal: str) -> None:
    """The player count of a game's rules is one the game is played by; else
    ``INVALID_PLAYERS`` with the game's own ``refusal`` template (``{players}``)."""
    if type(players) is not int or players not in counts:
        raise InvalidInput(Reason.INVALID_PLAYERS, refusal, players=players)


def check(rules: object) -> None:
    """Check every option of ``rules`` (a rules dataclass, just made) against its
    declaration; an enum given as its text becomes the member. Refuses a bad value
    with ``INVALID_OPTION``, naming the option."""
    kind: type = type(rules)
    for option, declared in _declared(kind):
        name, value, default = option.name, getattr(rules, option.name), declared.default
        if isinstance(default, StrEnum):
            object.__setattr__(rules, name, enum_value(name, type(default), value))
        elif declared.type == "bool" and type(value) is not bool:
            refuse(name, "{name} must be true or false, not {value}", value=repr(value))
        elif declared.type == "int" and (
            type(value) is not int or not declared.low <= value <= declared.high
        ):
            low, high = declared.low, declared.high
            template = N_("{name} must be an integer between {low} and {high}, not {value}")
            refuse(name, template, low=low, high=high, value=repr(value))
        elif declared.type == "card" and value is not None and not isinstance(value, Card):
            template = N_('{name} must be a card\'s code (such as "10D") or none, not {value}')
            refuse(name, template, value=repr(value))


def enum_value(name: str, kind: type[E], value: object) -> E:
    """Accept the member or its text ("sevens"); refuse anything else."""
    try:
        return kind(value)  # type: ignore[arg-type]
    except ValueError:
        allowed = ", ".join(member.value for member in kind)
        refuse(
            name, "{name} must be one of {allowed}, not {value}", allowed=allowed, value=repr(value)
        )


def refuse(option: str, template: str, **params: object) -> NoReturn:
    """INVALID_OPTION naming ``option``; ``{name}`` in the template is the option's name."""
    raise InvalidInput(Reason.INVALID_OPTION, template, {"option": option}, name=option, **params)
