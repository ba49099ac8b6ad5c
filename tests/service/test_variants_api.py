"""The Scopa family over gRPC and REST (docs/variants.md): NewGame by variant,
switches over a preset, refused combinations, the catalog's variants and faces, the
views' faces and card names, the new events, and whole Cirulla and Escoba games."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import grpc
import pytest

from mazzo.engine.cards import DECK, Card
from mazzo.engine.faces import card_index
from mazzo.engine.scopa_rules import (
    DEFAULT_PLAYERS,
    TITLES,
    VARIANT_PLAYERS,
    AceSweep,
    Face,
    PrimieraRule,
    Variant,
    preset_values,
)
from mazzo.engine.scopa_rules import ScopaRules as Rules
from mazzo.service import i18n
from mazzo.v1 import engine_pb2 as pb
from mazzo.v1 import engine_pb2_grpc
from tests.service.support import (
    ALL_CARDS,
    b64,
    deck,
    http_call,
    move,
    refused,
    state_of,
    unb64,
)

INVALID = grpc.StatusCode.INVALID_ARGUMENT
VARIANTS = [pb.ScopaVariant.Name(v) for v in pb.ScopaVariant.values() if v]
Stub = engine_pb2_grpc.EngineStub


def english_name(card: Card, face: Face) -> str:
    """A card's name when the call names no language: English, with the face's ranks and suits."""
    with i18n.speaking(i18n.DEFAULT_LOCALE):
        return i18n.card_name(card, face)


def engine_variant(wire: str) -> Variant:
    return Variant(wire.removeprefix("SCOPA_VARIANT_").lower())


def rules_of(token: bytes) -> Rules:
    """White box: the rules sealed in a state token."""
    return state_of(token).rules  # type: ignore[no-any-return]


def new_game(stub: Stub, players: int = 0, **options: Any) -> pb.NewGameResponse:
    request = pb.NewGameRequest(players=players, scopa=pb.ScopaOptions(**options), seed=5)
    return stub.NewGame(request, timeout=10)


def post(port: int, path: str, body: object) -> Any:
    reply = http_call(port, "POST", path, body)
    assert reply.status == 200, reply.body
    return reply.json()


def rest_error(port: int, body: object) -> tuple[int, str, str, dict[str, str]]:
    """A refused POST /v1/games: HTTP status, gRPC status name, reason, metadata."""
    reply = http_call(port, "POST", "/v1/games", body)
    error = reply.json()["error"]
    (detail,) = error["details"]
    assert error["message"] and detail["domain"] == "mazzo"
    return reply.status, error["status"], detail["reason"], detail["metadata"]


# ---------------------------------------------------------------- NewGame by variant


@pytest.mark.parametrize("wire", VARIANTS)
def test_grpc_new_game_by_variant_takes_its_players_target_and_face(stub: Stub, wire: str):
    variant = engine_variant(wire)
    game = new_game(stub, variant=pb.ScopaVariant.Value(wire))
    rules = rules_of(game.state)
    assert rules == Rules.preset(variant)
    assert game.status.players == DEFAULT_PLAYERS[variant]
    assert game.status.target == rules.target
    dealt = [e.cards_dealt for e in game.events if e.HasField("cards_dealt")]
    assert {len(d.cards) for d in dealt} == {rules.hand_size}
    seen = stub.View(pb.ViewRequest(state=game.state, seat=0), timeout=10).view
    assert seen.face == pb.Face.Value("FACE_" + rules.face.value.upper())


@pytest.mark.parametrize("wire", VARIANTS)
def test_rest_new_game_by_variant(rest_port: int, wire: str):
    variant = engine_variant(wire)
    reply = post(rest_port, "/v1/games", {"scopa": {"variant": wire}, "seed": "5"})
    status = reply["status"]
    assert (status["players"], status["target"]) == (
        DEFAULT_PLAYERS[variant],
        Rules.preset(variant).target,
    )
    assert rules_of(unb64(reply["state"])) == Rules.preset(variant)


def test_rest_new_game_as_in_the_brief_starts_cirulla(rest_port: int):
    reply = post(rest_port, "/v1/games", {"scopa": {"variant": "SCOPA_VARIANT_CIRULLA"}})
    assert reply["status"]["target"] == 51
    state = reply["state"]
    seen = post(rest_port, "/v1/games:view", {"state": state, "seat": 1})["view"]
    assert seen["face"] == "FACE_FRENCH"
    assert set(seen["cardNames"]) == set(seen["hand"]) | set(seen["scopa"]["table"]) | {
        c for pile in seen["piles"] for c in pile["cards"]
    }
    for code, name in seen["cardNames"].items():
        assert name == english_name(DECK[ALL_CARDS.index(code)], Face.FRENCH)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_cirulla_for_each_of_its_player_counts(stub: Stub, players: int):
    game = new_game(stub, players, variant=pb.SCOPA_VARIANT_CIRULLA)
    assert game.status.players == players
    assert len(game.status.scores) == (2 if players == 4 else players)


# ---------------------------------------------------------------- switches over a preset


def test_grpc_switches_override_the_preset(stub: Stub):
    game = new_game(
        stub,
        variant=pb.SCOPA_VARIANT_ESCOBA,
        target=15,
        primiera=pb.PRIMIERA_RULE_STANDARD,
        face=pb.FACE_ITALIAN,
        fewest_cards=True,
        re_bello="10D",
    )
    expected = Rules.preset(
        "escoba",
        target=15,
        primiera=PrimieraRule.STANDARD,
        face=Face.ITALIAN,
        fewest_cards=True,
        re_bello=DECK[9],
    )
    assert rules_of(game.state) == expected
    assert game.status.target == 15


def test_grpc_an_explicit_false_overrides_a_preset_true(stub: Stub):
    game = new_game(
        stub,
        variant=pb.SCOPA_VARIANT_CIRULLA,
        declarations=False,
        grande_piccola=False,
        napola=True,
        ace_sweep=pb.ACE_SWEEP_NEVER,
    )
    rules = rules_of(game.state)
    assert (rules.declarations, rules.grande_piccola, rules.napola) == (False, False, True)
    assert rules.ace_sweep is AceSweep.NEVER
    assert rules.redeal_aces is True  # left unset: the preset's


def test_grpc_an_empty_re_bello_turns_the_re_bello_variant_off(stub: Stub):
    game = new_game(stub, variant=pb.SCOPA_VARIANT_RE_BELLO, re_bello="")
    assert rules_of(game.state).re_bello is None
    game = new_game(stub, variant=pb.SCOPA_VARIANT_RE_BELLO, re_bello="6D")
    assert str(rules_of(game.state).re_bello) == "6D"


def test_rest_switches_override_the_preset_and_mix_house_rules(rest_port: int):
    body = {
        "players": 4,
        "scopa": {
            "variant": "SCOPA_VARIANT_SCOPONE_SCIENTIFICO",
            "aceTakesAll": True,
            "napola": True,
            "target": 11,
            "reBello": "6D",
            "primiera": "PRIMIERA_RULE_MOST_SEVENS",
        },
    }
    reply = post(rest_port, "/v1/games", body)
    rules = rules_of(unb64(reply["state"]))
    assert rules == Rules.preset(
        "scopone_scientifico",
        ace_takes_all=True,
        napola=True,
        target=11,
        re_bello=DECK[5],
        primiera=PrimieraRule.MOST_SEVENS,
    )
    assert reply["status"]["target"] == 11


def test_rest_plain_scopa_with_cirullas_capture_and_the_fewest_cards_rule(rest_port: int):
    body = {"scopa": {"capture": "CAPTURE_RULE_CIRULLA", "fewestCards": True}, "seed": "1"}
    rules = rules_of(unb64(post(rest_port, "/v1/games", body)["state"]))
    assert rules == Rules.preset("scopa", capture="cirulla", fewest_cards=True)


def _from_catalog(preset: dict[str, str], types: dict[str, str]) -> dict[str, Any]:
    """A variant's catalog presets as the JSON a client sends: typed by the option types."""
    out: dict[str, Any] = {}
    for name, text in preset.items():
        kind = types[name]
        out[name] = text == "true" if kind == "bool" else int(text) if kind == "int" else text
    return out


