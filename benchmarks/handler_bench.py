"""The handlers behind both transports, in-process: what one call costs without a server.

The service benchmark measures calls through the servers; this one measures
the same Validate and Play handlers called directly on the same kind of
requests, and the pieces they are made of, so that a gap in the service
figures can be traced to its parts.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from benchmarks.engine_bench import applied
from benchmarks.stats import Figure, Table
from benchmarks.token_bench import BENCH_KEYS
from mazzo.engine import dump_state, game_of
from mazzo.service import codec
from mazzo.service.handlers import EngineHandlers
from mazzo.service.metrics import Metrics
from mazzo.service.state_token import StateSealer
from mazzo.service.trust import load_record
from mazzo.v1 import engine_pb2 as pb


def _requests(
    handlers: EngineHandlers, games: int
) -> list[tuple[pb.ValidateRequest, pb.PlayRequest]]:
    """Validate and Play requests at every position of seeded random 2-player Scopa games."""
    pairs = []
    for seed in range(1, games + 1):
        choose = random.Random(seed).choice
        reply: Any = handlers.new_game(
            pb.NewGameRequest(players=2, scopa=pb.ScopaOptions(target=11), seed=seed)
        )
        while not reply.status.game_over:
            move = choose(handlers.legal_moves(pb.LegalMovesRequest(state=reply.state)).moves)
            pairs.append(
                (
                    pb.ValidateRequest(state=reply.state, move=move),
                    pb.PlayRequest(state=reply.state, move=move),
                )
            )
            reply = handlers.play(pairs[-1][1])
    return pairs


def _per_item_us(call: Callable[[Any], Any], items: list[Any], seconds: float) -> float:
    calls = 0
    start = time.process_time()
    deadline = start + seconds
    while True:
        for item in items:
            call(item)
        calls += len(items)
        now = time.process_time()
        if now >= deadline:
            return (now - start) / calls * 1e6


#: Copied before each "cold" call: in a server, the network stack and gRPC run
#: between two calls and push the handler's code and data out of the CPU's L2
#: cache (1 MiB brings the in-process figures to the server's, on this machine).
EVICTION_BYTES = 1 << 20


def _per_item_us_cold(call: Callable[[Any], Any], items: list[Any], seconds: float) -> float:
    """Like _per_item_us, with the CPU caches evicted before each call (not timed)."""
    evict = bytearray(EVICTION_BYTES)
    clock = time.perf_counter
    spent = 0.0
    calls = 0
    deadline = clock() + seconds
    while True:
        for item in items:
            bytes(evict)
            start = clock()
            call(item)
            spent += clock() - start
        calls += len(items)
        if clock() >= deadline:
            return spent / calls * 1e6


def run(*, repeats: int, call_seconds: float, games: int) -> list[Table]:
    sealer = StateSealer(BENCH_KEYS)
    handlers = EngineHandlers(sealer, Metrics(), opened_states=0)
    pairs = _requests(handlers, games)
    # The same games played through handlers that remember states: their
    # tokens are the ones these handlers sealed, as a caller's next call brings.
    remembering = EngineHandlers(sealer, Metrics())
    known = _requests(remembering, games)
    known_validates = [v for v, _ in known]
    known_plays = [p for _, p in known]
    validates = [v for v, _ in pairs]
    plays = [p for _, p in pairs]
    wire_validates = [v.SerializeToString() for v in validates]
    wire_plays = [p.SerializeToString() for p in plays]
    states = [load_record(sealer.open(v.state))[0] for v in validates]
    moves = [codec.move_from_pb(v.move) for v in validates]
    game = game_of(states[0])
    played = [applied(s, m) for s, m in zip(states, moves, strict=True)]

    def validate_wire(data: bytes) -> bytes:
        return handlers.validate(pb.ValidateRequest.FromString(data)).SerializeToString()

    def play_wire(data: bytes) -> bytes:
        return handlers.play(pb.PlayRequest.FromString(data)).SerializeToString()

    def play_replies(index: int) -> Any:
        new_state, events = played[index]
        response = pb.PlayResponse(state=b"")
        codec.write_events(response.events, events)
        codec.write_status(response.status, game.status(new_state))
        return response

    rows: list[tuple[str, Callable[[Any], Any], list[Any]]] = [
        ("Validate handler (message in, message out)", handlers.validate, validates),
        ("Validate, bytes in and out (what gRPC runs)", validate_wire, wire_validates),
        ("Play handler (message in, message out)", handlers.play, plays),
        ("Play, bytes in and out (what gRPC runs)", play_wire, wire_plays),
        ("Validate handler, a token it remembers", remembering.validate, known_validates),
        ("Play handler, a token it remembers", remembering.play, known_plays),
        ("  open the token", sealer.open, [v.state for v in validates]),
        ("  load_record", load_record, [sealer.open(v.state) for v in validates]),
        ("  codec.move_from_pb", codec.move_from_pb, [v.move for v in validates]),
        ("  resolve", lambda i: game.resolve(states[i], moves[i]), list(range(len(states)))),
        ("  apply (on a copy)", lambda i: applied(states[i], moves[i]), list(range(len(states)))),
        ("  dump_state", lambda i: dump_state(played[i][0]), list(range(len(states)))),
        ("  seal the token", sealer.seal, [dump_state(p[0]) for p in played]),
        ("  events and status to protobuf", play_replies, list(range(len(states)))),
    ]
    table = Table(
        "handlers",
        "Handlers in-process, 2-player Scopa: microseconds per call, one core (median, min..max)",
        ["call", "us"],
        notes=[
            f"Every position of {games} seeded random games ({len(pairs)} requests), metrics",
            "counted as in the server; CPU time. Indented rows are parts of the calls above.",
            "Tokens opened on every call (state memory off), except the rows 'a token it",
            "remembers': handlers with the production state memory, on the tokens they sealed.",
            f"Cold rows: {EVICTION_BYTES >> 20} MiB copied before each call (not timed), as a",
            "server's network stack evicts the CPU caches between calls; wall time.",
        ],
    )
    for label, call, items in rows:
        table.add(
            label,
            Figure.of([_per_item_us(call, items, call_seconds) for _ in range(repeats)], "us"),
        )
    cold_rows = [
        ("Validate handler, a token it remembers, cold", remembering.validate, known_validates),
        ("Play handler, a token it remembers, cold", remembering.play, known_plays),
    ]
    for label, call, items in cold_rows:
        table.add(
            label,
            Figure.of([_per_item_us_cold(call, items, call_seconds) for _ in range(repeats)], "us"),
        )
    return [table]
