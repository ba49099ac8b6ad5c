"""How a gRPC server process stops: it waits for the calls its handlers run, not
for calls gRPC core holds but will never hand over.

gRPC core can keep a call that reached it just as its stop began without ever
handing it to a handler (a race of its shutdown, rare and not to be provoked
on purpose): the stop would then wait out the whole grace period. These tests
stand a server whose gRPC stop never finishes by itself in for that race.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from mazzo.service.grpc_server import QUIET_SECONDS, CallsInFlight, GrpcServer
from tests.service.support import HandClock, running_stack

#: A bound on waits for a condition: far more than any of them takes.
WAIT_SECONDS = 30.0
GRACE_SECONDS = 600.0


def test_a_call_in_flight_is_never_quiet_and_quiet_counts_from_the_later_of_stop_and_end() -> None:
    clock = HandClock(100.0)
    calls = CallsInFlight(clock)
    with calls:
        clock.now += 50
        assert calls.quiet_for(since=0.0) == 0.0
    clock.now += 2  # ended at 150, now 152
    assert calls.quiet_for(since=0.0) == 2.0
    assert calls.quiet_for(since=151.5) == 0.5


class HeldStop:
    """A gRPC server whose stop with a grace period never finishes by itself, as
    when gRPC core holds a call it will never hand over; a stop with none does."""

    def __init__(self, real: object) -> None:
        self.real = real
        self.graces: list[float] = []

    def stop(self, grace: float) -> threading.Event:
        self.graces.append(grace)
        if grace:
            return threading.Event()  # never set
        return self.real.stop(0)  # type: ignore[attr-defined, no-any-return]


@contextmanager
def held_server(clock: HandClock | None = None) -> Iterator[tuple[GrpcServer, HeldStop]]:
    with running_stack(rest=False) as stack:
        server = stack.grpc_server
        if clock is not None:
            server.calls = CallsInFlight(clock)
        held = HeldStop(server.server)
        server.server = held  # type: ignore[assignment]
        try:
            yield server, held
        finally:
            server.server = held.real  # type: ignore[assignment]


def stop_in_thread(server: GrpcServer) -> threading.Thread:
    stopping = threading.Thread(target=server.stop, args=(GRACE_SECONDS,), daemon=True)
    stopping.start()
    return stopping


def test_a_stop_closes_what_grpc_holds_once_no_call_has_run_for_a_while() -> None:
    with held_server() as (server, held):
        stopping = stop_in_thread(server)
        stopping.join(WAIT_SECONDS + QUIET_SECONDS)
        assert not stopping.is_alive(), "the stop waited on a call no handler ran"
        assert held.graces == [GRACE_SECONDS, 0]


def test_a_stop_waits_for_the_call_a_handler_runs() -> None:
    clock = HandClock(100.0)
    with held_server(clock) as (server, held):
        polled = threading.Semaphore(0)
        quiet_for = server.calls.quiet_for

        def counted(since: float) -> float:
            polled.release()
            return quiet_for(since)

        server.calls.quiet_for = counted  # type: ignore[method-assign]
        with server.calls:  # a handler runs a call
            stopping = stop_in_thread(server)
            assert polled.acquire(timeout=WAIT_SECONDS)
            clock.now += GRACE_SECONDS / 2  # far past the quiet time
            for _ in range(2):  # a whole poll after the clock moved
                assert polled.acquire(timeout=WAIT_SECONDS)
            assert held.graces == [GRACE_SECONDS]
            assert stopping.is_alive()
        clock.now += QUIET_SECONDS
        stopping.join(WAIT_SECONDS)
        assert not stopping.is_alive()
        assert held.graces == [GRACE_SECONDS, 0]
