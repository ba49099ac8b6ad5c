"""The codec's hot paths write exactly what the plain, generic mapping writes.

Events and status are filled in place in the response (no message built and
copied), and a move's cards are looked up by their canonical names; these
tests hold them to a reference built the slow, obvious way: every field of
the engine value, by name, through the message constructors.
"""

from __future__ import annotations

import dataclasses
import random
import re
from typing import Any

import pytest

from mazzo.engine import Card, Move, get_game, parse_cards
from mazzo.engine import events as ev
from mazzo.engine.cards import DECK, SUITS
from mazzo.engine.errors import InvalidInput
from mazzo.engine.game import Status
from mazzo.service import codec
from mazzo.v1 import engine_pb2 as pb

# ---------------------------------------------------------------- the reference


def _plain(value: Any) -> Any:
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, ev.SideScore | ev.TressetteSideScore | ev.BriscolaSideScore):
        # The side and its total; the rest in the game's own message.
        game = {
            ev.SideScore: "scopa",
            ev.TressetteSideScore: "tressette",
            ev.BriscolaSideScore: "briscola",
        }[type(value)]
        fields = _fields(value)
        fields.pop("total", None)  # Briscola's total is a field; the others' a property
        return {"side": fields.pop("side"), "total": value.total, game: fields}
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def _fields(value: Any) -> dict[str, Any]:
    """Every field by name: an event or a score is a named tuple, a status a dataclass."""
    names = (
        value._fields if isinstance(value, tuple) else [f.name for f in dataclasses.fields(value)]
    )
    named = {name: _plain(getattr(value, name)) for name in names}
    return {name: v for name, v in named.items() if v is not None}


def reference_event(event: ev.Event) -> pb.Event:
    kind = re.sub(r"(?<!^)(?=[A-Z])", "_", type(event).__name__).lower()
    body = _fields(event)
    if isinstance(event, ev.NapoletanaDeclared):
        body["suit"] = SUITS[event.suit]
    if isinstance(event, ev.TrumpTurnedUp):
        body["suit"] = SUITS[event.card.suit]
    if isinstance(event, ev.CardDrawn):
        del body["private"]  # said by visible_to
    message = pb.Event(**{kind: body})
    if event.visible_to is not None:
        message.visible_to = event.visible_to
    return message


def reference_status(status: Status) -> pb.Status:
    return pb.Status(**_fields(status), game_over=status.game_over)


def written_events(events: list[ev.Event]) -> list[pb.Event]:
    response = pb.PlayResponse()
    codec.write_events(response.events, events)
    return list(response.events)


def written_status(status: Status) -> pb.Status:
    response = pb.PlayResponse()
    codec.write_status(response.status, status)
    return response.status


def assert_same_events(events: list[ev.Event]) -> None:
    written = written_events(events)
    expected = [reference_event(e) for e in events]
    assert written == expected
    assert [m.SerializeToString() for m in written] == [m.SerializeToString() for m in expected]


def assert_same_status(status: Status) -> None:
    written = written_status(status)
    assert written == reference_status(status)
    assert written.SerializeToString() == reference_status(status).SerializeToString()


# ---------------------------------------------------------------- events


def _scopa_score(n: int) -> ev.SideScore:
    return ev.SideScore(n, n, n, n, n, n, n, n, n, n, n, n, n, n)


C = parse_cards(["1D", "7D", "10B"])

#: Every kind of event, once with every field at its zero value (an event that
#: must still be present on the wire) and once with every field set.
SYNTHETIC: list[ev.Event] = [
    ev.Deal(0, 0, (), (), 0),
    ev.Deal(2, 1, C, (3, 3), 30),
    ev.CardsDealt(0, ()),
    ev.CardsDealt(1, C),
    ev.Redeal(0, ()),
    ev.Redeal(1, C),
    ev.CardPlayed(0, DECK[0]),
    ev.CardPlayed(1, DECK[39]),
    ev.Capture(0, 0, DECK[0], (), False),
    ev.Capture(3, 1, DECK[6], C, True),
    ev.LeftoversTaken(0, ()),
    ev.LeftoversTaken(1, C),
    ev.HandScored(0, (), ()),
    ev.HandScored(1, (_scopa_score(0), _scopa_score(2)), (4, 7)),
    ev.HandScored(
        3, (ev.TressetteSideScore(0, 0, 0, 0, 0), ev.TressetteSideScore(1, 8, 2, 1, 3)), (5, 2)
    ),
    ev.GameOver(0, ()),
    ev.GameOver(1, (9, 12)),
    ev.TrickWon(0, 0, 0, ()),
    ev.TrickWon(2, 0, 1, C),
    ev.CardDrawn(0, DECK[0]),
    ev.CardDrawn(1, DECK[12]),
    ev.CardDrawn(0, DECK[1], True),
    ev.CardDrawn(1, DECK[13], True),
    ev.TrumpTurnedUp(DECK[0]),
    ev.TrumpTurnedUp(DECK[39]),
    ev.HandScored(1, (ev.BriscolaSideScore(0, 0, 0), ev.BriscolaSideScore(1, 120, 1)), (0, 1)),
    ev.NapoletanaDeclared(0, 0, 0, (), 0),
    ev.NapoletanaDeclared(1, 1, 3, C, 3),
    ev.FirstTableTaken(0, 0, (), 0),
    ev.FirstTableTaken(1, 1, C, 1),
    ev.Declaration(0, 0, "", (), 0, None),
    ev.Declaration(0, 0, "decino", C, 10, 0),
    ev.Declaration(2, 0, "cirulla", C, 3, 5),
]


