"""`make instructions`: the hot paths' cost in CPU instructions, counted by valgrind.

Timings on a shared machine move by several percent from run to run; the number
of instructions the same code runs on the same inputs does not, whatever else
the machine is doing. So this is the figure to compare two versions of the hot
path by: run it on each commit. Each workload runs twice under callgrind, at two
sizes, and the difference is divided by the difference in work done, so that
start-up and imports cancel out.

    python -m benchmarks.instructions                 # every workload
    python -m benchmarks.instructions --only play     # one of them

Instructions are not time: a change that runs fewer instructions but touches
more memory can still be slower (see docs/performance.md); time it with
`make bench` too.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from typing import NamedTuple

from benchmarks.engine_bench import available_cases, play_random_game

#: name -> (what one unit is, (smaller size, larger size))
WORKLOADS: dict[str, tuple[str, tuple[int, int]]] = {
    "scopa": ("ply of random 2-player Scopa", (10, 30)),
    "tressette": ("ply of random 2-player Tressette", (10, 30)),
    "validate": ("Validate handler call, a token it remembers", (1, 4)),
    "play": ("Play handler call, a token it remembers", (1, 4)),
    "grpc-validate": ("gRPC Validate in the server's Python, a token it remembers", (1, 4)),
    "grpc-play": ("gRPC Play in the server's Python, a token it remembers", (1, 4)),
    "rest-validate": ("REST validate in the server's Python, a token it remembers", (1, 4)),
    "rest-play": ("REST play in the server's Python, a token it remembers", (1, 4)),
    "grpc-echo": ("gRPC echo in the server's Python (the gRPC baseline)", (1, 4)),
    "rest-empty": ("REST empty route in the server's Python (the REST baseline)", (1, 4)),
    "decode": ("record decoded (load_record) of 2-player Scopa", (2, 8)),
    "scopa-playout": ("play-out (a simulation) of 2-player Scopa, first position", (5, 20)),
}
ROOT = pathlib.Path(__file__).resolve().parent.parent
_COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")


def _random_games(label: str, games: int) -> int:
    """Random games of the engine benchmark's row ``label``; the plies played."""
    case = next(c for c in available_cases()[0] if c.label == label)
    return sum(play_random_game(case.game, case.rules, seed) for seed in range(1, games + 1))


def _handler_calls(rpc: str, passes: int) -> int:
    from benchmarks.handler_bench import _requests
    from benchmarks.token_bench import BENCH_KEYS
    from mazzo.service.handlers import EngineHandlers
    from mazzo.service.metrics import Metrics
    from mazzo.service.state_token import StateSealer

    handlers = EngineHandlers(StateSealer(BENCH_KEYS), Metrics())
    pairs = _requests(handlers, games=4)
    call = handlers.validate if rpc == "validate" else handlers.play
    requests = [v if rpc == "validate" else p for v, p in pairs]
    for _ in range(passes):
        for request in requests:
            call(request)
    return passes * len(requests)


class _Context:
    """What the server's Python asks of grpc's ServicerContext on a call that succeeds."""

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return (("user-agent", "grpc-python/bench"),)

    def code(self) -> None:
        return None

    def set_trailing_metadata(self, metadata: object) -> None:
        pass


class _CallDetails(NamedTuple):
    """grpc.HandlerCallDetails, as the server hands it to the interceptors."""

    method: str
    invocation_metadata: tuple[tuple[str, str], ...]


def _grpc_calls(rpc: str, passes: int) -> int:
    """Validate or Play (or ``echo``, the service benchmark's baseline, on Validate's
    requests) as the gRPC server runs them, but for grpc's own plumbing: the method
    found through the metrics interceptor, the request's bytes parsed, the method
    around the handler, the reply serialized."""
    from benchmarks.handler_bench import _requests
    from benchmarks.service_server import ECHO_METHOD, echo_handler
    from benchmarks.token_bench import BENCH_KEYS
    from mazzo.service.grpc_server import CallsInFlight, engine_handler
    from mazzo.service.handlers import SERVICE_NAME, EngineHandlers
    from mazzo.service.metrics import GrpcMetricsInterceptor, Metrics
    from mazzo.service.state_token import StateSealer

    metrics = Metrics()
    handlers = EngineHandlers(StateSealer(BENCH_KEYS), metrics)
    pairs = _requests(handlers, games=4)
    interceptor = GrpcMetricsInterceptor(metrics)
    payloads = [(p if rpc == "play" else v).SerializeToString() for v, p in pairs]
    if rpc == "echo":  # its first two bytes ask for a reply of Validate's size
        methods, method = echo_handler(handlers.states), ECHO_METHOD
        payloads = [(2).to_bytes(2, "big") + payload[2:] for payload in payloads]
    else:
        methods = engine_handler(handlers, CallsInFlight())
        method = f"/{SERVICE_NAME}/{rpc.capitalize()}"
    context = _Context()
    details = _CallDetails(method, context.invocation_metadata())
    for _ in range(passes):
        for payload in payloads:
            handler = interceptor.intercept_service(methods.service, details)
            assert handler is not None and handler.unary_unary is not None
            parse = handler.request_deserializer or bytes
            serialize = handler.response_serializer or bytes
            serialize(handler.unary_unary(parse(payload), context))
    return passes * len(payloads)


