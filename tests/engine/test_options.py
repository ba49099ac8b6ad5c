"""Each game's options are declared once, on its rules (mazzo.engine.options): the
catalog, the checks and the state codec's layout all follow from that declaration."""

from __future__ import annotations

import dataclasses
from enum import StrEnum
from typing import Any

import pytest

from mazzo.engine import DECK, GAMES, Game, InvalidInput, Reason, get_game
from mazzo.engine.scopa_rules import (
    BOOL_FIELDS,
    ENUM_FIELDS,
    CaptureRule,
    PrimieraRule,
    ScopaRules,
    Variant,
)

GAME_LIST = list(GAMES.values())


def plain_rules(game: Game) -> Any:
    """The game's rules with every option at its declared default."""
    return type(game.make_rules())()


@pytest.mark.parametrize("game", GAME_LIST, ids=lambda g: g.name)
def test_every_option_of_the_rules_is_in_the_catalog_with_its_default(game: Game) -> None:
    defaults = plain_rules(game)
    declared = {f.name for f in dataclasses.fields(defaults) if f.init} - {"players"}
    assert {spec.name for spec in game.options} == declared
    for spec in game.options:
        default = getattr(defaults, spec.name)
        shown = default.value if isinstance(default, StrEnum) else default
        assert spec.default == ("" if shown is None else shown), spec


@pytest.mark.parametrize("game", GAME_LIST, ids=lambda g: g.name)
def test_an_enum_option_allows_every_member_of_its_enum(game: Game) -> None:
    for spec in game.options:
        default = getattr(plain_rules(game), spec.name)
        if isinstance(default, StrEnum):
            assert spec.type == "enum"
            assert spec.allowed == tuple(member.value for member in type(default))


def test_the_option_that_presets_the_others_comes_first_in_the_catalog() -> None:
    names = [spec.name for spec in get_game("scopa").options]
    assert names[0] == "variant"
    assert names.index("target") < names.index("napola") < names.index("primiera")


def test_the_state_codec_packs_the_options_in_the_order_older_states_were_written() -> None:
    # The rules bytes of a Scopa state hold the enums, then a bit per switch, in
    # this order: an option added later goes last, and none moves.
    assert list(ENUM_FIELDS) == [
        "primiera",
        "variant",
        "deal",
        "capture",
        "ace_sweep",
        "first_table_bonus",
        "face",
    ]
    assert BOOL_FIELDS == (
        "napola",
        "ace_takes_all",
        "fewest_cards",
        "redeal_kings",
        "redeal_aces",
        "declarations",
        "grande_piccola",
        "compulsory_capture",
        "matta_wild_in_first_table",
        "piccola_stops_at_six",
    )


def _bad_values(spec: Any) -> list[Any]:
    """Values the declaration of ``spec`` refuses."""
    if spec.type == "bool":
        return [1, "true", None]
    if spec.type == "int":
        return [spec.min - 1, spec.max + 1, float(spec.min), str(spec.min)]
    if spec.type == "enum":
        return ["bogus", spec.default.upper(), 1]
    return [str(DECK[0]), 0]


@pytest.mark.parametrize(
    ("game", "spec"),
    [(game, spec) for game in GAME_LIST for spec in game.options],
    ids=lambda v: getattr(v, "name", ""),
)
def test_a_value_the_declaration_refuses_is_an_invalid_option_naming_it(
    game: Game, spec: Any
) -> None:
    for value in _bad_values(spec):
        with pytest.raises(InvalidInput) as refused:
            game.make_rules(**{spec.name: value})
        assert refused.value.reason is Reason.INVALID_OPTION, value
        assert refused.value.details == {"option": spec.name}, value


def test_the_rules_of_a_game_take_the_catalogs_names_and_texts() -> None:
    made = get_game("scopa").make_rules(variant="cirulla", players=3, primiera="sevens")
    assert made == ScopaRules.preset(Variant.CIRULLA, players=3, primiera=PrimieraRule.SEVENS)
    assert made.capture is CaptureRule.CIRULLA  # from the variant's preset
    assert made.primiera is PrimieraRule.SEVENS  # the text became the member