def test_every_kind_of_event_is_written_as_the_generic_mapping_writes_it() -> None:
    kinds = {type(e) for e in SYNTHETIC}
    assert kinds == {
        t for t in vars(ev).values() if isinstance(t, type) and issubclass(t, ev.Event)
    } - {ev.Event}
    for event in SYNTHETIC:
        assert_same_events([event])
    assert_same_events(SYNTHETIC)


GAMES_TO_PLAY = [
    pb.NewGameRequest(players=2, scopa=pb.ScopaOptions(target=11)),
    pb.NewGameRequest(players=4, scopa=pb.ScopaOptions(napola=True)),
    pb.NewGameRequest(players=2, scopa=pb.ScopaOptions(variant=pb.SCOPA_VARIANT_ESCOBA)),
    pb.NewGameRequest(players=2, scopa=pb.ScopaOptions(variant=pb.SCOPA_VARIANT_CIRULLA)),
    pb.NewGameRequest(players=2, tressette=pb.TressetteOptions(napoletana=True)),
    pb.NewGameRequest(players=4, tressette=pb.TressetteOptions(napoletana=True)),
    *(pb.NewGameRequest(players=n, briscola=pb.BriscolaOptions(target=2)) for n in (2, 3, 4)),
]


@pytest.mark.parametrize("request_", GAMES_TO_PLAY, ids=lambda r: str(r).replace("\n", " "))
def test_the_events_and_status_of_whole_games_are_written_as_the_generic_mapping_writes_them(
    request_: pb.NewGameRequest,
) -> None:
    name, rules = codec.rules_from_request(request_)
    game = get_game(name)
    for seed in range(3):
        choose = random.Random(seed).choice
        state, events = game.new_game(rules, seed=seed, decks=[], first_dealer=None)
        while True:
            assert_same_events(events)
            assert_same_status(state.status())
            if state.status().game_over:
                break
            events = state.apply(choose(state.legal_moves()))


def test_a_status_writes_the_optional_fields_only_when_they_are_set() -> None:
    playing = Status("scopa", 2, 0, 1, 1, (0, 0), None, 11)
    over = Status("tressette", 4, None, 0, 9, (21, 3), 0, 21)
    for status in (playing, over):
        assert_same_status(status)
    assert written_status(playing).HasField("seat_to_play")
    assert not written_status(playing).HasField("winning_side")
    assert written_status(over).HasField("winning_side")
    assert not written_status(over).HasField("seat_to_play")


# ---------------------------------------------------------------- caches


def test_a_status_written_again_comes_from_the_cache_the_same() -> None:
    status = Status("scopa", 3, 2, 1, 4, (5, 0, 7), None, 16)
    for _ in range(3):
        assert_same_status(status)
    assert status in codec._STATUS_BYTES


def test_an_event_written_again_comes_from_the_cache_the_same() -> None:
    events = [ev.CardPlayed(2, DECK[17]), ev.Capture(2, 2, DECK[17], C, True)]
    for _ in range(3):
        assert_same_events(events)
    assert (2, DECK[17]) in codec._EVENT_KINDS[ev.CardPlayed][1]


def test_the_cache_of_moves_taking_one_card_stays_within_its_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(codec, "CACHE_LIMIT", 5)
    codec._MOVES_TAKING_ONE.clear()
    for card in DECK[:20]:
        move = pb.Move(seat=1, card="7D", take=[str(card)])
        assert codec.move_from_pb(move) == reference_move(move)
    assert 0 < len(codec._MOVES_TAKING_ONE) <= 5


def test_kinds_of_event_with_equal_fields_keep_their_own_bytes() -> None:
    assert_same_events([ev.CardPlayed(1, DECK[3]), ev.CardDrawn(1, DECK[3])])
    assert_same_events([ev.CardDrawn(1, DECK[3]), ev.CardPlayed(1, DECK[3])])
    assert_same_events([ev.CardDrawn(1, DECK[3], True), ev.CardDrawn(1, DECK[3])])


