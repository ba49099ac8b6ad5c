"""`python -m mazzo.service.healthcheck`: is the server on MAZZO_GRPC_ADDR serving? Exit 0 or 1.

The container image's HEALTHCHECK (no grpc_health_probe binary needed). It asks
the standard gRPC health service (grpc.health.v1.Health/Check) of the server
this container runs and exits 0 when the answer is SERVING, 1 otherwise
(NOT_SERVING while the server drains, no answer, an unknown service), with one
line on stderr saying why.

A wildcard listen address (0.0.0.0, [::]) is asked on the loopback address of
the same family. Options: ``--service NAME`` (default "": the whole server;
``mazzo.v1.Engine`` asks for the engine alone), ``--timeout SECONDS`` (default 3),
``--target HOST:PORT`` instead of MAZZO_GRPC_ADDR.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from mazzo.service.config import DEFAULT_GRPC_ADDR, split_addr

WILDCARDS = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}
SERVING = health_pb2.HealthCheckResponse.SERVING


def target_of(listen_addr: str) -> str:
    """The address to ask for a server listening on ``listen_addr`` (wildcards -> loopback)."""
    host, port = split_addr(listen_addr)
    host = WILDCARDS.get(host, host)
    if ":" in host:
        host = f"[{host}]"
    return f"{host}:{port}"


def check(target: str, service: str = "", timeout: float = 3.0) -> tuple[bool, str]:
    """Ask ``target``'s health service about ``service``: (serving, what was seen)."""
    with grpc.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            # types-grpcio-health-checking's HealthStub declares none of its methods.
            reply: health_pb2.HealthCheckResponse = stub.Check(  # type: ignore[attr-defined]
                health_pb2.HealthCheckRequest(service=service), timeout=timeout
            )
        except grpc.RpcError as error:
            return False, f"{target}: {error.code().name}: {error.details()}"
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    return reply.status == SERVING, f"{target}: {status}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m mazzo.service.healthcheck", description=__doc__
    )
    parser.add_argument("--service", default="", help='health service name ("" = the server)')
    parser.add_argument("--timeout", type=float, default=3.0, help="seconds to wait for the answer")
    parser.add_argument("--target", help="host:port to ask (default: from MAZZO_GRPC_ADDR)")
    args = parser.parse_args(argv)
    try:
        target = args.target or target_of(os.environ.get("MAZZO_GRPC_ADDR", DEFAULT_GRPC_ADDR))
    except ValueError as error:
        print(f"healthcheck: MAZZO_GRPC_ADDR: {error}", file=sys.stderr)
        return 1
    serving, seen = check(target, args.service, args.timeout)
    print(f"healthcheck: {seen}", file=sys.stderr)
    return 0 if serving else 1


if __name__ == "__main__":
    sys.exit(main())
