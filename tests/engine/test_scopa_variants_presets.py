"""docs/variants.md, One game many switches and Combinations to refuse: every variant's
preset, the switches a caller overrides, and every combination refused."""

from __future__ import annotations

import dataclasses

import pytest

from mazzo.engine import Reason
from mazzo.engine.cards import DECK
from mazzo.engine.events import Capture, Redeal
from mazzo.engine.scopa import ScopaRules, ScopaState, captures
from mazzo.engine.scopa_rules import (
    DEFAULT_PLAYERS,
    TITLES,
    VARIANT_PLAYERS,
    AceSweep,
    CaptureRule,
    DealRule,
    Face,
    PrimieraRule,
    TableBonus,
    Variant,
    preset_values,
)
from tests.engine.scopa_support import applied, card, cards, make_state, refusal
from tests.engine.scopa_variants_support import (
    deck_dealing,
    events_of,
    option_refusal,
    play,
    preset,
    takes,
)

#: The switches of plain Scopa (docs/variants.md: "A dash means the Scopa default").
PLAIN = {
    "deal": DealRule.THREE,
    "capture": CaptureRule.SCOPA,
    "ace_takes_all": False,
    "ace_sweep": AceSweep.ORDINARY,
    "fewest_cards": False,
    "redeal_kings": True,
    "redeal_aces": False,
    "first_table_bonus": TableBonus.NONE,
    "declarations": False,
    "grande_piccola": False,
    "napola": False,
    "primiera": PrimieraRule.STANDARD,
    "re_bello": None,
    "target": 11,
    "face": Face.ITALIAN,
    "compulsory_capture": True,
    "matta_wild_in_first_table": False,
    "piccola_stops_at_six": False,
}

#: The presets table of docs/variants.md, row by row: what differs from PLAIN.
TABLE = {
    Variant.SCOPA: {},
    Variant.SCOPONE_SCIENTIFICO: {
        "deal": DealRule.SCOPONE_TEN,
        "redeal_kings": False,
        "target": 21,
    },
    Variant.SCOPONE_CLASSICO: {"deal": DealRule.SCOPONE_NINE, "target": 21},
    Variant.QUINDICI: {"capture": CaptureRule.QUINDICI, "redeal_kings": False},
    Variant.ESCOBA: {
        "capture": CaptureRule.QUINDICI,
        "redeal_kings": False,
        "first_table_bonus": TableBonus.PAIRS,
        "primiera": PrimieraRule.MOST_SEVENS,
        "target": 21,
        "face": Face.SPANISH,
        "compulsory_capture": False,
    },
    Variant.SCOPA_D_ASSI: {"ace_takes_all": True, "ace_sweep": AceSweep.ORDINARY},
    Variant.CIRULLA: {
        "capture": CaptureRule.CIRULLA,
        "ace_takes_all": True,
        "ace_sweep": AceSweep.ALWAYS,
        "redeal_kings": False,
        "redeal_aces": True,
        "first_table_bonus": TableBonus.TOTAL,
        "declarations": True,
        "grande_piccola": True,
        "target": 51,
        "face": Face.FRENCH,
    },
    Variant.RE_BELLO: {"re_bello": card("10D")},
}
PLAYERS_ALLOWED = {
    Variant.SCOPA: (2, 3, 4, 6),
    Variant.SCOPONE_SCIENTIFICO: (4,),
    Variant.SCOPONE_CLASSICO: (4,),
    Variant.QUINDICI: (2, 3, 4, 6),
    Variant.ESCOBA: (2, 3, 4, 6),
    Variant.SCOPA_D_ASSI: (2, 3, 4, 6),
    Variant.CIRULLA: (2, 3, 4),
    Variant.RE_BELLO: (2, 3, 4, 6),
}
SCOPONE = (Variant.SCOPONE_SCIENTIFICO, Variant.SCOPONE_CLASSICO)


def switches(rules: ScopaRules) -> dict:
    return {name: getattr(rules, name) for name in PLAIN}


# ---------------------------------------------------------------- presets


def test_the_table_names_every_variant():
    assert set(TABLE) == set(Variant) == set(PLAYERS_ALLOWED)


@pytest.mark.parametrize("variant", list(Variant))
def test_each_variant_presets_exactly_the_switches_of_the_table(variant):
    rules = preset(variant)
    assert rules.variant is variant
    assert switches(rules) == {**PLAIN, **TABLE[variant]}


@pytest.mark.parametrize("variant", list(Variant))
def test_a_variant_may_be_named_by_its_text(variant):
    assert preset(variant.value) == preset(variant)


