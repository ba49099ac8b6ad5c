"""mazzo.v1.Engine over a real gRPC channel: every RPC, every refusal, a whole game.

Situations are dealt from explicit decks (two players, dealer seat 1, so seat 0
gets deck[0], deck[2], deck[4] and plays first):

    seat 0: 7D 5C 9B        seat 1: 1S 6B 2B        table: 2C 5S 3S 4B

7D can take 2C+5S or 3S+4B (a choice); 5C must take 5S (same rank); 9B can
take 2C+3S+4B or 5S+4B.
"""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
from google.protobuf import descriptor_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from mazzo.engine.scopa import PrimieraRule, ScopaRules
from mazzo.service.state_token import StateSealer
from mazzo.v1 import engine_pb2 as pb
from mazzo.v1 import engine_pb2_grpc
from mazzo_client import MazzoClient, MazzoError
from tests.service.support import (
    ALL_CARDS,
    KEYS,
    Stack,
    cards,
    deck,
    move,
    refused,
    state_of,
)

HANDS = ("7D 5C 9B", "1S 6B 2B")
TABLE = "2C 5S 3S 4B"
DECK = deck(HANDS, TABLE)
CHOICES = "2C+5S;3S+4B"

INVALID = grpc.StatusCode.INVALID_ARGUMENT
PRECONDITION = grpc.StatusCode.FAILED_PRECONDITION


def new_game_request(**fields: object) -> pb.NewGameRequest:
    fields.setdefault("scopa", pb.ScopaOptions())
    return pb.NewGameRequest(**fields)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def dealt(stub: engine_pb2_grpc.EngineStub) -> pb.NewGameResponse:
    """The situation above, dealt once for the module."""
    return stub.NewGame(new_game_request(players=2, seed=1, decks=[pb.Deck(cards=DECK)]))


@pytest.fixture(scope="module")
def token(dealt: pb.NewGameResponse) -> bytes:
    return dealt.state


def play_to_the_end(client: MazzoClient, state: bytes) -> Iterator[pb.PlayResponse]:
    """Play the first legal move until the game is over; yield every response."""
    for _ in range(2000):
        legal = client.legal_moves(state)
        assert legal.moves, "a game that is not over has legal moves"
        reply = client.play(state, legal.moves[0])
        yield reply
        if reply.status.game_over:
            return
        state = reply.state
    raise AssertionError("the game did not end")


@pytest.fixture(scope="module")
def finished(client: MazzoClient) -> list[pb.PlayResponse]:
    """A seeded two-player game to 1 point, played to the end over gRPC."""
    game = client.new_game(2, scopa=pb.ScopaOptions(target=1), seed=7)
    return list(play_to_the_end(client, game.state))


# ---------------------------------------------------------------- GetCatalog


def test_catalog_lists_scopa_with_player_counts_and_option_defaults(
    client: MazzoClient,
) -> None:
    catalog = client.catalog()
    (scopa,) = [g for g in catalog.games if g.name == "scopa"]
    assert scopa.title == "Scopa"
    assert scopa.description
    assert list(scopa.player_counts) == [2, 3, 4, 6]
    options = {o.name: o for o in scopa.options}
    # The catalog describes every field of ScopaOptions, and nothing else.
    assert set(options) == {f.name for f in pb.ScopaOptions.DESCRIPTOR.fields}
    target, napola, primiera = options["target"], options["napola"], options["primiera"]
    assert (target.type, target.default_value, target.min, target.max) == ("int", "11", 1, 1000)
    assert (napola.type, napola.default_value) == ("bool", "false")
    assert (primiera.type, primiera.default_value) == ("enum", "PRIMIERA_RULE_STANDARD")
    assert list(primiera.allowed_values) == [
        "PRIMIERA_RULE_STANDARD",
        "PRIMIERA_RULE_SEVENS",
        "PRIMIERA_RULE_LENIENT",
        "PRIMIERA_RULE_MOST_SEVENS",
    ]
    for name in primiera.allowed_values:  # every advertised value is a wire enum value
        assert pb.PrimieraRule.Value(name) != pb.PRIMIERA_RULE_UNSPECIFIED


