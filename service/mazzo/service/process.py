"""One server process: its parts, how they start, serve and stop gracefully.

Every server process is made the same way, whether it is the only one
(MAZZO_WORKERS=1, :func:`serve_one_process`) or one of a supervisor's workers
(mazzo/service/workers.py): its own metrics, search pool and handlers, a gRPC
server, and the REST gateway (and, on the metrics port, the Prometheus
exposition) served by mazzo.service.http_server (waitress). Only where the
listening sockets come from differs: bound here by the single process, handed
over by the supervisor to a worker.

Stopping: health turns NOT_SERVING and ``/readyz`` 503; on SIGTERM the
process goes on serving while load balancers take it out, until no new request
has arrived for a second, for ``MAZZO_DRAIN_SECONDS`` at most
(mazzo.service.drain), then refuses new calls; calls in flight get
``MAZZO_GRACE_SECONDS`` to finish (:func:`stop_gracefully`).
"""

from __future__ import annotations

import logging
import signal
import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import FrameType

from prometheus_client import make_wsgi_app

from mazzo.service.config import Config, split_addr
from mazzo.service.drain import Arrivals, drain, noting_arrivals
from mazzo.service.grpc_server import GrpcServer
from mazzo.service.handlers import EngineHandlers
from mazzo.service.headers import with_answer_headers
from mazzo.service.http_server import TICK, HttpServer, WsgiApp, bind, limits_of, port_of
from mazzo.service.metrics import Metrics
from mazzo.service.rest import create_app
from mazzo.service.search_pool import SearchPool, search_pool_of, think

log = logging.getLogger("mazzo")


@dataclass
class ServerProcess:
    """A server process's parts; :meth:`start`, :meth:`listen`, then :meth:`stop`."""

    config: Config
    searches: SearchPool | None
    grpc: GrpcServer
    #: Set while the process takes new work; ``/readyz`` and gRPC health follow it.
    ready: threading.Event
    #: The REST gateway and the Prometheus exposition, each a WSGI app.
    rest_app: WsgiApp
    exporter: WsgiApp
    #: When the last request arrived, on either transport: the drain waits for a pause.
    arrivals: Arrivals
    http: HttpServer | None = None

    @classmethod
    def build(
        cls, config: Config, grpc_addr: str, *, reuse_port: bool = False, worker: str | None = None
    ) -> ServerProcess:
        """The parts, not started: gRPC on ``grpc_addr`` (a worker shares its port
        with the others, ``reuse_port``, and names itself, ``worker``, in each answer)."""
        metrics = Metrics()
        arrivals = Arrivals()
        searches = search_pool_of(config)
        handlers = EngineHandlers.from_config(config, metrics, searches or think)
        grpc = GrpcServer(
            handlers,
            metrics,
            grpc_addr,
            workers=config.grpc_workers,
            max_message_bytes=config.max_request_bytes,
            reuse_port=reuse_port,
            worker=worker,
            arrivals=arrivals,
        )
        ready = threading.Event()
        ready.set()
        rest_app = create_app(
            handlers,
            metrics,
            config.max_request_bytes,
            ready=ready.is_set,
            metrics_on_rest=config.metrics_on_rest,
            strict_json=config.strict_json,
            cors_origins=config.cors_origins,
        )
        exporter = with_answer_headers(make_wsgi_app(metrics.exposition_registry))
        rest = noting_arrivals(rest_app, arrivals)
        return cls(config, searches, grpc, ready, rest, exporter, arrivals)

    def start(self) -> None:
        """Start the search processes (ready before any call reaches them), then gRPC."""
        if self.searches:
            self.searches.start()
        self.grpc.start()

    def listen(self, listeners: Sequence[tuple[socket.socket, WsgiApp]]) -> HttpServer:
        """Serve REST (and metrics) on ``listeners``: listening sockets and their apps."""
        self.http = HttpServer(list(listeners), limits_of(self.config))
        return self.http

    def stop(self, drain_delay: float, keep_running: Callable[[], None] = lambda: None) -> None:
        """Drain for ``drain_delay`` seconds at most, let calls in flight finish, close the pool."""
        assert self.http is not None, "stop() after listen()"
        stop_gracefully(
            self.grpc,
            self.http,
            self.ready,
            self.arrivals,
            drain_delay,
            self.config.grace_seconds,
            keep_running,
        )
        self.close_searches()

    def close_searches(self) -> None:
        if self.searches:
            self.searches.close()


