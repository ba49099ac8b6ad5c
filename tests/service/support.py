"""Shared helpers of the service tests: real servers, decks built to order, HTTP calls.

Imported as ``tests.service.support`` (as the engine tests import theirs): the
fixtures that start servers live in ``conftest.py`` and use these.
"""

from __future__ import annotations

import base64
import http.client
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from mazzo.service.grpc_server import GrpcServer
from mazzo.service.handlers import EngineHandlers
from mazzo.service.http_server import HttpLimits, HttpServer, bind, port_of
from mazzo.service.metrics import Metrics
from mazzo.service.rest import create_app
from mazzo.service.state_token import StateSealer
from mazzo.service.trust import load_record
from mazzo.v1 import engine_pb2 as pb

Keys = Sequence[tuple[str, bytes]]

#: The keys of the servers under test, and of two foreign servers: one with
#: another key id, one with the same key id but another secret.
KEYS: Keys = (("k1", bytes(range(32))),)
OTHER_KID_KEYS: Keys = (("k2", bytes(range(32))),)
SAME_KID_OTHER_SECRET_KEYS: Keys = (("k1", bytes(range(100, 132))),)

SUITS = "DCSB"
#: The 40 cards in canonical order: 1D..10D, 1C..10C, 1S..10S, 1B..10B.
ALL_CARDS = tuple(f"{rank}{suit}" for suit in SUITS for rank in range(1, 11))


def state_of(token: bytes, keys: Keys = KEYS) -> Any:
    """The engine state a token holds (the tests hold the servers' keys)."""
    return load_record(StateSealer(list(keys)).open(token))[0]


# ---------------------------------------------------------------- decks


def cards(text: str) -> list[str]:
    """``cards("7D 3C")`` -> ``["7D", "3C"]``."""
    return text.split()


def deck(
    hands: Sequence[str],
    table: str,
    stock: str = "",
    *,
    dealer: int | None = None,
) -> list[str]:
    """A 40-card deck order that deals ``hands`` (by seat) and turns up ``table``.

    Cards go one at a time from the top, starting with the seat after the
    dealer (default dealer: the last seat), three rounds; then four table
    cards; then ``stock``, then every card not named yet in canonical order.
    """
    players = len(hands)
    dealer = players - 1 if dealer is None else dealer
    by_seat = [cards(h) for h in hands]
    assert all(len(h) == 3 for h in by_seat), "three cards per hand"
    order = [(dealer + k) % players for k in range(1, players + 1)]
    top = [by_seat[seat][i] for i in range(3) for seat in order]
    top += cards(table) + cards(stock)
    assert len(cards(table)) == 4, "four table cards"
    assert len(set(top)) == len(top), "a card named twice"
    assert set(top) <= set(ALL_CARDS), "not a card"
    return top + [c for c in ALL_CARDS if c not in top]


# ---------------------------------------------------------------- servers