@pytest.mark.parametrize("wire", VARIANTS)
def test_the_catalog_presets_sent_as_switches_make_the_same_game(rest_port: int, wire: str):
    """A client that spells a variant out from the catalog gets the variant's game."""
    catalog = http_call(rest_port, "GET", "/v1/catalog").json()
    (scopa,) = [g for g in catalog["games"] if g["name"] == "scopa"]
    types = {o["name"]: o["type"] for o in scopa["options"]}
    (info,) = [v for v in scopa["variants"] if v["name"] == wire]
    options = _from_catalog(info["presets"], types)
    players = info["defaultPlayers"]
    spelled = post(rest_port, "/v1/games", {"players": players, "scopa": options, "seed": "8"})
    named = post(rest_port, "/v1/games", {"scopa": {"variant": wire}, "seed": "8"})
    assert spelled["events"] == named["events"]
    # Two games: all the same but their random ids.
    assert {**spelled["status"], "gameId": ""} == {**named["status"], "gameId": ""}
    by_name = rules_of(unb64(named["state"]))
    assert dataclasses.replace(rules_of(unb64(spelled["state"])), variant=by_name.variant) == (
        by_name
    )


# ---------------------------------------------------------------- refusals

#: (ScopaOptions fields, players, reason, metadata option or None)
REFUSED: list[tuple[dict[str, Any], int, str, str | None]] = [
    ({"variant": "SCOPA_VARIANT_CIRULLA", "napola": True}, 0, "INVALID_OPTION", "napola"),
    (
        {"variant": "SCOPA_VARIANT_SCOPONE_CLASSICO", "declarations": True},
        0,
        "INVALID_OPTION",
        "declarations",
    ),
    (
        {"variant": "SCOPA_VARIANT_SCOPONE_SCIENTIFICO", "firstTableBonus": "TABLE_BONUS_TOTAL"},
        0,
        "INVALID_OPTION",
        "deal",
    ),
    (
        {"variant": "SCOPA_VARIANT_SCOPONE_SCIENTIFICO", "redealKings": True},
        0,
        "INVALID_OPTION",
        "deal",
    ),
    (
        {"variant": "SCOPA_VARIANT_SCOPONE_SCIENTIFICO", "redealAces": True},
        0,
        "INVALID_OPTION",
        "deal",
    ),
    ({"aceSweep": "ACE_SWEEP_ALWAYS"}, 2, "INVALID_OPTION", "ace_sweep"),
    (
        {"variant": "SCOPA_VARIANT_CIRULLA", "aceTakesAll": False, "aceSweep": "ACE_SWEEP_NEVER"},
        2,
        "INVALID_OPTION",
        "ace_sweep",
    ),
    ({"variant": "SCOPA_VARIANT_RE_BELLO", "reBello": "7D"}, 2, "INVALID_OPTION", "re_bello"),
    ({"reBello": "11D"}, 2, "INVALID_CARD", None),
    ({"variant": "SCOPA_VARIANT_ESCOBA", "target": 0}, 2, "INVALID_OPTION", "target"),
    ({"variant": "SCOPA_VARIANT_CIRULLA", "target": 1001}, 2, "INVALID_OPTION", "target"),
    ({"variant": "SCOPA_VARIANT_CIRULLA"}, 6, "INVALID_PLAYERS", None),
    ({"variant": "SCOPA_VARIANT_SCOPONE_SCIENTIFICO"}, 2, "INVALID_PLAYERS", None),
    ({"variant": "SCOPA_VARIANT_SCOPONE_CLASSICO"}, 6, "INVALID_PLAYERS", None),
    ({"deal": "DEAL_RULE_SCOPONE_NINE"}, 3, "INVALID_PLAYERS", None),
]
REFUSED_IDS = [f"{reason}-{i}" for i, (_, _, reason, _) in enumerate(REFUSED)]


