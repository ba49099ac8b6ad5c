"""MAZZO_WORKERS > 1: several server processes behind the same ports.

The parent process is a gunicorn master. Before it forks, it binds the REST
and metrics sockets (gunicorn's classic pre-fork: the workers accept on the
parent's sockets), reserves the gRPC port with a bound, non-listening
SO_REUSEPORT socket, and points prometheus_client at a fresh
PROMETHEUS_MULTIPROC_DIR. Then it forks MAZZO_WORKERS workers. Each worker:

- builds its own parts as a single server process does
  (mazzo.service.process.ServerProcess): handlers, metrics, search pool
  (every worker holds the same state keys, read once by the parent, so any
  worker opens any worker's tokens);
- serves gRPC on the reserved port, bound again with SO_REUSEPORT as in
  grpcio's multiprocessing example: the kernel spreads new connections over
  the workers;
- serves the REST gateway (``mazzo.service.rest.create_app``) and, on the metrics
  port, the Prometheus exposition of every worker's values summed, through
  mazzo.service.http_server (waitress, as a single process serves them) on the
  parent's sockets; gunicorn's own HTTP handling is not used;
- names itself in each answer: the ``X-Mazzo-Worker`` HTTP header and the
  ``x-mazzo-worker`` gRPC trailing metadata carry its pid (nothing secret, and
  what an operator needs to tell the workers apart).

The parent logs "gRPC listening on ...", "REST listening on ...", "metrics
listening on ..." once every worker serves both transports.

Stopping: SIGTERM or SIGINT to the parent closes its copies of the REST and
metrics sockets and sends the same signal to every worker (SIGINT to the whole
group, as Ctrl-C in a terminal sends it, reaches each worker directly too).
A worker stops as a single process does (mazzo.service.process.stop_gracefully):
after SIGTERM NOT_SERVING and ``/readyz`` 503 while it still serves for
MAZZO_DRAIN_SECONDS, after SIGINT without that delay; then it refuses new calls
and lets calls in flight finish, on both transports, for MAZZO_GRACE_SECONDS;
the parent kills what is left after both and exits 0. So SIGTERM drains every
worker and SIGINT none, whoever receives it. SIGQUIT is gunicorn's quick stop.

A worker that dies after it started (a crash, the OOM killer) is noticed by the
parent, logged as an error ("worker PID stopped unexpectedly: starting a
replacement") and replaced. A worker that cannot start at all (the gRPC port
cannot be bound, say) would fail again at once: the parent then stops every
worker and exits with status 3 ("Worker failed to boot").
"""

from __future__ import annotations

import errno
import logging
import math
import os
import select
import shutil
import signal
import socket
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from types import FrameType
from typing import Any, NoReturn, cast

from gunicorn import glogging
from gunicorn.app.base import BaseApplication
from gunicorn.arbiter import Arbiter
from gunicorn.errors import HaltServer
from gunicorn.sock import BaseSocket
from gunicorn.workers.base import Worker as BaseWorker

from mazzo.service.config import Config, split_addr
from mazzo.service.http_server import WsgiApp
from mazzo.service.metrics import mark_process_dead, use_multiprocess_dir
from mazzo.service.process import ServerProcess

log = logging.getLogger("mazzo")

#: How long the parent waits for the first workers to serve before giving up.
START_TIMEOUT = 60.0
WORKER_HEADER = "X-Mazzo-Worker"
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT)


# ---------------------------------------------------------------------- the plan


@dataclass
class Plan:
    """What the parent settles before forking, and every worker reads."""

    config: Config
    grpc_host: str
    grpc_reservation: socket.socket
    grpc_port: int
    #: Filled in by the parent once its sockets are bound (ports may have been 0).
    rest: tuple[str, int] = ("", 0)
    metrics: tuple[str, int] | None = None
    #: Workers write their pid here once they serve; the parent reads it.
    ready_pipe: tuple[int, int] = field(default_factory=os.pipe)