@pytest.mark.parametrize("variant", list(Variant))
def test_each_variant_has_its_default_players_and_target(variant):
    rules = preset(variant)
    assert rules.players == (4 if variant in SCOPONE else 2)
    assert DEFAULT_PLAYERS[variant] == rules.players
    expected_target = {Variant.CIRULLA: 51, Variant.ESCOBA: 21}.get(
        variant, 21 if variant in SCOPONE else 11
    )
    assert rules.target == expected_target


@pytest.mark.parametrize("variant", list(Variant))
def test_each_variant_is_played_by_the_counts_of_the_table(variant):
    assert VARIANT_PLAYERS[variant] == PLAYERS_ALLOWED[variant]
    for players in PLAYERS_ALLOWED[variant]:
        rules = preset(variant, players=players)
        assert rules.players == players
        assert rules.sides == (2 if players in (4, 6) else players)


@pytest.mark.parametrize(
    ("variant", "players"),
    [(v, n) for v in Variant for n in (2, 3, 4, 6) if n not in PLAYERS_ALLOWED[v]],
)
def test_a_player_count_the_variant_does_not_allow_is_invalid_players(variant, players):
    refused = option_refusal(preset, variant, players=players)
    assert refused.reason is Reason.INVALID_PLAYERS
    assert str(players) in refused.message


@pytest.mark.parametrize("players", [1, 5, 7, 0])
@pytest.mark.parametrize("variant", list(Variant))
def test_a_player_count_no_scopa_allows_is_invalid_players(variant, players):
    assert option_refusal(preset, variant, players=players).reason is Reason.INVALID_PLAYERS


@pytest.mark.parametrize("variant", list(Variant))
def test_the_catalog_presets_spell_out_the_table(variant):
    """What the catalog lists as a variant's presets is the table's row, and those
    switches given explicitly to plain rules make the same game (SCN-2: no first
    table, so no king redeal, in the scientifico)."""
    assert preset_values(variant) == {k: v for k, v in TABLE[variant].items() if v != PLAIN[k]}
    spelled = ScopaRules(players=DEFAULT_PLAYERS[variant], variant=variant, **TABLE[variant])
    assert spelled == preset(variant)


@pytest.mark.parametrize("variant", list(Variant))
def test_every_variant_has_a_title(variant):
    assert TITLES[variant]


def test_the_catalog_option_defaults_are_plain_scopa():
    specs = {spec.name: spec for spec in ScopaState.options}
    assert set(specs) == set(PLAIN) | {"variant"}
    assert specs["variant"].default == "scopa"
    assert set(specs["variant"].allowed) == {v.value for v in Variant}
    for name, value in PLAIN.items():
        default = specs[name].default
        expected = "" if value is None else value
        assert default == expected, name
    assert set(specs["primiera"].allowed) == {r.value for r in PrimieraRule}
    assert "most_sevens" in specs["primiera"].allowed


def test_no_preset_turns_on_the_napola_or_the_fewest_cards_rule():
    """SCN-4: fewestCards is off in every preset; napola is a house rule."""
    for variant in Variant:
        rules = preset(variant)
        assert (rules.fewest_cards, rules.napola) == (False, False)


# ---------------------------------------------------------------- overrides


def test_a_switch_the_caller_sets_overrides_the_preset_and_keeps_the_others():
    rules = preset("cirulla", target=21, ace_sweep="never", primiera="sevens")
    assert (rules.target, rules.ace_sweep, rules.primiera) == (
        21,
        AceSweep.NEVER,
        PrimieraRule.SEVENS,
    )
    rest = {k: v for k, v in TABLE[Variant.CIRULLA].items() if k not in ("target", "ace_sweep")}
    assert {k: getattr(rules, k) for k in rest} == rest
    assert rules.variant is Variant.CIRULLA


PRESET_SWITCHES = [
    (variant, name)
    for variant, row in TABLE.items()
    for name in row
    if PLAIN[name] != row[name] and name != "ace_sweep"
]


