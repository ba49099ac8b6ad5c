"""Computer seats, Advance, spectators, clocks and safe retries, over gRPC and REST.

Every test runs against a real server that requires seat credentials (the
thin relay of docs/security.md), once per transport: the caller holds one
person's credential and nothing else. The clock is the servers' own time
source, set by the tests: no test waits for time to pass.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from google.protobuf import json_format
from google.protobuf.message import Message

from mazzo.engine import dump_state
from mazzo.engine.players import PLAYOUTS_PER_MS, WORLDS_PER_MS
from mazzo.service.errors import ApiError
from mazzo.service.handlers import rpcs
from mazzo.service.table import random_key
from mazzo.v1 import engine_pb2 as pb
from mazzo.v1 import engine_pb2_grpc
from tests.service.support import (
    HandClock,
    Stack,
    http_call,
    refusal_of,
    running_stack,
    state_of,
)


class Refused(Exception):
    """A refused call: its status (gRPC's name) and reason."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(code, reason)
        self.code, self.reason = code, reason

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Refused) and (self.code, self.reason) == (other.code, other.reason)

    __hash__ = Exception.__hash__


@dataclass
class Transport:
    """One way to call the server: ``call("Play", request)`` answers the response message."""

    name: str
    call: Callable[[str, Message], Any]
    clock: HandClock
    stack: Stack


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Stack, HandClock]]:
    clock = HandClock(time.time())
    with running_stack(require_seat_credentials=True, clock=clock) as stack:
        yield stack, clock


def _grpc_caller(stack: Stack) -> tuple[Callable[[str, Message], Any], grpc.Channel]:
    channel = grpc.insecure_channel(stack.grpc_target)
    stub = engine_pb2_grpc.EngineStub(channel)

    def call(name: str, request: Message) -> Any:
        try:
            return getattr(stub, name)(request, timeout=60)
        except grpc.RpcError as error:
            refusal = refusal_of(error)
            raise Refused(refusal.code.name, refusal.reason) from None

    return call, channel


def _rest_caller(stack: Stack) -> Callable[[str, Message], Any]:
    routes = {rpc.name: rpc for rpc in rpcs(stack.handlers)}

    def call(name: str, request: Message) -> Any:
        rpc = routes[name]
        body = json_format.MessageToDict(request)
        reply = http_call(stack.http_port, rpc.http_method, rpc.http_path, body)
        if reply.status != 200:
            error = reply.json()["error"]
            raise Refused(error["status"], error["details"][0]["reason"])
        return json_format.ParseDict(reply.json(), rpc.response_type())

    return call


@pytest.fixture(params=["grpc", "rest"])
def api(request: pytest.FixtureRequest, served: tuple[Stack, HandClock]) -> Iterator[Transport]:
    stack, clock = served
    clock.now = time.time()
    if request.param == "grpc":
        call, channel = _grpc_caller(stack)
        with channel:
            yield Transport("grpc", call, clock, stack)
    else:
        yield Transport("rest", _rest_caller(stack), clock, stack)


def _computers(
    seats: list[int], level: str = "greedy", budget_ms: int = 0
) -> list[pb.ComputerSeat]:
    return [pb.ComputerSeat(seat=s, level=level, budget_ms=budget_ms) for s in seats]


def _credential(started: Any, seat: int) -> str:
    (credential,) = [c.credential for c in started.seat_credentials if c.seat == seat]
    return str(credential)


def _first_legal(api: Transport, state: bytes, credential: str) -> pb.Move:
    moves = api.call("LegalMoves", pb.LegalMovesRequest(state=state, seat_credential=credential))
    return moves.moves[0]


def _played(events: Any) -> list[tuple[int, str]]:
    return [(e.card_played.seat, e.card_played.card) for e in events if e.HasField("card_played")]


def _dealt(events: Any) -> list[tuple[int, tuple[str, ...]]]:
    return [
        (e.cards_dealt.seat, tuple(e.cards_dealt.cards))
        for e in events
        if e.HasField("cards_dealt")
    ]


# ---------------------------------------------------------------- whole games, one credential


