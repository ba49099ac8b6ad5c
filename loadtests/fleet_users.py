"""Locust users for `make fleet-test`: whole games through a proxy, retried as
docs/integration.md ("Retries") says a client should.

The realistic mix of loadtests/locustfile.py (``Game``: the legal moves, a
candidate validated, a legal move played, until the game is over; then a new
deal), over gRPC (``GrpcFleetGame``) and REST (``RestFleetGame``), played as a
client of a fleet plays:

- games without a seed, so that every deal takes fresh randomness, and every
  Play with an idempotency key of its own;
- a call whose answer is lost is sent again, the same request with the same
  key, after a backoff (:func:`backoff`), RETRY_ATTEMPTS attempts in all: a
  refused, reset or dropped connection, a time-out, HTTP 502, 503 or 504
  (whoever made it: Mazzo's envelope or a proxy's page), gRPC UNAVAILABLE,
  CANCELLED (this client cancels nothing) or DEADLINE_EXCEEDED;
- a share of the keyed Plays (TWICE_SHARE) is sent a second time on purpose,
  as a retry would be: through the proxy it reaches another replica, and both
  answers must be alike but for the token's bytes (its nonce).

Each call is reported to Locust once, after its retries, and written as one
JSON line to ``--outcomes``: when it began (``at``), ``transport``, ``call``,
``outcome`` and ``attempts``. The outcomes: ``ok``; ``retried`` (answered
after a lost attempt); ``failed`` (lost every time); ``token refused`` (a
STATE_* refusal of the token: replicas that do not share keys); ``refused``
(any other refusal: nothing this load should meet); and for a Play sent twice,
``alike`` or ``differed``. loadtests/fleet.py reads them by phase.
"""

from __future__ import annotations

import base64
import json
import os
import random
import time
from collections.abc import Callable
from typing import IO, Any, ClassVar, TypeVar

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from locust import between, events
from locust.env import Environment

from loadtests.fleet import FAILURES
from loadtests.locustfile import (
    CallFailed,
    Game,
    GrpcApi,
    GrpcUser,
    Move,
    Position,
    RestApi,
    RestUser,
)
from mazzo.v1 import engine_pb2 as pb

#: The documented retry policy (docs/integration.md, "Retries").
RETRY_ATTEMPTS = 5
FIRST_BACKOFF_SECONDS = 0.1
MAX_BACKOFF_SECONDS = 1.0
#: What a single attempt may take before its answer counts as lost.
CALL_TIMEOUT_SECONDS = 10.0
#: Lost answers, by transport.
LOST_CODES = {
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.CANCELLED,
    grpc.StatusCode.DEADLINE_EXCEEDED,
}
LOST_STATUSES = {502, 503, 504}
#: The refusals of a state token (docs/api.md, Errors).
TOKEN_REFUSALS = {
    "STATE_MISSING",
    "STATE_UNRECOGNIZED",
    "STATE_TRUNCATED",
    "STATE_VERSION_UNSUPPORTED",
    "STATE_KEY_UNKNOWN",
    "STATE_TAMPERED",
    "STATE_EXPIRED",
}
#: The share of keyed Plays sent twice, their answers compared.
TWICE_SHARE = 0.3

Reply = TypeVar("Reply")


@events.init_command_line_parser.add_listener
def _options(parser: Any) -> None:
    parser.add_argument(
        "--outcomes", default="", help="write each call's outcome here (JSON lines)"
    )


_outcomes: list[IO[str]] = []


@events.init.add_listener
def _open_outcomes(environment: Environment, **_kwargs: Any) -> None:
    path = getattr(environment.parsed_options, "outcomes", "")
    if path:
        # Open for the whole run, a line at a time: Locust may be stopped at any moment.
        _outcomes.append(open(path, "a", buffering=1))  # noqa: SIM115


def backoff(attempt: int) -> float:
    """Seconds to wait after ``attempt`` (1, 2, ...) was lost: doubled each time
    from FIRST_BACKOFF_SECONDS up to MAX_BACKOFF_SECONDS, each a random half to
    whole of that (jitter: clients that lost their calls together do not retry
    together)."""
    ceiling = min(MAX_BACKOFF_SECONDS, FIRST_BACKOFF_SECONDS * 2 ** (attempt - 1))
    return ceiling * random.uniform(0.5, 1.0)


class Lost(Exception):
    """No answer to act on: the attempt is retried."""


class Refused(Exception):
    """An answer that refuses the call, with its reason."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Calls:
    """One user's calls: each made with the documented retries, reported once."""

    def __init__(self, environment: Environment, transport: str) -> None:
        self.environment = environment
        self.transport = transport

    def make(self, name: str, attempt: Callable[[], Reply]) -> Reply:
        """``attempt()`` until it answers, RETRY_ATTEMPTS times at most."""
        at, started = time.time(), time.perf_counter()
        attempts = 0
        while True:
            attempts += 1
            try:
                reply = attempt()
            except Lost as lost:
                if attempts < RETRY_ATTEMPTS:
                    time.sleep(backoff(attempts))  # gevent's, under Locust
                    continue
                outcome, why = "failed", str(lost)
            except Refused as refused:
                token = refused.reason in TOKEN_REFUSALS
                outcome, why = ("token refused" if token else "refused"), refused.reason
            else:
                self.record(name, "retried" if attempts > 1 else "ok", at, started, attempts)
                return reply
            self.record(name, outcome, at, started, attempts, why)
            raise CallFailed(name)

    def record(
        self,
        name: str,
        outcome: str,
        at: float,
        started: float,
        attempts: int,
        why: str = "",
    ) -> None:
        failed = outcome in FAILURES
        self.environment.events.request.fire(
            request_type=self.transport,
            name=name,
            response_time=(time.perf_counter() - started) * 1000,
            response_length=0,
            exception=AssertionError(f"{outcome}: {why}") if failed else None,
            context={},
        )
        line = {
            "at": at,
            "transport": self.transport,
            "call": name,
            "outcome": outcome,
            "attempts": attempts,
        }
        if why:
            line["why"] = why
        for stream in _outcomes:
            stream.write(json.dumps(line) + "\n")

    def compare_twice(self, first: Any, second: Any) -> None:
        """Record whether a keyed Play sent twice answered alike (``first``, ``second``:
        the answers without their tokens)."""
        now = time.perf_counter()
        outcome = "alike" if first == second else "differed"
        self.record("Play twice", outcome, time.time(), now, 2)