# ---------------------------------------------------------------- NewGame


def test_new_game_with_a_seed_is_reproducible(client: MazzoClient) -> None:
    first = client.new_game(2, seed=42)
    again = client.new_game(2, seed=42)
    assert first.seed == again.seed == 42
    assert list(first.events) == list(again.events)
    assert first.state != again.state  # a fresh nonce for every token
    assert client.legal_moves(first.state) == client.legal_moves(again.state)
    status = first.status
    assert (status.game, status.players, status.dealer, status.hand_number) == ("scopa", 2, 1, 1)
    assert status.HasField("seat_to_play") and status.seat_to_play == 0
    assert list(status.scores) == [0, 0]
    assert not status.game_over and not status.HasField("winning_side")
    assert status.target == 11


def test_new_game_returns_the_seed_only_when_the_caller_gave_it(client: MazzoClient) -> None:
    first, second = client.new_game(2), client.new_game(2)
    assert not first.HasField("seed") and not second.HasField("seed")
    assert list(first.events) != list(second.events)  # fresh randomness, not a fixed seed
    assert client.new_game(2, seed=0).HasField("seed")  # even a zero the caller gave


def test_new_game_from_an_explicit_deck_deals_it(dealt: pb.NewGameResponse) -> None:
    deal, *private = dealt.events
    assert deal.WhichOneof("kind") == "deal" and not deal.HasField("visible_to")
    assert list(deal.deal.table) == cards(TABLE)
    assert list(deal.deal.hand_sizes) == [3, 3]
    assert deal.deal.stock_size == 40 - 6 - 4
    assert (deal.deal.hand_number, deal.deal.dealer) == (1, 1)
    assert [(e.visible_to, e.cards_dealt.seat, list(e.cards_dealt.cards)) for e in private] == [
        (0, 0, cards(HANDS[0])),
        (1, 1, cards(HANDS[1])),
    ]
    assert dealt.seed == 1


def test_new_game_with_first_dealer_zero_deals_seat_one_first(client: MazzoClient) -> None:
    game = client.new_game(2, decks=[DECK], first_dealer=0, seed=1)
    assert game.status.dealer == 0 and game.status.seat_to_play == 1
    # Seat 1 now gets deck[0], deck[2], deck[4]: what seat 0 got with dealer 1.
    assert list(client.view(game.state, 1).view.hand) == cards(HANDS[0])
    assert list(client.view(game.state, 0).view.hand) == cards(HANDS[1])


@pytest.mark.parametrize("players", [3, 4, 6])
def test_new_game_for_more_players(client: MazzoClient, players: int) -> None:
    game = client.new_game(players, seed=3)
    assert game.status.players == players
    assert game.status.dealer == players - 1 and game.status.seat_to_play == 0
    assert len(game.status.scores) == (2 if players in (4, 6) else players)
    dealt_to = sorted(e.visible_to for e in game.events if e.HasField("cards_dealt"))
    assert dealt_to == list(range(players))


def test_new_game_options_reach_the_rules(client: MazzoClient) -> None:
    options = pb.ScopaOptions(target=5, napola=True, primiera=pb.PRIMIERA_RULE_SEVENS)
    game = client.new_game(2, scopa=options, seed=9)
    assert game.status.target == 5
    # White box: the sealed state carries exactly these rules.
    state = state_of(game.state)
    assert state.rules == ScopaRules(players=2, target=5, napola=True, primiera=PrimieraRule.SEVENS)


def test_new_game_defaults_are_the_catalogs(client: MazzoClient) -> None:
    game = client.new_game(2, seed=9)
    state = state_of(game.state)
    assert state.rules == ScopaRules(players=2, target=11, napola=False)