@pytest.mark.parametrize(("variant", "switch"), PRESET_SWITCHES)
def test_a_switch_set_back_to_the_plain_value_overrides_the_preset(variant, switch):
    """Unset and false are different things: an explicit false beats a preset true."""
    if (variant, switch) == (Variant.SCOPONE_SCIENTIFICO, "redeal_kings"):
        # No first table to redeal: refused below.
        assert refused_option(variant, **{switch: PLAIN[switch]}) in ("deal", switch)
        return
    extra = {"grande_piccola": False} if switch == "napola" else {}
    rules = preset(variant, **{switch: PLAIN[switch]}, **extra)
    assert getattr(rules, switch) == PLAIN[switch]
    others = {k: v for k, v in TABLE[variant].items() if k != switch}
    if switch == "deal":
        others.pop("redeal_kings", None)  # decided by the deal when not given
    assert {k: getattr(rules, k) for k in others} == others


def test_scopa_with_the_fewest_cards_rule_allows_only_the_smallest_sums():
    """SCN-ex4's position in a two-player Scopa house game."""
    rules = preset("scopa", fewest_cards=True)
    state = make_state(hands=["9D 2B", "6D"], table="1C 3S 4B 5D 8C", rules=rules, fill="stock")
    assert set(captures(card("9D"), state.table, rules)) == takes("1C 8C", "4B 5D")
    err = refusal(state, play(0, "9D", "1C 3S 5D"))
    assert err.reason is Reason.MUST_TAKE_FEWEST_CARDS


def test_scopone_with_the_ace_that_takes_all():
    """The Milanese game: ace takes all, 10 cards each, with the napola."""
    rules = preset("scopone_scientifico", ace_takes_all=True, napola=True)
    assert (rules.deal, rules.ace_takes_all, rules.napola) == (DealRule.SCOPONE_TEN, True, True)
    state = make_state(
        hands=["1D 2B", "3B", "4B", "5B"], table="3S 7C 10B", rules=rules, dealer=3, fill=1
    )
    after, events = applied(state, play(0, "1D"))
    assert events_of(events, Capture) == [
        Capture(0, 0, card("1D"), cards("3S 7C 10B"), sweep=False)
    ]
    assert after.table == ()


def test_scopone_classico_with_the_fewest_cards_rule():
    rules = preset("scopone_classico", fewest_cards=True)
    assert (rules.deal, rules.fewest_cards, rules.redeal_kings) == (
        DealRule.SCOPONE_NINE,
        True,
        True,
    )


def test_quindici_may_keep_the_pointless_king_redeal():
    """QUI-4: redealKings may be set with Quindici; it is allowed, and it redeals."""
    void = deck_dealing(["1C 2C 3C", "4C 5C 6C"], "10D 10C 10S 4B")
    _, events = ScopaState.new_game(preset("quindici"), seed=1, decks=[void, DECK])
    assert events_of(events, Redeal) == []
    state, events = ScopaState.new_game(
        preset("quindici", redeal_kings=True), seed=1, decks=[void, DECK]
    )
    assert [e.table for e in events_of(events, Redeal)] == [cards("10D 10C 10S 4B")]
    assert state.table == cards("7D 8D 9D 10D")


def test_scopa_d_assi_with_the_scopone_deal_and_no_first_table():
    rules = preset("scopa_d_assi", players=4, deal="scopone_ten")
    assert (rules.redeal_kings, rules.redeal_aces, rules.hand_size, rules.table_size) == (
        False,
        False,
        10,
        0,
    )


def test_plain_scopa_with_the_ten_card_deal_drops_the_king_redeal_unless_told():
    assert preset("scopa", players=4, deal="scopone_ten").redeal_kings is False
    assert preset("scopa", players=4, deal="scopone_ten", redeal_kings=False).redeal_kings is False
    assert preset("scopa", players=4, deal="scopone_nine").redeal_kings is True


def test_an_ace_rule_with_another_capture_rule_combines():
    """ASS combinations: the Quindici or Cirulla capture with the ace that takes all."""
    for capture in ("quindici", "cirulla"):
        rules = preset("scopa_d_assi", capture=capture)
        assert set(captures(card("1D"), cards("3S 7C 10B"), rules)) == takes("3S 7C 10B")


@pytest.mark.parametrize("variant", list(Variant))
@pytest.mark.parametrize("rule", list(PrimieraRule))
def test_every_primiera_rule_combines_with_every_variant(variant, rule):
    assert preset(variant, primiera=rule).primiera is rule


@pytest.mark.parametrize("variant", list(Variant))
@pytest.mark.parametrize("face", list(Face))
def test_every_face_combines_with_every_variant_and_changes_no_rule(variant, face):
    rules = preset(variant, face=face)
    assert rules.face is face
    assert dataclasses.replace(rules, face=preset(variant).face) == preset(variant)


