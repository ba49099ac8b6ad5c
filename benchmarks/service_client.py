"""The load generator of the service benchmark, in a process of its own.

Its GIL is not the server's: the server process gets a core to itself while
this one drives it. It reads one JSON command per line on standard input and
answers one JSON line on standard output:

- ``{"cmd": "setup", "grpc_port", "http_port", "games", "plies", "seed",
  "cold_tokens"}``: plays seeded random 2-player Scopa games through the
  server's gRPC Play and keeps every position as a Validate and a Play request
  (gRPC bytes and REST JSON bodies), with the size of their responses. Their
  tokens are the ones the server returned: the warm targets. The cold targets
  (``..._cold``) carry the same positions, each token opened and sealed again
  here with a fresh nonce (the bench key), into at least ``cold_tokens``
  distinct tokens per target, which every run takes in turn from where the
  last run stopped: with more of them than the server remembers, none is ever
  one it remembers. The echo and empty-route baselines get requests and
  responses of the same sizes.
- ``{"cmd": "prime"}``: one gRPC Validate of every warm token, one after the
  other, so that the server remembers them again (a cold run pushes them out).
- ``{"cmd": "stats"}``: the server's count of remembered and unknown tokens.
- ``{"cmd": "profile"}``: the profiled server's timings since the last time
  (benchmarks/service_profile.py).
- ``{"cmd": "run", "target", "seconds", "concurrency"}``: keeps ``concurrency``
  calls in flight (one thread each, one channel or one keep-alive connection per
  thread) for ``seconds`` and returns calls/s, latency percentiles and errors.
"""

from __future__ import annotations

import http.client
import itertools
import json
import math
import random
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import grpc

from benchmarks.service_server import (
    BENCH_KEYS,
    BUSY_METHOD,
    ECHO_METHOD,
    EMPTY_ROUTE,
    PROFILE_METHOD,
    SIZE_HEADER,
    STATS_METHOD,
)
from mazzo.service.json_mapping import message_to_json
from mazzo.service.state_token import StateSealer
from mazzo.v1 import engine_pb2 as pb
from mazzo.v1 import engine_pb2_grpc

ENGINE = "/mazzo.v1.Engine/"
VALIDATE_PATH = "/v1/games:validate"
PLAY_PATH = "/v1/games:play"

TARGETS = (
    "grpc_validate",
    "grpc_validate_cold",
    "grpc_echo_validate",
    "grpc_busy_validate",
    "grpc_play",
    "grpc_play_cold",
    "grpc_echo_play",
    "rest_validate",
    "rest_validate_cold",
    "rest_empty_validate",
    "rest_play",
    "rest_play_cold",
    "rest_empty_play",
)
#: The targets whose tokens the server wrote: it remembers them (after a prime).
WARM_TARGETS = ("grpc_validate", "grpc_play", "rest_validate", "rest_play")


@dataclass
class Pool:
    """What one target sends: the method or path, and (payload, response size) pairs."""

    where: str
    calls: list[tuple[bytes, int]]
    #: Cold pools: the next call's index, shared by every thread and every run.
    cursor: Iterator[int] | None = None