def test_players_zero_means_two(stub: engine_pb2_grpc.EngineStub) -> None:
    reply = stub.NewGame(new_game_request(seed=1))
    assert reply.status.players == 2


def _first_hand(client: MazzoClient, napola: bool) -> pb.HandScored:
    """Seat 0 takes 1D+2D with 3D at once, then both play their first legal move."""
    opening = deck(("3D 9C 8C", "9S 8S 7S"), "1D 2D 9B 8B")
    game = client.new_game(2, scopa=pb.ScopaOptions(napola=napola), decks=[opening], seed=1)
    reply = client.play(game.state, move(0, "3D"))
    captures = [e.capture for e in reply.events if e.HasField("capture")]
    assert [(c.seat, sorted(c.taken)) for c in captures] == [(0, ["1D", "2D"])]
    state = reply.state
    while True:
        reply = client.play(state, client.legal_moves(state).moves[0])
        scored = [e.hand_scored for e in reply.events if e.HasField("hand_scored")]
        if scored:
            return scored[0]
        state = reply.state


@pytest.mark.parametrize("napola", [True, False])
def test_napola_option_scores_the_run_of_coins(client: MazzoClient, napola: bool) -> None:
    scored = _first_hand(client, napola)
    side0 = scored.sides[0].scopa
    assert side0.napola >= 3 if napola else side0.napola == 0
    assert scored.sides[1].scopa.napola == 0
    points = (
        side0.cards_point,
        side0.denari_point,
        side0.settebello_point,
        side0.primiera_point,
        side0.sweeps,
        side0.napola,
    )
    assert scored.sides[0].total == sum(points)


# ---------------------------------------------------------------- Play


def test_play_applies_a_capture_and_passes_the_turn(client: MazzoClient, token: bytes) -> None:
    reply = client.play(token, move(0, "7D", ["3S", "4B"]))
    kinds = [e.WhichOneof("kind") for e in reply.events]
    assert kinds == ["card_played", "capture"]
    played, capture = reply.events[0].card_played, reply.events[1].capture
    assert (played.seat, played.card) == (0, "7D")
    assert (capture.seat, capture.side, capture.card, capture.sweep) == (0, 0, "7D", False)
    assert sorted(capture.taken) == ["3S", "4B"]
    assert reply.status.seat_to_play == 1
    view = client.view(reply.state, 0).view
    assert list(view.scopa.table) == ["2C", "5S"]
    assert list(view.hand) == ["5C", "9B"]
    assert sorted(view.piles[0].cards) == ["3S", "4B", "7D"]


def test_play_fills_in_a_forced_taking(client: MazzoClient, token: bytes) -> None:
    reply = client.play(token, move(0, "5C"))
    (capture,) = [e.capture for e in reply.events if e.HasField("capture")]
    assert list(capture.taken) == ["5S"]


def test_play_never_changes_the_callers_token(client: MazzoClient, token: bytes) -> None:
    first = client.play(token, move(0, "5C"))
    second = client.play(token, move(0, "5C"))
    assert list(first.events) == list(second.events)
    assert list(client.view(token, 0).view.scopa.table) == cards(TABLE)


def test_play_over_the_raw_stub(stub: engine_pb2_grpc.EngineStub, token: bytes) -> None:
    reply = stub.Play(pb.PlayRequest(state=token, move=move(0, "9B", ["5S", "4B"])), timeout=10)
    assert isinstance(reply, pb.PlayResponse)
    assert reply.state and reply.status.seat_to_play == 1


# ---------------------------------------------------------------- Validate


def test_validate_a_legal_move(client: MazzoClient, token: bytes) -> None:
    reply = client.validate(token, move(0, "7D", ["2C", "5S"]))
    assert reply == pb.ValidateResponse(legal=True)


def test_validate_a_forced_taking_left_out_is_legal(client: MazzoClient, token: bytes) -> None:
    assert client.validate(token, move(0, "5C")).legal