def _to_pb(fields: dict[str, Any]) -> pb.ScopaOptions:
    snake = {
        "firstTableBonus": "first_table_bonus",
        "redealKings": "redeal_kings",
        "redealAces": "redeal_aces",
        "aceSweep": "ace_sweep",
        "aceTakesAll": "ace_takes_all",
        "reBello": "re_bello",
    }
    return pb.ScopaOptions(**{snake.get(k, k): v for k, v in fields.items()})


@pytest.mark.parametrize(("fields", "players", "reason", "option"), REFUSED, ids=REFUSED_IDS)
def test_refused_combinations_over_grpc(stub: Stub, fields, players, reason, option):
    request = pb.NewGameRequest(players=players, scopa=_to_pb(fields))
    refusal = refused(stub.NewGame, request)
    assert refusal.code is INVALID
    assert refusal.reason == reason
    if option is not None:
        assert refusal.metadata["option"] == option


@pytest.mark.parametrize(("fields", "players", "reason", "option"), REFUSED, ids=REFUSED_IDS)
def test_refused_combinations_over_rest(rest_port: int, fields, players, reason, option):
    body: dict[str, Any] = {"scopa": fields}
    if players:
        body["players"] = players
    http, status, got, metadata = rest_error(rest_port, body)
    assert (http, status, got) == (400, "INVALID_ARGUMENT", reason)
    if option is not None:
        assert metadata["option"] == option