def key() -> bytes:
    """A fresh idempotency key for one move (16 random bytes)."""
    return os.urandom(16)


# ---------------------------------------------------------------------- gRPC


def _reason(error: grpc.RpcError) -> str:
    """The ErrorInfo reason of a refused call (its code's name if it has none)."""
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    for detail in status.details if status else ():
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return str(info.reason)
    return str(error.code().name)  # type: ignore[attr-defined]


class GrpcFleetApi(GrpcApi):
    """gRPC through the proxy: one channel (one HTTP/2 connection to the proxy,
    which balances each call), every call with the documented retries."""

    seeded = False

    def __init__(self, environment: Environment):
        super().__init__(environment)
        self.calls = Calls(environment, self.transport)
        self._rng = random.Random()

    def interceptors(self, environment: Environment) -> list[Any]:
        return []  # each call is reported once, after its retries (Calls)

    def _call(self, method: str, request: Any) -> Any:
        call = getattr(self._stub, method)

        def attempt() -> Any:
            try:
                return call(request, timeout=CALL_TIMEOUT_SECONDS)
            except grpc.RpcError as error:
                if error.code() in LOST_CODES:  # type: ignore[attr-defined]
                    raise Lost(f"{error.code().name}: {error.details()}") from None  # type: ignore[attr-defined]
                raise Refused(_reason(error)) from None

        return self.calls.make(method, attempt)

    def play(self, state: bytes, move: Move) -> Position:
        request = pb.PlayRequest(
            state=state, move=pb.Move(seat=move.seat, card=move.card), idempotency_key=key()
        )
        request.move.take.extend(move.take)
        reply = self._call("Play", request)
        if self._rng.random() < TWICE_SHARE:
            again = self._call("Play", request)
            self.calls.compare_twice(_without_state(reply), _without_state(again))
        return self._position(reply)


def _without_state(reply: pb.PlayResponse) -> pb.PlayResponse:
    copy = pb.PlayResponse()
    copy.CopyFrom(reply)
    copy.ClearField("state")
    return copy


# ---------------------------------------------------------------------- REST


class RestFleetApi(RestApi):
    """REST through the proxy, every call with the documented retries."""

    seeded = False

    def __init__(self, client: Any, environment: Environment):
        super().__init__(client, environment)
        self.calls = Calls(environment, self.transport)
        self._rng = random.Random()

    def _post(self, path: str, body: dict[str, Any]) -> Any:
        def attempt() -> Any:
            # catch_response, and the context never entered: Locust does not report
            # the attempt (Calls reports the call).
            response = self._client.post(path, json=body, catch_response=True)
            if response.status_code == 0:  # no answer: refused, reset, timed out
                raise Lost(repr(response.error))
            if response.status_code in LOST_STATUSES:
                raise Lost(f"HTTP {response.status_code}")
            if response.status_code != 200:
                raise Refused(_envelope_reason(response.text, response.status_code))
            return response.json()

        return self.calls.make(path, attempt)

    def play(self, state: bytes, move: Move) -> Position:
        body = {
            "state": base64.b64encode(state).decode(),
            "move": self._move(move),
            "idempotencyKey": base64.b64encode(key()).decode(),
        }
        reply = self._post("/v1/games:play", body)
        if self._rng.random() < TWICE_SHARE:
            again = self._post("/v1/games:play", body)
            self.calls.compare_twice(_without("state", reply), _without("state", again))
        return self._position(reply)


def _without(name: str, reply: dict[str, Any]) -> dict[str, Any]:
    return {field: value for field, value in reply.items() if field != name}


def _envelope_reason(text: str | None, status: int) -> str:
    """The reason of Mazzo's error envelope, or the HTTP status of anything else."""
    try:
        return str(json.loads(text or "")["error"]["details"][0]["reason"])
    except (ValueError, LookupError, TypeError):
        return f"HTTP {status}"


# ---------------------------------------------------------------------- users


class GrpcFleetGame(GrpcUser):
    scenario = Game
    api_class = GrpcFleetApi
    # A client of a game server, not a benchmark: calls paced a little.
    wait_time = between(0.05, 0.15)


class RestFleetGame(RestUser):
    scenario = Game
    api_class: ClassVar[type[RestApi]] = RestFleetApi
    wait_time = between(0.05, 0.15)
    network_timeout = CALL_TIMEOUT_SECONDS
    connection_timeout = CALL_TIMEOUT_SECONDS
