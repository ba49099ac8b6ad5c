"""Rules options are checked where they are made, whatever their source."""

from __future__ import annotations

import dataclasses

import pytest

from mazzo.engine import InvalidInput, Reason
from mazzo.engine.scopa import PrimieraRule, ScopaRules


def test_primiera_option_may_be_given_by_its_text():
    assert ScopaRules(primiera="sevens").primiera is PrimieraRule.SEVENS  # type: ignore[arg-type]


def test_unknown_primiera_option_is_refused_as_invalid_option():
    with pytest.raises(InvalidInput) as refused:
        ScopaRules(primiera="bogus")  # type: ignore[arg-type]
    assert refused.value.reason is Reason.INVALID_OPTION
    assert refused.value.details == {"option": "primiera"}


@pytest.mark.parametrize("players", [2.0, True, "2"])
def test_players_must_be_a_whole_number(players):
    with pytest.raises(InvalidInput) as refused:
        ScopaRules(players=players)
    assert refused.value.reason is Reason.INVALID_PLAYERS


@pytest.mark.parametrize("target", [11.5, "11", None])
def test_target_must_be_a_whole_number(target):
    with pytest.raises(InvalidInput) as refused:
        ScopaRules(target=target)
    assert refused.value.reason is Reason.INVALID_OPTION


def test_equal_rules_hash_alike_whichever_way_they_were_made() -> None:
    # The hash is worked out once, at construction: it must still follow equality.
    made = [
        ScopaRules(),
        ScopaRules.preset("scopa"),
        dataclasses.replace(ScopaRules(target=21), target=11),
    ]
    assert all(rules == made[0] and hash(rules) == hash(made[0]) for rules in made)
    assert ScopaRules(target=21) != made[0]
    assert len({ScopaRules(), ScopaRules(target=21), ScopaRules(napola=True)}) == 3