def test_an_unknown_variant_number_is_an_invalid_option(stub: Stub, rest_port: int):
    refusal = refused(stub.NewGame, pb.NewGameRequest(scopa=pb.ScopaOptions(variant=99)))
    assert (refusal.code, refusal.reason, refusal.metadata) == (
        INVALID,
        "INVALID_OPTION",
        {"option": "variant"},
    )
    http, status, reason, metadata = rest_error(rest_port, {"scopa": {"deal": 42}})
    assert (http, status, reason, metadata) == (
        400,
        "INVALID_ARGUMENT",
        "INVALID_OPTION",
        {"option": "deal"},
    )


# ---------------------------------------------------------------- the catalog


def _scopa_info(stub: Stub) -> pb.GameInfo:
    catalog = stub.GetCatalog(pb.GetCatalogRequest(), timeout=10)
    (scopa,) = [g for g in catalog.games if g.name == "scopa"]
    return scopa


def test_the_catalog_lists_every_variant_with_its_presets_and_players(stub: Stub):
    scopa = _scopa_info(stub)
    assert [v.name for v in scopa.variants] == VARIANTS
    for info in scopa.variants:
        variant = engine_variant(info.name)
        assert info.title == TITLES[variant]
        assert tuple(info.player_counts) == VARIANT_PLAYERS[variant]
        assert info.default_players == DEFAULT_PLAYERS[variant]
        assert set(info.presets) == set(preset_values(variant))
    presets = {v.name: dict(v.presets) for v in scopa.variants}
    assert presets["SCOPA_VARIANT_SCOPA"] == {}
    assert presets["SCOPA_VARIANT_CIRULLA"] == {
        "capture": "CAPTURE_RULE_CIRULLA",
        "ace_takes_all": "true",
        "ace_sweep": "ACE_SWEEP_ALWAYS",
        "redeal_kings": "false",
        "redeal_aces": "true",
        "first_table_bonus": "TABLE_BONUS_TOTAL",
        "declarations": "true",
        "grande_piccola": "true",
        "target": "51",
        "face": "FACE_FRENCH",
    }
    assert presets["SCOPA_VARIANT_ESCOBA"] == {
        "capture": "CAPTURE_RULE_QUINDICI",
        "redeal_kings": "false",
        "first_table_bonus": "TABLE_BONUS_PAIRS",
        "primiera": "PRIMIERA_RULE_MOST_SEVENS",
        "target": "21",
        "face": "FACE_SPANISH",
        "compulsory_capture": "false",
    }
    assert presets["SCOPA_VARIANT_SCOPONE_SCIENTIFICO"] == {
        "deal": "DEAL_RULE_SCOPONE_TEN",
        "redeal_kings": "false",
        "target": "21",
    }
    assert presets["SCOPA_VARIANT_RE_BELLO"] == {"re_bello": "10D"}
    assert [v.player_counts for v in scopa.variants if v.name.endswith("CIRULLA")] == [[2, 3, 4]]


