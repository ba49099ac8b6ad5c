"""Prometheus metrics for the gRPC server, the REST gateway and the games.

The gRPC series follow the names and labels of go-grpc-prometheus
(`grpc_server_started_total`, `grpc_server_handled_total`,
`grpc_server_handling_seconds`) so that existing dashboards and alerts work
unchanged; the HTTP series follow the usual `http_requests_total` /
`http_request_duration_seconds` pair; Mazzo's own series count games started,
moves by game and outcome, and state tokens refused by reason.

Each `Metrics` owns its registry, so tests (and several servers in one
process) do not share counters. When PROMETHEUS_MULTIPROC_DIR is set (several
server processes behind one port), prometheus_client writes every value to
that directory and the exposition aggregates all processes' files: the
multi-process server (service/workers.py) calls `use_multiprocess_dir` with a
fresh directory before it starts its workers, and `mark_process_dead` when one
exits.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from wsgiref.simple_server import WSGIServer

import flask
import grpc
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
    start_http_server,
    values,
)

from service.config import split_addr
from service.state_token import REASONS as STATE_REFUSAL_REASONS

# A call answered from memory takes tens of microseconds; a slow one under load
# approaches a second. Buckets are about 2.5x apart across that range.
# fmt: off
LATENCY_BUCKETS = (
    0.00005, 0.0001, 0.00025, 0.0005,
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
    0.1, 0.25, 0.5, 1.0,
)
# fmt: on
#: A suggestion takes from tens of microseconds (random) to its budget (expert,
#: up to MAZZO_MAX_SUGGEST_MS).
SUGGEST_BUCKETS = (0.0001, 0.001, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
GRPC_LABELS = ("grpc_type", "grpc_service", "grpc_method")
UNMATCHED_ROUTE = "unmatched"
HTTP_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
_CLOCK_KEY = "mazzo_metrics_started"

Behavior = Callable[[Any, grpc.ServicerContext], Any]


class Metrics:
    """Every series Mazzo exports, registered in a registry of its own."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self._grpc_series()
        self._http_series()
        self._mazzo_series()
        self.exposition_registry = _exposition_registry(self.registry)

    # prometheus_client strips a trailing "_total" from a counter's name and adds
    # it back on exposition, so the names below are exactly the exposed ones.
    def _grpc_series(self) -> None:
        self.grpc_server_started_total = Counter(
            "grpc_server_started_total",
            "RPCs started on the server.",
            GRPC_LABELS,
            registry=self.registry,
        )
        self.grpc_server_handled_total = Counter(
            "grpc_server_handled_total",
            "RPCs completed on the server, by status code.",
            (*GRPC_LABELS, "grpc_code"),
            registry=self.registry,
        )
        self.grpc_server_handling_seconds = Histogram(
            "grpc_server_handling_seconds",
            "Time to handle an RPC on the server.",
            GRPC_LABELS,
            registry=self.registry,
            buckets=LATENCY_BUCKETS,
        )

    def _http_series(self) -> None:
        self.http_requests_total = Counter(
            "http_requests_total",
            "HTTP requests answered, by route and status.",
            ("method", "route", "status"),
            registry=self.registry,
        )
        self.http_request_duration_seconds = Histogram(
            "http_request_duration_seconds",
            "Time to answer an HTTP request.",
            ("method", "route"),
            registry=self.registry,
            buckets=LATENCY_BUCKETS,
        )

    def _mazzo_series(self) -> None:
        self.mazzo_games_started_total = Counter(
            "mazzo_games_started_total",
            "Games dealt, by game.",
            ("game",),
            registry=self.registry,
        )
        self.mazzo_moves_total = Counter(
            "mazzo_moves_total",
            "Moves by game and outcome (applied/refused for Play, legal/illegal for Validate).",
            ("game", "outcome"),
            registry=self.registry,
        )
        self.mazzo_states_refused_total = Counter(
            "mazzo_states_refused_total",
            "State tokens refused, by reason.",
            ("reason",),
            registry=self.registry,
        )
        self.mazzo_suggestions_total = Counter(
            "mazzo_suggestions_total",
            "Suggest calls answered, by game and level.",
            ("game", "level"),
            registry=self.registry,
        )
        self.mazzo_suggest_simulations_total = Counter(
            "mazzo_suggest_simulations_total",
            "Simulated deals played out by Suggest, by level.",
            ("level",),
            registry=self.registry,
        )
        self.mazzo_suggest_seconds = Histogram(
            "mazzo_suggest_seconds",
            "Time a player spent choosing, by level.",
            ("level",),
            registry=self.registry,
            buckets=SUGGEST_BUCKETS,
        )
        # Series that exist from the start at 0 make rate() and alerts work at once.
        for reason in STATE_REFUSAL_REASONS:
            self.mazzo_states_refused_total.labels(reason=reason)

    def exposition(self) -> tuple[bytes, str]:
        """The text a Prometheus scrape gets, and its content type."""
        return generate_latest(self.exposition_registry), CONTENT_TYPE_LATEST


def _exposition_registry(own: CollectorRegistry) -> CollectorRegistry:
    """In multiprocess mode every process's values are read from the shared directory."""
    directory = os.environ.get(MULTIPROC_ENV)
    if not directory:
        return own
    aggregate = CollectorRegistry()
    multiprocess.MultiProcessCollector(aggregate, path=directory)  # type: ignore[no-untyped-call]
    return aggregate