def test_the_caches_of_written_messages_stay_within_their_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(codec, "CACHE_LIMIT", 5)
    filled = [codec._STATUS_BYTES] + [codec._EVENT_KINDS[k][1] for k in (ev.CardPlayed, ev.Deal)]
    for cache in filled:
        cache.clear()
    for n in range(20):
        assert_same_status(Status("scopa", 2, n % 2, 0, n + 1, (n, 0), None, 11))
        assert_same_events([ev.CardPlayed(n % 2, DECK[n]), ev.Deal(n + 1, 0, (), (3, 3), 0)])
    assert all(0 < len(cache) <= 5 for cache in filled)


# ---------------------------------------------------------------- moves


def reference_move(move: pb.Move) -> Move:
    return Move(seat=move.seat, card=Card.parse(move.card), take=frozenset(parse_cards(move.take)))


@pytest.mark.parametrize(
    "card, take",
    [
        ("7D", []),
        ("7D", ["7S"]),
        ("10B", ["3C", "2D", "5S"]),
        ("7d", ["7S"]),  # not canonical: the long way
        (" 7D ", []),
        ("7D", ["7s", "1C"]),
    ],
)
def test_a_move_reads_as_parsing_every_card_reads_it(card: str, take: list[str]) -> None:
    move = pb.Move(seat=1, card=card, take=take)
    read = codec.move_from_pb(move)
    assert read == reference_move(move)
    assert type(read.take) is frozenset


@pytest.mark.parametrize("seat", [0, 1, 5, 6, 9, -1])
def test_a_move_of_any_seat_and_card_reads_as_parsing_reads_it(seat: int) -> None:
    for card in DECK:
        other = str(DECK[(card + 1) % len(DECK)])
        for take in ([], [other], [other, str(card)]):
            move = pb.Move(seat=seat, card=str(card), take=take)
            for _ in range(2):  # read again: the second time from a cache
                assert codec.move_from_pb(move) == reference_move(move)


def test_a_move_taking_one_card_by_a_name_not_canonical_reads_the_long_way() -> None:
    move = pb.Move(seat=0, card="7D", take=["7s"])
    assert codec.move_from_pb(move) == reference_move(move)


@pytest.mark.parametrize(
    "card, take",
    [
        ("11D", []),
        ("", []),
        ("7D", ["7S", "7S"]),
        ("7D", ["7X"]),
        ("7D", ["7S", "7s"]),
        ("7D", ["11D"]),
        ("7d", ["7S", "7S"]),
        (" 7D", ["7X"]),
        ("7D", ["7S", "8S", "7S"]),
    ],
)
def test_a_malformed_move_is_refused_as_parsing_every_card_refuses_it(
    card: str, take: list[str]
) -> None:
    move = pb.Move(seat=0, card=card, take=take)
    with pytest.raises(InvalidInput) as expected:
        reference_move(move)
    with pytest.raises(InvalidInput) as refused:
        codec.move_from_pb(move)
    assert (refused.value.reason, refused.value.message) == (
        expected.value.reason,
        expected.value.message,
    )


# ---------------------------------------------------------------- views


@pytest.mark.parametrize("request_", GAMES_TO_PLAY, ids=lambda r: str(r).replace("\n", " "))
def test_a_view_carries_only_its_own_games_fields(request_: pb.NewGameRequest) -> None:
    name, rules = codec.rules_from_request(request_)
    game = get_game(name)
    state, _ = game.new_game(rules, seed=7, decks=[], first_dealer=None)
    view = codec.view_to_pb(game.view(state, 0))
    assert view.WhichOneof("game") == name
    if name == "scopa":
        assert len(view.scopa.table) > 0 or request_.scopa.variant != pb.SCOPA_VARIANT_UNSPECIFIED
    else:
        assert view.tressette.leader == game.status(state).seat_to_play
    printed = view.SerializeToString()
    assert pb.View.FromString(printed) == view


def test_a_scopa_view_with_an_empty_table_still_names_its_game() -> None:
    game = get_game("scopa")
    scopone = pb.ScopaOptions(variant=pb.SCOPA_VARIANT_SCOPONE_SCIENTIFICO)
    _, rules = codec.rules_from_request(pb.NewGameRequest(players=4, scopa=scopone))
    state, _ = game.new_game(rules, seed=1, decks=[], first_dealer=None)
    view = codec.view_to_pb(game.view(state, 2))
    assert list(view.scopa.table) == []
    assert view.WhichOneof("game") == "scopa"