GAMES = {
    "scopa-2": (pb.NewGameRequest(players=2, scopa=pb.ScopaOptions()), [1]),
    "tressette-4": (pb.NewGameRequest(players=4, tressette=pb.TressetteOptions()), [1, 2, 3]),
    "scopone-4": (
        pb.NewGameRequest(
            players=4,
            scopa=pb.ScopaOptions(variant=pb.SCOPA_VARIANT_SCOPONE_SCIENTIFICO),
        ),
        [1, 2, 3],
    ),
}


@pytest.mark.parametrize("game", list(GAMES))
def test_a_person_plays_a_whole_game_holding_one_credential_one_play_per_move(
    api: Transport, game: str
) -> None:
    template, computers = GAMES[game]
    request = pb.NewGameRequest()
    request.CopyFrom(template)
    request.computers.extend(_computers(computers))
    started = api.call("NewGame", request)
    assert list(started.status.computer_seats) == computers
    credential = _credential(started, 0)
    state, status, plays, persons_moves = started.state, started.status, 0, 0
    while not status.game_over:
        assert status.seat_to_play == 0  # the server played every computer turn
        move = _first_legal(api, state, credential)
        answer = api.call(
            "Play", pb.PlayRequest(state=state, move=move, seat_credential=credential)
        )
        plays += 1
        # One answer: the person's move first, then the computers' in turn order.
        played = _played(answer.events)
        assert played[0] == (0, move.card)
        persons_moves += sum(seat == 0 for seat, _ in played)
        assert answer.status.ply == status.ply + len(played)
        # Scoped to the credential: the public events and seat 0's own only.
        assert {e.visible_to for e in answer.events if e.HasField("visible_to")} <= {0}
        assert all(seat == 0 for seat, _ in _dealt(answer.events))
        state, status = answer.state, answer.status
    assert plays == persons_moves and status.ply > plays  # one Play per move of the person
    assert status.winning_side in (0, 1)


def test_a_computer_that_leads_plays_before_the_persons_first_turn(api: Transport) -> None:
    started = api.call(
        "NewGame",
        pb.NewGameRequest(players=2, scopa=pb.ScopaOptions(), computers=_computers([0])),
    )
    assert started.status.seat_to_play == 1 and started.status.ply == 1
    assert _played(started.events)[0][0] == 0
    # NewGame has no credential: the public events only, though the deal was private.
    assert not _dealt(started.events)
    # Advance then has nothing to do: the same token.
    advanced = api.call("Advance", pb.AdvanceRequest(state=started.state))
    assert advanced.state == started.state and not advanced.events


def test_the_expert_computer_plays_with_its_budget(api: Transport) -> None:
    started = api.call(
        "NewGame",
        pb.NewGameRequest(
            players=2, scopa=pb.ScopaOptions(), computers=_computers([1], "expert", 20)
        ),
    )
    credential = _credential(started, 0)
    move = _first_legal(api, started.state, credential)
    answer = api.call(
        "Play", pb.PlayRequest(state=started.state, move=move, seat_credential=credential)
    )
    assert [seat for seat, _ in _played(answer.events)] == [0, 1]


def test_a_play_or_validate_for_a_computer_seat_is_refused_with_its_own_reason(
    api: Transport,
) -> None:
    started = api.call(
        "NewGame",
        pb.NewGameRequest(players=2, scopa=pb.ScopaOptions(), computers=_computers([0])),
    )
    computer = _credential(started, 0)  # issued, like every seat's, but the server plays it
    move = pb.Move(seat=0, card=started.events[0].deal.table[0])
    with pytest.raises(Refused) as refused:
        api.call("Play", pb.PlayRequest(state=started.state, move=move, seat_credential=computer))
    assert refused.value == Refused("FAILED_PRECONDITION", "COMPUTER_SEAT")
    checked = api.call(
        "Validate", pb.ValidateRequest(state=started.state, move=move, seat_credential=computer)
    )
    assert (checked.legal, checked.reason) == (False, "COMPUTER_SEAT")


