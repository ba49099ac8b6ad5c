"""A game's options as the catalog names them: ``game.rules_from(options)`` makes
the rules, ``game.options_of(rules)`` writes them back, fewest first."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mazzo.engine import Card, InvalidInput, Reason, get_game
from mazzo.engine.scopa_rules import VARIANT_PLAYERS, AceSweep, ScopaRules
from mazzo.engine.tressette import TressetteRules

SCOPA = get_game("scopa")
NINE_OF_CUPS = Card.parse("9C")


def test_a_new_game_from_options_as_the_catalog_writes_them() -> None:
    rules = SCOPA.rules_from({"variant": "escoba", "target": 15, "re_bello": "10D"}, players=4)
    assert rules == ScopaRules.preset("escoba", players=4, target=15, re_bello=Card.parse("10D"))
    assert SCOPA.rules_from({}) == ScopaRules()
    assert SCOPA.rules_from({"variant": "scopone_classico"}).players == 4  # the variant's count
    assert get_game("tressette").rules_from({"napoletana": True}, 4) == TressetteRules(
        4, napoletana=True
    )


@pytest.mark.parametrize(
    ("options", "reason", "says"),
    [
        (
            {"trumps": True},
            Reason.INVALID_OPTION,
            "Scopa has no option 'trumps'; its options: variant",
        ),
        ({"players": 4}, Reason.INVALID_OPTION, "no option 'players'"),
        ({"variant": "briscola"}, Reason.INVALID_OPTION, "variant must be one of scopa, "),
        ({"variant": 1}, Reason.INVALID_OPTION, "variant must be one of"),
        ({"target": "11"}, Reason.INVALID_OPTION, "an integer between 1 and 1000, not '11'"),
        ({"target": True}, Reason.INVALID_OPTION, "target must be an integer"),
        ({"target": 0}, Reason.INVALID_OPTION, "target must be an integer between 1 and 1000"),
        ({"napola": 1}, Reason.INVALID_OPTION, "napola must be true or false, not 1"),
        ({"re_bello": 10}, Reason.INVALID_OPTION, "re_bello must be a card's code"),
        ({"re_bello": "11D"}, Reason.INVALID_CARD, "'11D' is not a card"),
        ({"re_bello": "7D"}, Reason.INVALID_OPTION, "already scores as the settebello"),
        ({"napola": True, "variant": "cirulla"}, Reason.INVALID_OPTION, "twice"),
    ],
)
def test_options_the_rules_do_not_take_are_refused_with_the_option_named(
    options: dict[str, Any], reason: Reason, says: str
) -> None:
    with pytest.raises(InvalidInput) as refused:
        SCOPA.rules_from(options)
    assert refused.value.reason is reason
    assert says in refused.value.message


def test_a_player_count_the_variant_is_not_played_by_is_refused() -> None:
    with pytest.raises(InvalidInput) as refused:
        SCOPA.rules_from({"variant": "scopone_scientifico"}, players=2)
    assert refused.value.reason is Reason.INVALID_PLAYERS


@pytest.mark.parametrize(
    ("rules", "options"),
    [
        (ScopaRules(), {}),
        (ScopaRules.preset("cirulla", napola=True, grande_piccola=False),
         {"variant": "cirulla", "napola": True, "grande_piccola": False}),
        (ScopaRules.preset("scopone_scientifico", players=2, deal="three"),
         {"variant": "scopone_scientifico", "deal": "three"}),
        (ScopaRules.preset("scopa", ace_takes_all=True, ace_sweep="never", re_bello=NINE_OF_CUPS),
         {"ace_takes_all": True, "ace_sweep": "never", "re_bello": "9C"}),
        (ScopaRules.preset("re_bello", re_bello=None), {"variant": "re_bello", "re_bello": ""}),
        (ScopaRules.preset("scopa", players=4, deal="scopone_ten"), {"deal": "scopone_ten"}),
    ],
)  # fmt: skip
def test_rules_are_written_as_the_fewest_options_that_make_them(
    rules: ScopaRules, options: dict[str, Any]
) -> None:
    assert SCOPA.options_of(rules) == options
    assert SCOPA.rules_from(options, rules.players) == rules


def test_rules_no_options_can_name_are_refused() -> None:
    # The constructor takes an ace sweep without the ace taking all; a NewGame does not.
    with pytest.raises(InvalidInput, match="cannot be written as Scopa's options"):
        SCOPA.options_of(ScopaRules(ace_sweep=AceSweep.NEVER))


@pytest.mark.parametrize(
    ("variant", "players"), [(v, n) for v, counts in VARIANT_PLAYERS.items() for n in counts]
)
def test_every_variants_rules_are_written_as_options_that_make_them_again(
    variant: str, players: int
) -> None:
    rules = ScopaRules.preset(variant, players=players)
    options = SCOPA.options_of(rules)
    assert options == ({} if variant == "scopa" else {"variant": variant})
    assert SCOPA.rules_from(options, players) == rules


SWITCHES = st.fixed_dictionaries(
    {},
    optional={
        spec.name: (
            st.booleans()
            if spec.type == "bool"
            else st.integers(1, 60)
            if spec.type == "int"
            else st.sampled_from(["", "10D", "9C", "1B"])
            if spec.type == "card"
            else st.sampled_from(spec.allowed)
        )
        for spec in SCOPA.options
    },
)


@settings(max_examples=200, deadline=None)
@given(SWITCHES, st.sampled_from([2, 3, 4, 6]))
def test_any_mix_of_options_the_rules_take_is_written_back_as_options_that_make_the_same_rules(
    options: dict[str, Any], players: int
) -> None:
    try:
        rules = SCOPA.rules_from(options, players)
    except InvalidInput as refused:  # a mix that makes no sense, refused as NewGame refuses it
        assert refused.reason in {Reason.INVALID_OPTION, Reason.INVALID_PLAYERS}
        return
    written = SCOPA.options_of(rules)
    assert SCOPA.rules_from(written, players) == rules
    assert set(written) <= set(options)
