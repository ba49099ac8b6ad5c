"""The gRPC transport: mazzo.v1.Engine, health checking and reflection."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent import futures
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf.message import Message
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from grpc_status import rpc_status

from mazzo.engine.errors import Text
from mazzo.service import i18n
from mazzo.service.drain import Arrivals
from mazzo.service.errors import ApiError, ServiceReason, log_refusal
from mazzo.service.handlers import SERVICE_NAME, EngineHandlers, Rpc, rpcs
from mazzo.service.metrics import GrpcMetricsInterceptor, Metrics

log = logging.getLogger(__name__)

#: Trailing metadata naming the server process that answered (multi-process
#: serving only, as the REST header X-Mazzo-Worker): its pid, nothing secret.
WORKER_METADATA_KEY = "x-mazzo-worker"

Metadata = tuple[tuple[str, str], ...]

#: gRPC core refuses a message past this many times MAZZO_MAX_REQUEST_BYTES by
#: itself (RESOURCE_EXHAUSTED, no details); up to it the deserializer below
#: refuses it in the documented form (REQUEST_TOO_LARGE).
CORE_LIMIT_FACTOR = 4


#: A stop closes what gRPC still holds once no call has been in flight for this
#: long (see :meth:`GrpcServer.stop`): ample for a call gRPC had already handed
#: over to reach its handler.
QUIET_SECONDS = 1.0
#: How often a stop looks whether it is over or quiet.
STOP_POLL_SECONDS = 0.05


class CallsInFlight:
    """The engine calls this process's handlers are running, and since when none.

    A stop asks :meth:`quiet_for`: a handler is entered (``with calls:``) only
    once gRPC has handed the call over, so calls gRPC holds but will never hand
    over do not count. Each call entered is noted in ``arrivals`` (the drain's)."""

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, arrivals: Arrivals | None = None
    ) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._running = 0
        self._last_ended = clock()
        self.arrivals = arrivals or Arrivals(clock)

    def __enter__(self) -> None:
        self.arrivals.note()
        with self._lock:
            self._running += 1

    def __exit__(self, *_: object) -> None:
        with self._lock:
            self._running -= 1
            if not self._running:
                self._last_ended = self._clock()

    def quiet_for(self, since: float) -> float:
        """Seconds with no call running, counted from ``since`` at the earliest (on
        this clock); 0 while one runs."""
        with self._lock:
            if self._running:
                return 0.0
            return self._clock() - max(since, self._last_ended)

    def now(self) -> float:
        return self._clock()


def _core_limit(max_bytes: int) -> int:
    return min(CORE_LIMIT_FACTOR * max_bytes, 2**31 - 1)  # gRPC's option is an int32


@dataclass(frozen=True)
class _Status(grpc.Status):
    """A status to abort with: grpc_status's, with more trailing metadata."""

    code: grpc.StatusCode
    details: str
    trailing_metadata: tuple[tuple[str, str | bytes], ...]


class _Refused:
    """What the deserializer hands on for request bytes it refuses: the error to answer."""

    __slots__ = ("error",)

    def __init__(self, error: ApiError) -> None:
        self.error = error


def _request_deserializer(rpc: Rpc, max_bytes: int) -> Callable[[bytes], Any]:
    """Bytes -> request message; never raises (grpc would answer INTERNAL and log a traceback).

    Bytes over ``max_bytes`` or that are not the request message become a
    :class:`_Refused` that the behaviour answers with INVALID_ARGUMENT.
    """
    parse = rpc.request_type.FromString
    type_name = rpc.request_type.DESCRIPTOR.full_name

    def deserialize(data: bytes) -> Any:
        if len(data) > max_bytes:
            return _Refused(
                ApiError.invalid(
                    ServiceReason.REQUEST_TOO_LARGE,
                    Text(
                        "the request is {size} bytes, more than the {limit} accepted",
                        size=len(data),
                        limit=max_bytes,
                    ),
                    limit=str(max_bytes),
                )
            )
        try:
            return parse(data)
        except Exception:  # DecodeError, and whatever else bytes from the wire may cause
            return _Refused(
                ApiError.invalid(
                    ServiceReason.MALFORMED_REQUEST,
                    Text("the request bytes are not a {type} message", type=type_name),
                )
            )

    return deserialize


