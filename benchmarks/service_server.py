"""The server process of the service benchmark: the real stack plus its two baselines.

One process, as ``MAZZO_WORKERS=1`` serves: the real GrpcServer (metrics
interceptor, health, reflection) and the real Flask app behind the real HTTP
server (mazzo.service.http_server), both over one EngineHandlers that remembers states as in
production (mazzo.service.handlers.OPENED_STATES of them). On
the same grpc.server, a generic ``mazzo.bench.Echo/Echo`` method; in the same
Flask app, a ``POST /bench/empty`` route. Both do no work: they answer zero
bytes of the size the request names, so the benchmark can give them the same
request and response sizes as the RPC they stand for. ``mazzo.bench.Echo/Stats``
answers the handlers' state memory counts (JSON: hits, misses), so the
benchmark can check that a warm run found its tokens and a cold one did not.

Run by benchmarks/service_bench.py: it prints one JSON line with its ports,
then serves until its standard input closes or it gets SIGTERM.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

import grpc
from flask import Flask, Response, request

from mazzo.service.grpc_server import GrpcServer
from mazzo.service.handlers import OPENED_STATES, EngineHandlers, StateCache
from mazzo.service.http_server import HttpLimits, HttpServer, bind, port_of
from mazzo.service.metrics import Metrics
from mazzo.service.rest import create_app
from mazzo.service.state_token import StateSealer

ECHO_SERVICE = "mazzo.bench.Echo"
ECHO_METHOD = f"/{ECHO_SERVICE}/Echo"
#: The echo after this many microseconds of Python work: how much server CPU a
#: handler's own work costs once it runs inside grpc.server (a calibration).
BUSY_METHOD = f"/{ECHO_SERVICE}/Busy"
BUSY_MICROSECONDS = 50
STATS_METHOD = f"/{ECHO_SERVICE}/Stats"
#: The profiled server's timings (benchmarks/service_profile.py).
PROFILE_METHOD = f"/{ECHO_SERVICE}/Profile"
EMPTY_ROUTE = "/bench/empty"
#: The response size is the first two bytes of an echo request (big endian),
#: and the value of this header for the empty route.
SIZE_HEADER = "X-Bench-Response-Bytes"
BENCH_KEYS = [("k1", bytes(range(32)))]

_ZEROS: dict[int, bytes] = {}


def _zeros(size: int) -> bytes:
    body = _ZEROS.get(size)
    if body is None:
        body = _ZEROS.setdefault(size, b"\0" * size)
    return body


def _echo(request_bytes: bytes, context: grpc.ServicerContext) -> bytes:
    return _zeros(int.from_bytes(request_bytes[:2], "big"))


def _busy(request_bytes: bytes, context: grpc.ServicerContext) -> bytes:
    clock = time.perf_counter
    end = clock() + BUSY_MICROSECONDS / 1e6
    while clock() < end:
        pass
    return _echo(request_bytes, context)


#: A method of the benchmark's own service: request bytes to reply bytes.
BenchMethod = Callable[[bytes, grpc.ServicerContext], bytes]


def echo_handler(
    states: StateCache, more: Mapping[str, BenchMethod] | None = None
) -> grpc.GenericRpcHandler:
    """Echo, Busy, Stats, and ``more`` methods by name, on the benchmark's own service."""

    def stats(request_bytes: bytes, context: grpc.ServicerContext) -> bytes:
        return json.dumps({"hits": states.hits, "misses": states.misses}).encode()

    # No (de)serializers: the request and the response are the bytes on the wire.
    behaviours = {"Echo": _echo, "Busy": _busy, "Stats": stats, **(more or {})}
    methods = {
        name: grpc.unary_unary_rpc_method_handler(behaviour)
        for name, behaviour in behaviours.items()
    }
    return grpc.method_handlers_generic_handler(ECHO_SERVICE, methods)


def _empty() -> Response:
    request.get_data(cache=False)
    size = int(request.headers.get(SIZE_HEADER, "0"))
    return Response(_zeros(size), mimetype="application/json")


def add_empty_route(app: Flask) -> None:
    """The REST baseline: ``POST /bench/empty`` in the gateway's app (its hooks)."""
    app.add_url_rule(EMPTY_ROUTE, "bench_empty", _empty, methods=["POST"])


def main(more: Mapping[str, BenchMethod] | None = None) -> int:
    """Serve until standard input closes; ``more``: methods to add to the echo's service."""
    threads = int(os.environ.get("MAZZO_GRPC_THREADS", "16"))
    metrics = Metrics()
    handlers = EngineHandlers(StateSealer(BENCH_KEYS), metrics, opened_states=OPENED_STATES)
    grpc_server = GrpcServer(handlers, metrics, "127.0.0.1:0", workers=threads)
    grpc_server.server.add_generic_rpc_handlers((echo_handler(handlers.states, more),))
    grpc_server.start()
    app = create_app(handlers, metrics)
    add_empty_route(app)
    http_server = HttpServer([(bind(("127.0.0.1", 0)), app)], HttpLimits())
    http_thread = threading.Thread(target=http_server.serve, name="http", daemon=True)
    http_thread.start()

    stop = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    ready = {
        "pid": os.getpid(),
        "grpc_port": grpc_server.port,
        "http_port": port_of(http_server.listeners[0].socket),
        "opened_states": OPENED_STATES,
    }
    print(json.dumps(ready), flush=True)

    def wait_for_stdin_to_close() -> None:
        sys.stdin.read()
        stop.set()

    threading.Thread(target=wait_for_stdin_to_close, daemon=True).start()
    stop.wait()
    http_server.close()
    grpc_server.stop(0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
