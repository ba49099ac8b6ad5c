"""Options drawn from the catalog: every value a game's ``options`` allows, for any game.

A drawn set of options names each option of the catalog (and ``players``) or
leaves it out, with the values the engine's rules take: an enum's text, a card
or ``None``, an integer in its range, a bool.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from mazzo.engine import DECK, Game, InvalidInput, OptionSpec


def option_values(spec: OptionSpec) -> st.SearchStrategy[Any]:
    """Every value the catalog allows for the option."""
    if spec.type == "bool":
        return st.booleans()
    if spec.type == "enum":
        return st.sampled_from(spec.allowed)
    if spec.type == "int":
        return st.integers(spec.min, spec.max)
    assert spec.type == "card", spec
    return st.sampled_from([None, *DECK])


_UNSET = object()


@st.composite
def catalog_options(draw: st.DrawFn, game: Game) -> dict[str, Any]:
    """Options of ``game`` by name, each set to a value the catalog allows or left out."""
    values: dict[str, Any] = {}
    players = draw(st.sampled_from([_UNSET, *game.player_counts]))
    if players is not _UNSET:
        values["players"] = players
    for spec in game.options:
        value = draw(st.just(_UNSET) | option_values(spec))
        if value is not _UNSET:
            values[spec.name] = value
    return values


def accepted(game: Game, values: dict[str, Any]) -> Any:
    """The rules of ``values``; while they are refused, without the option the
    refusal names (or, when it names none that was set, the last one set)."""
    values = dict(values)
    while True:
        try:
            return game.make_rules(**values)
        except InvalidInput as refused:
            named = refused.details.get("option")
            del values[named if named in values else next(reversed(values))]


def catalog_rules(game: Game) -> st.SearchStrategy[Any]:
    """Rules of ``game`` from options the catalog allows; a mix the rules refuse is
    cut down, one refused option at a time, to one they accept."""
    return catalog_options(game).map(lambda values: accepted(game, values))
