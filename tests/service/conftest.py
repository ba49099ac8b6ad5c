"""Real servers for the service tests, started once per session on free ports.

The servers are built from the real classes (EngineHandlers, GrpcServer,
create_app) on 127.0.0.1 port 0; tests that count metrics start their own
stack with a fresh Metrics (see ``running_stack``).
"""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest

from mazzo.v1 import engine_pb2_grpc
from mazzo_client import MazzoClient
from tests.service.support import (
    KEYS,
    OTHER_KID_KEYS,
    SAME_KID_OTHER_SECRET_KEYS,
    Stack,
    running_stack,
)


@pytest.fixture(scope="session")
def stack() -> Iterator[Stack]:
    """The gRPC server and the REST gateway over one set of handlers (key id k1)."""
    with running_stack(KEYS) as running:
        yield running


@pytest.fixture(scope="session")
def other_kid_stack() -> Iterator[Stack]:
    """A foreign gRPC server whose key has another id (k2)."""
    with running_stack(OTHER_KID_KEYS, rest=False) as running:
        yield running


@pytest.fixture(scope="session")
def other_secret_stack() -> Iterator[Stack]:
    """A foreign gRPC server with the same key id (k1) but another secret."""
    with running_stack(SAME_KID_OTHER_SECRET_KEYS, rest=False) as running:
        yield running


@pytest.fixture(scope="session")
def grpc_channel(stack: Stack) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(stack.grpc_target) as channel:
        yield channel


@pytest.fixture(scope="session")
def stub(grpc_channel: grpc.Channel) -> engine_pb2_grpc.EngineStub:
    return engine_pb2_grpc.EngineStub(grpc_channel)


@pytest.fixture(scope="session")
def client(stack: Stack) -> Iterator[MazzoClient]:
    with MazzoClient(stack.grpc_target) as mazzo:
        yield mazzo


@pytest.fixture(scope="session")
def rest_port(stack: Stack) -> int:
    return stack.http_port
