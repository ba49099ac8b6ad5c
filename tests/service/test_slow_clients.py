"""Slow and stalled clients cannot starve the REST gateway of a served Mazzo.

Many connections send part of a request header and then nothing (more than
the gateway has threads); a normal client on the same port still gets every
answer. With one process and with two. ``make slowloris`` measures the same
with 1,000 stalled connections.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import ExitStack

import pytest

from mazzo.service.http_server import THREADS
from tests.service.processes import started
from tests.service.support import http_call

#: Four times the threads of all the workers together.
STALLED = 4 * THREADS * 2
PARTIAL = b"GET /v1/catalog HTTP/1.1\r\nHost: mazzo\r\nX-Stalled: "


@pytest.fixture
def stalled_sockets() -> Iterator[list[socket.socket]]:
    sockets: list[socket.socket] = []
    yield sockets
    for sock in sockets:
        sock.close()


@pytest.mark.parametrize("workers", [1, 2])
def test_stalled_connections_do_not_starve_a_normal_client(
    workers: int, stalled_sockets: list[socket.socket]
) -> None:
    # A long read timeout: the stalled connections stay open for the whole test.
    with ExitStack() as stack:
        served = stack.enter_context(
            started(MAZZO_WORKERS=str(workers), MAZZO_HTTP_READ_TIMEOUT="120")
        )
        served.wait_until_listening()
        port = served.ports["REST"]
        for _ in range(STALLED):
            sock = socket.create_connection(("127.0.0.1", port), timeout=30)
            sock.sendall(PARTIAL)
            stalled_sockets.append(sock)
        for _ in range(20):
            reply = http_call(port, "GET", "/v1/catalog")
            assert reply.status == 200
            assert reply.json()["games"]
        # The stalled connections are still open: nothing was answered or closed.
        for sock in stalled_sockets:
            sock.setblocking(False)
            with pytest.raises(BlockingIOError):
                sock.recv(1)
