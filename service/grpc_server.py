"""The gRPC transport: mazzo.v1.Engine, health checking and reflection."""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent import futures
from typing import Any

import grpc
from google.protobuf.message import Message
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from grpc_status import rpc_status

from service.errors import ApiError
from service.handlers import SERVICE_NAME, EngineHandlers, rpcs
from service.metrics import GrpcMetricsInterceptor, Metrics

log = logging.getLogger(__name__)

#: Trailing metadata naming the server process that answered (multi-process
#: serving only, as the REST header X-Mazzo-Worker): its pid, nothing secret.
WORKER_METADATA_KEY = "x-mazzo-worker"

Metadata = tuple[tuple[str, str], ...]


def _unary_behaviour(
    call: Callable[[Any], Message], trailer: Metadata = ()
) -> Callable[[Any, grpc.ServicerContext], Any]:
    def behaviour(request: Any, context: grpc.ServicerContext) -> Any:
        try:
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
            status = status._replace(trailing_metadata=(*status.trailing_metadata, *trailer))
        context.abort_with_status(status)

    return behaviour


def engine_handler(handlers: EngineHandlers, worker: str | None = None) -> grpc.GenericRpcHandler:
    trailer: Metadata = ((WORKER_METADATA_KEY, worker),) if worker else ()
    methods = {
        rpc.name: grpc.unary_unary_rpc_method_handler(
            _unary_behaviour(rpc.call, trailer),
            request_deserializer=rpc.request_type.FromString,
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
    metadata ``x-mazzo-worker``; None sends nothing.
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
    ):
        self.server = grpc.server(
            futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="grpc"),
            interceptors=[GrpcMetricsInterceptor(metrics)],
            options=[
                ("grpc.max_receive_message_length", max_message_bytes),
                ("grpc.so_reuseport", 1 if reuse_port else 0),
            ],
        )
        self.server.add_generic_rpc_handlers((engine_handler(handlers, worker),))
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

    def stop(self, grace: float) -> None:
        """Refuse new calls, let in-flight ones finish for up to ``grace`` seconds."""
        self.health.enter_graceful_shutdown()
        self.server.stop(grace).wait()