@pytest.mark.parametrize(
    ("computers", "clock", "reason"),
    [
        ([pb.ComputerSeat(seat=2)], None, "INVALID_COMPUTERS"),
        ([pb.ComputerSeat(seat=1), pb.ComputerSeat(seat=1)], None, "INVALID_COMPUTERS"),
        ([pb.ComputerSeat(seat=0), pb.ComputerSeat(seat=1)], None, "INVALID_COMPUTERS"),
        ([pb.ComputerSeat(seat=1, level="oracle")], None, "INVALID_LEVEL"),
        ([pb.ComputerSeat(seat=1, budget_ms=-1)], None, "INVALID_BUDGET"),
        ([], pb.Clock(move_seconds=0), "INVALID_CLOCK"),
        ([], pb.Clock(move_seconds=5, on_timeout="oracle"), "INVALID_CLOCK"),
    ],
)
def test_a_bad_table_is_refused_as_invalid(
    api: Transport, computers: list[pb.ComputerSeat], clock: pb.Clock | None, reason: str
) -> None:
    request = pb.NewGameRequest(players=2, scopa=pb.ScopaOptions(), computers=computers)
    if clock is not None:
        request.clock.CopyFrom(clock)
    with pytest.raises(Refused) as refused:
        api.call("NewGame", request)
    assert refused.value == Refused("INVALID_ARGUMENT", reason)


def test_the_budget_is_capped_by_the_servers_limit(api: Transport) -> None:
    started = api.call(
        "NewGame",
        pb.NewGameRequest(
            players=2, scopa=pb.ScopaOptions(), computers=_computers([1], "greedy", 10**6)
        ),
    )
    record = api.stack.handlers.states.get(started.state)
    assert record is not None and record.table.computers[0].budget_ms == 1000


# ---------------------------------------------------------------- spectators


def test_the_spectator_view_needs_no_credential_and_shows_no_hidden_card(api: Transport) -> None:
    started = api.call(
        "NewGame",
        pb.NewGameRequest(
            players=4, tressette=pb.TressetteOptions(), computers=_computers([1, 2, 3])
        ),
    )
    credential = _credential(started, 0)
    state = started.state
    for _ in range(6):  # a few tricks in, with piles and a trick under way
        move = _first_legal(api, state, credential)
        state = api.call(
            "Play", pb.PlayRequest(state=state, move=move, seat_credential=credential)
        ).state
    public = api.call("View", pb.ViewRequest(state=state, spectator=True)).view
    engine_state = state_of(state)
    in_hands = {str(card) for hand in engine_state.hands for card in hand}
    assert public.spectator and not public.hand
    assert list(public.hand_sizes) == [len(hand) for hand in engine_state.hands]
    assert not in_hands & set(public.card_names)  # no card of any hand is named
    assert not any(known.cards for known in public.known)
    # What every seat sees alike is there: the trick, the piles, the status.
    seat_view = api.call(
        "View", pb.ViewRequest(state=state, seat=0, seat_credential=credential)
    ).view
    assert public.tressette.trick == seat_view.tressette.trick
    assert list(public.piles) == list(seat_view.piles)
    assert public.status == seat_view.status
    # A seat's view still needs its credential.
    with pytest.raises(Refused) as refused:
        api.call("View", pb.ViewRequest(state=state, seat=0))
    assert refused.value.reason == "SEAT_CREDENTIAL_REQUIRED"


def test_the_spectator_view_of_scopa_shows_the_table(api: Transport) -> None:
    started = api.call(
        "NewGame", pb.NewGameRequest(players=2, scopa=pb.ScopaOptions(), computers=_computers([1]))
    )
    public = api.call("View", pb.ViewRequest(state=started.state, spectator=True)).view
    assert list(public.scopa.table) == list(started.events[0].deal.table)
    assert not public.hand and list(public.hand_sizes) == [3, 3]
    assert public.status.computer_seats == [1]


# ---------------------------------------------------------------- clocks


