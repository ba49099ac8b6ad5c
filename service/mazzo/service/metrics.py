"""Prometheus metrics for the gRPC server, the REST gateway and the games.

The gRPC series follow the names and labels of go-grpc-prometheus
(`grpc_server_started_total`, `grpc_server_handled_total`,
`grpc_server_handling_seconds`) so that existing dashboards and alerts work
unchanged; the HTTP series follow the usual `http_requests_total` /
`http_request_duration_seconds` pair; Mazzo's own series count games started,
moves by game and outcome (with the time each took), Advance calls by game and
outcome, state tokens sealed by key and refused by reason; plus the
usual `process_*` and `python_*` series and `mazzo_build_info`.

Each `Metrics` owns its registry, so tests (and several servers in one
process) do not share counters. When PROMETHEUS_MULTIPROC_DIR is set (several
server processes behind one port), prometheus_client writes every value to
that directory and the exposition aggregates all processes' files: the
multi-process server (service/mazzo/service/workers.py) calls `use_multiprocess_dir` with a
fresh directory before it starts its workers, and `mark_process_dead` when one
exits.

prometheus_client's own process collector reads only the process it runs in,
so in multiprocess mode it is left out (one random worker's figures, changing
at each scrape, would mislead). `ServerProcessCollector` takes its place: at
each scrape it reads /proc for every live server process (the workers, found
by their `mazzo_worker_up` files in the shared directory, and the supervisor)
and exports the same `process_*` series with `pid` and `role` labels.
"""

from __future__ import annotations

import contextlib
import os
import platform
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from importlib import metadata
from typing import Any
from wsgiref.simple_server import WSGIServer

import flask
import grpc
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
    start_http_server,
    values,
)
from prometheus_client.gc_collector import GCCollector
from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import Collector

from mazzo.service.config import split_addr
from mazzo.service.state_token import REASONS as STATE_REFUSAL_REASONS

# A call answered from memory takes tens of microseconds; a slow one under load
# approaches a second. Buckets are about 2.5x apart across that range.
# fmt: off
LATENCY_BUCKETS = (
    0.00005, 0.0001, 0.00025, 0.0005,
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
    0.1, 0.25, 0.5, 1.0,
)
# fmt: on
#: A move takes tens of microseconds to check or play, a computer seat's up to its
#: budget (seconds at most).
MOVE_BUCKETS = (*LATENCY_BUCKETS, 2.5, 5.0, 10.0)
#: What became of a move: Play's applied or refused, Validate's legal or illegal.
MOVE_OUTCOMES = ("applied", "refused", "legal", "illegal")
#: What an Advance call did: the computer seats played; a late seat's move was
#: played for it (its clock ran out); a late seat's side lost (its clock's
#: on_timeout is forfeit); nothing (no computer's turn, no clock run out).
ADVANCE_OUTCOMES = ("computer", "timeout", "forfeit", "none")
#: A suggestion takes from tens of microseconds (random) to its budget
#: (intermediate and expert, up to MAZZO_MAX_SUGGEST_MS).
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
        self._process_series()
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
        # One observation per move both counts it and times it: mazzo_moves_total is
        # read from this histogram's counts when scraped (MovesCounted), so that a
        # move costs one update, not two (with several workers each is a write to
        # a memory-mapped file).
        self.mazzo_move_seconds = Histogram(
            "mazzo_move_seconds",
            "Time a move took, by game and outcome: a person's (Play, Validate) from the"
            " call's arrival to the move applied, refused or checked; a computer seat's,"
            " its thinking and its move.",
            ("game", "outcome"),
            registry=self.registry,
            buckets=MOVE_BUCKETS,
        )
        self.mazzo_advances_total = Counter(
            "mazzo_advances_total",
            "Advance calls by game and outcome (computer, timeout, forfeit, none).",
            ("game", "outcome"),
            registry=self.registry,
        )
        self.mazzo_states_refused_total = Counter(
            "mazzo_states_refused_total",
            "State tokens refused, by reason.",
            ("reason",),
            registry=self.registry,
        )
        # A key's safe use is counted in seals (docs/security.md): summed over a
        # fleet's pods and workers, this says how far each key has gone.
        self.mazzo_state_seals_total = Counter(
            "mazzo_state_seals_total",
            "State tokens sealed, by the id of the key that sealed them.",
            ("key",),
            registry=self.registry,
        )
        self.mazzo_suggestions_total = Counter(
            "mazzo_suggestions_total",
            "Moves chosen by a player: Suggest calls and computer seats' moves, by game and level.",
            ("game", "level"),
            registry=self.registry,
        )
        self.mazzo_suggest_simulations_total = Counter(
            "mazzo_suggest_simulations_total",
            "Simulations run by Suggest and the computer seats, by level: play-outs of"
            " simulated deals (intermediate; expert elsewhere), worlds searched (expert at"
            " a Scopa table of two and in Scopone).",
            ("level",),
            registry=self.registry,
        )
        self.mazzo_suggest_seconds = Histogram(
            "mazzo_suggest_seconds",
            "Time to choose a move, from the call's arrival (a computer: its turn's), by level.",
            ("level",),
            registry=self.registry,
            buckets=SUGGEST_BUCKETS,
        )
        # Series that exist from the start at 0 make rate() and alerts work at once.
        for reason in STATE_REFUSAL_REASONS:
            self.mazzo_states_refused_total.labels(reason=reason)
        if not os.environ.get(MULTIPROC_ENV):  # else the exposition registry counts them
            self.registry.register(MovesCounted(self.mazzo_move_seconds))

    def _process_series(self) -> None:
        """This server process: build info, up and started (one Metrics per server process)."""
        self.mazzo_build_info = Gauge(
            "mazzo_build_info",
            "Always 1: the versions this server runs, as labels.",
            ("version", "python", "grpc"),
            registry=self.registry,
            multiprocess_mode="max",
        )
        self.mazzo_build_info.labels(*build_versions()).set(1)
        # Counted values of dead workers stay counted: a restart shows as an increase.
        # Counted before the process shows as up, so that a reader never sees it up
        # and not yet counted.
        self.mazzo_worker_starts_total = Counter(
            "mazzo_worker_starts_total",
            "Server processes started (the first ones and every replacement).",
            registry=self.registry,
        )
        self.mazzo_worker_starts_total.inc()
        # In multiprocess mode "liveall" keeps one series per live process (label pid):
        # its file names the live workers for ServerProcessCollector.
        self.mazzo_worker_up = Gauge(
            "mazzo_worker_up",
            "1 for each server process that serves (label pid with several workers).",
            registry=self.registry,
            multiprocess_mode="liveall",
        )
        self.mazzo_worker_up.set(1)
        if not os.environ.get(MULTIPROC_ENV):
            # One process: prometheus_client's collectors read it (they are what
            # the default registry carries; this registry is our own).
            ProcessCollector(registry=self.registry)
            PlatformCollector(registry=self.registry)
            GCCollector(registry=self.registry)

    def exposition(self) -> tuple[bytes, str]:
        """The text a Prometheus scrape gets, and its content type."""
        return generate_latest(self.exposition_registry), CONTENT_TYPE_LATEST


