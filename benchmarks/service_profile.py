"""Where the server's time per call goes: the service benchmark's server, its pieces timed.

    python -m benchmarks.service_profile                 # gRPC and REST, Validate and Play
    python -m benchmarks.service_profile --seconds 2 --repeats 1 --targets grpc_play
    python -m benchmarks.service_profile --results benchmarks/results/profile.json

The service benchmark (benchmarks/service_bench.py) measures each call's server
CPU as a whole. This runs the same server and client twice: first as they are
(the server CPU per call, from /proc), then with the server's pieces wrapped in
timers: gRPC's parse and serialization, the metrics interceptor, the method
around the handler, Flask's hooks and the JSON mapping, the handler and each of
its parts. A piece's figure is its time per call less the pieces timed inside it
and their timers' cost (what the timers add to the server CPU over every target,
shared out evenly among the timers that ran); what no timer covers (gRPC's own
work, or waitress and Flask's) is the plain server CPU per call less the pieces.
The timers read time.perf_counter in the thread that runs the piece: a piece
lasts microseconds, far less than the interpreter's switch interval, so its wall
time stands for its CPU; the longest 1% of a piece's runs (those the operating
system interrupted) are left out. Each target runs in turn, as in the benchmark,
each figure the median of the repeats.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from benchmarks.service_bench import _cpu_seconds, _cpus, _Process
from benchmarks.service_client import WARM_TARGETS
from benchmarks.service_server import PROFILE_METHOD
from benchmarks.stats import Figure, Table, machine, write_results
from benchmarks.summaries import command_line, run_summary

#: The targets profiled by default: the four the performance targets concern and
#: their baselines.
TARGETS = (
    "grpc_echo_validate",
    "grpc_validate",
    "grpc_echo_play",
    "grpc_play",
    "rest_empty_validate",
    "rest_validate",
    "rest_empty_play",
    "rest_play",
)
#: The pieces, in the order the table lists them, and what each one is.
PIECES = {
    "parse": "parse the request",
    "interceptor": "gRPC metrics interceptor (count, time)",
    "language": "Flask hook: the language",
    "view": "the route (Content-Encoding, body, errors)",
    "method": "the method (the baselines' reply; the engine's calls in flight, language)",
    "handler": "the handler (itself)",
    "open": "open the token",
    "remembered": "state memory: look up",
    "unseal": "decrypt (AES-GCM-SIV)",
    "decode": "decode the record (load_state)",
    "move": "read the move (move_from_pb)",
    "checks": "seat credential, ply, table, events' seat",
    "randomness": "the move's randomness",
    "resolve": "resolve the move",
    "apply": "apply the move",
    "count": "count the move (Prometheus)",
    "clock": "restart the clock",
    "seal": "seal the new state",
    "dump": "dump_record",
    "encrypt": "encrypt (AES-GCM-SIV)",
    "remember": "state memory: remember",
    "events": "events to protobuf",
    "status": "status to protobuf",
    "serialize": "serialize the reply",
    "http_metrics": "Flask hook: metrics (count, time)",
}
OUTSIDE = "outside every timer: gRPC's own work (or waitress and Flask's)"

#: How many of a piece's runs, the longest, are left out of its mean: a run the
#: operating system interrupted lasts milliseconds, not microseconds.
TRIMMED = 0.01


class Piece:
    """One timed piece at one place (its path): each run's time less the pieces
    timed inside it, and how many timed pieces ran inside it in all."""

    __slots__ = ("inner", "runs")

    def __init__(self) -> None:
        self.runs: list[float] = []
        self.inner = 0

    def summary(self) -> tuple[float, int, int]:
        """(trimmed mean of the runs' own time, runs, timed pieces inside)."""
        kept = sorted(self.runs)[: max(1, round(len(self.runs) * (1 - TRIMMED)))]
        return sum(kept) / len(kept), len(self.runs), self.inner


class Timers:
    """Wraps functions in timers that know which timed piece they run inside."""

    def __init__(self) -> None:
        self._local = threading.local()
        self._lock = threading.Lock()
        self._per_thread: list[dict[tuple[str, ...], Piece]] = []

    def wrap(self, key: str, function: Callable[..., Any]) -> Callable[..., Any]:
        clock = time.perf_counter
        local = self._local

        def timed(*args: Any, **kwargs: Any) -> Any:
            stack = getattr(local, "stack", None)
            if stack is None:
                stack = local.stack = []
                local.pieces = self._thread_pieces()
            path = (*stack[-1][0], key) if stack else (key,)
            frame: list[Any] = [path, 0.0, 0]  # path, time in pieces inside, how many
            stack.append(frame)
            start = clock()
            try:
                return function(*args, **kwargs)
            finally:
                elapsed = clock() - start
                stack.pop()
                if frame[0] is not None:  # else forgotten (forget_running)
                    piece = local.pieces.get(path)
                    if piece is None:
                        piece = local.pieces[path] = Piece()
                    piece.runs.append(elapsed - frame[1])
                    piece.inner += frame[2]
                if stack:
                    stack[-1][1] += elapsed
                    stack[-1][2] += 1

        timed.__dict__["timed"] = True
        return timed

    def _thread_pieces(self) -> dict[tuple[str, ...], Piece]:
        pieces: dict[tuple[str, ...], Piece] = {}
        with self._lock:
            self._per_thread.append(pieces)
        return pieces

    def forget_running(self) -> None:
        """Record nothing of the pieces this thread is running (the call that takes
        the figures, which would otherwise count in the next ones)."""
        for frame in getattr(self._local, "stack", ()):
            frame[0] = None

    def take(self) -> dict[tuple[str, ...], Piece]:
        """Every thread's pieces together, and all of them forgotten."""
        taken: dict[tuple[str, ...], Piece] = {}
        with self._lock:
            for pieces in self._per_thread:
                for path, piece in pieces.items():
                    into = taken.setdefault(path, Piece())
                    into.runs += piece.runs
                    into.inner += piece.inner
                pieces.clear()
        return taken


def _patch(owner: Any, name: str, key: str, timers: Timers) -> None:
    function = getattr(owner, name)
    if isinstance(owner, type) or not hasattr(owner, "__dataclass_fields__"):
        setattr(owner, name, timers.wrap(key, function))
    else:  # a frozen dataclass (an engine Game)
        object.__setattr__(owner, name, timers.wrap(key, function))


def _patch_result(owner: Any, name: str, key: str, timers: Timers) -> None:
    """``owner.name`` makes a function: time the functions it makes."""
    make = getattr(owner, name)

    def making(*args: Any, **kwargs: Any) -> Any:
        return timers.wrap(key, make(*args, **kwargs))

    setattr(owner, name, making)


def install(timers: Timers) -> None:
    """Wrap the server's pieces in timers (before the server is made)."""
    import grpc

    from benchmarks import service_server
    from mazzo.engine import GAMES
    from mazzo.service import codec, grpc_server, handlers, metrics, rest
    from mazzo.service.handlers import EngineHandlers, StateCache
    from mazzo.service.state_token import StateSealer

    method_handler = grpc.unary_unary_rpc_method_handler

    def timed_method_handler(behaviour: Any, request_deserializer: Any = None,
                             response_serializer: Any = None) -> Any:  # fmt: skip
        # The interceptor makes the handler again from the same (de)serializers.
        if request_deserializer is not None and not hasattr(request_deserializer, "timed"):
            request_deserializer = timers.wrap("parse", request_deserializer)
        if response_serializer is not None and not hasattr(response_serializer, "timed"):
            response_serializer = timers.wrap("serialize", response_serializer)
        return method_handler(behaviour, request_deserializer, response_serializer)

    grpc.unary_unary_rpc_method_handler = timed_method_handler  # type: ignore[assignment]
    # (what makes the function, its name, the piece) for functions made per method
    for owner, name, key in (
        (metrics.GrpcMetricsInterceptor, "_instrument", "interceptor"),
        (grpc_server, "_unary_behaviour", "method"),
        (rest, "_view", "view"),
    ):
        _patch_result(owner, name, key, timers)
    games = list(GAMES.values())
    # (where the function is, its name, the piece)
    for owner, name, key in (
        (service_server, "_echo", "method"),
        (service_server, "_empty", "method"),
        (rest, "parse", "parse"),
        (rest, "message_to_json", "serialize"),
        (rest, "_speak_the_asked_language", "language"),
        (metrics._HttpSeries, "record", "http_metrics"),
        (EngineHandlers, "validate", "handler"),
        (EngineHandlers, "play", "handler"),
        (EngineHandlers, "_open", "open"),
        (EngineHandlers, "_seat_scope", "checks"),
        (EngineHandlers, "_table_refusal", "checks"),
        (EngineHandlers, "_events_seat", "checks"),
        (EngineHandlers, "_randomness", "randomness"),
        (EngineHandlers, "_count_move", "count"),
        (EngineHandlers, "_restart_clock", "clock"),
        (EngineHandlers, "_seal", "seal"),
        (StateCache, "get", "remembered"),
        (StateCache, "put", "remember"),
        (StateSealer, "open_dated", "unseal"),
        (StateSealer, "seal_dated", "encrypt"),
        (handlers, "load_tabled_record", "decode"),
        (handlers, "dump_record", "dump"),
        (handlers, "_check_ply", "checks"),
        (handlers, "_write_status", "status"),
        (codec, "move_from_pb", "move"),
        (codec, "write_events", "events"),
        *((game, "resolve", "resolve") for game in games),
        *((game, "apply", "apply") for game in games),
    ):
        _patch(owner, name, key, timers)


def serve() -> int:
    """The benchmark's server with its pieces timed, and a Profile method that
    answers (JSON) each piece's summary since the last time it was asked."""
    from benchmarks import service_server

    timers = Timers()
    install(timers)

    def profile(request_bytes: bytes, context: Any) -> bytes:
        timers.forget_running()
        pieces = [[list(path), *piece.summary()] for path, piece in timers.take().items()]
        return json.dumps(pieces).encode()

    return service_server.main({PROFILE_METHOD.rpartition("/")[2]: profile})


# ---------------------------------------------------------------- the driving side


def _per_call(
    pieces: list[Any], calls: int, plain_cpu_us: float, overhead_us: float
) -> dict[tuple[str, ...], float]:
    """Microseconds per call in each piece, less the pieces inside it and their
    timers' cost (``overhead_us`` each); ``()`` is what no timer covers: the plain
    server CPU per call less the pieces."""
    per_call: dict[tuple[str, ...], float] = {}
    for path, mean, runs, inner in pieces:
        per_call[tuple(path)] = (mean * runs * 1e6 - inner * overhead_us) / calls
    per_call[()] = plain_cpu_us - sum(per_call.values())
    return per_call


def _timer_overhead(pairs: list[tuple[float, float, list[Any], int]]) -> float:
    """Microseconds a timer adds to the server CPU: what the timers added over every
    target and repeat, (plain CPU per call, timed CPU per call, pieces, calls),
    shared out evenly over the timers that ran (one figure: a target's own is as
    noisy as the difference of two runs)."""
    added = sum((timed - plain) * calls for plain, timed, _, calls in pairs)
    timers = sum(runs for _, _, pieces, _ in pairs for _, _, runs, _ in pieces)
    return max(added / timers, 0.0) if timers else 0.0


def _measure(
    timed: bool, targets: tuple[str, ...], repeats: int, seconds: float, games: int
) -> dict[str, list[tuple[float, list[Any] | None, int]]]:
    """Each target's runs on one server, timed or plain: (server CPU us per call,
    the timed pieces or None, calls)."""
    server_cpu, client_cpu = _cpus()
    args = ("benchmarks.service_profile", server_cpu, "--serve") if timed else (
        "benchmarks.service_server", server_cpu)  # fmt: skip
    server = _Process(*args)
    client = None
    runs: dict[str, list[tuple[float, list[Any] | None, int]]] = {t: [] for t in targets}
    try:
        ready = server.read()
        client = _Process("benchmarks.service_client", client_cpu)
        client.ask(
            {
                "cmd": "setup",
                "grpc_port": ready["grpc_port"],
                "http_port": ready["http_port"],
                "games": games,
                "plies": 200,
                "seed": 1,
                "cold_tokens": 2 * ready["opened_states"],
            }
        )
        for target in targets:  # warm-up
            client.ask({"cmd": "run", "target": target, "seconds": 1.0, "concurrency": 4})
        for _ in range(repeats):
            for target in targets:
                if target in WARM_TARGETS:
                    client.ask({"cmd": "prime"})
                if timed:
                    client.ask({"cmd": "profile"})
                before = _cpu_seconds(ready["pid"])
                result = client.ask(
                    {"cmd": "run", "target": target, "seconds": seconds, "concurrency": 4}
                )
                calls = result["calls"]
                cpu_us = (_cpu_seconds(ready["pid"]) - before) / calls * 1e6
                pieces = client.ask({"cmd": "profile"}) if timed else None
                runs[target].append((cpu_us, pieces, calls))
    finally:
        if client is not None:
            client.stop()
        server.stop()
    return runs


def run(*, repeats: int, seconds: float, targets: tuple[str, ...], games: int = 4) -> Table:
    """The plain server's CPU per call, then the timed server's pieces, each target
    in turn; each repeat's pieces against the plain run of the same repeat."""
    plain = _measure(False, targets, repeats, seconds, games)
    timed = _measure(True, targets, repeats, seconds, games)
    pairs = {
        target: [
            (plain_cpu, timed_cpu, pieces or [], calls)
            for (plain_cpu, _, _), (timed_cpu, pieces, calls) in zip(
                plain[target], timed[target], strict=True
            )
        ]
        for target in targets
    }
    overhead = _timer_overhead([pair for runs in pairs.values() for pair in runs])
    samples = {
        target: [
            _per_call(pieces, calls, plain_cpu, overhead) for plain_cpu, _, pieces, calls in runs
        ]
        for target, runs in pairs.items()
    }
    table = _table(samples, targets)
    table.notes.append(f"A timer's cost, shared out: {overhead:.2f} us.")
    return table


def _order(path: tuple[str, ...]) -> tuple[int, ...]:
    keys = list(PIECES)
    return tuple(keys.index(key) for key in path)


def _table(
    samples: dict[str, list[dict[tuple[str, ...], float]]], targets: tuple[str, ...]
) -> Table:
    paths = sorted({p for runs in samples.values() for run in runs for p in run if p}, key=_order)
    table = Table(
        "service_profile",
        "Server time per call by piece, one server process (us, median of runs)",
        ["piece", *targets],
        notes=[
            "Each piece: the median over the runs of its time a call (the trimmed mean of",
            "its runs), less the pieces timed inside it and their timers' cost (what the",
            "timers add to the server CPU over every target, shared out evenly among the",
            "timers that ran). Indented: inside the piece above. The first row is what no",
            "timer covers: the server CPU a call without timers (the same calls, in a run",
            "before) less the pieces.",
        ],
    )

    def cell(target: str, path: tuple[str, ...]) -> Figure | None:
        runs = [run[path] for run in samples[target] if path in run]
        return Figure.of(runs, "us") if runs else None

    table.add(OUTSIDE, *(cell(t, ()) for t in targets))
    for path in paths:
        label = "  " * (len(path) - 1) + PIECES[path[-1]]
        table.add(label, *(cell(t, path) for t in targets))
    totals = [
        Figure.of([sum(run.values()) for run in samples[t]], "us") if samples[t] else None
        for t in targets
    ]
    table.add("server CPU per call", *totals)
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.service_profile", description=__doc__
    )
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--targets", default=",".join(TARGETS), help="comma-separated")
    parser.add_argument("--results", type=pathlib.Path, help="also write the table (JSON) here")
    args = parser.parse_args(argv)
    if args.serve:
        return serve()
    about = machine()
    targets = tuple(args.targets.split(","))
    table = run(repeats=args.repeats, seconds=args.seconds, targets=targets)
    print(table.render())
    if args.results:
        settings = {"repeats": args.repeats, "seconds": args.seconds, "targets": list(targets)}
        command = command_line("benchmarks.service_profile", sys.argv[1:] if argv is None else argv)
        summary = run_summary(
            "bench", command, about, {"service_profile": settings}, [table.as_json()]
        )
        write_results(args.results, summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