def test_validate_an_illegal_move_says_why(client: MazzoClient, token: bytes) -> None:
    reply = client.validate(token, move(0, "5C", ["2C", "3S"]))
    assert not reply.legal
    assert reply.reason == "MUST_TAKE_SAME_RANK"
    assert "5S" in reply.message
    assert not reply.choices


def test_validate_an_ambiguous_capture_lists_the_choices(client: MazzoClient, token: bytes) -> None:
    reply = client.validate(token, move(0, "7D"))
    assert (reply.legal, reply.reason) == (False, "CAPTURE_CHOICE_REQUIRED")
    assert reply.message
    assert [(m.seat, m.card, list(m.take)) for m in reply.choices] == [
        (0, "7D", ["2C", "5S"]),
        (0, "7D", ["3S", "4B"]),
    ]
    for choice in reply.choices:  # each choice is itself legal
        assert client.validate(token, choice).legal


# ---------------------------------------------------------------- LegalMoves and View


def test_legal_moves_spell_out_every_taking(client: MazzoClient, token: bytes) -> None:
    reply = client.legal_moves(token)
    assert reply.seat == 0
    assert [(m.seat, m.card, list(m.take)) for m in reply.moves] == [
        (0, "7D", ["2C", "5S"]),
        (0, "7D", ["3S", "4B"]),
        (0, "5C", ["5S"]),
        (0, "9B", ["2C", "3S", "4B"]),
        (0, "9B", ["5S", "4B"]),
    ]


def test_legal_moves_follow_the_turn(client: MazzoClient, token: bytes) -> None:
    after = client.play(token, move(0, "5C")).state
    reply = client.legal_moves(after)
    assert reply.seat == 1
    assert {m.card for m in reply.moves} == set(cards(HANDS[1]))
    for legal in reply.moves:
        assert client.validate(after, legal).legal


def test_view_shows_a_seat_its_own_hand_only(client: MazzoClient, token: bytes) -> None:
    for seat, other in ((0, 1), (1, 0)):
        view = client.view(token, seat).view
        assert (view.seat, view.side) == (seat, seat)
        assert list(view.hand) == cards(HANDS[seat])
        assert list(view.scopa.table) == cards(TABLE)
        assert list(view.hand_sizes) == [3, 3]
        assert view.stock_size == 30
        assert [(p.side, list(p.cards), p.sweeps) for p in view.piles] == [(0, [], 0), (1, [], 0)]
        assert view.status.seat_to_play == 0
        shown = str(view)  # the text format quotes every card it holds
        assert not [card for card in cards(HANDS[other]) if f'"{card}"' in shown]


def test_view_of_a_team_game_names_the_side(client: MazzoClient) -> None:
    game = client.new_game(4, seed=5)
    assert [client.view(game.state, seat).view.side for seat in range(4)] == [0, 1, 0, 1]
    assert len(client.view(game.state, 0).view.piles) == 2


# ---------------------------------------------------------------- a whole game


def test_a_game_to_one_point_ends_with_game_over(finished: list[pb.PlayResponse]) -> None:
    last = finished[-1]
    assert last.status.game_over
    assert last.status.HasField("winning_side")
    assert not last.status.HasField("seat_to_play")
    (over,) = [e.game_over for e in last.events if e.HasField("game_over")]
    assert last.events[-1].HasField("game_over")
    assert over.winning_side == last.status.winning_side
    assert list(over.scores) == list(last.status.scores)
    assert over.scores[over.winning_side] >= 1
    assert over.scores[over.winning_side] > max(
        s for side, s in enumerate(over.scores) if side != over.winning_side
    )
    assert all(not r.status.game_over for r in finished[:-1])
    played = sum(1 for r in finished for e in r.events if e.HasField("card_played"))
    assert played % 36 == 0 and played >= 36  # whole hands of 40 - 4 table cards
    hands = [e.hand_scored for r in finished for e in r.events if e.HasField("hand_scored")]
    assert list(hands[-1].scores) == list(over.scores)


