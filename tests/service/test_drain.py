"""The drain after SIGTERM: serve on, not ready, until no new request has come for a while.

The rule (mazzo.service.drain): the drain ends once no request has arrived
for QUIET_SECONDS, and at MAZZO_DRAIN_SECONDS at the latest; probes and
scrapes are no requests. The rule is checked on a clock the tests move by
hand, by conditions (requests arriving or not), never by how long anything
takes; then on a real server, whose drain bound is far beyond any wait here.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from werkzeug.test import Client

from mazzo.service.drain import QUIET_SECONDS, Arrivals, Drained, drain, noting_arrivals
from mazzo.v1 import engine_pb2 as pb
from mazzo.v1 import engine_pb2_grpc
from tests.service.processes import started
from tests.service.support import HandClock, http_call, running_stack

BOUND = 30.0
#: How far one turn of the stand-in event loop moves the clock, at most.
TURN = 0.1
#: A bound on waits for a condition: far more than any of them takes, far less
#: than the drain bound of the real server below.
WAIT_SECONDS = 60.0


class Loop:
    """The server's event loop stood in for: each turn moves the hand clock on by
    what the drain allows (a tick at most), and a request arrives on each turn
    for which ``arriving(seconds since the drain began)`` holds."""

    def __init__(self, clock: HandClock, arrivals: Arrivals, arriving: Callable[[float], bool]):
        self.clock, self.arrivals, self.arriving = clock, arrivals, arriving
        self.began = clock.now

    def __call__(self, timeout: float) -> None:
        assert timeout > 0, "the drain asked for a turn it did not need"
        self.clock.now += min(timeout, TURN)
        if self.arriving(self.clock.now - self.began):
            self.arrivals.note()


def drained(arriving: Callable[[float], bool], bound: float = BOUND) -> Drained:
    clock = HandClock(1000.0)
    arrivals = Arrivals(clock)
    return drain(bound, arrivals, Loop(clock, arrivals, arriving))


def test_a_drain_no_request_reaches_ends_once_quiet_long_before_its_bound() -> None:
    ended = drained(lambda _: False)
    assert ended.quiet and ended.last_arrival is None
    assert ended.seconds == pytest.approx(QUIET_SECONDS)
    assert str(ended) == f"drain over after {QUIET_SECONDS:.2f} s: no new request for 1 s"


def test_a_drain_goes_on_while_requests_arrive_and_ends_a_quiet_period_after_the_last() -> None:
    last = 7.0
    ended = drained(lambda since: since <= last + TURN / 2)
    assert ended.quiet
    assert ended.seconds == pytest.approx(last + QUIET_SECONDS)
    assert ended.seconds < BOUND


def test_a_drain_that_requests_keep_reaching_stops_at_its_bound() -> None:
    ended = drained(lambda _: True)
    assert not ended.quiet
    assert ended.seconds == pytest.approx(BOUND)
    assert ended.last_arrival == pytest.approx(0.0)
    assert "MAZZO_DRAIN_SECONDS reached while requests still arrived" in str(ended)


def test_a_drain_bound_shorter_than_the_quiet_period_still_bounds_it() -> None:
    ended = drained(lambda _: False, bound=QUIET_SECONDS / 2)
    assert not ended.quiet and ended.last_arrival is None
    assert ended.seconds == pytest.approx(QUIET_SECONDS / 2)
    assert str(ended).endswith("MAZZO_DRAIN_SECONDS reached")


def test_rest_requests_are_arrivals_and_probes_and_scrapes_are_not() -> None:
    clock = HandClock(1000.0)
    arrivals = Arrivals(clock)

    def app(environ: object, start_response: Callable[..., object]) -> list[bytes]:
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"ok"]

    client = Client(noting_arrivals(app, arrivals))
    for probe in ("/healthz", "/readyz", "/metrics"):
        clock.now += 1
        client.get(probe)
    assert arrivals.last == float("-inf")
    for path, at in (("/v1/catalog", 1010.0), ("/play", 1020.0)):
        clock.now = at
        client.get(path)
        assert arrivals.last == at


def test_engine_calls_are_arrivals_and_grpc_health_checks_are_not() -> None:
    with running_stack(rest=False) as stack:
        arrivals = stack.grpc_server.calls.arrivals
        with grpc.insecure_channel(stack.grpc_target) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            health.Check(health_pb2.HealthCheckRequest(service="mazzo.v1.Engine"), timeout=30)
            assert arrivals.last == float("-inf")
            engine_pb2_grpc.EngineStub(channel).GetCatalog(pb.GetCatalogRequest(), timeout=30)
            assert arrivals.last > float("-inf")


def _probe_readiness(port: int, stop: threading.Event, seen: list[int]) -> None:
    while not stop.wait(0.05):
        try:
            seen.append(http_call(port, "GET", "/readyz").status)
        except OSError:
            return  # stopped accepting


@pytest.mark.parametrize("workers", [1, 2])
def test_sigterm_without_traffic_ends_the_drain_once_quiet_not_at_its_bound(workers: int) -> None:
    # A bound no wait here reaches: only the quiet rule can end this drain in time.
    bound = 10 * WAIT_SECONDS
    with started(MAZZO_WORKERS=str(workers), MAZZO_DRAIN_SECONDS=f"{bound:g}") as served:
        served.wait_until_listening()
        stop = threading.Event()
        readiness: list[int] = []
        # A balancer's checks go on through the drain; they do not hold it up.
        prober = threading.Thread(
            target=_probe_readiness, args=(served.ports["REST"], stop, readiness)
        )
        prober.start()
        try:
            served.process.send_signal(signal.SIGTERM)
            code = served.process.wait(WAIT_SECONDS)
        finally:
            stop.set()
            prober.join(WAIT_SECONDS)
    assert code == 0, served.log
    ended = [line for line in served.lines if "drain over after" in line]
    assert len(ended) == workers, served.log
    assert all(line.endswith(f"no new request for {QUIET_SECONDS:g} s") for line in ended)
    assert 503 in readiness, readiness  # it did drain: not ready, still answering
