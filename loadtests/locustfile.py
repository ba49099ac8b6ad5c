"""Locust scenarios against Mazzo's hot path, over gRPC and over REST.

Two scenarios, each with a gRPC and a REST user class:

- the realistic mix (``GrpcGame``, ``RestGame``): a user deals a 2-player
  game (Scopa to 11; ``--games`` names others, dealt in turn), then each
  turn asks for the legal moves, validates a candidate move (one in ten
  illegal: a card not in hand, or a take that is not a legal one, and the
  verdict is checked), and plays a legal move, until
  the game is over; then it deals again;
- Validate alone (``GrpcValidate``, ``RestValidate``): candidates (one in ten
  illegal) on a few mid-game states, as fast as the server answers;
- Suggest (``GrpcSuggest``, ``RestSuggest``): a user deals a 2-player Scopa
  game and lets the expert play both seats, each move asked for with a budget
  of ``SUGGEST_BUDGET_MS`` and then sent to Play as it came (a refused
  suggestion fails the run), until the game is over; then it deals again;
- single player (``GrpcSinglePlayer``, ``RestSinglePlayer``): a user deals a
  2-player Scopa game whose seat 1 is an expert computer seat at its default
  budget (``COMPUTER_BUDGET_MS``), then plays a legal move of seat 0 each
  turn (one Play: the server plays the computer's answer), until the game is
  over; then it deals again.

Users wait for nothing between calls (a closed loop): the rate reached is
what the server and Locust can do together. Only the public API is used: the
generated stubs of ``mazzo.v1`` and HTTP with JSON.

The run passes when no call failed (a refused call, a wrong verdict) and the
95th percentile of every call's latency (of those made at least
``P95_MIN_CALLS`` times) is at most ``P95_LIMIT_MS``, plus the
budget it asked for in Suggest's case (the player thinks that long on
purpose), and a single player's Play at most the computer's budget plus
``COMPUTER_MARGIN_MS``; Locust's exit code says so (see ``judge``).
``loadtests/run.py`` (``make loadtest``) starts a server and runs this file; by hand::

    locust -f loadtests/locustfile.py --headless -u 8 -t 30s \\
        --host http://127.0.0.1:8080 --grpc-target 127.0.0.1:50051 GrpcGame RestGame
"""

from __future__ import annotations

import base64
import json
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, NamedTuple, Protocol

import grpc
import grpc.experimental.gevent as grpc_gevent
from locust import FastHttpUser, User, events, task
from locust.env import Environment
from locust.runners import WorkerRunner

from mazzo.v1 import engine_pb2 as pb
from mazzo.v1 import engine_pb2_grpc

# gRPC's blocking calls must yield to the other users' greenlets.
grpc_gevent.init_gevent()

#: The performance target: the 95th percentile of every call, in milliseconds.
P95_LIMIT_MS = 20.0
#: Share of the candidate moves that are illegal.
ILLEGAL_SHARE = 0.1
#: The time a Suggest user gives the expert, in milliseconds: the player may
#: think that long, so Suggest's latency is held to this plus P95_LIMIT_MS.
SUGGEST_BUDGET_MS = 50
#: The calls that think for the budget they asked for, by transport.
SUGGEST_CALLS = {("grpc", "Suggest"), ("POST", "/v1/games:suggest")}
#: Single player: the computer seat's budget (the server's default: 100 ms), and
#: how much more than it a Play may take at the 95th percentile.
COMPUTER_BUDGET_MS = 100
COMPUTER_MARGIN_MS = 30
PLAY_CALLS = {("grpc", "Play"), ("POST", "/v1/games:play")}
#: A call's 95th percentile is judged once it was made this often: below,
#: it is its slowest few calls (the users' first deals come all at once).
P95_MIN_CALLS = 100
#: Mid-game states a Validate user validates candidates on.
VALIDATE_STATES = 4
CANDIDATES_PER_STATE = 10

CARDS = tuple(f"{rank}{suit}" for suit in "DCSB" for rank in range(1, 11))
log = logging.getLogger("loadtest")


