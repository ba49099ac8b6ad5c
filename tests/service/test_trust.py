"""The trust model (docs/security.md), over both transports and both games.

Seat credentials scope every call to one seat; answers carry only that seat's
events; a ply makes compare-and-set possible; tokens expire; a game without a
seed fixes none of its future cards in its token; a relay that knows no rules
runs whole games with seat credentials alone.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from mazzo.v1 import engine_pb2 as pb
from mazzo_client import MazzoClient, MazzoError
from tests.service.support import KEYS, HandClock, Stack, running_stack
from tests.service.trust_support import Api, Refused, Relay, both_apis, grpc_api

GAMES = {
    "scopa-2": {"players": 2, "scopa": {"target": 1}},
    "scopa-4": {"players": 4, "scopa": {"target": 1}},
    "tressette-2": {"players": 2, "tressette": {"target": 1}},
    "tressette-4": {"players": 4, "tressette": {"target": 1}},
    "briscola-2": {"players": 2, "briscola": {"target": 1}},
    "briscola-4": {"players": 4, "briscola": {"target": 1}},
}
TRANSPORTS = ("grpc", "rest")
CARD = re.compile(r"(10|[1-9])[DCSB]")
DENIED = "PERMISSION_DENIED"


@pytest.fixture(scope="module")
def apis(stack: Stack) -> Iterator[dict[str, Api]]:
    """The session's server: seat credentials optional (the trusted-server case)."""
    with both_apis(stack) as apis:
        yield apis


@pytest.fixture(scope="module")
def strict_apis() -> Iterator[dict[str, Api]]:
    """A server with MAZZO_REQUIRE_SEAT_CREDENTIALS=true (the relay case)."""
    with running_stack(KEYS, require_seat_credentials=True) as strict, both_apis(strict) as apis:
        yield apis


CLOCK = HandClock()


@pytest.fixture(scope="module")
def expiring_apis() -> Iterator[dict[str, Api]]:
    """A server with MAZZO_STATE_MAX_AGE=60 whose clock the tests move."""
    with running_stack(KEYS, max_age=60, clock=CLOCK) as expiring, both_apis(expiring) as apis:
        yield apis


def credentials(answer: dict[str, Any]) -> list[str]:
    return [c["credential"] for c in answer["seatCredentials"]]