def use_multiprocess_dir(directory: str) -> None:
    """Write every metric created from now on in this process and its children to `directory`.

    prometheus_client chooses how values are stored when it is imported, from
    PROMETHEUS_MULTIPROC_DIR; this process imported it before it knew it would
    serve from several processes, so the choice is made again here. Call it
    before any `Metrics` is created (the supervisor creates none itself).
    """
    os.environ[MULTIPROC_ENV] = directory
    values.ValueClass = values.MultiProcessValue()  # type: ignore[no-untyped-call]


def mark_process_dead(pid: int) -> None:
    """A server process has exited: drop its live-gauge files (its counters stay counted)."""
    directory = os.environ.get(MULTIPROC_ENV)
    if directory:
        multiprocess.mark_process_dead(pid, directory)  # type: ignore[no-untyped-call]


# ---------------------------------------------------------------------- gRPC


def split_method(full_method: str) -> tuple[str, str]:
    """Label values from the gRPC path: /mazzo.v1.Engine/Play gives mazzo.v1.Engine, Play."""
    service, _, method = full_method.lstrip("/").rpartition("/")
    return service, method


def status_name(context: grpc.ServicerContext, raised: bool) -> str:
    """The status the call ends with, as grpc itself settles it.

    abort() records its code on the context before raising; any other exception
    ends the call as UNKNOWN unless a code was set; returning normally is OK
    unless a code was set.
    """
    code = context.code()
    if code is None or (raised and code == grpc.StatusCode.OK):
        return "UNKNOWN" if raised else "OK"
    return str(code.name)


class GrpcMetricsInterceptor(grpc.ServerInterceptor):  # type: ignore[misc]
    """Counts and times unary-unary RPCs; streaming handlers pass through untouched."""

    def __init__(self, metrics: Metrics) -> None:
        self._metrics = metrics
        # grpc calls interceptors on every call: wrap each method's handler once.
        self._wrapped: dict[str, tuple[grpc.RpcMethodHandler, grpc.RpcMethodHandler]] = {}

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        handler = continuation(handler_call_details)
        if handler is None or handler.request_streaming or handler.response_streaming:
            return handler
        if handler.unary_unary is None:
            return handler
        name = handler_call_details.method
        cached = self._wrapped.get(name)
        if cached is not None and cached[0] is handler:
            return cached[1]
        service, method = split_method(name)
        wrapped = grpc.unary_unary_rpc_method_handler(
            self._instrument(handler.unary_unary, ("unary", service, method)),
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )
        self._wrapped[name] = (handler, wrapped)
        return wrapped

    def _instrument(self, behavior: Behavior, labels: tuple[str, str, str]) -> Behavior:
        # Label children bound once per method (and per code), not looked up per call.
        started = self._metrics.grpc_server_started_total.labels(*labels)
        seconds = self._metrics.grpc_server_handling_seconds.labels(*labels)
        handled_total = self._metrics.grpc_server_handled_total
        handled: dict[str, Any] = {}

        def instrumented(request: Any, context: grpc.ServicerContext) -> Any:
            started.inc()
            clock = time.perf_counter()
            raised = True
            try:
                response = behavior(request, context)
                raised = False
                return response
            finally:
                code = status_name(context, raised)
                child = handled.get(code)
                if child is None:
                    child = handled[code] = handled_total.labels(*labels, code)
                child.inc()
                seconds.observe(time.perf_counter() - clock)

        return instrumented


# ---------------------------------------------------------------------- HTTP


def instrument_flask(app: flask.Flask, metrics: Metrics) -> None:
    """Count and time every request, and serve GET /metrics from `app`.

    The route label is the URL rule ("/v1/games:play"), never the raw path, and
    "unmatched" when no rule matched, so that label values stay few.
    """

    def start_clock() -> None:
        setattr(flask.g, _CLOCK_KEY, time.perf_counter())

    def record(response: flask.Response) -> flask.Response:
        _record_request(metrics, response.status_code)
        return response

    def metrics_view() -> flask.Response:
        body, content_type = metrics.exposition()
        return flask.Response(body, content_type=content_type)

    app.before_request(start_clock)
    app.after_request(record)
    app.add_url_rule("/metrics", endpoint="mazzo_metrics", view_func=metrics_view, methods=["GET"])


def _record_request(metrics: Metrics, status: int) -> None:
    request = flask.request
    rule = request.url_rule
    route = rule.rule if rule is not None else UNMATCHED_ROUTE
    method = request.method if request.method in HTTP_METHODS else "OTHER"
    metrics.http_requests_total.labels(method, route, str(status)).inc()
    started = flask.g.pop(_CLOCK_KEY, None)
    if started is not None:  # None when an earlier before_request hook answered
        elapsed = time.perf_counter() - started
        metrics.http_request_duration_seconds.labels(method, route).observe(elapsed)


# ---------------------------------------------------------------------- exporter


@dataclass
class MetricsServer:
    """prometheus_client's exporter thread, with what it takes to stop it."""

    server: WSGIServer
    thread: threading.Thread

    @property
    def port(self) -> int:
        """The bound port (useful when started on port 0)."""
        return int(self.server.server_port)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving, close the socket and wait for the thread."""
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout)


def serve_metrics(addr: str, metrics: Metrics) -> MetricsServer:
    """Serve /metrics on `addr` (host:port) from a daemon thread, for the gRPC process.

    An empty MAZZO_METRICS_ADDR means "disabled": the caller checks that first.
    """
    host, port = split_addr(addr)
    server, thread = start_http_server(port, addr=host, registry=metrics.exposition_registry)
    return MetricsServer(server, thread)
