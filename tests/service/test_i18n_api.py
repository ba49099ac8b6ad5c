"""The caller's language over both transports: refusal messages and card names
follow Accept-Language (REST) and the accept-language metadata (gRPC); the
reasons never change, and an unknown language is English."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from google.protobuf import json_format

from mazzo.engine import Card
from mazzo.engine.scopa_rules import Face
from mazzo.service import i18n
from mazzo.v1 import engine_pb2 as pb
from mazzo.v1 import engine_pb2_grpc
from tests.service.support import b64, http_call, move, refusal_of

#: The NOT_YOUR_TURN refusal of seat 1 playing first, in each locale.
NOT_YOUR_TURN = {
    "en": "it is seat 0's turn, not seat 1's",
    "it": "tocca al posto 0, non al posto 1",
    "es": "es el turno del asiento 0, no del asiento 1",
    "fr": "c'est au tour de la place 0, pas de la place 1",
    "ru": "сейчас ход места 0, а не места 1",
}
HEADERS = {"en": "en-GB", "it": "it-IT,it;q=0.9", "es": "es-MX", "fr": "fr", "ru": "ru-RU"}


@pytest.fixture(scope="module")
def started(stub: engine_pb2_grpc.EngineStub) -> pb.NewGameResponse:
    request = pb.NewGameRequest(scopa=pb.ScopaOptions(), players=2, seed=7)
    return stub.NewGame(request, timeout=10)  # type: ignore[no-any-return]


def _seat_one_card(started: pb.NewGameResponse, stub: engine_pb2_grpc.EngineStub) -> str:
    view = stub.View(pb.ViewRequest(state=started.state, seat=1), timeout=10).view
    return str(view.hand[0])


@pytest.mark.parametrize("locale", sorted(NOT_YOUR_TURN))
def test_a_refusal_over_grpc_is_in_the_metadata_language(
    stub: engine_pb2_grpc.EngineStub, started: pb.NewGameResponse, locale: str
) -> None:
    request = pb.PlayRequest(state=started.state, move=move(1, _seat_one_card(started, stub)))
    with pytest.raises(grpc.RpcError) as caught:
        stub.Play(request, timeout=10, metadata=(("accept-language", HEADERS[locale]),))
    refusal = refusal_of(caught.value)
    assert refusal.reason == "NOT_YOUR_TURN"
    assert refusal.metadata == {"seatToPlay": "0"}
    assert refusal.message == NOT_YOUR_TURN[locale]
    assert caught.value.details() == NOT_YOUR_TURN[locale]  # type: ignore[attr-defined]


@pytest.mark.parametrize("locale", sorted(NOT_YOUR_TURN))
def test_a_refusal_over_rest_is_in_the_accept_language(
    rest_port: int, stub: engine_pb2_grpc.EngineStub, started: pb.NewGameResponse, locale: str
) -> None:
    body = {"state": b64(started.state), "move": {"seat": 1, "card": _seat_one_card(started, stub)}}
    reply = http_call(
        rest_port, "POST", "/v1/games:play", body, headers={"Accept-Language": HEADERS[locale]}
    )
    assert reply.status == 400
    error = reply.json()["error"]
    assert error["details"][0]["reason"] == "NOT_YOUR_TURN"
    assert error["message"] == NOT_YOUR_TURN[locale]


@pytest.mark.parametrize("asked", ["de-DE", "pt-BR, zh;q=0.5", "", "x"])
def test_an_unknown_language_is_english_on_both_transports(
    rest_port: int, stub: engine_pb2_grpc.EngineStub, started: pb.NewGameResponse, asked: str
) -> None:
    card = _seat_one_card(started, stub)
    body = {"state": b64(started.state), "move": {"seat": 1, "card": card}}
    reply = http_call(rest_port, "POST", "/v1/games:play", body, headers={"Accept-Language": asked})
    assert reply.json()["error"]["message"] == NOT_YOUR_TURN["en"]
    with pytest.raises(grpc.RpcError) as caught:
        stub.Play(
            pb.PlayRequest(state=started.state, move=move(1, card)),
            timeout=10,
            metadata=(("accept-language", asked),),
        )
    assert refusal_of(caught.value).message == NOT_YOUR_TURN["en"]


def test_a_service_refusal_follows_the_language_too(rest_port: int) -> None:
    reply = http_call(rest_port, "GET", "/v1/nowhere", headers={"Accept-Language": "es"})
    assert reply.status == 404
    assert reply.json()["error"]["message"] == "no hay ruta GET /v1/nowhere"
    damaged = {"state": "AAAA", "seat": 0}
    reply = http_call(
        rest_port, "POST", "/v1/games:view", damaged, headers={"Accept-Language": "it"}
    )
    error = reply.json()["error"]
    assert error["details"][0]["reason"].startswith("STATE_")
    assert "stato" in error["message"]


def test_validate_answers_in_the_language(
    stub: engine_pb2_grpc.EngineStub, started: pb.NewGameResponse
) -> None:
    request = pb.ValidateRequest(state=started.state, move=move(1, _seat_one_card(started, stub)))
    answer = stub.Validate(request, timeout=10, metadata=(("accept-language", "fr"),))
    assert (answer.legal, answer.reason) == (False, "NOT_YOUR_TURN")
    assert answer.message == NOT_YOUR_TURN["fr"]


#: The 7 of coins (7D) in each language, by face.
SEVEN_OF_COINS = {
    "it": {
        Face.ITALIAN: "sette di denari",
        Face.SPANISH: "sette di denari",
        Face.FRENCH: "sette di quadri",
    },
    "es": {
        Face.ITALIAN: "siete de oros",
        Face.SPANISH: "siete de oros",
        Face.FRENCH: "siete de diamantes",
    },
    "fr": {
        Face.ITALIAN: "sept de deniers",
        Face.SPANISH: "sept de deniers",
        Face.FRENCH: "sept de carreau",
    },
    "ru": {
        Face.ITALIAN: "семёрка денариев",
        Face.SPANISH: "семёрка монет",
        Face.FRENCH: "семёрка бубен",
    },
    "en": {
        Face.ITALIAN: "seven of coins",
        Face.SPANISH: "seven of coins",
        Face.FRENCH: "seven of diamonds",
    },
}


@pytest.mark.parametrize("locale", sorted(SEVEN_OF_COINS))
def test_the_catalog_names_the_cards_in_the_language(rest_port: int, locale: str) -> None:
    reply = http_call(rest_port, "GET", "/v1/catalog", headers={"Accept-Language": HEADERS[locale]})
    scopa = next(g for g in reply.json()["games"] if g["name"] == "scopa")
    for face in scopa["faces"]:
        names = {c["code"]: c["name"] for c in face["cards"]}
        wanted = SEVEN_OF_COINS[locale][Face(face["name"].removeprefix("FACE_").lower())]
        assert names["7D"] == wanted
        assert len(set(names.values())) == 40


#: The three of swords (3S) as a verb's object ("you play …"), and the suits of swords
#: and of spades (S of the Italian and the French face), in each language.
THREE_OF_SWORDS_OBJECT = {
    "en": ("the three of swords", "swords", "spades"),
    "it": ("il tre di spade", "spade", "picche"),
    "es": ("el tres de espadas", "espadas", "picas"),
    "fr": ("le trois d'épées", "épées", "pique"),
    "ru": ("тройку мечей", "мечи", "пики"),
}


@pytest.mark.parametrize("locale", sorted(THREE_OF_SWORDS_OBJECT))
def test_the_catalog_gives_each_card_as_an_object_and_each_suit_its_name(
    rest_port: int, locale: str
) -> None:
    reply = http_call(rest_port, "GET", "/v1/catalog", headers={"Accept-Language": HEADERS[locale]})
    faces = {
        f["name"]: f
        for f in next(g for g in reply.json()["games"] if g["name"] == "briscola")["faces"]
    }
    italian = {c["code"]: c for c in faces["FACE_ITALIAN"]["cards"]}
    three, swords, spades = THREE_OF_SWORDS_OBJECT[locale]
    assert italian["3S"]["accusative"] == three
    for face in faces.values():
        objects = [c["accusative"] for c in face["cards"]]
        assert len(set(objects)) == 40
        assert [s["code"] for s in face["suits"]] == ["D", "C", "S", "B"]
    assert {s["code"]: s["name"] for s in faces["FACE_ITALIAN"]["suits"]}["S"] == swords
    assert {s["code"]: s["name"] for s in faces["FACE_FRENCH"]["suits"]}["S"] == spades


def _catalog_texts(rest_port: int, locale: str) -> dict[str, str]:
    """The catalog's titles and descriptions (games', options', variants'), by where they are."""
    reply = http_call(rest_port, "GET", "/v1/catalog", headers={"Accept-Language": HEADERS[locale]})
    texts = {}
    for game in reply.json()["games"]:
        texts[f"{game['name']} title"] = game["title"]
        texts[f"{game['name']} description"] = game["description"]
        for option in game["options"]:
            texts[f"{game['name']}.{option['name']} description"] = option["description"]
        for variant in game.get("variants", []):
            texts[f"{variant['name']} title"] = variant["title"]
    return texts


@pytest.mark.parametrize("locale", ["it", "es", "fr", "ru"])
def test_the_catalog_describes_games_and_options_in_the_language_and_keeps_the_names(
    rest_port: int, locale: str
) -> None:
    english, translated = _catalog_texts(rest_port, "en"), _catalog_texts(rest_port, locale)
    assert translated.keys() == english.keys()
    descriptions = [where for where in english if where.endswith("description")]
    assert len(descriptions) > 25
    for where, text in english.items():
        if where.endswith("title"):  # the games' and variants' names
            assert translated[where] == text, where
        else:
            assert translated[where] == i18n.translations(locale).gettext(text), where
            assert translated[where] != text, (locale, where, text)
    words = {"it": "punti per vincere", "ru": "сколько очков нужно для победы"}
    if locale in words:
        assert translated["scopa.target description"] == words[locale]


def _view_names(stub: engine_pb2_grpc.EngineStub, state: bytes, header: str) -> dict[str, str]:
    view = stub.View(
        pb.ViewRequest(state=state, seat=0), timeout=10, metadata=(("accept-language", header),)
    ).view
    return dict(view.card_names)


def test_a_view_names_its_cards_in_the_metadata_language(
    stub: engine_pb2_grpc.EngineStub, started: pb.NewGameResponse
) -> None:
    for locale in ("it", "es"):
        names = _view_names(stub, started.state, HEADERS[locale])
        assert names, "the view names the cards it shows"
        with i18n.speaking(locale):
            assert names == {c: i18n.card_name(Card.parse(c), Face.ITALIAN) for c in names}
    italian, spanish = (_view_names(stub, started.state, h) for h in ("it", "es"))
    assert all(" di " in n for n in italian.values())
    assert all(" de " in n for n in spanish.values())


def test_a_rest_view_names_its_cards_in_the_accept_language(
    rest_port: int, started: pb.NewGameResponse
) -> None:
    body: dict[str, Any] = {"state": b64(started.state), "seat": 0}
    reply = http_call(rest_port, "POST", "/v1/games:view", body, headers={"Accept-Language": "es"})
    view = json_format.ParseDict(reply.json(), pb.ViewResponse()).view
    with i18n.speaking("es"):
        assert dict(view.card_names) == {
            c: i18n.card_name(Card.parse(c), Face.ITALIAN) for c in view.card_names
        }