def reserve_port(addr: str) -> socket.socket:
    """Bind (without listening) a SO_REUSEPORT socket on `addr`: the port the workers will share.

    As long as it stays open the port is ours (port 0 picks a free one), and
    the workers' gRPC servers, bound with SO_REUSEPORT too, join it. A port
    that something already listens on is refused first, so that two servers
    never share a port by accident.
    """
    host, port = split_addr(addr)
    try:
        family, kind, proto, _, sockaddr = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as error:
        raise OSError(f"cannot listen for gRPC on {addr}: {error}") from None
    if port:
        probe = socket.socket(family, kind, proto)
        try:
            # SO_REUSEADDR as gRPC sets it: connections of a previous run in
            # TIME_WAIT do not count as "in use", a listening socket does.
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(sockaddr)
        except OSError as error:
            raise OSError(f"cannot listen for gRPC on {addr}: {error.strerror}") from None
        finally:
            probe.close()
    reservation = socket.socket(family, kind, proto)
    try:
        reservation.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        reservation.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        reservation.bind(sockaddr)
    except OSError as error:
        reservation.close()
        raise OSError(f"cannot listen for gRPC on {addr}: {error.strerror}") from None
    return reservation


# ---------------------------------------------------------------------- worker


def with_worker_header(app: WsgiApp, pid: int) -> WsgiApp:
    """``app``, naming this worker in every answer (the X-Mazzo-Worker header)."""
    header = (WORKER_HEADER, str(pid))

    def named(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            headers.append(header)
            return start_response(status, headers, exc_info)

        return app(environ, start)

    return named


class Worker(BaseWorker):
    """One server process (a ServerProcess) on the parent's sockets and the shared gRPC port."""

    server: ServerProcess
    _stop_signal: int | None = None

    @property
    def plan(self) -> Plan:
        app = self.app
        assert isinstance(app, Application)  # the one Master was made with
        return app.plan

    def init_process(self) -> None:
        # Until gunicorn installs its handlers, a stop signal still means "stop".
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, self.handle_exit)
        plan = self.plan
        os.close(plan.ready_pipe[0])
        plan.grpc_reservation.close()  # the parent keeps the port; this copy is not needed
        # gunicorn has set pid to this process's (the stubs type its "[booting]" placeholder).
        pid = int(self.pid)
        self.server = ServerProcess.build(
            plan.config, f"{plan.grpc_host}:{plan.grpc_port}", reuse_port=True, worker=str(pid)
        )
        self.server.start()
        listeners: list[tuple[socket.socket, WsgiApp]] = []
        # gunicorn hands each worker the parent's LISTENERS: its wrappers (gunicorn.sock)
        # of the sockets the parent bound, which the stubs type as sockets.
        for listener in cast("list[BaseSocket]", self.sockets):
            sock = listener.sock
            metrics = sock.getsockname()[:2] == plan.metrics
            app = self.server.exporter if metrics else self.server.rest_app
            listeners.append((sock, with_worker_header(app, pid)))
        self.server.listen(listeners)
        super().init_process()

    def load_wsgi(self) -> None:
        pass  # no app of gunicorn's: each listener has its own (init_process)

    def init_signals(self) -> None:
        super().init_signals()
        # Ctrl-C reaches every process of the terminal's group: drain, as the parent does.
        signal.signal(signal.SIGINT, self.handle_exit)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self._stop_signal is None:
            self._stop_signal = sig
        self.alive = False

    def handle_quit(self, sig: int, frame: FrameType | None) -> None:
        self.server.grpc.server.stop(0)
        super().handle_quit(sig, frame)

    def run(self) -> None:
        os.write(self.plan.ready_pipe[1], f"{self.pid}\n".encode())
        http = self.server.http
        assert http is not None  # listening since init_process
        while self.alive:
            self.notify()
            http.poll()
            if self.ppid != os.getppid():
                log.info("worker %d: the parent is gone, stopping", self.pid)
                break
        # The drain delay is for SIGTERM (an orchestrator's stop), not Ctrl-C.
        sigterm = self._stop_signal == signal.SIGTERM
        drain = self.plan.config.drain_seconds if sigterm else 0.0
        log.info("worker %d stopping, %s", self.pid, _drain_words(drain))
        self.server.stop(drain, self.notify)