def cards_in(value: Any) -> set[str]:
    """Every card named anywhere in a JSON value."""
    if isinstance(value, str):
        return {value} if CARD.fullmatch(value) else set()
    if isinstance(value, dict):
        return set().union(*map(cards_in, value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*map(cards_in, value)) if value else set()
    return set()


def views(api: Api, token: str, creds: list[str]) -> list[dict[str, Any]]:
    """Every seat's view, each asked with that seat's own credential."""
    return [
        api.call("View", {"state": token, "seat": seat, "seatCredential": cred})["view"]
        for seat, cred in enumerate(creds)
    ]


def hidden_from(seat: int, seen: list[dict[str, Any]]) -> set[str]:
    """The cards in other seats' hands that ``seat`` does not know."""
    known = {k["seat"]: set(k["cards"]) for k in seen[seat]["known"]}
    return {
        card
        for other, view in enumerate(seen)
        if other != seat
        for card in view["hand"]
        if card not in known.get(other, set())
    }


# ---------------------------------------------------------------- one seat, one credential


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("game", GAMES)
def test_a_seat_credential_cannot_view_validate_list_moves_for_or_play_as_another_seat(
    apis: dict[str, Api], transport: str, game: str
) -> None:
    api = apis[transport]
    started = api.call("NewGame", GAMES[game])
    token, creds = started["state"], credentials(started)
    to_play = started["status"]["seatToPlay"]
    move = api.call("LegalMoves", {"state": token})["moves"][0]
    for seat, cred in enumerate(creds):
        scoped = {"state": token, "seatCredential": cred}
        for other in range(len(creds)):
            if other != seat:
                refused = api.refusal("View", {**scoped, "seat": other})
                assert (refused.status, refused.reason) == (DENIED, "SEAT_NOT_PERMITTED")
        assert api.call("View", {**scoped, "seat": seat})["view"]["seat"] == seat
        if seat == to_play:
            assert api.call("Validate", {**scoped, "move": move})["legal"]
            assert api.call("LegalMoves", scoped)["moves"][0] == move
            continue
        for rpc in ("Validate", "Play"):
            refused = api.refusal(rpc, {**scoped, "move": move})
            assert (refused.status, refused.reason) == (DENIED, "SEAT_NOT_PERMITTED"), rpc
        refused = api.refusal("LegalMoves", scoped)
        assert (refused.status, refused.reason) == (DENIED, "SEAT_NOT_PERMITTED")
    played = api.call("Play", {"state": token, "seatCredential": creds[to_play], "move": move})
    assert played["status"]["ply"] == 1


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("game", ["scopa-2", "tressette-4"])
def test_forged_and_foreign_credentials_are_refused(
    apis: dict[str, Api], other_kid_stack: Stack, transport: str, game: str
) -> None:
    api = apis[transport]
    started = api.call("NewGame", GAMES[game])
    token, creds = started["state"], credentials(started)
    kid, seat, mac = creds[0].split(".")
    another_game = credentials(api.call("NewGame", GAMES[game]))[0]
    with grpc_api(other_kid_stack) as foreign:
        another_server = credentials(foreign.call("NewGame", GAMES[game]))[0]
    flipped = mac[:5] + ("A" if mac[5] != "A" else "B") + mac[6:]
    forged = [
        f"{kid}.{seat}.{flipped}",  # a changed MAC
        f"{kid}.1.{mac}",  # seat 0's MAC claiming seat 1
        f"other.{seat}.{mac}",  # a key this server does not have
        another_game,  # right server, another game
        another_server,  # another server's key
        "not a credential",
        f"{kid}.{seat}.{mac}.",
    ]
    for credential in forged:
        refused = api.refusal("View", {"state": token, "seat": 0, "seatCredential": credential})
        assert (refused.status, refused.reason) == (DENIED, "SEAT_CREDENTIAL_INVALID"), credential


# ---------------------------------------------------------------- scoped answers


def _play_scoped_game(api: Api, body: dict[str, Any], choose: random.Random) -> int:
    """Play a game to its end with seat credentials; check every answer each seat
    gets against the views. Returns how many of a seat's own hidden cards reached it."""
    players = body["players"]
    first = choose.randrange(players)
    started = api.call("NewGame", {**body, "eventsSeat": first})
    token, creds = started["state"], credentials(started)
    own = _check_answer(first, started, views(api, token, creds))
    while not started["status"]["gameOver"]:
        seat = started["status"]["seatToPlay"]
        scoped = {"state": token, "seatCredential": creds[seat]}
        move = choose.choice(api.call("LegalMoves", scoped)["moves"])
        started = api.call("Play", {**scoped, "move": move})
        token = started["state"]
        own += _check_answer(seat, started, views(api, token, creds))
    return own


def _check_answer(seat: int, answer: dict[str, Any], seen: list[dict[str, Any]]) -> int:
    """No event for another seat; no card another seat holds unseen by ``seat`` (the
    events since the answer's last deal: a new hand deals the old hand's cards again).
    Returns how many of the seat's own cards its private events showed."""
    events = answer["events"]
    assert all(event.get("visibleTo", seat) == seat for event in events)
    deals = [i for i, event in enumerate(events) if "deal" in event]
    current = cards_in(events[deals[-1] if deals else 0 :])
    assert not current & hidden_from(seat, seen), "another seat's hidden card"
    private = cards_in([event for event in events if "visibleTo" in event])
    assert private <= set(seen[seat]["hand"])
    return len(private)


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("game", ["scopa", "tressette", "briscola"])
def test_scoped_answers_carry_no_hidden_card_of_another_seat(
    apis: dict[str, Api], transport: str, game: str
) -> None:
    choose = random.Random(f"{transport}-{game}")
    own_cards = 0
    for players in (2, 4) * 4:
        own_cards += _play_scoped_game(apis[transport], GAMES[f"{game}-{players}"], choose)
    assert own_cards > 0  # the answers did carry each seat's own hidden cards


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_events_seat_without_a_credential_scopes_the_answer(
    apis: dict[str, Api], transport: str
) -> None:
    api = apis[transport]
    everything = api.call("NewGame", {**GAMES["scopa-2"], "seed": "3"})
    assert {e.get("visibleTo") for e in everything["events"]} == {None, 0, 1}
    only_one = api.call("NewGame", {**GAMES["scopa-2"], "seed": "3", "eventsSeat": 1})
    assert {e.get("visibleTo") for e in only_one["events"]} == {None, 1}
    token, creds = only_one["state"], credentials(only_one)
    move = api.call("LegalMoves", {"state": token})["moves"][0]
    asked = {"state": token, "seatCredential": creds[0], "move": move, "eventsSeat": 1}
    refused = api.refusal("Play", asked)
    assert (refused.status, refused.reason) == (DENIED, "SEAT_NOT_PERMITTED")


# ---------------------------------------------------------------- credentials required


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("game", ["scopa-2", "tressette-2"])
def test_with_credentials_required_no_call_for_a_seat_goes_without_one(
    strict_apis: dict[str, Api], transport: str, game: str
) -> None:
    api = strict_apis[transport]
    started = api.call("NewGame", GAMES[game])
    assert all("visibleTo" not in event for event in started["events"])  # public ones only
    token, creds = started["state"], credentials(started)
    move = api.call("LegalMoves", {"state": token, "seatCredential": creds[0]})["moves"][0]
    for rpc, body in [
        ("View", {"state": token, "seat": 0}),
        ("LegalMoves", {"state": token}),
        ("Validate", {"state": token, "move": move}),
        ("Play", {"state": token, "move": move}),
    ]:
        refused = api.refusal(rpc, body)
        assert (refused.status, refused.reason) == (DENIED, "SEAT_CREDENTIAL_REQUIRED"), rpc
    mine = api.call("NewGame", {**GAMES[game], "eventsSeat": 1})
    assert {e.get("visibleTo") for e in mine["events"]} == {None, 1}


# ---------------------------------------------------------------- versions


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("game", ["scopa-4", "tressette-2"])
def test_a_play_or_validate_at_another_ply_is_aborted(
    apis: dict[str, Api], transport: str, game: str
) -> None:
    api = apis[transport]
    started = api.call("NewGame", GAMES[game])
    token, status = started["state"], started["status"]
    assert status["ply"] == 0 and len(status["gameId"]) == 16
    move = api.call("LegalMoves", {"state": token})["moves"][0]
    for rpc in ("Play", "Validate"):
        refused = api.refusal(rpc, {"state": token, "move": move, "expectedPly": 1})
        assert (refused.status, refused.reason) == ("ABORTED", "STATE_VERSION_MISMATCH"), rpc
    played = api.call("Play", {"state": token, "move": move, "expectedPly": 0})
    assert played["status"]["ply"] == 1
    assert played["status"]["gameId"] == status["gameId"]
    # The stale token is still authentic: only the ply tells a store it is stale.
    refused = api.refusal("Play", {"state": played["state"], "move": move, "expectedPly": 0})
    assert refused.reason == "STATE_VERSION_MISMATCH"


# ---------------------------------------------------------------- token age


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("game", ["scopa-2", "tressette-4"])
def test_a_token_older_than_the_max_age_is_refused(
    expiring_apis: dict[str, Api], transport: str, game: str
) -> None:
    api = expiring_apis[transport]
    token = api.call("NewGame", GAMES[game])["state"]
    CLOCK.now += 60
    assert api.call("LegalMoves", {"state": token})["moves"]  # remembered, and not too old
    CLOCK.now += 1
    for rpc, body in [("LegalMoves", {}), ("View", {"seat": 0})]:
        refused = api.refusal(rpc, {"state": token, **body})
        assert (refused.status, refused.reason) == ("INVALID_ARGUMENT", "STATE_EXPIRED")


# ---------------------------------------------------------------- nothing to peek at


def _next_cards(api: Api, token: str) -> list[str]:
    """Play the first legal move until a move deals or draws; the cards it dealt or
    drew, in the order the events name them."""
    while True:
        move = api.call("LegalMoves", {"state": token})["moves"][0]
        played = api.call("Play", {"state": token, "move": move})
        token = played["state"]
        drawn = [
            card
            for event in played["events"]
            for kind in ("cardsDealt", "cardDrawn")
            if kind in event
            for card in event[kind].get("cards", [event[kind].get("card")])
        ]
        if drawn:
            return drawn


def _forks_agreeing(api: Api, body: dict[str, Any], forks: int) -> tuple[int, float]:
    """Fork one token ``forks`` times to its next deal or draw: how many forks dealt
    exactly what the real continuation dealt, and the mean number of cards in common."""
    token = api.call("NewGame", body)["state"]
    real = _next_cards(api, token)
    others = [_next_cards(api, token) for _ in range(forks)]
    same = sum(other == real for other in others)
    return same, sum(len(set(other) & set(real)) for other in others) / forks


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("game", ["scopa-2", "tressette-2"])
def test_forks_of_an_unseeded_token_predict_nothing_of_the_next_cards(
    apis: dict[str, Api], transport: str, game: str
) -> None:
    """Scopa deals 6 of 30 cards (by chance 1.2 in common), Tressette draws 2 of 20
    (0.2): half the cards in common is many standard deviations beyond chance."""
    api, forks = apis[transport], 20
    size = len(_next_cards(api, api.call("NewGame", GAMES[game])["state"]))
    same, in_common = _forks_agreeing(api, GAMES[game], forks)
    assert same <= 2
    assert in_common < size / 2
    # The same test on a seeded game: every fork agrees, so the test can fail.
    same, in_common = _forks_agreeing(api, {**GAMES[game], "seed": "77"}, forks)
    assert same == forks and in_common == size


# ---------------------------------------------------------------- a relay


def _play_through_relay(api: Api, body: dict[str, Any], choose: random.Random) -> dict[str, Any]:
    relay = Relay(api)
    game_id, creds = relay.create(body)
    # Each player holds their seat's credential and nothing else.
    players = list(enumerate(creds))
    while True:
        for seat, cred in players:
            view = relay.call(game_id, cred, "View", seat=seat)["view"]
            if view["status"]["gameOver"]:
                return view["status"]  # type: ignore[no-any-return]
            if view["status"].get("seatToPlay") != seat:
                continue
            moves = relay.call(game_id, cred, "LegalMoves")["moves"]
            assert {m["card"] for m in moves} <= set(view["hand"])
            played = relay.call(game_id, cred, "Play", move=choose.choice(moves))
            assert all(event.get("visibleTo", seat) == seat for event in played["events"])


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("game", ["scopa-2", "tressette-4"])
def test_a_relay_that_knows_no_rules_plays_a_whole_game_with_seat_credentials_only(
    strict_apis: dict[str, Api], transport: str, game: str
) -> None:
    status = _play_through_relay(strict_apis[transport], GAMES[game], random.Random(game))
    assert status["gameOver"] and status["ply"] >= 36
    assert "winningSide" in status


def test_a_relay_refuses_a_play_on_a_state_that_moved_on(strict_apis: dict[str, Api]) -> None:
    """Two calls raced from one stored token: the second finds the ply moved on."""
    api = strict_apis["grpc"]
    started = api.call("NewGame", GAMES["tressette-2"])
    token, creds = started["state"], credentials(started)
    scoped = {"state": token, "seatCredential": creds[0], "expectedPly": 0}
    move = api.call("LegalMoves", {"state": token, "seatCredential": creds[0]})["moves"][0]
    played = api.call("Play", {**scoped, "move": move})
    with pytest.raises(Refused) as stale:
        api.call("Play", {**scoped, "state": played["state"], "move": move})
    assert stale.value.reason == "STATE_VERSION_MISMATCH"


def test_the_typed_client_passes_seat_credentials_and_the_expected_ply(
    client: MazzoClient,
) -> None:
    game = client.new_game(2, tressette=pb.TressetteOptions())
    cred = [c.credential for c in game.seat_credentials]
    legal = client.legal_moves(game.state, credential=cred[0])
    assert client.view(game.state, 0, credential=cred[0]).view.hand
    with pytest.raises(MazzoError) as denied:
        client.view(game.state, 1, credential=cred[0])
    assert denied.value.reason == "SEAT_NOT_PERMITTED"
    assert client.validate(game.state, legal.moves[0], credential=cred[0], expected_ply=0).legal
    played = client.play(game.state, legal.moves[0], credential=cred[0], expected_ply=0)
    assert played.status.ply == 1
    with pytest.raises(MazzoError) as stale:
        client.play(played.state, legal.moves[0], expected_ply=0)
    assert stale.value.reason == "STATE_VERSION_MISMATCH"
