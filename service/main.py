"""`make serve`: the gRPC server, the REST gateway and the metrics port.

With MAZZO_WORKERS=1, all in this one process; with more, this process
supervises that many server processes sharing the ports (service/workers.py).
Stops gracefully on SIGTERM or SIGINT: health turns NOT_SERVING, new calls are
refused, in-flight calls get ``MAZZO_GRACE_SECONDS`` to finish, then it exits 0.
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
from types import FrameType

from werkzeug.serving import make_server

from service.config import Config, ConfigError, split_addr
from service.grpc_server import GrpcServer
from service.handlers import EngineHandlers
from service.metrics import Metrics, serve_metrics
from service.rest import create_app
from service.state_token import StateSealer

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
            "MAZZO_STATE_KEYS is not set: using a random development key; "
            "state tokens will not survive a restart"
        )
    if config.workers > 1:
        from service import workers  # gunicorn is needed only here

        return workers.serve(config)
    return serve_one_process(config)


def serve_one_process(config: Config) -> int:
    """MAZZO_WORKERS=1: gRPC, REST and metrics in this process, until SIGTERM or SIGINT."""
    metrics = Metrics()
    handlers = EngineHandlers(
        StateSealer(config.state_keys), metrics, max_suggest_ms=config.max_suggest_ms
    )

    # Handlers first: a SIGTERM that arrives while starting (or right after the
    # "listening" lines) must drain and exit 0, not kill the process.
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        log.info("%s received: draining", signal.Signals(signum).name)
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    grpc_server = GrpcServer(
        handlers,
        metrics,
        config.grpc_addr,
        workers=config.grpc_workers,
        max_message_bytes=config.max_request_bytes,
    )
    grpc_server.start()
    log.info("gRPC listening on %s:%d", split_addr(config.grpc_addr)[0], grpc_server.port)

    host, port = split_addr(config.http_addr)
    http_server = make_server(
        host, port, create_app(handlers, metrics, config.max_request_bytes), threaded=True
    )
    # Request threads are joined on close, so in-flight REST calls finish too.
    http_server.daemon_threads = False
    http_thread = threading.Thread(target=http_server.serve_forever, name="http", daemon=True)
    http_thread.start()
    log.info("REST listening on %s:%d", host, http_server.server_port)

    metrics_server = None
    if config.metrics_addr:
        metrics_server = serve_metrics(config.metrics_addr, metrics)
        log.info(
            "metrics listening on %s:%d", split_addr(config.metrics_addr)[0], metrics_server.port
        )

    while not stop.wait(0.5):
        pass

    http_server.shutdown()
    http_server.server_close()
    grpc_server.stop(config.grace_seconds)
    if metrics_server is not None:
        metrics_server.stop()
    log.info("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