class HandClock:
    """A clock (seconds) that the test moves by hand, ``now``: no sleeping."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@dataclass
class Stack:
    """One set of handlers behind a real gRPC server and a real REST server."""

    metrics: Metrics
    handlers: EngineHandlers
    grpc_server: GrpcServer
    http_server: HttpServer | None
    http_thread: threading.Thread | None
    app: Any = None

    @property
    def grpc_target(self) -> str:
        return f"127.0.0.1:{self.grpc_server.port}"

    @property
    def http_port(self) -> int:
        assert self.http_server is not None
        return port_of(self.http_server.listeners[0].socket)


@contextmanager
def running_stack(
    keys: Keys = KEYS,
    *,
    metrics: Metrics | None = None,
    rest: bool = True,
    max_request_bytes: int = 65536,
    metrics_on_rest: bool = False,
    require_seat_credentials: bool = False,
    max_age: float | None = None,
    clock: Callable[[], float] = time.time,
    strict_json: bool = False,
    cors_origins: Sequence[str] = (),
    max_suggest_ms: int = 1000,
    limits: HttpLimits | None = None,
    clock_tolerance: float = 0.0,
) -> Iterator[Stack]:
    """Start the real servers on free ports of 127.0.0.1; stop them on exit.

    REST is served as ``make serve`` serves it (mazzo.service.http_server), with
    ``limits`` (default: the defaults, and ``max_request_bytes``).
    """
    metrics = metrics or Metrics()
    sealer = StateSealer(list(keys), max_age=max_age, clock=clock)
    handlers = EngineHandlers(
        sealer,
        metrics,
        require_seat_credentials=require_seat_credentials,
        max_suggest_ms=max_suggest_ms,
        clock=clock,
        clock_tolerance=clock_tolerance,
    )
    grpc_server = GrpcServer(
        handlers, metrics, "127.0.0.1:0", workers=4, max_message_bytes=max_request_bytes
    )
    grpc_server.start()
    http_server = http_thread = app = None
    try:
        if rest:
            app = create_app(
                handlers,
                metrics,
                max_request_bytes,
                metrics_on_rest=metrics_on_rest,
                strict_json=strict_json,
                cors_origins=cors_origins,
            )
            limits = limits or HttpLimits(max_body=max_request_bytes)
            http_server = HttpServer([(bind(("127.0.0.1", 0)), app)], limits)
            http_thread = threading.Thread(
                target=http_server.serve, name="rest-under-test", daemon=True
            )
            http_thread.start()
        yield Stack(metrics, handlers, grpc_server, http_server, http_thread, app)
    finally:
        if http_server is not None and http_thread is not None:
            http_server.close()
            http_thread.join(5)
        grpc_server.stop(0)


# ---------------------------------------------------------------- gRPC errors


@dataclass(frozen=True)
class Refusal:
    """What a refused gRPC call carried: the code, message and its one ErrorInfo."""

    code: grpc.StatusCode
    message: str
    info: error_details_pb2.ErrorInfo

    @property
    def reason(self) -> str:
        return self.info.reason

    @property
    def metadata(self) -> dict[str, str]:
        return dict(self.info.metadata)


def refusal_of(error: grpc.RpcError) -> Refusal:
    """Check the rich status of a refused call: exactly one ErrorInfo, domain mazzo."""
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None, f"no rich status on {error!r}"
    assert status.code == error.code().value[0]  # type: ignore[attr-defined]
    assert len(status.details) == 1
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    assert info.domain == "mazzo"
    assert info.reason
    assert status.message
    return Refusal(error.code(), status.message, info)  # type: ignore[attr-defined]


def refused(call: Any, request: Any) -> Refusal:
    """Make a call that must fail and return its refusal."""
    with pytest.raises(grpc.RpcError) as caught:
        call(request, timeout=10)
    return refusal_of(caught.value)


# ---------------------------------------------------------------- HTTP


@dataclass(frozen=True)
class HttpReply:
    status: int
    content_type: str
    body: bytes
    #: By lower-case name.
    headers: dict[str, str] = field(default_factory=dict)

    def json(self) -> Any:
        return json.loads(self.body)


def http_call(
    port: int,
    method: str,
    path: str,
    body: object = None,
    *,
    raw: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> HttpReply:
    """One request on a fresh connection; ``body`` is sent as JSON, ``raw`` as is."""
    data = raw if raw is not None else None if body is None else json.dumps(body).encode()
    sent_headers = {"Content-Type": "application/json", **(headers or {})}
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request(method, path, body=data, headers=sent_headers)
        response = connection.getresponse()
        headers = {name.lower(): value for name, value in response.getheaders()}
        content_type = response.getheader("Content-Type", "")
        return HttpReply(response.status, content_type, response.read(), headers)
    finally:
        connection.close()


#: Generous bound for what a server does on its own clock (a refusal, a close).
RAW_PATIENCE = 30.0


def exchange(port: int, data: bytes, *, close_write: bool = False) -> bytes:
    """Send raw bytes on a fresh connection (then, with ``close_write``, end the
    client's side); everything the server answers until it closes the connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=RAW_PATIENCE) as sock:
        sock.sendall(data)
        if close_write:
            sock.shutdown(socket.SHUT_WR)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
        return received


def parsed(answer: bytes) -> tuple[int, dict[str, str], dict[str, Any]]:
    """The status, headers (by lower-case name) and JSON body of a raw answer."""
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    return int(status_line.split()[1]), headers, json.loads(body)


def b64(token: bytes) -> str:
    return base64.b64encode(token).decode()


def unb64(text: str) -> bytes:
    return base64.b64decode(text)


def move(seat: int, card: str, take: Sequence[str] = ()) -> pb.Move:
    return pb.Move(seat=seat, card=card, take=list(take))