# ---------------------------------------------------------------------- parent


class Master(Arbiter):
    """gunicorn's arbiter, plus the gRPC port, Mazzo's log lines and SIGINT passed on as is."""

    def __init__(self, app: Application):
        self.plan = app.plan
        self.stopping = False
        self._stop_signal: int | None = None
        self._announced = False
        self._ready: set[int] = set()
        self._ready_buffer = b""
        super().__init__(app)

    def start(self) -> None:
        super().start()  # binds the REST and metrics sockets
        names = [listener.sock.getsockname() for listener in self.LISTENERS]
        self.plan.rest = names[0][0], names[0][1]
        if self.plan.config.metrics_addr:
            self.plan.metrics = names[1][0], names[1][1]
        os.set_blocking(self.plan.ready_pipe[0], False)

    def early_signal(self, signum: int, frame: FrameType | None) -> None:
        """The handler from the very start until gunicorn installs its own."""
        self._stop_signal = signum

    def init_signals(self) -> None:
        super().init_signals()
        if self._stop_signal is not None:
            self.signal(self._stop_signal, None)

    def signal(self, sig: int, frame: FrameType | None) -> None:
        if sig in STOP_SIGNALS:
            self._stop_signal = sig
        super().signal(sig, frame)

    def handle_term(self) -> None:
        log.info("SIGTERM received: draining")
        raise StopIteration

    def handle_int(self) -> None:
        log.info("SIGINT received: stopping without the drain delay")
        raise StopIteration

    def kill_workers(self, sig: int) -> None:
        # gunicorn stops its workers with SIGTERM, which drains; after SIGINT to the
        # parent alone they get SIGINT instead, as Ctrl-C to the group gives them.
        if sig == signal.SIGTERM and self.stopping and self._stop_signal == signal.SIGINT:
            sig = signal.SIGINT
        super().kill_workers(sig)

    def stop(self, graceful: bool = True) -> None:
        self.stopping = True
        super().stop(graceful)

    def reap_workers(self) -> None:
        # gunicorn raises on the first worker that failed to boot, leaving the
        # others unreaped; once stopping, every worker must be reaped.
        while True:
            try:
                super().reap_workers()
                return
            except HaltServer:
                if not self.stopping:
                    raise

    def manage_workers(self) -> None:
        super().manage_workers()
        if self._announced:
            self._read_ready()
        else:
            self._await_workers()

    def _read_ready(self, timeout: float = 0.0) -> None:
        if timeout and not select.select([self.plan.ready_pipe[0]], [], [], timeout)[0]:
            return
        try:
            self._ready_buffer += os.read(self.plan.ready_pipe[0], 4096)
        except BlockingIOError:
            return
        *lines, self._ready_buffer = self._ready_buffer.split(b"\n")
        for line in lines:
            pid = int(line)
            self._ready.add(pid)
            log.info("worker %d serving gRPC and REST", pid)

    def _await_workers(self) -> None:
        """Wait until every worker serves, then say where: the log lines that mean "ready"."""
        deadline = time.monotonic() + START_TIMEOUT
        while self._stop_signal is None:
            self._read_ready(timeout=0.05)
            self._ready &= set(self.WORKERS)
            if len(self._ready) >= self.num_workers:
                self._announce()
                return
            self.reap_workers()  # a worker that failed to boot halts the parent here
            if len(self.WORKERS) < self.num_workers:
                self.spawn_workers()
            if time.monotonic() > deadline:
                raise HaltServer(f"the workers did not start within {START_TIMEOUT:g} s", 1)

    def _announce(self) -> None:
        plan = self.plan
        log.info("gRPC listening on %s:%d", plan.grpc_host, plan.grpc_port)
        log.info("REST listening on %s:%d", split_addr(plan.config.http_addr)[0], plan.rest[1])
        if plan.metrics is not None:
            metrics_host = split_addr(plan.config.metrics_addr)[0]
            log.info("metrics listening on %s:%d", metrics_host, plan.metrics[1])
        self._announced = True