@events.init_command_line_parser.add_listener
def _options(parser: Any) -> None:
    parser.add_argument(
        "--grpc-target",
        default="127.0.0.1:50051",
        help="host:port of Mazzo's gRPC server (the REST gateway is --host)",
    )
    parser.add_argument(
        "--games",
        default="scopa",
        help="the games users deal, in turn, comma-separated (default scopa)",
    )
    parser.add_argument(
        "--p95-limit-ms",
        type=float,
        default=P95_LIMIT_MS,
        help=f"fail when the 95th percentile is above this (default {P95_LIMIT_MS:g} ms)",
    )


# ---------------------------------------------------------------------- moves


class Move(NamedTuple):
    seat: int
    card: str
    take: tuple[str, ...]


class Position(NamedTuple):
    """A state and what a user needs of its status to go on."""

    state: bytes
    seat_to_play: int  # meaningless once over
    over: bool


def pick_candidate(legal: list[Move], rng: random.Random) -> tuple[Move, bool]:
    """A move to validate, and whether it is legal: nine in ten are legal moves."""
    if rng.random() >= ILLEGAL_SHARE:
        return rng.choice(legal), True
    seat, hand = legal[0].seat, {move.card for move in legal}
    strangers = [card for card in CARDS if card not in hand]
    if rng.random() < 0.5 or not any(move.take for move in legal):
        # A card not in hand (the only illegal candidate where no move takes:
        # in a trick game a take is malformed, not illegal).
        return Move(seat, rng.choice(strangers), ()), False
    card = rng.choice(sorted(hand))
    takings = {move.take for move in legal if move.card == card}
    # Every legal taking of a card is listed: any other one is refused.
    wrong = [other for other in strangers if (other,) not in takings]
    return Move(seat, card, (rng.choice(wrong),)), False


def dealt_games(environment: Environment) -> list[str]:
    """The games ``--games`` names, each by its options message in NewGameRequest."""
    return [name.strip() for name in environment.parsed_options.games.split(",") if name.strip()]


class CallFailed(Exception):
    """A call failed; Locust has counted it already."""


def report_wrong_verdict(environment: Environment, transport: str, move: Move, legal: bool) -> None:
    environment.events.request.fire(
        request_type=transport,
        name="Validate verdict",
        response_time=0,
        response_length=0,
        exception=AssertionError(f"{move} should be {'legal' if legal else 'illegal'}"),
        context={},
    )


# ---------------------------------------------------------------------- gRPC


class LocustInterceptor(grpc.UnaryUnaryClientInterceptor):  # type: ignore[misc]
    """Reports every unary call, its time and outcome, to Locust's request event."""

    def __init__(self, environment: Environment):
        self.environment = environment

    def intercept_unary_unary(
        self,
        continuation: Callable[[grpc.ClientCallDetails, Any], Any],
        details: grpc.ClientCallDetails,
        request: Any,
    ) -> Any:
        started = time.perf_counter()
        call = continuation(details, request)
        exception, length = None, 0
        try:
            length = call.result().ByteSize()
        except grpc.RpcError as error:
            exception = error
        method = details.method.decode() if isinstance(details.method, bytes) else details.method
        self.environment.events.request.fire(
            request_type="grpc",
            name=method.rpartition("/")[2],
            response_time=(time.perf_counter() - started) * 1000,
            response_length=length,
            exception=exception,
            context={},
        )
        return call