def _exposition_registry(own: CollectorRegistry) -> CollectorRegistry:
    """In multiprocess mode every process's values are read from the shared directory."""
    directory = os.environ.get(MULTIPROC_ENV)
    if not directory:
        return own
    aggregate = CollectorRegistry()
    every_process = multiprocess.MultiProcessCollector(None, path=directory)  # type: ignore[no-untyped-call]
    aggregate.register(MovesCounted(every_process, with_its_metrics=True))
    PlatformCollector(registry=aggregate)  # python_info: the same in every worker
    aggregate.register(ServerProcessCollector(directory))
    return aggregate


class MovesCounted(Collector):
    """``mazzo_moves_total{game,outcome}``, read when scraped from the counts of
    ``mazzo_move_seconds`` in ``source`` (a histogram, or a collector of every
    process's metrics, whose own metrics it then passes on too: ``with_its_metrics``)."""

    def __init__(self, source: Collector, with_its_metrics: bool = False) -> None:
        self._source = source
        self._with_its_metrics = with_its_metrics

    def collect(self) -> Iterable[Metric]:
        collected = list(self._source.collect())
        moves = CounterMetricFamily(
            "mazzo_moves",
            "Moves by game and outcome (applied/refused for Play, legal/illegal for Validate).",
            labels=("game", "outcome"),
        )
        for metric in collected:
            if metric.name == "mazzo_move_seconds":
                for sample in metric.samples:
                    if sample.name == "mazzo_move_seconds_count":
                        labels = sample.labels
                        moves.add_metric((labels["game"], labels["outcome"]), sample.value)
        return [*collected, moves] if self._with_its_metrics else [moves]


def build_versions() -> tuple[str, str, str]:
    """(Mazzo's version, Python's, grpcio's): the labels of mazzo_build_info."""
    try:
        version = metadata.version("mazzo")
    except metadata.PackageNotFoundError:  # run from a checkout that is not installed
        version = "unknown"
    return version, platform.python_version(), grpc.__version__


# The shared directory's files of live gauges end with the pid of their process.
_LIVE_FILE = re.compile(r"^gauge_live[a-z]+_(\d+)\.db$")
_CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def live_worker_pids(directory: str) -> list[int]:
    """The pids of the workers whose live gauges are in `directory` (dead ones are removed)."""
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    return sorted({int(m[1]) for name in names if (m := _LIVE_FILE.match(name))})