def test_the_first_hand_accounts_for_all_forty_cards(finished: list[pb.PlayResponse]) -> None:
    piles: list[str] = []
    for reply in finished:
        for event in reply.events:
            if event.HasField("capture"):
                piles += [event.capture.card, *event.capture.taken]
            elif event.HasField("leftovers_taken"):
                piles += list(event.leftovers_taken.cards)
            elif event.HasField("hand_scored"):
                assert sorted(piles) == sorted(ALL_CARDS)
                assert sum(side.scopa.cards for side in event.hand_scored.sides) == 40
                return
    raise AssertionError("no hand was scored")


def test_a_finished_game_refuses_moves(
    client: MazzoClient, stub: engine_pb2_grpc.EngineStub, finished: list[pb.PlayResponse]
) -> None:
    over = finished[-1].state
    error = refused(stub.Play, pb.PlayRequest(state=over, move=move(0, "1D")))
    assert (error.code, error.reason) == (PRECONDITION, "GAME_OVER")
    error = refused(stub.LegalMoves, pb.LegalMovesRequest(state=over))
    assert (error.code, error.reason) == (PRECONDITION, "GAME_OVER")
    reply = client.validate(over, move(0, "1D"))
    assert (reply.legal, reply.reason) == (False, "GAME_OVER")
    assert client.view(over, 0).view.status.game_over


# ---------------------------------------------------------------- refusals: illegal moves

ILLEGAL_MOVES = [
    pytest.param(move(1, "1S"), "NOT_YOUR_TURN", {"seatToPlay": "0"}, id="NOT_YOUR_TURN"),
    pytest.param(move(0, "1S"), "CARD_NOT_IN_HAND", {}, id="CARD_NOT_IN_HAND-other-hand"),
    pytest.param(move(0, "10D"), "CARD_NOT_IN_HAND", {}, id="CARD_NOT_IN_HAND-stock"),
    pytest.param(move(0, "7D", ["1D", "6D"]), "CARD_NOT_ON_TABLE", {}, id="CARD_NOT_ON_TABLE"),
    pytest.param(move(0, "5C", ["2C", "3S"]), "MUST_TAKE_SAME_RANK", {}, id="MUST_TAKE_SAME_RANK"),
    pytest.param(move(0, "9B", ["2C", "5S"]), "NO_SUCH_CAPTURE", {}, id="NO_SUCH_CAPTURE"),
    pytest.param(move(0, "7D", ["2C"]), "NO_SUCH_CAPTURE", {}, id="NO_SUCH_CAPTURE-part"),
    pytest.param(
        move(0, "7D"), "CAPTURE_CHOICE_REQUIRED", {"choices": CHOICES}, id="CAPTURE_CHOICE"
    ),
]


@pytest.mark.parametrize(("illegal", "reason", "metadata"), ILLEGAL_MOVES)
def test_an_illegal_move_is_failed_precondition(
    stub: engine_pb2_grpc.EngineStub,
    token: bytes,
    illegal: pb.Move,
    reason: str,
    metadata: dict[str, str],
) -> None:
    error = refused(stub.Play, pb.PlayRequest(state=token, move=illegal))
    assert error.code == PRECONDITION
    assert error.reason == reason
    assert error.metadata == metadata
    # Validate gives the same reason without an error.
    verdict = stub.Validate(pb.ValidateRequest(state=token, move=illegal), timeout=10)
    assert (verdict.legal, verdict.reason, verdict.message) == (False, reason, error.message)


@pytest.mark.parametrize(("illegal", "reason", "metadata"), ILLEGAL_MOVES)
def test_a_refused_play_leaves_the_token_usable(
    client: MazzoClient, token: bytes, illegal: pb.Move, reason: str, metadata: dict[str, str]
) -> None:
    with pytest.raises(MazzoError) as caught:
        client.play(token, illegal)
    assert caught.value.reason == reason
    reply = client.play(token, move(0, "7D", ["2C", "5S"]))
    assert reply.status.seat_to_play == 1