def _clocked(api: Transport, on_timeout: str = "", computers: tuple[int, ...] = (1,)) -> Any:
    return api.call(
        "NewGame",
        pb.NewGameRequest(
            players=2,
            scopa=pb.ScopaOptions(),
            computers=_computers(list(computers)),
            clock=pb.Clock(move_seconds=1, on_timeout=on_timeout),
        ),
    )


def test_the_status_gives_the_seat_to_plays_deadline(api: Transport) -> None:
    started = _clocked(api)
    deadline = started.status.deadline.ToMilliseconds() / 1000
    assert deadline == pytest.approx(api.clock.now + 1, abs=0.002)
    if api.name == "rest":  # RFC 3339 on the wire
        reply = http_call(
            api.stack.http_port,
            "POST",
            "/v1/games:view",
            {"state": base64.b64encode(started.state).decode(), "spectator": True},
        ).json()
        assert reply["view"]["status"]["deadline"].endswith("Z")


def test_a_late_play_is_refused_and_advance_plays_for_the_late_seat(api: Transport) -> None:
    started = _clocked(api)
    credential = _credential(started, 0)
    move = _first_legal(api, started.state, credential)
    api.clock.now += 1.5  # past the deadline
    request = pb.PlayRequest(state=started.state, move=move, seat_credential=credential)
    with pytest.raises(Refused) as refused:
        api.call("Play", request)
    assert refused.value == Refused("FAILED_PRECONDITION", "TIME_EXPIRED")
    advanced = api.call("Advance", pb.AdvanceRequest(state=started.state))
    # greedy played for seat 0, then the computer seat 1: seat 0's turn again, in time.
    assert [seat for seat, _ in _played(advanced.events)] == [0, 1]
    # The events say whose time ran out and who played for it, before its move.
    told, played = advanced.events[0], advanced.events[1]
    assert told == pb.Event(time_expired=pb.TimeExpired(seat=0, level="greedy"))
    assert played.card_played.seat == 0
    assert advanced.status.seat_to_play == 0 and advanced.status.ply == 2
    assert advanced.status.deadline.ToMilliseconds() / 1000 == pytest.approx(api.clock.now + 1)
    # In time again: Advance has nothing to do, and a Play goes through.
    assert api.call("Advance", pb.AdvanceRequest(state=advanced.state)).state == advanced.state
    move = _first_legal(api, advanced.state, credential)
    api.call("Play", pb.PlayRequest(state=advanced.state, move=move, seat_credential=credential))


def test_a_seat_out_of_time_forfeits_when_the_clock_says_so(api: Transport) -> None:
    started = _clocked(api, on_timeout="forfeit")
    credential = _credential(started, 0)
    api.clock.now += 2
    lost = api.call("Advance", pb.AdvanceRequest(state=started.state, seat_credential=credential))
    status = lost.status
    assert status.game_over and status.forfeited_side == 0 and status.winning_side == 1
    assert not status.HasField("seat_to_play") and not status.HasField("deadline")
    # Told as a game played out is told: the forfeit (whose, why), then its end.
    assert list(lost.events) == [
        pb.Event(forfeit=pb.Forfeit(seat=0, side=0, reason=pb.FORFEIT_REASON_TIME_EXPIRED)),
        pb.Event(game_over=pb.GameOver(winning_side=1, scores=status.scores)),
    ]
    # The events are public: an Advance without a credential (or for the other
    # seat's events) tells the same.
    for scoped in (
        pb.AdvanceRequest(state=started.state),
        pb.AdvanceRequest(state=started.state, events_seat=1),
    ):
        assert api.call("Advance", scoped).events == lost.events
    move = pb.Move(seat=0, card=started.events[0].deal.table[0])
    with pytest.raises(Refused) as refused:
        api.call("Play", pb.PlayRequest(state=lost.state, move=move, seat_credential=credential))
    assert refused.value == Refused("FAILED_PRECONDITION", "GAME_OVER")