def serve_one_process(config: Config) -> int:
    """MAZZO_WORKERS=1: gRPC, REST and metrics in this process, until SIGTERM or SIGINT."""
    server = ServerProcess.build(config, config.grpc_addr)

    # Handlers first: a SIGTERM that arrives while starting (or right after the
    # "listening" lines) must drain and exit 0, not kill the process.
    stop_signals: list[int] = []

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if not stop_signals:
            how = "draining" if signum == signal.SIGTERM else "stopping without the drain delay"
            log.info("%s received: %s", signal.Signals(signum).name, how)
        stop_signals.append(signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    server.start()
    log.info("gRPC listening on %s:%d", split_addr(config.grpc_addr)[0], server.grpc.port)
    try:
        rest_socket = bind(split_addr(config.http_addr))
        listeners = [(rest_socket, server.rest_app)]
        if config.metrics_addr:
            metrics_socket = bind(split_addr(config.metrics_addr))
            listeners.append((metrics_socket, server.exporter))
    except OSError as error:
        log.error("%s", error)
        server.grpc.stop(0)
        server.close_searches()
        return 1
    http_server = server.listen(listeners)
    log.info("REST listening on %s:%d", split_addr(config.http_addr)[0], port_of(rest_socket))
    if config.metrics_addr:
        host = split_addr(config.metrics_addr)[0]
        log.info("metrics listening on %s:%d", host, port_of(metrics_socket))

    while not stop_signals:
        http_server.poll()
    server.stop(config.drain_seconds if stop_signals[0] == signal.SIGTERM else 0.0)
    log.info("stopped")
    return 0


def stop_gracefully(
    grpc_server: GrpcServer,
    http_server: HttpServer,
    ready: threading.Event,
    arrivals: Arrivals,
    drain_delay: float,
    grace: float,
    keep_running: Callable[[], None] = lambda: None,
) -> None:
    """The graceful stop of one server process, on both transports.

    First drain: report not ready (gRPC health NOT_SERVING, ``/readyz`` 503) and
    go on serving everything, so that load balancers and clients watching health
    move new calls elsewhere, until no new request has arrived (``arrivals``)
    for QUIET_SECONDS, ``drain_delay`` seconds at most (mazzo.service.drain);
    then stop accepting and give the calls in flight ``grace`` seconds to finish.
    ``keep_running`` is called often meanwhile (a worker tells its parent it lives).
    """
    ready.clear()
    grpc_server.not_serving()

    def serve(timeout: float) -> None:
        keep_running()
        http_server.poll(min(TICK, timeout))

    if drain_delay > 0:
        # How long and why: what an operator checks MAZZO_DRAIN_SECONDS against.
        log.info("%s", drain(drain_delay, arrivals, serve))
    http_server.stop_accepting()
    started = time.monotonic()
    grpc_took: list[float] = []  # measured by the stop itself: REST may drain longer

    def stop_grpc() -> None:
        grpc_server.stop(grace)
        grpc_took.append(time.monotonic() - started)

    grpc_stop = threading.Thread(target=stop_grpc, name="grpc-drain")
    grpc_stop.start()
    rest_drained = http_server.drain(grace, keep_running)
    rest_seconds = time.monotonic() - started
    while grpc_stop.is_alive():
        keep_running()
        grpc_stop.join(TICK)
    grpc_seconds = grpc_took[0] if grpc_took else time.monotonic() - started
    http_server.close()
    # An operator sizing MAZZO_GRACE_SECONDS wants to know what a stop waited for.
    log.info("drained: REST in %.2f s, gRPC in %.2f s", rest_seconds, grpc_seconds)
    if not rest_drained:
        log.warning("REST requests were still in flight after %g s: cut", grace)
    if grpc_seconds >= grace:
        log.warning("gRPC calls were still in flight after %g s: cancelled", grace)