def _unary_behaviour(
    call: Callable[[Any], Message], calls: CallsInFlight, trailer: Metadata = ()
) -> Callable[[Any, grpc.ServicerContext], Any]:
    def behaviour(request: Any, context: grpc.ServicerContext) -> Any:
        locale = _asked_locale(context)
        with calls:
            return i18n.call_speaking(locale, answer, request, context)

    def answer(request: Any, context: grpc.ServicerContext) -> Any:
        try:
            if type(request) is _Refused:
                log_refusal("gRPC", call.__name__, request.error)
                raise request.error
            response = call(request)
        except ApiError as api_error:
            error = api_error
        except Exception:
            # A bug must not leak a traceback to the caller nor kill the server.
            log.exception("unexpected error in %s", call.__name__)
            error = ApiError.internal()
        else:
            if trailer:
                context.set_trailing_metadata(trailer)
            return response
        status = rpc_status.to_status(error.to_status())
        if trailer:  # abort_with_status replaces the trailing metadata with its own
            status = _Status(status.code, status.details, (*status.trailing_metadata, *trailer))
        context.abort_with_status(status)

    return behaviour


def _asked_locale(context: grpc.ServicerContext) -> str:
    """The language the call's ``accept-language`` metadata asks for (i18n)."""
    for key, value in context.invocation_metadata() or ():
        if key == i18n.METADATA_KEY and isinstance(value, str):
            return i18n.negotiate(value)
    return i18n.DEFAULT_LOCALE


def engine_handler(
    handlers: EngineHandlers,
    calls: CallsInFlight,
    worker: str | None = None,
    max_request_bytes: int = 65536,
) -> grpc.GenericRpcHandler:
    trailer: Metadata = ((WORKER_METADATA_KEY, worker),) if worker else ()
    methods = {
        rpc.name: grpc.unary_unary_rpc_method_handler(
            _unary_behaviour(rpc.call, calls, trailer),
            request_deserializer=_request_deserializer(rpc, max_request_bytes),
            response_serializer=rpc.response_type.SerializeToString,
        )
        for rpc in rpcs(handlers)
    }
    return grpc.method_handlers_generic_handler(SERVICE_NAME, methods)


class GrpcServer:
    """A started gRPC server and what it takes to stop it gracefully.

    ``reuse_port``: bind with SO_REUSEPORT, so that the server processes of one
    multi-process Mazzo share the port (the kernel spreads connections over
    them). Off by default, so that two servers never share a port by accident.
    ``worker``: a name for this process (its pid) sent back as trailing
    metadata ``x-mazzo-worker``; None sends nothing. ``arrivals`` notes each
    engine call's arrival (health checks are not noted), for the drain.
    """

    def __init__(
        self,
        handlers: EngineHandlers,
        metrics: Metrics,
        addr: str,
        *,
        workers: int = 16,
        max_message_bytes: int = 65536,
        reuse_port: bool = False,
        worker: str | None = None,
        arrivals: Arrivals | None = None,
    ):
        self.server = grpc.server(
            futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="grpc"),
            interceptors=[GrpcMetricsInterceptor(metrics)],
            options=[
                ("grpc.max_receive_message_length", _core_limit(max_message_bytes)),
                ("grpc.so_reuseport", 1 if reuse_port else 0),
            ],
        )
        self.calls = CallsInFlight(arrivals=arrivals)
        self.server.add_generic_rpc_handlers(
            (engine_handler(handlers, self.calls, worker, max_message_bytes),)
        )
        self.health = health.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        reflection.enable_server_reflection(
            (
                SERVICE_NAME,
                health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
                reflection.SERVICE_NAME,
            ),
            self.server,
        )
        self.port = self.server.add_insecure_port(addr)
        if self.port == 0:
            raise OSError(f"cannot listen for gRPC on {addr}")

    def start(self) -> None:
        self.server.start()
        for service in ("", SERVICE_NAME):
            self.health.set(service, health_pb2.HealthCheckResponse.SERVING)

    def not_serving(self) -> None:
        """Report NOT_SERVING (for good) while still serving: the start of a drain."""
        self.health.enter_graceful_shutdown()

    def stop(self, grace: float) -> None:
        """Refuse new calls, let in-flight ones finish for up to ``grace`` seconds.

        gRPC core can keep a call that reached it just as the stop began and
        that it will never hand to a handler (a race of its shutdown): the stop
        would wait the whole grace period for it, then cut it. So once no call
        has run for :data:`QUIET_SECONDS` since the stop began, what gRPC still
        holds is closed at once (such calls end UNAVAILABLE, and clients retry)."""
        self.health.enter_graceful_shutdown()
        began = self.calls.now()
        stopped = self.server.stop(grace)
        while not stopped.wait(STOP_POLL_SECONDS):
            if self.calls.quiet_for(began) >= QUIET_SECONDS:
                log.info(
                    "gRPC: no call in flight for %g s; closing the calls and connections "
                    "it still held",
                    QUIET_SECONDS,
                )
                self.server.stop(0).wait()
                return
