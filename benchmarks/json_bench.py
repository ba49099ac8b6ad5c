"""The REST gateway's JSON mapping against json_format, on the messages it really carries.

Two tables: every message both ways (print and parse), and the requests the
gateway parses, each beside the REST call that carries it (in-process through
the Flask app, socket and waitress left out): what the parser saves per call
against the whole call.
"""

from __future__ import annotations

import io
import json
import random
import time
from collections.abc import Callable
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message
from werkzeug.test import EnvironBuilder

from benchmarks.stats import Figure, Table, ratio
from benchmarks.token_bench import BENCH_KEYS
from mazzo.service.handlers import EngineHandlers
from mazzo.service.json_mapping import message_to_json, parse
from mazzo.service.metrics import Metrics
from mazzo.service.rest import create_app
from mazzo.service.state_token import StateSealer
from mazzo.v1 import engine_pb2 as pb


def sample_messages() -> list[tuple[str, Message]]:
    """Requests and responses of one seeded 2-player Scopa game, a few plies in."""
    handlers = EngineHandlers(StateSealer(BENCH_KEYS), Metrics())
    dealt = handlers.new_game(pb.NewGameRequest(players=2, scopa=pb.ScopaOptions(), seed=7))
    state, choose = dealt.state, random.Random(7).choice
    for _ in range(5):
        moves = handlers.legal_moves(pb.LegalMovesRequest(state=state)).moves
        state = handlers.play(pb.PlayRequest(state=state, move=choose(moves))).state
    legal = handlers.legal_moves(pb.LegalMovesRequest(state=state))
    move = legal.moves[0]
    played = handlers.play(pb.PlayRequest(state=state, move=move))
    return [
        ("PlayRequest", pb.PlayRequest(state=state, move=move)),
        ("PlayResponse", played),
        ("ValidateResponse (legal)", handlers.validate(pb.ValidateRequest(state=state, move=move))),
        ("LegalMovesResponse", legal),
        ("NewGameResponse", dealt),
        ("ViewResponse", handlers.view(pb.ViewRequest(state=state, seat=0))),
    ]


def sample_requests(handlers: EngineHandlers) -> list[tuple[str, Message]]:
    """(REST path, request) of every route with a body, as a 2-player Scopa game
    sends them a few plies in (what the gateway parses)."""
    new_game = pb.NewGameRequest(players=2, scopa=pb.ScopaOptions(), seed=7)
    state, choose = handlers.new_game(new_game).state, random.Random(7).choice
    for _ in range(5):
        moves = handlers.legal_moves(pb.LegalMovesRequest(state=state)).moves
        state = handlers.play(pb.PlayRequest(state=state, move=choose(moves))).state
    move = handlers.legal_moves(pb.LegalMovesRequest(state=state)).moves[0]
    return [
        ("/v1/games", new_game),
        ("/v1/games:play", pb.PlayRequest(state=state, move=move)),
        ("/v1/games:validate", pb.ValidateRequest(state=state, move=move)),
        ("/v1/games:legalMoves", pb.LegalMovesRequest(state=state)),
        ("/v1/games:view", pb.ViewRequest(state=state, seat=0)),
        ("/v1/games:suggest", pb.SuggestRequest(state=state, seat=0, level="greedy")),
    ]


def _wsgi_call(app: Any, path: str, body: bytes) -> Callable[[], Any]:
    """One POST through the Flask app's WSGI entry, as waitress makes it (no socket)."""
    base = EnvironBuilder(path=path, method="POST", data=body, content_type="application/json")
    environ = base.get_environ()

    def call() -> Any:
        fresh = dict(environ, **{"wsgi.input": io.BytesIO(body)})
        return b"".join(app.wsgi_app(fresh, lambda status, headers, exc_info=None: None))

    return call