class GrpcApi:
    transport = "grpc"
    #: Whether NewGame sends the seed it is given (else every deal is fresh).
    seeded: ClassVar[bool] = True

    def __init__(self, environment: Environment):
        self._games = dealt_games(environment)
        self._channel = grpc.insecure_channel(environment.parsed_options.grpc_target)
        intercepted = grpc.intercept_channel(self._channel, *self.interceptors(environment))
        self._stub = engine_pb2_grpc.EngineStub(intercepted)

    def interceptors(self, environment: Environment) -> list[Any]:
        """What reports the calls to Locust: each call, as it ends."""
        return [LocustInterceptor(environment)]

    def close(self) -> None:
        self._channel.close()

    def _call(self, method: str, request: Any) -> Any:
        try:
            return getattr(self._stub, method)(request, timeout=10)
        except grpc.RpcError as error:
            raise CallFailed(method) from error

    @staticmethod
    def _position(reply: Any) -> Position:
        return Position(bytes(reply.state), reply.status.seat_to_play, reply.status.game_over)

    def new_game(self, seed: int, computers: tuple[int, ...] = ()) -> Position:
        request = pb.NewGameRequest(players=2)
        if self.seeded:
            request.seed = seed
        getattr(request, self._games[seed % len(self._games)]).SetInParent()
        # budget_ms left at 0: the server's default budget.
        request.computers.extend(pb.ComputerSeat(seat=s, level="expert") for s in computers)
        return self._position(self._call("NewGame", request))

    def legal_moves(self, state: bytes) -> list[Move]:
        reply = self._call("LegalMoves", pb.LegalMovesRequest(state=state))
        return [Move(m.seat, m.card, tuple(m.take)) for m in reply.moves]

    def validate(self, state: bytes, move: Move) -> bool:
        request = pb.ValidateRequest(state=state, move=pb.Move(seat=move.seat, card=move.card))
        request.move.take.extend(move.take)
        return bool(self._call("Validate", request).legal)

    def play(self, state: bytes, move: Move) -> Position:
        request = pb.PlayRequest(state=state, move=pb.Move(seat=move.seat, card=move.card))
        request.move.take.extend(move.take)
        return self._position(self._call("Play", request))

    def suggest(self, state: bytes, seat: int) -> Move:
        request = pb.SuggestRequest(
            state=state, seat=seat, level="expert", budget_ms=SUGGEST_BUDGET_MS
        )
        move = self._call("Suggest", request).move
        return Move(move.seat, move.card, tuple(move.take))


# ---------------------------------------------------------------------- REST


class RestApi:
    transport = "rest"
    seeded: ClassVar[bool] = True

    def __init__(self, client: Any, environment: Environment):
        self._client = client
        self._games = dealt_games(environment)

    def close(self) -> None:
        pass

    def _post(self, path: str, body: dict[str, Any]) -> Any:
        response = self._client.post(path, json=body)  # a non-2xx answer counts as failed
        if response.status_code != 200:
            raise CallFailed(path)
        return response.json()

    @staticmethod
    def _move(move: Move) -> dict[str, Any]:
        return {"seat": move.seat, "card": move.card, "take": list(move.take)}

    @staticmethod
    def _position(reply: dict[str, Any]) -> Position:
        status = reply["status"]
        return Position(
            base64.b64decode(reply["state"]),
            status.get("seatToPlay", 0),
            bool(status.get("gameOver")),
        )

    def new_game(self, seed: int, computers: tuple[int, ...] = ()) -> Position:
        game = self._games[seed % len(self._games)]
        body: dict[str, Any] = {"players": 2, game: {}}
        if self.seeded:
            body["seed"] = str(seed)
        if computers:
            body["computers"] = [{"seat": s, "level": "expert"} for s in computers]
        return self._position(self._post("/v1/games", body))

    def legal_moves(self, state: bytes) -> list[Move]:
        reply = self._post("/v1/games:legalMoves", {"state": base64.b64encode(state).decode()})
        return [Move(m.get("seat", 0), m["card"], tuple(m.get("take", ()))) for m in reply["moves"]]

    def validate(self, state: bytes, move: Move) -> bool:
        body = {"state": base64.b64encode(state).decode(), "move": self._move(move)}
        return bool(self._post("/v1/games:validate", body)["legal"])

    def play(self, state: bytes, move: Move) -> Position:
        body = {"state": base64.b64encode(state).decode(), "move": self._move(move)}
        return self._position(self._post("/v1/games:play", body))

    def suggest(self, state: bytes, seat: int) -> Move:
        body = {
            "state": base64.b64encode(state).decode(),
            "seat": seat,
            "level": "expert",
            "budgetMs": SUGGEST_BUDGET_MS,
        }
        move = self._post("/v1/games:suggest", body)["move"]
        return Move(move.get("seat", 0), move["card"], tuple(move.get("take", ())))


Api = GrpcApi | RestApi


# ---------------------------------------------------------------------- scenarios