@pytest.mark.parametrize("variant", [v for v in Variant if v is not Variant.CIRULLA])
def test_the_napola_combines_with_every_variant_without_the_piccola(variant):
    assert preset(variant, napola=True).napola is True


def test_the_napola_combines_with_cirulla_once_the_piccola_is_off():
    rules = preset("cirulla", napola=True, grande_piccola=False)
    assert (rules.napola, rules.grande_piccola, rules.declarations) == (True, False, True)


@pytest.mark.parametrize("variant", list(Variant))
def test_re_bello_and_fewest_cards_combine_with_every_variant(variant):
    rules = preset(variant, re_bello=card("6D"), fewest_cards=True)
    assert (rules.re_bello, rules.fewest_cards) == (card("6D"), True)


@pytest.mark.parametrize("target", [1, 11, 15, 16, 21, 31, 1000])
@pytest.mark.parametrize("variant", list(Variant))
def test_any_target_from_1_to_1000_is_accepted(variant, target):
    assert preset(variant, target=target).target == target


# ---------------------------------------------------------------- refusals


def refused_option(*args, **kw) -> str:
    """The option an INVALID_OPTION refusal names."""
    refused = option_refusal(preset, *args, **kw)
    assert refused.reason is Reason.INVALID_OPTION, refused.reason
    assert refused.message
    return refused.details["option"]


@pytest.mark.parametrize("deal", ["scopone_nine", "scopone_ten"])
@pytest.mark.parametrize("players", [2, 3, 6])
def test_a_scopone_deal_for_other_than_four_players_is_refused(deal, players):
    """Scopone is a 4-player game; 36 or 40 cards do not divide otherwise."""
    refused = option_refusal(preset, "scopa", players=players, deal=deal)
    assert refused.reason is Reason.INVALID_PLAYERS
    assert refused.details.get("option", "deal") == "deal"


def test_cirulla_with_six_players_is_refused_as_a_player_count():
    refused = option_refusal(preset, "cirulla", players=6)
    assert refused.reason is Reason.INVALID_PLAYERS


def test_the_cirulla_switches_with_six_players_are_a_house_game_not_cirulla():
    """Only the Cirulla variant is limited to 2-4; its switches on plain Scopa are not."""
    rules = preset("scopa", players=6, capture="cirulla", declarations=True)
    assert rules.players == 6


@pytest.mark.parametrize(
    "overrides",
    [
        {"variant": "cirulla", "napola": True},  # CIR-ex20
        {"variant": "scopa", "napola": True, "grande_piccola": True},
        {"variant": "re_bello", "grande_piccola": True, "napola": True},
    ],
)
def test_the_napola_with_the_piccola_is_refused(overrides):
    """The piccola is the napola: the same run would score twice."""
    variant = overrides.pop("variant")
    assert refused_option(variant, **overrides) in ("napola", "grande_piccola")


@pytest.mark.parametrize(
    ("variant", "overrides"),
    [
        ("scopone_classico", {"declarations": True}),
        ("scopone_scientifico", {"declarations": True}),
        ("cirulla", {"players": 4, "deal": "scopone_nine"}),
        ("cirulla", {"players": 4, "deal": "scopone_ten", "first_table_bonus": "none"}),
    ],
)
def test_declarations_with_a_scopone_deal_are_refused(variant, overrides):
    """Declarations judge hands of 3 cards."""
    assert refused_option(variant, **overrides) in ("declarations", "deal")


@pytest.mark.parametrize("bonus", ["total", "pairs"])
def test_a_first_table_bonus_with_the_ten_card_deal_is_refused(bonus):
    """There is no first table."""
    option = refused_option("scopone_scientifico", first_table_bonus=bonus)
    assert option in ("deal", "first_table_bonus")
    option = refused_option("escoba", players=4, deal="scopone_ten")
    assert option in ("deal", "first_table_bonus")


def test_the_nine_card_deal_keeps_a_first_table_and_takes_a_bonus():
    rules = preset("escoba", players=4, deal="scopone_nine")
    assert (rules.first_table_bonus, rules.table_size) == (TableBonus.PAIRS, 4)


@pytest.mark.parametrize("switch", ["redeal_kings", "redeal_aces"])
def test_a_redeal_set_true_with_the_ten_card_deal_is_refused(switch):
    assert refused_option("scopone_scientifico", **{switch: True}) in ("deal", switch)
    assert refused_option("scopa", players=4, deal="scopone_ten", **{switch: True}) in (
        "deal",
        switch,
    )
    assert getattr(preset("scopone_scientifico", **{switch: False}), switch) is False