def test_the_client_raises_mazzo_error_with_code_reason_and_metadata(
    client: MazzoClient, token: bytes
) -> None:
    with pytest.raises(MazzoError) as caught:
        client.play(token, move(0, "7D"))
    error = caught.value
    assert error.code == PRECONDITION
    assert error.reason == "CAPTURE_CHOICE_REQUIRED"
    assert error.metadata == {"choices": CHOICES}
    assert "7D" in error.message
    assert str(error).startswith("FAILED_PRECONDITION CAPTURE_CHOICE_REQUIRED: ")


# ---------------------------------------------------------------- refusals: malformed input


def _deck_with(replace: dict[int, str]) -> list[str]:
    return [replace.get(i, c) for i, c in enumerate(DECK)]


INVALID_NEW_GAMES = [
    pytest.param(
        new_game_request(decks=[pb.Deck(cards=_deck_with({5: "XX"}))]),
        "INVALID_CARD",
        {},
        id="INVALID_CARD-deck",
    ),
    pytest.param(
        new_game_request(decks=[pb.Deck(cards=_deck_with({5: DECK[0]}))]),
        "DUPLICATE_CARD",
        {},
        id="DUPLICATE_CARD",
    ),
    pytest.param(
        new_game_request(decks=[pb.Deck(cards=DECK[:39])]), "INVALID_DECK", {}, id="INVALID_DECK"
    ),
    pytest.param(
        new_game_request(decks=[pb.Deck(cards=DECK), pb.Deck(cards=DECK[1:])]),
        "INVALID_DECK",
        {},
        id="INVALID_DECK-second",
    ),
    pytest.param(new_game_request(players=5), "INVALID_PLAYERS", {}, id="INVALID_PLAYERS-5"),
    pytest.param(new_game_request(players=-2), "INVALID_PLAYERS", {}, id="INVALID_PLAYERS-neg"),
    pytest.param(
        new_game_request(scopa=pb.ScopaOptions(target=0)),
        "INVALID_OPTION",
        {"option": "target"},
        id="INVALID_OPTION-target-0",
    ),
    pytest.param(
        new_game_request(scopa=pb.ScopaOptions(target=1001)),
        "INVALID_OPTION",
        {"option": "target"},
        id="INVALID_OPTION-target-1001",
    ),
    pytest.param(
        new_game_request(scopa=pb.ScopaOptions(primiera=7)),  # type: ignore[arg-type]
        "INVALID_OPTION",
        {"option": "primiera"},
        id="INVALID_OPTION-primiera",
    ),
    pytest.param(
        new_game_request(first_dealer=5),
        "INVALID_SEAT",
        {"option": "first_dealer"},
        id="INVALID_SEAT-firstDealer",
    ),
    pytest.param(
        new_game_request(first_dealer=-1),
        "INVALID_SEAT",
        {"option": "first_dealer"},
        id="INVALID_SEAT-firstDealer-neg",
    ),
    pytest.param(pb.NewGameRequest(players=2), "INVALID_GAME", {}, id="INVALID_GAME"),
]


@pytest.mark.parametrize(("request_", "reason", "metadata"), INVALID_NEW_GAMES)
def test_a_malformed_new_game_is_invalid_argument(
    stub: engine_pb2_grpc.EngineStub,
    request_: pb.NewGameRequest,
    reason: str,
    metadata: dict[str, str],
) -> None:
    error = refused(stub.NewGame, request_)
    assert (error.code, error.reason, error.metadata) == (INVALID, reason, metadata)


