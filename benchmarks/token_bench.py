"""State tokens: their size by game and player count, and the time to seal and open one,
in the format the server seals (3, AES-256-GCM-SIV) and beside it the previous one
(2, AES-GCM), measured in the same runs."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from benchmarks.engine_bench import Case, available_cases, mid_hand_positions
from benchmarks.stats import Figure, Table, ratio
from mazzo.engine import dump_state, load_state
from mazzo.service.state_token import FORMAT_VERSION, GCM_FORMAT_VERSION, StateSealer
from mazzo.service.trust import GAME_ID_BYTES, dump_record

#: A 32-byte key, as the development key and the recommended production key.
BENCH_KEYS = [("k1", bytes(range(32)))]
#: What each run measures, in turn: format 3's seal and open, format 2's ("2"),
#: and the engine's encoding both ways.
OPERATIONS = ("seal", "open", "seal 2", "open 2", "dump", "load")


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
    # The baseline: the format the server sealed before (opened by the same sealer).
    gcm_sealer = StateSealer(BENCH_KEYS, seal_format=GCM_FORMAT_VERSION)
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
            f"seal/open: format {FORMAT_VERSION}, AES-256-GCM-SIV (cryptography) under the token",
            "key, the header as associated data (format 2 beside it: token_formats);",
            "dump_state/load_state: the engine's compact encoding, checks included.",
            "A Play or Validate opens and decodes one token; a Play also encodes and seals one.",
        ],
    )
    formats = Table(
        "token_formats",
        "State token formats: microseconds to seal and open, format 3 beside format 2"
        " (median, min..max)",
        ["game", "seal us: 3", "seal us: 2", "seal 3 vs 2", "open us: 3", "open us: 2",
         "open 3 vs 2"],
        notes=[
            f"Format {FORMAT_VERSION}: AES-256-GCM-SIV under a key derived from the state key;",
            f"format {GCM_FORMAT_VERSION}: AES-256-GCM under the state key (sealed until format 3,",
            "opened still). Same payloads, same runs, interleaved; CPU time of one core.",
            "'3 vs 2': run-by-run ratio of the two (1.0: as fast).",
        ],
    )  # fmt: skip
    for case in cases:
        at_deal = _token_sizes(case, sealer, seeds)
        states = [s for s, _ in mid_hand_positions(case, sample_games, first_seed=20_000)]
        payloads = [_record(s) for s in states]
        tokens = [sealer.seal(p) for p in payloads]
        gcm_tokens = [gcm_sealer.seal(p) for p in payloads]
        encoded = [dump_state(s) for s in states]
        sizes.add(
            case.label,
            statistics.median(at_deal),
            max(at_deal),
            max(len(t) for t in tokens),
            max(len(p) for p in payloads),
        )
        measured: dict[str, tuple[Callable[[Any], Any], list[Any]]] = {
            "seal": (sealer.seal, payloads),
            "open": (sealer.open, tokens),
            "seal 2": (gcm_sealer.seal, payloads),
            "open 2": (sealer.open, gcm_tokens),
            "dump": (dump_state, states),
            "load": (load_state, encoded),
        }
        runs: dict[str, list[float]] = {name: [] for name in OPERATIONS}
        for _ in range(repeats):
            for name in OPERATIONS:
                call, items = measured[name]
                runs[name].append(_per_item_us(call, items, call_seconds))
        figures = {name: Figure.of(runs[name], "us") for name in OPERATIONS}
        times.add(case.label, *(figures[k] for k in ("seal", "open", "dump", "load")))
        formats.add(
            case.label,
            figures["seal"],
            figures["seal 2"],
            ratio(figures["seal"], figures["seal 2"]),
            figures["open"],
            figures["open 2"],
            ratio(figures["open"], figures["open 2"]),
        )
    return [sizes, times, formats]