class Client:
    def __init__(self) -> None:
        self.channel: grpc.Channel | None = None
        self.http_port = 0
        self.pools: dict[str, Pool] = {}
        self.prime_payloads: list[bytes] = []

    # ------------------------------------------------------------ setup

    def setup(
        self, grpc_port: int, http_port: int, games: int, plies: int, seed: int, cold_tokens: int
    ) -> Any:
        self.channel = grpc.insecure_channel(f"127.0.0.1:{grpc_port}")
        self.http_port = http_port
        stub = engine_pb2_grpc.EngineStub(self.channel)
        positions = []
        for game in range(games):
            choose = random.Random(seed + game).choice
            request = pb.NewGameRequest(
                players=2, scopa=pb.ScopaOptions(target=11), seed=seed + game
            )
            reply: Any = stub.NewGame(request, timeout=10)
            for _ in range(plies):
                moves = stub.LegalMoves(pb.LegalMovesRequest(state=reply.state), timeout=10).moves
                move = choose(moves)
                positions.append((reply.state, move))
                reply = stub.Play(pb.PlayRequest(state=reply.state, move=move), timeout=10)
                if reply.status.game_over:
                    break
        validate = [pb.ValidateRequest(state=s, move=m) for s, m in positions]
        play = [pb.PlayRequest(state=s, move=m) for s, m in positions]
        self.prime_payloads = [r.SerializeToString() for r in validate]
        for name, method, path, requests in (
            ("validate", "Validate", VALIDATE_PATH, validate),
            ("play", "Play", PLAY_PATH, play),
        ):
            self._grpc_pools(name, method, requests, _resealed(requests, cold_tokens))
            self._rest_pools(name, path, requests, _resealed(requests, cold_tokens))
        pools = self.pools.items()
        return {
            "positions": len(positions),
            "cold_tokens": min(len(p.calls) for t, p in pools if t.endswith("_cold")),
            "sizes": {target: _mean([len(c) for c, _ in p.calls]) for target, p in pools},
            "response_sizes": {target: _mean([r for _, r in p.calls]) for target, p in pools},
        }

    def _grpc_pools(self, name: str, method: str, requests: list[Any], cold: list[Any]) -> None:
        assert self.channel is not None
        call = self.channel.unary_unary(ENGINE + method)
        real, echo = [], []
        for request in requests:
            payload = request.SerializeToString()
            size = len(call(payload, timeout=10))
            real.append((payload, size))
            # Same length as the real request; its first two bytes name the reply size.
            echo.append((size.to_bytes(2, "big") + payload[2:], size))
        self.pools[f"grpc_{name}"] = Pool(ENGINE + method, real)
        self.pools[f"grpc_{name}_cold"] = _cold_pool(ENGINE + method, cold, real, _serialized)
        self.pools[f"grpc_echo_{name}"] = Pool(ECHO_METHOD, echo)
        self.pools[f"grpc_busy_{name}"] = Pool(BUSY_METHOD, echo)

    def _rest_pools(self, name: str, path: str, requests: list[Any], cold: list[Any]) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", self.http_port, timeout=10)
        real = []
        for request in requests:
            body = message_to_json(request)
            connection.request("POST", path, body, {"Content-Type": "application/json"})
            response = connection.getresponse()
            reply = response.read()
            if response.status != 200:
                raise RuntimeError(f"{path}: {response.status} {reply[:200]!r}")
            real.append((body, len(reply)))
        connection.close()
        self.pools[f"rest_{name}"] = Pool(path, real)
        self.pools[f"rest_{name}_cold"] = _cold_pool(path, cold, real, message_to_json)
        self.pools[f"rest_empty_{name}"] = Pool(EMPTY_ROUTE, real)

    def prime(self) -> Any:
        assert self.channel is not None
        call = self.channel.unary_unary(ENGINE + "Validate")
        for payload in self.prime_payloads:
            call(payload, timeout=10)
        return {"primed": len(self.prime_payloads)}

    def stats(self) -> Any:
        return self._ask_server(STATS_METHOD)

    def profile(self) -> Any:
        return self._ask_server(PROFILE_METHOD)

    def _ask_server(self, method: str) -> Any:
        """The JSON answer of one of the benchmark server's own methods."""
        assert self.channel is not None
        return json.loads(self.channel.unary_unary(method)(b"", timeout=10))

    # ------------------------------------------------------------ load

    def run(self, target: str, seconds: float, concurrency: int) -> Any:
        pool = self.pools[target]
        where, entries, cursor = pool.where, pool.calls, pool.cursor
        if target.startswith("grpc_"):
            assert self.channel is not None
            make = self._grpc_caller(where)
        else:
            make = self._rest_caller(where)
        results: list[tuple[list[float], int, float]] = []
        lock = threading.Lock()
        start_line = threading.Barrier(concurrency + 1)
        cpu_start = time.process_time()

        def worker(offset: int) -> None:
            call, close = make()
            latencies: list[float] = []
            errors = 0
            index = offset * 7919
            start_line.wait()
            clock = time.perf_counter
            deadline = clock() + seconds
            now = clock()
            while now < deadline:
                if cursor is not None:
                    index = next(cursor)  # cold: every token in turn, whoever calls
                payload, size = entries[index % len(entries)]
                index += 1
                try:
                    call(payload, size)
                except Exception:
                    errors += 1
                end = clock()
                latencies.append(end - now)
                now = end
            close()
            with lock:
                results.append((latencies, errors, now))

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(concurrency)]
        for thread in threads:
            thread.start()
        start_line.wait()
        began = time.perf_counter()
        for thread in threads:
            thread.join()
        elapsed = max(r[2] for r in results) - began
        latencies = sorted(x for r in results for x in r[0])
        calls = len(latencies)
        return {
            "target": target,
            "calls": calls,
            "errors": sum(r[1] for r in results),
            "seconds": elapsed,
            "calls_per_s": calls / elapsed if elapsed > 0 else 0.0,
            "p50_ms": _percentile(latencies, 0.50) * 1e3,
            "p99_ms": _percentile(latencies, 0.99) * 1e3,
            "client_cpu_s": time.process_time() - cpu_start,
        }

    def _grpc_caller(
        self, method: str
    ) -> Callable[[], tuple[Callable[[bytes, int], None], Callable[[], None]]]:
        assert self.channel is not None
        multicallable = self.channel.unary_unary(method)

        def make() -> tuple[Callable[[bytes, int], None], Callable[[], None]]:
            def call(payload: bytes, size: int) -> None:
                if len(multicallable(payload, timeout=10)) != size:
                    raise RuntimeError("unexpected reply size")

            return call, lambda: None

        return make

    def _rest_caller(
        self, path: str
    ) -> Callable[[], tuple[Callable[[bytes, int], None], Callable[[], None]]]:
        port = self.http_port

        def make() -> tuple[Callable[[bytes, int], None], Callable[[], None]]:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)

            def call(payload: bytes, size: int) -> None:
                headers = {"Content-Type": "application/json", SIZE_HEADER: str(size)}
                connection.request("POST", path, payload, headers)
                response = connection.getresponse()
                body = response.read()
                if response.status != 200 or len(body) != size:
                    raise RuntimeError(f"{response.status}, {len(body)} bytes")

            return call, connection.close

        return make