@pytest.mark.parametrize("on_timeout", ["greedy", "forfeit"])
def test_a_late_play_is_told_what_advance_will_do_for_it(
    served: tuple[Stack, HandClock], on_timeout: str
) -> None:
    stack, clock = served
    handlers, clock.now = stack.handlers, time.time()
    started = handlers.new_game(
        pb.NewGameRequest(
            players=2,
            scopa=pb.ScopaOptions(),
            computers=_computers([1]),
            clock=pb.Clock(move_seconds=1, on_timeout=on_timeout),
        )
    )
    credential = _credential(started, 0)
    listed = handlers.legal_moves(
        pb.LegalMovesRequest(state=started.state, seat_credential=credential)
    )
    clock.now += 2
    with pytest.raises(ApiError) as refused:
        handlers.play(
            pb.PlayRequest(state=started.state, move=listed.moves[0], seat_credential=credential)
        )
    assert refused.value.reason == "TIME_EXPIRED"
    assert refused.value.metadata["onTimeout"] == on_timeout
    ends = "Advance ends the game, lost by its side"
    plays = "Advance plays it"
    assert refused.value.message.endswith(ends if on_timeout == "forfeit" else plays)


def test_advance_checks_the_expected_ply(api: Transport) -> None:
    started = _clocked(api)
    with pytest.raises(Refused) as refused:
        api.call("Advance", pb.AdvanceRequest(state=started.state, expected_ply=7))
    assert refused.value == Refused("ABORTED", "STATE_VERSION_MISMATCH")


# ---------------------------------------------------------------- safe retries


def _to_a_deal(api: Transport) -> tuple[Any, str, pb.Move, int]:
    """Play a 2-player game (seat 1 the computer) until seat 0's next Play deals:
    the state, seat 0's credential, the move and the ply."""
    started = api.call(
        "NewGame", pb.NewGameRequest(players=2, scopa=pb.ScopaOptions(), computers=_computers([1]))
    )
    credential = _credential(started, 0)
    state, status = started.state, started.status
    # Three moves each per deal of three: the third Play of seat 0 deals (with the
    # computer's answer) the next hand.
    for _ in range(2):
        move = _first_legal(api, state, credential)
        answer = api.call(
            "Play",
            pb.PlayRequest(
                state=state, move=move, seat_credential=credential, idempotency_key=random_key()
            ),
        )
        state, status = answer.state, answer.status
    return state, credential, _first_legal(api, state, credential), status.ply


def test_plays_retried_with_one_key_answer_alike_deals_included(api: Transport) -> None:
    state, credential, move, _ = _to_a_deal(api)
    key = random_key()
    request = pb.PlayRequest(
        state=state, move=move, seat_credential=credential, idempotency_key=key
    )
    first, retried = api.call("Play", request), api.call("Play", request)
    assert _dealt(first.events)  # this Play dealt the next cards
    assert list(first.events) == list(retried.events)
    assert first.status == retried.status
    assert dump_state(state_of(first.state)) == dump_state(state_of(retried.state))
    # Another key (or none) is another branch: its deal shares nothing predictable.
    other = api.call(
        "Play",
        pb.PlayRequest(
            state=state, move=move, seat_credential=credential, idempotency_key=random_key()
        ),
    )
    fresh = api.call("Play", pb.PlayRequest(state=state, move=move, seat_credential=credential))
    dealt = _dealt(first.events)
    assert _dealt(other.events) != dealt and _dealt(fresh.events) != dealt


def test_advance_retried_with_one_key_plays_alike(api: Transport) -> None:
    started = _clocked(api)
    api.clock.now += 2
    key = random_key()
    request = pb.AdvanceRequest(state=started.state, idempotency_key=key)
    first, retried = api.call("Advance", request), api.call("Advance", request)
    assert list(first.events) == list(retried.events)
    assert dump_state(state_of(first.state)) == dump_state(state_of(retried.state))


@pytest.mark.parametrize("length", [1, 15, 65])
def test_an_idempotency_key_of_the_wrong_length_is_refused(api: Transport, length: int) -> None:
    started = _clocked(api)
    credential = _credential(started, 0)
    move = _first_legal(api, started.state, credential)
    request = pb.PlayRequest(
        state=started.state, move=move, seat_credential=credential, idempotency_key=bytes(length)
    )
    with pytest.raises(Refused) as refused:
        api.call("Play", request)
    assert refused.value == Refused("INVALID_ARGUMENT", "INVALID_IDEMPOTENCY_KEY")


