"""`python -m mazzo.service.healthcheck`, the image's HEALTHCHECK: exit 0 only while serving."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest
from grpc_health.v1 import health_pb2

from mazzo.service.healthcheck import main, target_of
from tests.service.processes import REPO, environment, started
from tests.service.support import Stack, running_stack


@pytest.fixture
def stack() -> Iterator[Stack]:
    with running_stack(rest=False) as running:
        yield running


def test_a_serving_server_is_healthy(stack: Stack) -> None:
    assert main(["--target", stack.grpc_target]) == 0
    assert main(["--target", stack.grpc_target, "--service", "mazzo.v1.Engine"]) == 0


def test_a_server_that_reports_not_serving_is_unhealthy(stack: Stack) -> None:
    stack.grpc_server.health.set("", health_pb2.HealthCheckResponse.NOT_SERVING)
    assert main(["--target", stack.grpc_target]) == 1


def test_an_unknown_service_is_unhealthy(stack: Stack) -> None:
    assert main(["--target", stack.grpc_target, "--service", "no.such.Service"]) == 1


def test_nothing_listening_is_unhealthy() -> None:
    with socket.socket() as sock:  # a port that was free a moment ago, and is closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    assert main(["--target", f"127.0.0.1:{port}", "--timeout", "2"]) == 1


def test_wildcard_listen_addresses_are_asked_on_the_loopback() -> None:
    assert target_of("0.0.0.0:50051") == "127.0.0.1:50051"
    assert target_of("[::]:50051") == "[::1]:50051"
    assert target_of("10.1.2.3:9000") == "10.1.2.3:9000"


def test_the_module_reads_mazzo_grpc_addr_and_exits_with_the_verdict() -> None:
    """As the HEALTHCHECK runs it: `python -m mazzo.service.healthcheck`, the address from env."""
    with started() as served:
        served.wait_until_listening()
        env = environment(MAZZO_GRPC_ADDR=f"0.0.0.0:{served.ports['gRPC']}")
        probe = subprocess.run(
            [sys.executable, "-m", "mazzo.service.healthcheck"],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert probe.returncode == 0, probe.stderr
    assert "SERVING" in probe.stderr
    bad = subprocess.run(
        [sys.executable, "-m", "mazzo.service.healthcheck"],
        cwd=REPO,
        env=environment(MAZZO_GRPC_ADDR="not an address"),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 1 and "MAZZO_GRPC_ADDR" in bad.stderr
