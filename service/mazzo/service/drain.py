"""The drain of a stopping server process: it serves on, not ready, until callers have moved on.

After SIGTERM a server process reports not ready (gRPC health NOT_SERVING,
``/readyz`` 503) and goes on serving. How long callers still send it new
requests is not its to know: a load balancer that checks ``/readyz`` every
``inter`` seconds takes it out after ``fall`` failed checks, a proxy with
passive checks only never does, and gRPC clients that watch health move on
at once. So the drain does not last a fixed time: it ends once no new
request has arrived for :data:`QUIET_SECONDS` (the callers have moved on), and
at the latest after its bound, ``MAZZO_DRAIN_SECONDS``. Health probes and
metrics scrapes are not requests here: a balancer checks a draining server
as often as a serving one.

What counts as a request arriving is an engine call handed to its handler
(gRPC) or a REST request handed to the app (:func:`noting_arrivals`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from mazzo.service.http_server import WsgiApp

#: A drain ends once no new request has arrived for this long: longer than the
#: gaps between the calls of a steady load, short enough to stop soon once a
#: balancer has taken the server out.
QUIET_SECONDS = 1.0
#: REST paths that are no caller's work: probes and the scrape.
NOT_ARRIVALS = frozenset({"/healthz", "/readyz", "/metrics"})


class Arrivals:
    """When the last request arrived, on ``clock`` (seconds, monotonic).

    Written by the threads that serve (a float assigned whole: no lock needed),
    read by the drain."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.last = float("-inf")

    def note(self) -> None:
        self.last = self.clock()


def noting_arrivals(app: WsgiApp, arrivals: Arrivals) -> WsgiApp:
    """``app``, noting in ``arrivals`` every request but the probes and the scrape."""

    def noted(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO") not in NOT_ARRIVALS:
            arrivals.note()
        return app(environ, start_response)

    return noted


@dataclass(frozen=True)
class Drained:
    """How a drain ended: after ``seconds``, ``quiet`` (no new request for
    ``quiet_seconds``) or at its bound, the last request ``last_arrival`` seconds
    before (None: none arrived while it drained)."""

    seconds: float
    quiet: bool
    quiet_seconds: float
    last_arrival: float | None

    def __str__(self) -> str:
        """The log line an operator sizing MAZZO_DRAIN_SECONDS reads."""
        if self.quiet:
            why = f"no new request for {self.quiet_seconds:g} s"
        elif self.last_arrival is None:
            why = "MAZZO_DRAIN_SECONDS reached"
        else:
            why = (
                "MAZZO_DRAIN_SECONDS reached while requests still arrived"
                f" (the last {self.last_arrival:.2f} s before)"
            )
        return f"drain over after {self.seconds:.2f} s: {why}"


def drain(
    bound: float,
    arrivals: Arrivals,
    serve: Callable[[float], None],
    quiet_seconds: float = QUIET_SECONDS,
) -> Drained:
    """Serve until no request has arrived for ``quiet_seconds`` (counted from the
    drain's start at the earliest) or ``bound`` seconds have passed, whichever
    comes first. ``serve(timeout)`` serves for at most ``timeout`` seconds (one
    turn of the caller's event loop); the time is ``arrivals``' clock."""
    clock = arrivals.clock
    started = clock()
    deadline = started + bound
    while True:
        now = clock()
        last = arrivals.last
        quiet_until = max(started, last) + quiet_seconds
        if now >= quiet_until or now >= deadline:
            ago = now - last if last >= started else None
            return Drained(now - started, now >= quiet_until, quiet_seconds, ago)
        serve(min(quiet_until, deadline) - now)