def test_the_catalog_lists_every_option_with_its_default(stub: Stub):
    options = {o.name: o for o in _scopa_info(stub).options}
    assert options["variant"].default_value == "SCOPA_VARIANT_SCOPA"
    assert list(options["variant"].allowed_values) == VARIANTS
    expected = {
        "deal": "DEAL_RULE_THREE",
        "capture": "CAPTURE_RULE_SCOPA",
        "ace_takes_all": "false",
        "ace_sweep": "ACE_SWEEP_ORDINARY",
        "fewest_cards": "false",
        "redeal_kings": "true",
        "redeal_aces": "false",
        "first_table_bonus": "TABLE_BONUS_NONE",
        "declarations": "false",
        "grande_piccola": "false",
        "re_bello": "",
        "face": "FACE_ITALIAN",
        "compulsory_capture": "true",
        "matta_wild_in_first_table": "false",
        "piccola_stops_at_six": "false",
    }
    assert {name: options[name].default_value for name in expected} == expected
    wire_enums = {
        "deal": pb.DealRule,
        "capture": pb.CaptureRule,
        "ace_sweep": pb.AceSweep,
        "first_table_bonus": pb.TableBonus,
        "face": pb.Face,
        "primiera": pb.PrimieraRule,
        "variant": pb.ScopaVariant,
    }
    for name, wire in wire_enums.items():
        assert options[name].type == "enum", name
        every = [n for n in wire.keys() if not n.endswith("_UNSPECIFIED")]  # noqa: SIM118
        assert list(options[name].allowed_values) == every, name
    assert (options["re_bello"].type, options["target"].type) == ("card", "int")


def test_the_catalog_lists_every_face_with_forty_card_names(stub: Stub, rest_port: int):
    faces = {f.name: f for f in _scopa_info(stub).faces}
    assert set(faces) == {"FACE_ITALIAN", "FACE_FRENCH", "FACE_SPANISH"}
    for wire, info in faces.items():
        face = Face(wire.removeprefix("FACE_").lower())
        assert [c.code for c in info.cards] == list(ALL_CARDS)
        assert [c.name for c in info.cards] == [english_name(c, face) for c in DECK]
        assert [c.index for c in info.cards] == [card_index(c, face) for c in DECK]
        assert len({c.name for c in info.cards}) == 40
    in_spanish = stub.GetCatalog(
        pb.GetCatalogRequest(), timeout=10, metadata=(("accept-language", "es"),)
    )
    (scopa_es,) = [g for g in in_spanish.games if g.name == "scopa"]
    spanish = {c.code: c for f in scopa_es.faces if f.name == "FACE_SPANISH" for c in f.cards}
    assert (spanish["8S"].name, spanish["8S"].index) == ("sota de espadas", "10")
    french = {c.code: c for c in faces["FACE_FRENCH"].cards}
    assert (french["9C"].name, french["9C"].index) == ("queen of hearts", "Q")
    rest = http_call(rest_port, "GET", "/v1/catalog").json()
    (scopa,) = [g for g in rest["games"] if g["name"] == "scopa"]
    assert [len(f["cards"]) for f in scopa["faces"]] == [40, 40, 40]
    (cirulla,) = [v for v in scopa["variants"] if v["name"] == "SCOPA_VARIANT_CIRULLA"]
    assert set(cirulla) == {"name", "title", "playerCounts", "defaultPlayers", "presets"}
    assert (cirulla["playerCounts"], cirulla["defaultPlayers"]) == ([2, 3, 4], 2)
    assert cirulla["presets"]["target"] == "51"


def test_tressette_lists_no_scopa_variants_or_faces(stub: Stub):
    catalog = stub.GetCatalog(pb.GetCatalogRequest(), timeout=10)
    (tressette,) = [g for g in catalog.games if g.name == "tressette"]
    assert list(tressette.variants) == [] and list(tressette.faces) == []


# ---------------------------------------------------------------- views and events


def test_views_carry_the_face_and_the_names_of_every_card_shown(stub: Stub):
    game = new_game(stub, variant=pb.SCOPA_VARIANT_ESCOBA)
    for seat in (0, 1):
        seen = stub.View(pb.ViewRequest(state=game.state, seat=seat), timeout=10).view
        assert seen.face == pb.FACE_SPANISH
        shown = set(seen.hand) | set(seen.scopa.table) | {c for p in seen.piles for c in p.cards}
        assert set(seen.card_names) == shown
        for code in shown:
            assert seen.card_names[code] == english_name(DECK[ALL_CARDS.index(code)], Face.SPANISH)


