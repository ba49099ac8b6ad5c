"""Stalled clients against the REST gateway: does a normal client still get answers?

    python -m tools.slowloris [--connections 1000] [--seconds 20] [--workers 4]

``make slowloris`` starts ``python -m mazzo.service`` on free ports of
127.0.0.1 (nothing else is ever a target) with ``--workers`` processes and the
default ``MAZZO_HTTP_READ_TIMEOUT``. It opens ``--connections`` connections
to the REST port that each send part of a request header, then nothing, and
keeps that many open for ``--seconds`` (a connection the server closes is
replaced). Meanwhile a normal client calls ``GET /v1/catalog`` on a fresh
connection, one call after the other.

It prints the normal client's calls, failures and latency percentiles, and
how long each stalled connection lived after its last byte before the server
closed it (its 408, or its close). It exits non-zero when a normal call
failed, the normal client's p99 reached 1 s, or the stalled connections'
p99 lifetime passed the read timeout by more than MEASURE_SLACK, or their
longest by more than MAX_SLACK: this client's own delay in seeing the
server's answer, among a thousand sockets that all time out in the same
tenth of a second on a machine whose cores are busy.
"""

from __future__ import annotations

import argparse
import http.client
import resource
import selectors
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from mazzo.service.config import DEFAULT_HTTP_READ_TIMEOUT

HOST = "127.0.0.1"
PARTIAL = b"GET /v1/catalog HTTP/1.1\r\nHost: mazzo\r\nX-Stalled: "
P99_LIMIT = 1.0
MEASURE_SLACK = 0.5
MAX_SLACK = 1.0
#: Stalled connections opened again per turn of the attacker's loop.
REPLACEMENTS = 20


def raise_file_limit(needed: int) -> None:
    """Let this process hold ``needed`` sockets (the soft limit up to the hard one)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


class Stallers:
    """``count`` connections that each sent part of a header, each replaced once closed."""

    def __init__(self, port: int, count: int) -> None:
        self.port = port
        self.count = count
        self.selector = selectors.DefaultSelector()
        #: From the last byte sent to the server's 408 (or its close, without one).
        self.lifetimes: list[float] = []
        self.failed_opens = 0
        self.stop = threading.Event()

    def open_one(self) -> None:
        try:
            sock = socket.create_connection((HOST, self.port), timeout=30)
            sock.sendall(PARTIAL)
        except OSError:
            self.failed_opens += 1
            return
        sock.setblocking(False)
        self.selector.register(sock, selectors.EVENT_READ, time.monotonic())

    def run(self) -> None:
        while not self.stop.is_set():
            for key, _ in self.selector.select(0.1):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                try:
                    data = sock.recv(65536)
                except OSError:
                    data = b""
                if data:  # the 408, then the close: the server acted now
                    self.lifetimes.append(time.monotonic() - key.data)
                    self.selector.modify(sock, selectors.EVENT_READ, None)
                    continue
                if key.data is not None:  # closed without a 408
                    self.lifetimes.append(time.monotonic() - key.data)
                self.selector.unregister(sock)
                sock.close()
            # A few replacements a turn, so that closes are seen as they happen.
            for _ in range(min(REPLACEMENTS, self.count - len(self.selector.get_map()))):
                self.open_one()

    def close(self) -> None:
        for key in list(self.selector.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]
        self.selector.close()


def normal_client(
    port: int, stop: threading.Event, latencies: list[float], errors: list[str]
) -> None:
    while not stop.is_set():
        started = time.monotonic()
        connection = http.client.HTTPConnection(HOST, port, timeout=30)
        try:
            connection.request("GET", "/v1/catalog")
            response = connection.getresponse()
            response.read()
            if response.status != 200:
                errors.append(f"HTTP {response.status}")
        except (OSError, http.client.HTTPException) as error:
            errors.append(repr(error))
        finally:
            connection.close()
        latencies.append(time.monotonic() - started)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def measure(port: int, connections: int, seconds: float) -> tuple[list[float], list[str], Stallers]:
    stallers = Stallers(port, connections)
    opened = time.monotonic()
    while len(stallers.selector.get_map()) < connections:
        stallers.open_one()
        if stallers.failed_opens > connections:
            break
    print(
        f"{len(stallers.selector.get_map())} stalled connections open"
        f" in {time.monotonic() - opened:.1f} s"
    )
    attacker = threading.Thread(target=stallers.run, name="stallers")
    attacker.start()
    stop = threading.Event()
    latencies: list[float] = []
    errors: list[str] = []
    client = threading.Thread(target=normal_client, args=(port, stop, latencies, errors))
    client.start()
    time.sleep(seconds)  # the measurement's length, not a wait for a condition
    stop.set()
    client.join()
    stallers.stop.set()
    attacker.join()
    stallers.close()
    return latencies, errors, stallers


def main(argv: Sequence[str] | None = None) -> int:
    from loadtests.run import running_server, server_problems

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--workers", type=int, default=4, help="MAZZO_WORKERS of the server")
    args = parser.parse_args(argv)
    raise_file_limit(args.connections + 256)
    with tempfile.TemporaryDirectory(prefix="mazzo-slowloris-") as results:
        with running_server(args.workers, Path(results)) as server:
            latencies, errors, stallers = measure(
                server.ports["REST"], args.connections, args.seconds
            )
        problems = server_problems(server)
    timeout = DEFAULT_HTTP_READ_TIMEOUT
    lived = stallers.lifetimes
    print(f"normal client: {len(latencies)} calls of GET /v1/catalog, {len(errors)} failed")
    if latencies:
        p50, p99 = percentile(latencies, 0.5), percentile(latencies, 0.99)
        print(
            f"  latency p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms,"
            f" max {max(latencies) * 1000:.1f} ms"
        )
    if lived:
        print(
            f"stalled connections closed by the server: {len(lived)};"
            " time from the last byte to the "
            f"close: median {statistics.median(lived):.2f} s,"
            f" p99 {percentile(lived, 0.99):.2f} s, max {max(lived):.2f} s "
            f"(read timeout {timeout:g} s)"
        )
    if not latencies or errors:
        problems.append(f"normal calls failed: {errors[:5]}")
    elif percentile(latencies, 0.99) >= P99_LIMIT:
        problems.append(f"p99 {percentile(latencies, 0.99):.2f} s is not under {P99_LIMIT:g} s")
    if not lived:
        problems.append("no stalled connection was closed")
    elif percentile(lived, 0.99) > timeout + MEASURE_SLACK or max(lived) > timeout + MAX_SLACK:
        problems.append("stalled connections outlived the read timeout")
    for problem in problems:
        print("FAILED: " + problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