def _rest_calls(rpc: str, passes: int) -> int:
    """Validate or Play (or ``empty``, the service benchmark's baseline, on Validate's
    bodies) as the REST gateway runs them, from the WSGI call to the reply's bytes
    (but for the HTTP server's own work)."""
    import io

    from werkzeug.test import EnvironBuilder

    from benchmarks.handler_bench import _requests
    from benchmarks.service_server import EMPTY_ROUTE, SIZE_HEADER, add_empty_route
    from benchmarks.token_bench import BENCH_KEYS
    from mazzo.service.handlers import EngineHandlers
    from mazzo.service.json_mapping import message_to_json
    from mazzo.service.metrics import Metrics
    from mazzo.service.rest import create_app
    from mazzo.service.state_token import StateSealer

    metrics = Metrics()
    handlers = EngineHandlers(StateSealer(BENCH_KEYS), metrics)
    pairs = _requests(handlers, games=4)
    app = create_app(handlers, metrics)
    add_empty_route(app)
    path = EMPTY_ROUTE if rpc == "empty" else f"/v1/games:{rpc}"
    bodies = [message_to_json(p if rpc == "play" else v) for v, p in pairs]
    environs = [
        EnvironBuilder(
            path=path,
            method="POST",
            data=body,
            content_type="application/json",
            headers={SIZE_HEADER: "53"},  # validate's reply, for the empty route
        ).get_environ()
        for body in bodies
    ]

    def start_response(status: str, headers: object) -> None:
        if not status.startswith("200"):
            raise RuntimeError(f"{path}: {status}")

    for _ in range(passes):
        for environ, body in zip(environs, bodies, strict=True):
            environ["wsgi.input"] = io.BytesIO(body)
            b"".join(app.wsgi_app(environ, start_response))
    return passes * len(environs)


def _decodes(passes: int) -> int:
    """The records the server seals at every position of 2-player Scopa games, decoded."""
    from benchmarks.handler_bench import _requests
    from benchmarks.token_bench import BENCH_KEYS
    from mazzo.service.handlers import EngineHandlers
    from mazzo.service.metrics import Metrics
    from mazzo.service.state_token import StateSealer
    from mazzo.service.trust import load_record

    sealer = StateSealer(BENCH_KEYS)
    records = [sealer.open(v.state) for v, _ in _requests(EngineHandlers(sealer, Metrics()), 4)]
    for _ in range(passes):
        for record in records:
            load_record(record)
    return passes * len(records)


def play_outs(setup: str, count: int) -> int:
    """``count`` play-outs (the players' simulations, as the intermediate level
    runs them) of the arena's game ``setup`` from a seeded game's first
    position, over five sampled worlds in turn."""
    import random

    from benchmarks.arena import SETUPS
    from mazzo.engine import get_game
    from mazzo.engine.players.games import bots_of

    _, name, make_rules = SETUPS[setup]
    state, _ = get_game(name).new_game(make_rules(), seed=1)
    bots = bots_of(name)
    deal = bots.simulator(state.view(state.to_play))
    move = state.legal_moves()[0]
    rng = random.Random(1)
    worlds = [deal(rng) for _ in range(5)]
    for done in range(count):
        bots.play_out(worlds[done % 5], move, rng, 0.1)
    return count


def run_workload(name: str, size: int) -> int:
    """Run ``name`` at ``size``; return the units of work done (plies or calls)."""
    runners: dict[str, Callable[[int], int]] = {
        "scopa": lambda n: _random_games("Scopa, 2 players, to 11", n),
        "tressette": lambda n: _random_games("Tressette, 2 players", n),
        "validate": lambda n: _handler_calls("validate", n),
        "play": lambda n: _handler_calls("play", n),
        "grpc-validate": lambda n: _grpc_calls("validate", n),
        "grpc-play": lambda n: _grpc_calls("play", n),
        "rest-validate": lambda n: _rest_calls("validate", n),
        "rest-play": lambda n: _rest_calls("play", n),
        "grpc-echo": lambda n: _grpc_calls("echo", n),
        "rest-empty": lambda n: _rest_calls("empty", n),
        "decode": _decodes,
        "scopa-playout": lambda n: play_outs("scopa", n),
    }
    return runners[name](size)


def _count(name: str, size: int, valgrind: str) -> tuple[int, int]:
    """(instructions, units) of one run of the workload under callgrind."""
    with tempfile.TemporaryDirectory() as scratch:
        done = subprocess.run(
            [
                valgrind,
                "--tool=callgrind",
                f"--callgrind-out-file={scratch}/callgrind.out",
                sys.executable,
                "-m",
                "benchmarks.instructions",
                "--child",
                name,
                str(size),
            ],
            capture_output=True,
            text=True,
            check=False,
            cwd=ROOT,
            # The same hashes in every run: dictionaries and sets probe alike, so two
            # commits' counts differ by their code alone.
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
    found = _COLLECTED.search(done.stderr)
    if done.returncode != 0 or found is None:
        raise RuntimeError(f"callgrind run of {name} failed:\n{done.stderr[-2000:]}")
    return int(found.group(1)), int(done.stdout.split()[-1])


def instructions_per_unit(name: str, valgrind: str) -> float:
    small, large = WORKLOADS[name][1]
    low, low_units = _count(name, small, valgrind)
    high, high_units = _count(name, large, valgrind)
    return (high - low) / (high_units - low_units)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.instructions", description=__doc__)
    parser.add_argument("--only", action="append", choices=sorted(WORKLOADS))
    parser.add_argument("--child", nargs=2, metavar=("WORKLOAD", "SIZE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(run_workload(args.child[0], int(args.child[1])))
        return 0
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        print("valgrind is not installed: it counts the instructions", file=sys.stderr)
        return 1
    for name in args.only or list(WORKLOADS):
        per_unit = instructions_per_unit(name, valgrind)
        print(f"{per_unit:>10,.0f} instructions per {WORKLOADS[name][0]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