def test_the_face_is_a_switch_of_its_own(stub: Stub):
    game = new_game(stub, variant=pb.SCOPA_VARIANT_CIRULLA, face=pb.FACE_SPANISH)
    seen = stub.View(
        pb.ViewRequest(state=game.state, seat=0), timeout=10, metadata=(("accept-language", "es"),)
    ).view
    assert seen.face == pb.FACE_SPANISH
    assert all(" de " in name for name in seen.card_names.values())


def test_escobas_first_table_bonus_is_an_event_on_the_wire(stub: Stub):
    """ESC-ex1 over gRPC: the dealer's side takes a first table of 15."""
    opening = deck(("3C 4C 9S", "5C 6C 9B"), "1B 2C 4S 8D")
    request = pb.NewGameRequest(
        scopa=pb.ScopaOptions(variant=pb.SCOPA_VARIANT_ESCOBA), decks=[pb.Deck(cards=opening)]
    )
    game = stub.NewGame(request, timeout=10)
    (bonus,) = [e for e in game.events if e.HasField("first_table_taken")]
    assert not bonus.HasField("visible_to")
    taken = bonus.first_table_taken
    assert (taken.dealer, taken.side, list(taken.cards), taken.sweeps) == (
        1,
        1,
        ["1B", "2C", "4S", "8D"],
        1,
    )
    seen = stub.View(pb.ViewRequest(state=game.state, seat=0), timeout=10).view
    assert list(seen.scopa.table) == []
    assert [(p.side, list(p.cards), p.sweeps) for p in seen.piles] == [
        (0, [], 0),
        (1, ["1B", "2C", "4S", "8D"], 1),
    ]


def test_a_cirulla_declaration_is_an_event_and_the_cards_become_known(stub: Stub, rest_port: int):
    """CIR-ex15 over the wire: 7C 8S 8B is a decino with the matta as an 8."""
    opening = deck(("7C 8S 8B", "2D 4D 6D"), "7D 8D 9D 10D")
    request = pb.NewGameRequest(
        scopa=pb.ScopaOptions(variant=pb.SCOPA_VARIANT_CIRULLA), decks=[pb.Deck(cards=opening)]
    )
    game = stub.NewGame(request, timeout=10)
    reply = stub.Play(pb.PlayRequest(state=game.state, move=move(0, "8S", ["7D"])), timeout=10)
    kinds = [e.WhichOneof("kind") for e in reply.events]
    assert kinds[:2] == ["declaration", "card_played"]
    declared = reply.events[0].declaration
    assert (declared.seat, declared.side, declared.kind, declared.points) == (0, 0, "decino", 10)
    assert list(declared.cards) == ["7C", "8S", "8B"]
    assert declared.HasField("matta_value") and declared.matta_value == 8
    other = stub.View(pb.ViewRequest(state=reply.state, seat=1), timeout=10).view
    assert [(k.seat, list(k.cards)) for k in other.known] == [(0, ["7C", "8B"])]
    assert other.card_names["7C"] == "seven of hearts"
    mine = stub.View(pb.ViewRequest(state=reply.state, seat=0), timeout=10).view
    assert list(mine.known) == []
    # The same over REST, proto3 JSON.
    rest = post(rest_port, "/v1/games:view", {"state": b64(reply.state), "seat": 1})["view"]
    assert rest["known"] == [{"seat": 0, "cards": ["7C", "8B"]}]


def test_a_cirulla_without_the_matta_leaves_matta_value_absent(stub: Stub):
    opening = deck(("1S 3C 4B", "2D 4D 6D"), "7D 8D 9D 10D")
    request = pb.NewGameRequest(
        scopa=pb.ScopaOptions(variant=pb.SCOPA_VARIANT_CIRULLA), decks=[pb.Deck(cards=opening)]
    )
    game = stub.NewGame(request, timeout=10)
    reply = stub.Play(pb.PlayRequest(state=game.state, move=move(0, "3C")), timeout=10)
    declared = reply.events[0].declaration
    assert (declared.kind, declared.points) == ("cirulla", 3)
    assert not declared.HasField("matta_value")