MALFORMED_MOVES = [
    pytest.param(move(0, "11D"), "INVALID_CARD", id="INVALID_CARD"),
    pytest.param(move(0, ""), "INVALID_CARD", id="INVALID_CARD-empty"),
    pytest.param(move(0, "7D", ["2C", "ZZ"]), "INVALID_CARD", id="INVALID_CARD-take"),
    pytest.param(move(0, "7D", ["2C", "2C"]), "DUPLICATE_CARD", id="DUPLICATE_CARD"),
    pytest.param(move(7, "7D"), "INVALID_SEAT", id="INVALID_SEAT-7"),
    pytest.param(move(-1, "7D"), "INVALID_SEAT", id="INVALID_SEAT-neg"),
]


@pytest.mark.parametrize(("bad", "reason"), MALFORMED_MOVES)
@pytest.mark.parametrize("rpc", ["Play", "Validate"])
def test_a_malformed_move_is_invalid_argument(
    stub: engine_pb2_grpc.EngineStub, token: bytes, rpc: str, bad: pb.Move, reason: str
) -> None:
    request_type = pb.PlayRequest if rpc == "Play" else pb.ValidateRequest
    error = refused(getattr(stub, rpc), request_type(state=token, move=bad))
    assert (error.code, error.reason) == (INVALID, reason)


@pytest.mark.parametrize("seat", [7, 2, -1])
def test_view_of_a_seat_that_does_not_exist(
    stub: engine_pb2_grpc.EngineStub, token: bytes, seat: int
) -> None:
    error = refused(stub.View, pb.ViewRequest(state=token, seat=seat))
    assert (error.code, error.reason) == (INVALID, "INVALID_SEAT")


@pytest.mark.parametrize("rpc", ["Play", "Validate"])
def test_a_request_without_a_move(stub: engine_pb2_grpc.EngineStub, token: bytes, rpc: str) -> None:
    request_type = pb.PlayRequest if rpc == "Play" else pb.ValidateRequest
    error = refused(getattr(stub, rpc), request_type(state=token))
    assert (error.code, error.reason) == (INVALID, "MOVE_MISSING")


# ---------------------------------------------------------------- refusals: state tokens


def _flip(token: bytes, index: int) -> bytes:
    return token[:index] + bytes((token[index] ^ 0x01,)) + token[index + 1 :]


def _state_requests(state: bytes) -> list[tuple[str, object]]:
    return [
        ("Play", pb.PlayRequest(state=state, move=move(0, "5C"))),
        ("Validate", pb.ValidateRequest(state=state, move=move(0, "5C"))),
        ("LegalMoves", pb.LegalMovesRequest(state=state)),
        ("View", pb.ViewRequest(state=state, seat=0)),
    ]


BAD_TOKENS = [
    pytest.param(lambda t: b"", "STATE_MISSING", id="STATE_MISSING"),
    pytest.param(lambda t: t[:-1], "STATE_TRUNCATED", id="STATE_TRUNCATED-one-byte"),
    pytest.param(lambda t: t[:10], "STATE_TRUNCATED", id="STATE_TRUNCATED-header"),
    pytest.param(lambda t: _flip(t, len(t) - 20), "STATE_TAMPERED", id="STATE_TAMPERED-body"),
    pytest.param(lambda t: _flip(t, len(t) - 1), "STATE_TAMPERED", id="STATE_TAMPERED-tag"),
    pytest.param(lambda t: t + b"\x00", "STATE_TAMPERED", id="STATE_TAMPERED-extended"),
    pytest.param(lambda t: b"\x01" + t[1:], "STATE_VERSION_UNSUPPORTED", id="STATE_VERSION"),
    pytest.param(lambda t: b"not a token", "STATE_UNRECOGNIZED", id="STATE_UNRECOGNIZED"),
    pytest.param(lambda t: t[:3] + b"x" + t[4:], "STATE_KEY_UNKNOWN", id="STATE_KEY_UNKNOWN-id"),
]


