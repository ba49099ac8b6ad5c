"""The REST gateway's JSON mapping against json_format, on the messages it really carries."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from benchmarks.stats import Figure, Table, ratio
from benchmarks.token_bench import BENCH_KEYS
from mazzo.service.handlers import EngineHandlers
from mazzo.service.json_mapping import message_to_json, parse
from mazzo.service.metrics import Metrics
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
    return [table]


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