@dataclass
class Games:
    """Games played one call of ``step`` at a time: a deal when no game is on,
    else a ``turn``; after a failed call (Locust counted it), a new deal."""

    api: Api
    environment: Environment
    rng: random.Random
    position: Position | None = None

    #: The seats the server plays (NewGame's computers): a class constant, no field.
    computers: ClassVar[tuple[int, ...]] = ()

    def step(self) -> None:
        try:
            if self.position is None or self.position.over:
                self.position = self.api.new_game(self.rng.getrandbits(63), self.computers)
            else:
                self.position = self.turn(self.position)
        except CallFailed:
            self.position = None

    def turn(self, position: Position) -> Position:
        raise NotImplementedError


class Game(Games):
    """The realistic mix: legal moves, a candidate validated, a legal move played."""

    def turn(self, position: Position) -> Position:
        legal = self.api.legal_moves(position.state)
        candidate, is_legal = pick_candidate(legal, self.rng)
        if self.api.validate(position.state, candidate) != is_legal:
            report_wrong_verdict(self.environment, self.api.transport, candidate, is_legal)
        chosen = candidate if is_legal else self.rng.choice(legal)
        return self.api.play(position.state, chosen)


class BotGame(Games):
    """Suggest under load: the expert plays both seats, each suggestion sent to Play."""

    def turn(self, position: Position) -> Position:
        suggested = self.api.suggest(position.state, position.seat_to_play)
        # Play refuses an illegal suggestion: a failed call, which fails the run.
        return self.api.play(position.state, suggested)


class SinglePlayer(Games):
    """A person against an expert computer seat: one Play per move of the person."""

    computers = (1,)

    def turn(self, position: Position) -> Position:
        played = self.api.play(
            position.state, self.rng.choice(self.api.legal_moves(position.state))
        )
        if not played.over and played.seat_to_play != 0:
            # A failure of the run: the server left the computer's turn to the caller.
            self.environment.events.request.fire(
                request_type=self.api.transport,
                name="computer seat played",
                response_time=0,
                response_length=0,
                exception=AssertionError(f"seat {played.seat_to_play} is to play, not seat 0"),
                context={},
            )
            raise CallFailed("computer seat")
        return played


@dataclass
class Validations:
    """Validate alone, on candidates prepared from a few mid-game states."""

    api: Api
    environment: Environment
    rng: random.Random
    candidates: list[tuple[bytes, Move, bool]] | None = None

    def prepare(self) -> list[tuple[bytes, Move, bool]]:
        candidates = []
        for _ in range(VALIDATE_STATES):
            state = self.api.new_game(self.rng.getrandbits(63)).state
            for _ in range(self.rng.randrange(12)):  # into the game, still in its first hand
                state = self.api.play(state, self.rng.choice(self.api.legal_moves(state))).state
            legal = self.api.legal_moves(state)
            for _ in range(CANDIDATES_PER_STATE):
                candidates.append((state, *pick_candidate(legal, self.rng)))
        return candidates

    def step(self) -> None:
        try:
            if self.candidates is None:
                self.candidates = self.prepare()
            state, move, is_legal = self.rng.choice(self.candidates)
            if self.api.validate(state, move) != is_legal:
                report_wrong_verdict(self.environment, self.api.transport, move, is_legal)
        except CallFailed:
            pass  # counted by Locust


class Scenario(Protocol):
    def step(self) -> None: ...


#: How a user starts its scenario: from its API, its environment and its random numbers.
ScenarioFactory = Callable[[Api, Environment, random.Random], Scenario]


class GrpcUser(User):
    """A user of one scenario (``scenario``) over gRPC (``api``)."""

    abstract = True
    scenario: ScenarioFactory
    api_class: ClassVar[type[GrpcApi]] = GrpcApi

    def on_start(self) -> None:
        self.api = type(self).api_class(self.environment)
        self.running = type(self).scenario(self.api, self.environment, random.Random())

    def on_stop(self) -> None:
        self.api.close()

    @task
    def step(self) -> None:
        self.running.step()


class RestUser(FastHttpUser):
    """A user of one scenario (``scenario``) over REST (``api``)."""

    abstract = True
    host = "http://127.0.0.1:8080"
    scenario: ScenarioFactory
    api_class: ClassVar[type[RestApi]] = RestApi

    def on_start(self) -> None:
        api = type(self).api_class(self.client, self.environment)
        self.running = type(self).scenario(api, self.environment, random.Random())

    @task
    def step(self) -> None:
        self.running.step()


