"""State tokens: their size by game and player count, and the time to seal and open one."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from benchmarks.engine_bench import Case, available_cases, mid_hand_positions
from benchmarks.stats import Figure, Table
from mazzo.engine import dump_state, load_state
from mazzo.service.state_token import StateSealer
from mazzo.service.trust import GAME_ID_BYTES, dump_record

#: AES-256-GCM, as the development key and the recommended production key.
BENCH_KEYS = [("k1", bytes(range(32)))]


def _record(state: Any) -> bytes:
    """What the server seals for ``state``: the record, its header (format, game
    id, ply) then the engine's encoding of the state."""
    return dump_record(state, bytes(GAME_ID_BYTES), 0)


def _token_sizes(case: Case, sealer: StateSealer, seeds: int) -> list[int]:
    sizes = []
    for seed in range(seeds):
        state, _ = case.game.new_game(case.rules, seed=seed)
        sizes.append(len(sealer.seal(_record(state))))
    return sizes


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


def run(*, repeats: int, call_seconds: float, seeds: int, sample_games: int) -> list[Table]:
    sealer = StateSealer(BENCH_KEYS)
    cases, skipped = available_cases()
    sizes = Table(
        "token_sizes",
        "State token: size in bytes (distribution over seeds and positions, not runs)",
        ["game", "at the deal: median", "at the deal: max", "mid-hand: max", "payload max"],
        notes=[
            f"At the deal: new_game from seeds 0..{seeds - 1}. Mid-hand: every mid-hand position",
            f"of {sample_games} seeded random games. Key id 'k1' (2 bytes); the token adds",
            "1 + 1 + len(key id) + 2 + 12 (nonce) + 8 (sealed at) + 16 (tag) bytes to its",
            f"payload, the record: a {1 + GAME_ID_BYTES + 4}-byte header (format, game id, ply)",
            "and the engine's encoding of the state.",
            *skipped,
        ],
    )
    times = Table(
        "token_times",
        "State token: microseconds per operation on mid-hand states, one core (median, min..max)",
        ["game", "seal us", "open us", "dump_state us", "load_state us"],
        notes=[
            "seal/open: AES-256-GCM (cryptography) with the header as associated data;",
            "dump_state/load_state: the engine's compact encoding, checks included.",
            "A Play or Validate opens and decodes one token; a Play also encodes and seals one.",
        ],
    )
    for case in cases:
        at_deal = _token_sizes(case, sealer, seeds)
        states = [s for s, _ in mid_hand_positions(case, sample_games, first_seed=20_000)]
        payloads = [_record(s) for s in states]
        tokens = [sealer.seal(p) for p in payloads]
        encoded = [dump_state(s) for s in states]
        sizes.add(
            case.label,
            statistics.median(at_deal),
            max(at_deal),
            max(len(t) for t in tokens),
            max(len(p) for p in payloads),
        )
        runs: dict[str, list[float]] = {"seal": [], "open": [], "dump": [], "load": []}
        for _ in range(repeats):
            runs["seal"].append(_per_item_us(sealer.seal, payloads, call_seconds))
            runs["open"].append(_per_item_us(sealer.open, tokens, call_seconds))
            runs["dump"].append(_per_item_us(dump_state, states, call_seconds))
            runs["load"].append(_per_item_us(load_state, encoded, call_seconds))
        times.add(case.label, *(Figure.of(runs[k], "us") for k in ("seal", "open", "dump", "load")))
    return [sizes, times]