def _drain_words(drain: float) -> str:
    return f"draining for {drain:g} s" if drain else "without the drain delay"


def _child_exit(master: Master, worker: Worker) -> None:
    """gunicorn's hook in the parent, after a worker exited, whatever the reason."""
    mark_process_dead(int(worker.pid))  # an int by now (the stubs type the "[booting]" placeholder)
    if not master.stopping:
        log.error("worker %d stopped unexpectedly: starting a replacement", worker.pid)


class _Logger(glogging.Logger):
    """gunicorn's messages through Mazzo's logging set-up (stderr, one format), no access log."""

    def setup(self, cfg: Any) -> None:
        self.cfg = cfg
        self._access_log_enabled = False
        level = logging.getLevelNamesMapping().get(cfg.loglevel.upper(), logging.INFO)
        self.error_log.setLevel(level)
        self.error_log.propagate = True


class Application(BaseApplication):
    def __init__(self, plan: Plan):
        self.plan = plan
        super().__init__()

    def load_config(self) -> None:
        config = self.plan.config
        binds = [config.http_addr] + ([config.metrics_addr] if config.metrics_addr else [])
        settings: dict[str, Any] = {
            "bind": binds,
            "workers": config.workers,
            "worker_class": Worker,
            # A worker drains (MAZZO_DRAIN_SECONDS), then lets calls finish
            # (MAZZO_GRACE_SECONDS); the parent kills what is left after both.
            "graceful_timeout": math.ceil(config.drain_seconds + config.grace_seconds) + 1,
            "logger_class": _Logger,
            "loglevel": config.log_level.lower(),
            "proc_name": "mazzo",
            "child_exit": _child_exit,
            # gunicorn's control socket is a thread and a file in the working directory.
            "control_socket_disable": True,
        }
        for name, value in settings.items():
            self.cfg.set(name, value)

    def load(self) -> NoReturn:
        raise RuntimeError("each worker builds its own app (Worker.load_wsgi)")


def serve(config: Config) -> int:
    """Run the parent until it is stopped; its exit status."""
    # A stop signal from now on is kept and acted on once gunicorn's handlers are in place.
    held: list[int] = []
    for signum in STOP_SIGNALS:
        signal.signal(signum, lambda signum, frame: held.append(signum))
    try:
        reservation = reserve_port(config.grpc_addr)
    except OSError as error:
        log.error("%s", error)
        return 1
    plan = Plan(config, split_addr(config.grpc_addr)[0], reservation, reservation.getsockname()[1])
    directory = tempfile.mkdtemp(prefix="mazzo-metrics-")
    use_multiprocess_dir(directory)
    parent = os.getpid()
    status = 1
    try:
        master = Master(Application(plan))
        if held:
            master.early_signal(held[-1], None)
        master.run()  # exits with SystemExit, here in the parent and in every worker
    except SystemExit as exit_:
        if os.getpid() != parent:
            raise  # a worker leaving: not ours to clean up
        status = exit_.code if isinstance(exit_.code, int) else 0 if exit_.code is None else 1
    finally:
        if os.getpid() == parent:
            reservation.close()
            for fd in plan.ready_pipe:
                _close_quietly(fd)
            shutil.rmtree(directory, ignore_errors=True)
    log.info("stopped")
    return status


def _close_quietly(fd: int) -> None:
    try:
        os.close(fd)
    except OSError as error:
        if error.errno != errno.EBADF:
            raise
