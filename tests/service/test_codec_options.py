"""A game's options message carries the catalog's options, field by field by name, and
the codec reads it into the rules those options make (mazzo.engine.options)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from google.protobuf.descriptor import FieldDescriptor
from hypothesis import given, settings
from hypothesis import strategies as st

from mazzo.engine import GAMES, Game, InvalidInput
from mazzo.service import codec
from mazzo.v1 import engine_pb2 as pb
from tests.engine.options_support import catalog_options

GAME_LIST = list(GAMES.values())
#: The field type that carries each type of option.
FIELD_TYPES = {
    "bool": FieldDescriptor.TYPE_BOOL,
    "int": FieldDescriptor.TYPE_INT32,
    "enum": FieldDescriptor.TYPE_ENUM,
    "card": FieldDescriptor.TYPE_STRING,
}


def options_message(game: Game) -> Any:
    return pb.NewGameRequest.DESCRIPTOR.fields_by_name[game.name].message_type


def wire_enum_name(field: Any, value: str) -> str:
    """``DEAL_RULE_SCOPONE_NINE``: the enum's name in capitals, then the value's."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", field.enum_type.name).upper() + "_" + value.upper()


@pytest.mark.parametrize("game", GAME_LIST, ids=lambda g: g.name)
def test_the_options_message_has_a_field_of_the_same_name_and_kind_for_each_option(
    game: Game,
) -> None:
    fields = options_message(game).fields_by_name
    assert set(fields) == {spec.name for spec in game.options}
    for spec in game.options:
        field = fields[spec.name]
        assert field.type == FIELD_TYPES[spec.type], spec
        if spec.type == "enum":
            names = {v.name for v in field.enum_type.values if v.number}
            assert names == {wire_enum_name(field, value) for value in spec.allowed}, spec


def request_of(game: Game, options: dict[str, Any]) -> pb.NewGameRequest:
    """The request that sets ``options``, written field by field."""
    message = getattr(pb, options_message(game).name)()
    fields = options_message(game).fields_by_name
    for name, value in options.items():
        if name == "players":
            continue
        field = fields[name]
        if field.type == FieldDescriptor.TYPE_ENUM:
            value = field.enum_type.values_by_name[wire_enum_name(field, value)].number
        elif field.type == FieldDescriptor.TYPE_STRING:
            value = "" if value is None else str(value)
        setattr(message, name, value)
    return pb.NewGameRequest(players=options.get("players", 0), **{game.name: message})


def rules_or_refusal(make: Any) -> Any:
    try:
        return make()
    except InvalidInput as refused:
        return (refused.reason, refused.details)


@pytest.mark.parametrize("game", GAME_LIST, ids=lambda g: g.name)
@settings(max_examples=60, derandomize=True)
@given(data=st.data())
def test_an_options_message_makes_the_rules_its_options_make_or_the_same_refusal(
    game: Game, data: st.DataObject
) -> None:
    options = data.draw(catalog_options(game))
    request = request_of(game, options)
    made = rules_or_refusal(lambda: game.make_rules(**options))
    expected = made if isinstance(made, tuple) else (game.name, made)
    assert rules_or_refusal(lambda: codec.rules_from_request(request)) == expected
