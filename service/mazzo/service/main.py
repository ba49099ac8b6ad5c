"""`make serve`: the gRPC server, the REST gateway and the metrics port.

With MAZZO_WORKERS=1, all in this one process; with more, this process
supervises that many server processes sharing the ports (service/mazzo/service/workers.py).
REST (and metrics) are served by mazzo.service.http_server (waitress) either way.
Stops gracefully on SIGTERM or SIGINT: health turns NOT_SERVING and ``/readyz``
503; on SIGTERM the server goes on serving for ``MAZZO_DRAIN_SECONDS`` (while
load balancers take it out), then refuses new calls; in-flight calls get
``MAZZO_GRACE_SECONDS`` to finish, then it exits 0.
"""

from __future__ import annotations

import logging
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from types import FrameType

from prometheus_client import make_wsgi_app

from mazzo.service.config import Config, ConfigError, split_addr
from mazzo.service.grpc_server import GrpcServer
from mazzo.service.handlers import EngineHandlers
from mazzo.service.http_server import (
    TICK,
    HttpServer,
    WsgiApp,
    bind,
    limits_of,
    port_of,
    raise_file_limit,
)
from mazzo.service.metrics import Metrics
from mazzo.service.rest import create_app
from mazzo.service.search_pool import search_pool_of, think

log = logging.getLogger("mazzo")


def main() -> int:
    try:
        config = Config.from_env()
    except ConfigError as error:
        print(f"mazzo: configuration error: {error}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=config.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    if config.dev_key:
        log.warning(
            "MAZZO_STATE_KEYS is not set: using a random development key (id %s); "
            "state tokens will not survive a restart",
            config.state_keys[0][0],
        )
    raise_file_limit()  # inherited by the workers
    if config.workers > 1:
        from mazzo.service import workers  # gunicorn is needed only here

        return workers.serve(config)
    return serve_one_process(config)


def serve_one_process(config: Config) -> int:
    """MAZZO_WORKERS=1: gRPC, REST and metrics in this process, until SIGTERM or SIGINT."""
    metrics = Metrics()
    searches = search_pool_of(config)
    handlers = EngineHandlers.from_config(config, metrics, searches or think)

    # Handlers first: a SIGTERM that arrives while starting (or right after the
    # "listening" lines) must drain and exit 0, not kill the process.
    stop_signals: list[int] = []

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if not stop_signals:
            log.info("%s received: draining", signal.Signals(signum).name)
        stop_signals.append(signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    if searches:
        searches.start()
    grpc_server = GrpcServer(
        handlers,
        metrics,
        config.grpc_addr,
        workers=config.grpc_workers,
        max_message_bytes=config.max_request_bytes,
    )
    grpc_server.start()
    log.info("gRPC listening on %s:%d", split_addr(config.grpc_addr)[0], grpc_server.port)

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
    try:
        rest_socket = bind(split_addr(config.http_addr))
        listeners: list[tuple[socket.socket, WsgiApp]] = [(rest_socket, rest_app)]
        if config.metrics_addr:
            metrics_socket = bind(split_addr(config.metrics_addr))
            listeners.append((metrics_socket, make_wsgi_app(metrics.exposition_registry)))
    except OSError as error:
        log.error("%s", error)
        grpc_server.stop(0)
        if searches:
            searches.close()
        return 1
    http_server = HttpServer(listeners, limits_of(config))
    log.info("REST listening on %s:%d", split_addr(config.http_addr)[0], port_of(rest_socket))
    if config.metrics_addr:
        host = split_addr(config.metrics_addr)[0]
        log.info("metrics listening on %s:%d", host, port_of(metrics_socket))

    while not stop_signals:
        http_server.poll()
    drain_delay = config.drain_seconds if stop_signals[0] == signal.SIGTERM else 0.0
    stop_gracefully(grpc_server, http_server, ready, drain_delay, config.grace_seconds)
    if searches:
        searches.close()
    log.info("stopped")
    return 0


def stop_gracefully(
    grpc_server: GrpcServer,
    http_server: HttpServer,
    ready: threading.Event,
    drain_delay: float,
    grace: float,
    keep_running: Callable[[], None] = lambda: None,
) -> None:
    """The graceful stop of one server process, on both transports.

    First, for ``drain_delay`` seconds, report not ready (gRPC health
    NOT_SERVING, ``/readyz`` 503) and go on serving everything, so that load
    balancers and clients watching health move new calls elsewhere; then stop
    accepting and give the calls in flight ``grace`` seconds to finish.
    ``keep_running`` is called often meanwhile (a worker tells its parent it lives).
    """
    ready.clear()
    grpc_server.not_serving()
    deadline = time.monotonic() + drain_delay
    while time.monotonic() < deadline:
        keep_running()
        http_server.poll(min(TICK, max(deadline - time.monotonic(), 0.0)))
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


if __name__ == "__main__":
    sys.exit(main())