def run_requests(*, repeats: int, call_seconds: float) -> Table:
    table = Table(
        "json_requests",
        "REST requests: microseconds of CPU per request, parsing beside the whole call"
        " (median, min..max)",
        [
            "request",
            "JSON bytes",
            "parse: json_format",
            "parse: mapping",
            "saved",
            "REST call",
            "saved / call",
        ],
        notes=[
            "A request as a client writes it (its set fields); parse: json_format.Parse vs",
            "mazzo.service.json_mapping.parse (unknown fields ignored, as the gateway",
            "reads bodies); saved: json_format's time minus the",
            "mapping's, run by run; REST call: the request's route through the Flask app's",
            "WSGI entry in-process (the mapping's parse included; waitress and the socket,",
            "about 200 us more, left out), so saved / call is an upper bound.",
        ],
    )
    handlers = EngineHandlers(StateSealer(BENCH_KEYS), Metrics())
    app = create_app(handlers, Metrics())
    for path, request in sample_requests(handlers):
        # As a client writes it: the fields it sets (the mapping prints every field).
        text = json.dumps(json_format.MessageToDict(request)).encode()
        old, new, whole = _request_costs(app, path, request, text, repeats, call_seconds)
        saved = [a - b for a, b in zip(old, new, strict=True)]
        share = [100 * d / c for d, c in zip(saved, whole, strict=True)]
        table.add(
            type(request).__name__,
            len(text),
            Figure.of(old, "us"),
            Figure.of(new, "us"),
            Figure.of(saved, "us"),
            Figure.of(whole, "us"),
            Figure.of(share, "%"),
        )
    return table


def _request_costs(
    app: Any, path: str, request: Message, text: bytes, repeats: int, seconds: float
) -> list[list[float]]:
    """Runs of json_format's parse, the mapping's, and the whole REST call, interleaved."""
    cls = type(request)
    calls: list[Callable[[], Any]] = [
        lambda: json_format.Parse(text, cls(), ignore_unknown_fields=True),
        lambda: parse(text, cls(), ignore_unknown_fields=True),
        _wsgi_call(app, path, text),
    ]
    runs: list[list[float]] = [[] for _ in calls]
    for _ in range(repeats):
        for index, call in enumerate(calls):
            runs[index].append(_per_call_us(call, seconds))
    return runs


def _per_call_us(call: Callable[[], Any], seconds: float) -> float:
    calls = 0
    start = time.process_time()
    deadline = start + seconds
    while True:
        for _ in range(50):
            call()
        calls += 50
        now = time.process_time()
        if now >= deadline:
            return (now - start) / calls * 1e6


def run(*, repeats: int, call_seconds: float) -> list[Table]:
    table = Table(
        "json_mapping",
        "REST JSON: microseconds per message, json_format vs json_mapping (median, min..max)",
        [
            "message",
            "JSON bytes",
            "print: json_format",
            "print: mapping",
            "x faster",
            "parse: json_format",
            "parse: mapping",
            "x faster",
        ],
        notes=[
            "print: json_format.MessageToDict(always_print_fields_with_no_presence=True)",
            "+ json.dumps, vs mazzo.service.json_mapping.message_to_json (the same dict, orjson);",
            "parse: json_format.Parse vs mazzo.service.json_mapping.parse.",
        ],
    )
    for name, message in sample_messages():
        text = message_to_json(message)
        figures = _costs(message, text, repeats, call_seconds)
        table.add(
            name,
            len(text),
            figures[0],
            figures[1],
            ratio(figures[0], figures[1]),
            figures[2],
            figures[3],
            ratio(figures[2], figures[3]),
        )
    return [table, run_requests(repeats=repeats, call_seconds=call_seconds)]


def _costs(message: Message, text: bytes, repeats: int, seconds: float) -> list[Figure]:
    """Print with json_format, print with the mapping, parse with each: one Figure each."""
    cls = type(message)

    def print_json_format() -> Any:
        as_dict = json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
        return json.dumps(as_dict)

    calls: list[Callable[[], Any]] = [
        print_json_format,
        lambda: message_to_json(message),
        lambda: json_format.Parse(text, cls()),
        lambda: parse(text, cls()),
    ]
    runs: list[list[float]] = [[] for _ in calls]
    for _ in range(repeats):
        for index, call in enumerate(calls):
            runs[index].append(_per_call_us(call, seconds))
    return [Figure.of(r, "us") for r in runs]