def _resealed(requests: list[Any], count: int) -> list[Any]:
    """At least ``count`` copies of the requests in turn, each token sealed anew."""
    sealer = StateSealer(BENCH_KEYS)
    payloads = [sealer.open(r.state) for r in requests]
    copies = []
    for _ in range(math.ceil(count / len(requests))):
        for request, payload in zip(requests, payloads, strict=True):
            copy = type(request)()
            copy.CopyFrom(request)
            copy.state = sealer.seal(payload)
            copies.append(copy)
    return copies


def _cold_pool(
    where: str, cold: list[Any], real: list[tuple[bytes, int]], encode: Callable[[Any], bytes]
) -> Pool:
    """The cold copies, each answered with the size of its warm original."""
    calls = [(encode(r), real[i % len(real)][1]) for i, r in enumerate(cold)]
    return Pool(where, calls, itertools.count())


def _serialized(message: Any) -> bytes:
    return bytes(message.SerializeToString())


def _percentile(sorted_values: list[float], fraction: float) -> float:
    """Nearest-rank percentile of sorted values."""
    if not sorted_values:
        return 0.0
    rank = max(1, math.ceil(fraction * len(sorted_values)))
    return sorted_values[rank - 1]


def _mean(values: list[int]) -> float:
    return sum(values) / len(values) if values else 0.0


def main() -> int:
    client = Client()
    for line in sys.stdin:
        command = json.loads(line)
        name = command.pop("cmd")
        try:
            if name == "setup":
                answer = client.setup(**command)
            elif name == "prime":
                answer = client.prime()
            elif name == "stats":
                answer = client.stats()
            elif name == "profile":
                answer = client.profile()
            elif name == "run":
                answer = client.run(**command)
            else:
                answer = {"error": f"unknown command {name!r}"}
        except Exception as error:  # reported to the parent, which fails loudly
            answer = {"error": f"{type(error).__name__}: {error}"}
        print(json.dumps(answer), flush=True)
    if client.channel is not None:
        client.channel.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