class ServerProcessCollector(Collector):
    """process_* series for every live server process, read from /proc at scrape time.

    In multiprocess mode the scrape is answered by one worker; reading its
    siblings' /proc/PID/stat from there gives every process's CPU and memory
    as they are now, with no thread and no file of its own. Labels: `pid`, and
    `role` ("worker", or "supervisor" for the parent that forks them).
    """

    def __init__(self, directory: str, proc: str = "/proc") -> None:
        self._directory = directory
        self._proc = proc
        self._boot_time = _boot_time(proc)

    def processes(self) -> Iterator[tuple[int, str]]:
        workers = live_worker_pids(self._directory)
        yield from ((pid, "worker") for pid in workers)
        # Only a worker reads this, and a worker's parent is the supervisor (in a
        # container, often pid 1).
        if os.getpid() in workers:
            yield os.getppid(), "supervisor"

    def collect(self) -> Iterable[Metric]:
        labels = ("pid", "role")
        cpu = CounterMetricFamily(
            "process_cpu_seconds_total",
            "Total user and system CPU time spent in seconds.",
            labels=labels,
        )
        rss = GaugeMetricFamily(
            "process_resident_memory_bytes", "Resident memory size in bytes.", labels=labels
        )
        vms = GaugeMetricFamily(
            "process_virtual_memory_bytes", "Virtual memory size in bytes.", labels=labels
        )
        start = GaugeMetricFamily(
            "process_start_time_seconds",
            "Start time of the process since unix epoch in seconds.",
            labels=labels,
        )
        fds = GaugeMetricFamily(
            "process_open_fds", "Number of open file descriptors.", labels=labels
        )
        for pid, role in self.processes():
            stat = self._stat(pid)
            if stat is None:  # exited since its file was listed
                continue
            values_ = (str(pid), role)
            cpu.add_metric(values_, (float(stat[11]) + float(stat[12])) / _CLK_TCK)
            vms.add_metric(values_, float(stat[20]))
            rss.add_metric(values_, float(stat[21]) * _PAGE_SIZE)
            start.add_metric(values_, float(stat[19]) / _CLK_TCK + self._boot_time)
            with contextlib.suppress(OSError):
                fds.add_metric(values_, len(os.listdir(f"{self._proc}/{pid}/fd")))
        return [cpu, rss, vms, start, fds]

    def _stat(self, pid: int) -> list[bytes] | None:
        """The fields of /proc/PID/stat after the command name, or None if it is gone."""
        try:
            with open(f"{self._proc}/{pid}/stat", "rb") as stat:
                return stat.read().rpartition(b")")[2].split()
        except OSError:
            return None


def _boot_time(proc: str) -> float:
    try:
        with open(f"{proc}/stat", "rb") as stat:
            for line in stat:
                if line.startswith(b"btime "):
                    return float(line.split()[1])
    except OSError:
        pass
    return 0.0


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
    # ServicerContext.code() (grpcio 1.38 on) is missing from types-grpcio's ServicerContext.
    code: grpc.StatusCode | None = context.code()  # type: ignore[attr-defined]
    if code is None or (raised and code == grpc.StatusCode.OK):
        return "UNKNOWN" if raised else "OK"
    return str(code.name)


class GrpcMetricsInterceptor(grpc.ServerInterceptor):
    """Counts and times unary-unary RPCs; streaming handlers pass through untouched."""

    def __init__(self, metrics: Metrics) -> None:
        self._metrics = metrics
        # grpc calls interceptors on every call: wrap each method's handler once.
        self._wrapped: dict[
            str, tuple[grpc.RpcMethodHandler[Any, Any], grpc.RpcMethodHandler[Any, Any]]
        ] = {}

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler[Any, Any] | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
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


def instrument_flask(app: flask.Flask, metrics: Metrics, serve_metrics: bool = True) -> None:
    """Count and time every request, and serve GET /metrics from `app` (if `serve_metrics`).

    The route label is the URL rule ("/v1/games:play"), never the raw path, and
    "unmatched" when no rule matched, so that label values stay few.
    """

    series = _HttpSeries(metrics)

    def start_clock() -> None:
        setattr(flask.g, _CLOCK_KEY, time.perf_counter())

    def record(response: flask.Response) -> flask.Response:
        series.record(response.status_code)
        return response

    def metrics_view() -> flask.Response:
        body, content_type = metrics.exposition()
        return flask.Response(body, content_type=content_type)

    app.before_request(start_clock)
    app.after_request(record)
    if serve_metrics:
        app.add_url_rule(
            "/metrics", endpoint="mazzo_metrics", view_func=metrics_view, methods=["GET"]
        )


class _HttpSeries:
    """The HTTP series' label children, each bound the first time its labels come:
    a request then finds its two in a dict, where labels() takes a lock and checks
    every value. Their labels are few (the app's rules, the methods, the statuses)."""

    def __init__(self, metrics: Metrics) -> None:
        self._metrics = metrics
        self._counted: dict[tuple[str, str, int], Any] = {}
        self._timed: dict[tuple[str, str], Any] = {}

    def record(self, status: int) -> None:
        request = flask.request
        rule = request.url_rule
        route = rule.rule if rule is not None else UNMATCHED_ROUTE
        method = request.method
        if method not in HTTP_METHODS:
            method = "OTHER"
        counted = self._counted.get((method, route, status))
        if counted is None:
            counted = self._metrics.http_requests_total.labels(method, route, str(status))
            self._counted[method, route, status] = counted
        counted.inc()
        started = flask.g.pop(_CLOCK_KEY, None)
        if started is not None:  # None when an earlier before_request hook answered
            timed = self._timed.get((method, route))
            if timed is None:
                timed = self._metrics.http_request_duration_seconds.labels(method, route)
                self._timed[method, route] = timed
            timed.observe(time.perf_counter() - started)


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