@pytest.mark.parametrize("mode", list(AceSweep))
@pytest.mark.parametrize("variant", ["scopa", "quindici", "escoba", "re_bello"])
def test_ace_sweep_without_the_ace_that_takes_all_is_refused(variant, mode):
    assert refused_option(variant, ace_sweep=mode) == "ace_sweep"


def test_ace_sweep_is_refused_when_the_caller_turns_the_take_all_off():
    assert refused_option("cirulla", ace_takes_all=False, ace_sweep="never") == "ace_sweep"
    assert preset("cirulla", ace_takes_all=False).ace_takes_all is False


@pytest.mark.parametrize("mode", list(AceSweep))
def test_every_ace_sweep_mode_is_allowed_with_the_take_all(mode):
    """CIR: aceSweep other than ALWAYS is a house rule; ASS-3: all three modes."""
    assert preset("cirulla", ace_sweep=mode).ace_sweep is mode
    assert preset("scopa_d_assi", ace_sweep=mode).ace_sweep is mode
    assert preset("scopa", ace_takes_all=True, ace_sweep=mode).ace_sweep is mode


@pytest.mark.parametrize("variant", list(Variant))
def test_re_bello_on_the_settebello_is_refused(variant):
    """REB-3: the 7 of coins already scores as the settebello (velo)."""
    assert refused_option(variant, re_bello=card("7D")) == "re_bello"


@pytest.mark.parametrize("value", ["10D", 9, "", 40])
def test_re_bello_must_be_a_card_value(value):
    assert refused_option("re_bello", re_bello=value) == "re_bello"


@pytest.mark.parametrize("target", [0, -1, 1001, 2**31])
@pytest.mark.parametrize("variant", list(Variant))
def test_a_target_outside_1_to_1000_is_refused(variant, target):
    assert refused_option(variant, target=target) == "target"


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("deal", "scopone_eleven"),
        ("capture", "by_colour"),
        ("ace_sweep", "sometimes"),
        ("first_table_bonus", "forty"),
        ("face", "german"),
        ("primiera", "most_sixes"),
    ],
)
def test_an_unknown_enum_value_is_refused_naming_its_option(option, value):
    kw = {option: value}
    if option == "ace_sweep":
        kw["ace_takes_all"] = True
    assert refused_option("scopa", **kw) == option


@pytest.mark.parametrize(
    "switch",
    [
        "napola",
        "ace_takes_all",
        "fewest_cards",
        "redeal_kings",
        "redeal_aces",
        "declarations",
        "grande_piccola",
    ],
)
def test_a_bool_switch_must_be_true_or_false(switch):
    assert refused_option("scopa", **{switch: "yes"}) == switch
    assert refused_option("scopa", **{switch: 1}) == switch


def test_an_unknown_variant_or_switch_is_refused():
    assert refused_option("briscola") == "variant"
    assert refused_option("scopa", jokers=True) == "jokers"


def test_everything_else_combines():
    """A handful of mixes the refusals table does not name: all accepted, and playable."""
    mixes = [
        {"variant": "quindici", "ace_takes_all": True, "napola": True, "primiera": "lenient"},
        {"variant": "escoba", "fewest_cards": True, "napola": True, "face": "italian"},
        {"variant": "scopone_classico", "capture": "cirulla", "first_table_bonus": "total"},
        {"variant": "scopa_d_assi", "players": 4, "deal": "scopone_ten", "napola": True},
        {"variant": "cirulla", "players": 3, "re_bello": card("10D"), "primiera": "sevens"},
        {"variant": "re_bello", "players": 6, "capture": "quindici", "redeal_aces": True},
    ]
    for mix in mixes:
        rules = preset(mix.pop("variant"), **mix)
        state, _ = ScopaState.new_game(rules, seed=5)
        move = state.legal_moves()[0]
        assert state.resolve(move) == move


def test_a_refused_combination_is_refused_by_the_constructor_too():
    """The codec builds rules with the constructor: the same checks apply."""
    refused = option_refusal(ScopaRules, players=2, napola=True, grande_piccola=True)
    assert refused.reason is Reason.INVALID_OPTION
    refused = option_refusal(
        ScopaRules, players=4, deal=DealRule.SCOPONE_TEN, first_table_bonus=TableBonus.TOTAL
    )
    assert refused.reason is Reason.INVALID_OPTION
    refused = option_refusal(ScopaRules, players=2, deal=DealRule.SCOPONE_NINE)
    assert refused.reason is Reason.INVALID_PLAYERS