@pytest.mark.parametrize(
    ("level", "game", "worlds"),
    [("intermediate", "scopa", False), ("expert", "scopa", True), ("expert", "tressette", False)],
)
def test_a_searching_computer_retried_with_one_key_plays_alike(
    api: Transport, level: str, game: str, worlds: bool
) -> None:
    budget_ms = 50
    options = (
        {"scopa": pb.ScopaOptions()} if game == "scopa" else {"tressette": pb.TressetteOptions()}
    )
    started = api.call(
        "NewGame",
        # Seeded: the same deal every run, whose computer moves have a choice.
        pb.NewGameRequest(
            players=2, computers=_computers([1], level, budget_ms), seed=3, **options
        ),
    )
    credential = _credential(started, 0)
    move = _first_legal(api, started.state, credential)
    request = pb.PlayRequest(
        state=started.state, move=move, seat_credential=credential, idempotency_key=random_key()
    )
    simulated = api.stack.metrics.mazzo_suggest_simulations_total.labels(level=level)
    before = simulated._value.get()
    first = api.call("Play", request)
    between = simulated._value.get()
    retried = api.call("Play", request)
    after = simulated._value.get()
    assert _played(first.events) == _played(retried.events)
    assert dump_state(state_of(first.state)) == dump_state(state_of(retried.state))
    # Both thought to the level's own count, never by the clock: the expert's
    # worlds where it searches them, else play-outs (whole deals, so up to a
    # deal's fewer).
    limit = round(budget_ms * (WORLDS_PER_MS if worlds else PLAYOUTS_PER_MS))
    moves = sum(seat == 1 for seat, _ in _played(first.events))  # a trick's winner leads
    assert between - before == after - between
    assert moves * limit // 2 < between - before <= moves * limit
    if worlds:
        assert between - before == moves * limit


def test_a_one_second_clock_runs_out_on_the_real_clock() -> None:
    """The servers' own clock, not a set one: poll until the deadline has passed."""
    with running_stack(require_seat_credentials=True, rest=False) as stack:
        call, channel = _grpc_caller(stack)
        with channel:
            api = Transport("grpc", call, HandClock(time.time()), stack)
            started = _clocked(api)
            credential = _credential(started, 0)
            move = _first_legal(api, started.state, credential)
            deadline = started.status.deadline.ToMilliseconds() / 1000
            request = pb.PlayRequest(state=started.state, move=move, seat_credential=credential)
            give_up = time.monotonic() + 60  # generous: the clock runs out after 1 s
            refusal = None
            while refusal is None and time.monotonic() < give_up:
                checked = api.call(
                    "Validate",
                    pb.ValidateRequest(state=started.state, move=move, seat_credential=credential),
                )
                if checked.reason == "TIME_EXPIRED":
                    refusal = checked.reason
                else:
                    assert checked.legal
                    time.sleep(0.05)  # polling for the condition, not waiting a fixed time
            assert refusal == "TIME_EXPIRED" and time.time() >= deadline
            with pytest.raises(Refused) as late:
                api.call("Play", request)
            assert late.value == Refused("FAILED_PRECONDITION", "TIME_EXPIRED")
            advanced = api.call("Advance", pb.AdvanceRequest(state=started.state))
            assert _played(advanced.events)[0][0] == 0


def test_a_seeded_game_plays_its_computers_alike(api: Transport) -> None:
    def game() -> list[Any]:
        started = api.call(
            "NewGame",
            pb.NewGameRequest(
                players=3, scopa=pb.ScopaOptions(), seed=11, computers=_computers([1, 2], "random")
            ),
        )
        credential = _credential(started, 0)
        state, answers = started.state, [list(started.events)]
        for _ in range(4):
            move = _first_legal(api, state, credential)
            answer = api.call(
                "Play", pb.PlayRequest(state=state, move=move, seat_credential=credential)
            )
            state = answer.state
            answers.append(list(answer.events))
        return answers

    assert game() == game()