@pytest.mark.parametrize(("spoil", "reason"), BAD_TOKENS)
def test_a_spoiled_token_is_refused_by_every_rpc(
    stub: engine_pb2_grpc.EngineStub, token: bytes, spoil: object, reason: str
) -> None:
    bad = spoil(token)  # type: ignore[operator]
    for rpc, request_ in _state_requests(bad):
        error = refused(getattr(stub, rpc), request_)
        assert (error.code, error.reason) == (INVALID, reason), rpc


def test_a_token_of_a_server_with_another_key_id_is_unknown(
    stub: engine_pb2_grpc.EngineStub, other_kid_stack: Stack
) -> None:
    with MazzoClient(other_kid_stack.grpc_target) as foreign:
        foreign_token = foreign.new_game(2, seed=1).state
        assert foreign.legal_moves(foreign_token).moves  # it opens where it was sealed
    error = refused(stub.LegalMoves, pb.LegalMovesRequest(state=foreign_token))
    assert (error.code, error.reason) == (INVALID, "STATE_KEY_UNKNOWN")


def test_a_token_of_a_server_with_the_same_key_id_but_another_secret_is_tampered(
    stub: engine_pb2_grpc.EngineStub, other_secret_stack: Stack
) -> None:
    with MazzoClient(other_secret_stack.grpc_target) as foreign:
        foreign_token = foreign.new_game(2, seed=1).state
        assert foreign.legal_moves(foreign_token).moves
    error = refused(stub.Play, pb.PlayRequest(state=foreign_token, move=move(0, "1D")))
    assert (error.code, error.reason) == (INVALID, "STATE_TAMPERED")


def test_an_authentic_token_that_does_not_decode_is_corrupt(
    stub: engine_pb2_grpc.EngineStub,
) -> None:
    garbage = StateSealer(list(KEYS)).seal(b"\x01not a scopa state")
    error = refused(stub.LegalMoves, pb.LegalMovesRequest(state=garbage))
    assert (error.code, error.reason) == (INVALID, "STATE_CORRUPT")


# ---------------------------------------------------------------- health and reflection


@pytest.mark.parametrize("service", ["", "mazzo.v1.Engine"])
def test_health_check_says_serving(grpc_channel: grpc.Channel, service: str) -> None:
    health = health_pb2_grpc.HealthStub(grpc_channel)
    reply = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=10)
    assert reply.status == health_pb2.HealthCheckResponse.SERVING


def test_health_check_of_an_unknown_service_is_not_found(grpc_channel: grpc.Channel) -> None:
    health = health_pb2_grpc.HealthStub(grpc_channel)
    with pytest.raises(grpc.RpcError) as caught:
        health.Check(health_pb2.HealthCheckRequest(service="nope.v1.Nothing"), timeout=10)
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND


def _reflect(channel: grpc.Channel, **request: str) -> reflection_pb2.ServerReflectionResponse:
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    (reply,) = stub.ServerReflectionInfo(
        iter([reflection_pb2.ServerReflectionRequest(**request)]), timeout=10
    )
    return reply


def test_reflection_lists_the_engine(grpc_channel: grpc.Channel) -> None:
    reply = _reflect(grpc_channel, list_services="")
    names = {s.name for s in reply.list_services_response.service}
    assert {"mazzo.v1.Engine", "grpc.health.v1.Health"} <= names


def test_reflection_describes_the_engine(grpc_channel: grpc.Channel) -> None:
    reply = _reflect(grpc_channel, file_containing_symbol="mazzo.v1.Engine")
    files = [
        descriptor_pb2.FileDescriptorProto.FromString(raw)
        for raw in reply.file_descriptor_response.file_descriptor_proto
    ]
    (engine_file,) = [f for f in files if f.package == "mazzo.v1"]
    assert engine_file.name == "mazzo/v1/engine.proto"
    (service,) = engine_file.service
    assert [m.name for m in service.method] == [
        "GetCatalog",
        "NewGame",
        "Play",
        "Advance",
        "Validate",
        "LegalMoves",
        "View",
        "Suggest",
    ]