def test_fewest_cards_refusal_lists_the_choices_over_grpc(stub: Stub):
    """SCN-ex4's position in a two-player Scopa with the house rule."""
    opening = deck(("9D 2B 3B", "6D 7S 10S"), "1C 3S 4B 5D", "8C")
    request = pb.NewGameRequest(
        scopa=pb.ScopaOptions(fewest_cards=True), decks=[pb.Deck(cards=opening)]
    )
    game = stub.NewGame(request, timeout=10)
    # Table 1C 3S 4B 5D: 9D can take 4B+5D (two cards) or 1C+3S+5D (three).
    refusal = refused(
        stub.Play, pb.PlayRequest(state=game.state, move=move(0, "9D", ["1C", "3S", "5D"]))
    )
    assert (refusal.code, refusal.reason) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "MUST_TAKE_FEWEST_CARDS",
    )
    assert refusal.metadata["choices"] == "5D+4B"


# ---------------------------------------------------------------- whole games


def _check_scored(scored: pb.HandScored, before: list[int]) -> list[int]:
    for s in scored.sides:
        assert s.WhichOneof("game") == "scopa"
        breakdown = (
            s.scopa.cards_point
            + s.scopa.denari_point
            + s.scopa.settebello_point
            + s.scopa.primiera_point
            + s.scopa.sweeps
            + s.scopa.napola
            + s.scopa.re_bello_point
            + s.scopa.grande
            + s.scopa.piccola
            + s.scopa.declarations
        )
        assert s.total == breakdown
    assert sum(s.scopa.cards for s in scored.sides) == 40
    after = [a + s.total for a, s in zip(before, scored.sides, strict=True)]
    assert list(scored.scores) == after
    return after


def random_game(stub: Stub, variant: int, players: int, seed: int) -> dict[str, int]:
    """A whole game over gRPC with random legal moves; counts of the events seen."""
    rnd = random.Random(seed)
    game = stub.NewGame(
        pb.NewGameRequest(players=players, scopa=pb.ScopaOptions(variant=variant), seed=seed),
        timeout=10,
    )
    state, status = game.state, game.status
    seen: dict[str, int] = {}
    scores = [0] * len(status.scores)
    events = list(game.events)
    for _ in range(3000):
        for e in events:
            kind = e.WhichOneof("kind")
            seen[kind] = seen.get(kind, 0) + 1
            if kind == "hand_scored":
                scores = _check_scored(e.hand_scored, scores)
            if kind == "declaration":
                assert (e.declaration.kind, e.declaration.points) in (
                    ("cirulla", 3),
                    ("decino", 10),
                )
            if kind == "first_table_taken":
                assert e.first_table_taken.sweeps in (1, 2)
        if status.game_over:
            break
        legal = stub.LegalMoves(pb.LegalMovesRequest(state=state), timeout=10)
        assert legal.moves and legal.seat == status.seat_to_play
        chosen = rnd.choice(list(legal.moves))
        reply = stub.Play(pb.PlayRequest(state=state, move=chosen), timeout=10)
        declared = [e.declaration for e in reply.events if e.HasField("declaration")]
        if declared and not reply.status.game_over:
            # The declarer's other cards are known to the next seat until played.
            (d,) = declared
            other = (d.seat + 1) % players
            view = stub.View(pb.ViewRequest(state=reply.state, seat=other), timeout=10).view
            known = {k.seat: list(k.cards) for k in view.known}
            assert known.get(d.seat) == [c for c in d.cards if c != chosen.card]
        state, status, events = reply.state, reply.status, list(reply.events)
    else:
        raise AssertionError("the game did not end")
    assert status.game_over and not status.HasField("seat_to_play")
    assert list(status.scores) == scores
    best = max(scores)
    assert scores[status.winning_side] == best >= status.target
    assert scores.count(best) == 1
    return seen


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 3)])
def test_a_whole_cirulla_game_over_grpc(stub: Stub, players: int, seed: int):
    seen = random_game(stub, pb.SCOPA_VARIANT_CIRULLA, players, seed)
    assert seen["game_over"] == 1 and seen["hand_scored"] >= 2


@pytest.mark.parametrize(("players", "seed"), [(2, 4), (4, 5)])
def test_a_whole_escoba_game_over_grpc(stub: Stub, players: int, seed: int):
    seen = random_game(stub, pb.SCOPA_VARIANT_ESCOBA, players, seed)
    assert seen["game_over"] == 1 and seen["hand_scored"] >= 2
    assert "declaration" not in seen