class GrpcGame(GrpcUser):
    scenario = Game


class RestGame(RestUser):
    scenario = Game


class GrpcValidate(GrpcUser):
    scenario = Validations


class RestValidate(RestUser):
    scenario = Validations


class GrpcSuggest(GrpcUser):
    scenario = BotGame


class RestSuggest(RestUser):
    scenario = BotGame


class GrpcSinglePlayer(GrpcUser):
    scenario = SinglePlayer


class RestSinglePlayer(RestUser):
    scenario = SinglePlayer


SINGLE_PLAYER_USERS = {"GrpcSinglePlayer", "RestSinglePlayer"}


# ---------------------------------------------------------------------- verdict


def figures(entry: Any) -> dict[str, Any]:
    """One line of the final figures: calls, failures, rate, percentiles in ms."""
    return {
        "type": entry.method or "",
        "name": entry.name,
        "requests": entry.num_requests,
        "failures": entry.num_failures,
        "rate": round(entry.total_rps, 1),
        **{
            f"p{round(q * 100)}": entry.get_response_time_percentile(q) if entry.num_requests else 0
            for q in (0.5, 0.95, 0.99)
        },
    }


def p95_limit_of(entry: Any, limit: float, single_player: bool = False) -> float:
    """The 95th percentile a call is held to: the limit, plus Suggest's thinking
    time; a single player's Play, the computer's budget and its margin."""
    call = (entry.method, entry.name)
    if call in SUGGEST_CALLS:
        return limit + SUGGEST_BUDGET_MS
    if single_player and call in PLAY_CALLS:
        return max(limit, COMPUTER_BUDGET_MS + COMPUTER_MARGIN_MS)
    return limit


def _single_player(environment: Environment) -> bool:
    classes = environment.user_classes or []
    return any(user.__name__ in SINGLE_PLAYER_USERS for user in classes)


@events.quitting.add_listener
def judge(environment: Environment, **_kwargs: Any) -> None:
    """Locust's exit code: 1 unless calls were made, none failed and the p95 of
    every call made at least ``P95_MIN_CALLS`` times is within its limit
    (``p95_limit_of``).

    With --csv PREFIX, the final figures and the verdict also go to
    PREFIX_verdict.json (Locust's own CSV files are written once a second, so
    they may miss the last second).
    """
    if isinstance(environment.runner, WorkerRunner):
        return  # the master judges the sums of every worker
    stats = environment.stats
    total = stats.total
    limit = float(environment.parsed_options.p95_limit_ms)
    single = _single_player(environment)
    entries = sorted(stats.entries.values(), key=lambda entry: (entry.method, entry.name))
    problems = []
    if total.num_requests == 0:
        problems.append("no call was made")
    if total.num_failures:
        problems.append(f"{total.num_failures} of {total.num_requests} calls failed")
    for entry in entries:
        if entry.num_requests < P95_MIN_CALLS:
            continue
        p95 = entry.get_response_time_percentile(0.95)
        if p95 > p95_limit_of(entry, limit, single):
            problems.append(
                f"{entry.method} {entry.name}: p95 {p95:g} ms is above"
                f" {p95_limit_of(entry, limit, single):g} ms"
            )
    for problem in problems:
        log.error("FAIL: %s", problem)
    if not problems:
        log.info(
            "PASS: %d calls, none failed, every p95 within %g ms (Suggest: %g ms more, its budget)",
            total.num_requests,
            limit,
            SUGGEST_BUDGET_MS,
        )
    environment.process_exit_code = 1 if problems else 0
    prefix = getattr(environment.parsed_options, "csv_prefix", None)
    if prefix:
        verdict = {
            "passed": not problems,
            "problems": problems,
            "p95_limit_ms": limit,
            "suggest_budget_ms": SUGGEST_BUDGET_MS,
            "users": environment.parsed_options.num_users,
            "calls": [figures(entry) for entry in entries] + [figures(total)],
        }
        Path(f"{prefix}_verdict.json").write_text(json.dumps(verdict, indent=1) + "\n")
