"""A stop under load loses no call: SIGTERM drains first, then stops (as a rolling update does).

Two servers with the same keys, A and B, serve a steady load; A gets SIGTERM.
For MAZZO_DRAIN_SECONDS A reports not ready (gRPC health NOT_SERVING,
``/readyz`` 503) and goes on serving; then it stops accepting and finishes
what is in flight. Clients that do what the documentation asks of them lose
no call:

- gRPC: one channel over both addresses, round_robin with client-side health
  checking (the channel stops sending to a NOT_SERVING server), retrying on
  UNAVAILABLE;
- REST: a caller that spreads its calls over both ports and, on a refused
  connection or a 503, tries the other one (what a load balancer does).
"""

from __future__ import annotations

import http.client
import json
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable

import grpc
import pytest

from mazzo.v1 import engine_pb2 as pb
from mazzo.v1 import engine_pb2_grpc
from tests.service.processes import started
from tests.service.support import http_call

KEYS = "roll=" + "A" * 43 + "="
DRAIN_SECONDS = 2.0
GRACE_SECONDS = 5.0
SERVICE_CONFIG = json.dumps(
    {
        "loadBalancingConfig": [{"round_robin": {}}],
        "healthCheckConfig": {"serviceName": "mazzo.v1.Engine"},
        "methodConfig": [
            {
                "name": [{"service": "mazzo.v1.Engine"}],
                "retryPolicy": {
                    "maxAttempts": 5,
                    "initialBackoff": "0.1s",
                    "maxBackoff": "1s",
                    "backoffMultiplier": 2,
                    "retryableStatusCodes": ["UNAVAILABLE"],
                },
            }
        ],
    }
)


def grpc_load(target: str, stop: threading.Event, outcomes: Counter[str]) -> None:
    options = [("grpc.service_config", SERVICE_CONFIG), ("grpc.enable_retries", 1)]
    with grpc.insecure_channel(target, options=options) as channel:
        stub = engine_pb2_grpc.EngineStub(channel)
        while not stop.is_set():
            try:
                game = stub.NewGame(pb.NewGameRequest(players=2, seed=3, scopa={}), timeout=20)
                stub.LegalMoves(pb.LegalMovesRequest(state=game.state), timeout=20)
                outcomes["OK"] += 1
            except grpc.RpcError as error:
                outcomes[error.code().name] += 1  # type: ignore[attr-defined]


def rest_load(ports: list[int], stop: threading.Event, outcomes: Counter[str]) -> None:
    turn = 0
    while not stop.is_set():
        turn += 1
        outcomes[_with_retries(ports, turn)] += 1


def _with_retries(ports: list[int], turn: int) -> str:
    last = ""
    for attempt in range(6):
        port = ports[(turn + attempt) % len(ports)]
        try:
            status = http_call(port, "POST", "/v1/games", {"scopa": {}, "seed": "3"}).status
        except (ConnectionError, http.client.HTTPException) as error:
            last = type(error).__name__
        else:
            if status != 503:
                return str(status)
            last = "503"
        time.sleep(0.05 * attempt)
    return f"failed after retries ({last})"


def readiness_probe(port: int, stop: threading.Event, seen: list[int]) -> None:
    while not stop.is_set():
        try:
            seen.append(http_call(port, "GET", "/readyz").status)
        except (ConnectionError, http.client.HTTPException):
            seen.append(0)
            return
        time.sleep(0.05)


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


@pytest.mark.parametrize("workers", [1, 2])
def test_sigterm_under_load_loses_no_call_with_clients_that_retry(workers: int) -> None:
    settings = {
        "MAZZO_STATE_KEYS": KEYS,
        "MAZZO_WORKERS": str(workers),
        "MAZZO_DRAIN_SECONDS": f"{DRAIN_SECONDS:g}",
        "MAZZO_GRACE_SECONDS": f"{GRACE_SECONDS:g}",
    }
    with started(**settings) as a, started(**settings) as b:
        a.wait_until_listening()
        b.wait_until_listening()
        stop = threading.Event()
        grpc_outcomes: Counter[str] = Counter()
        rest_outcomes: Counter[str] = Counter()
        readiness: list[int] = []
        target = f"ipv4:{a.grpc_target},{b.grpc_target}"
        ports = [a.ports["REST"], b.ports["REST"]]
        threads = [
            threading.Thread(target=grpc_load, args=(target, stop, grpc_outcomes)),
            threading.Thread(target=grpc_load, args=(target, stop, grpc_outcomes)),
            threading.Thread(target=rest_load, args=(ports, stop, rest_outcomes)),
            threading.Thread(target=rest_load, args=(ports, stop, rest_outcomes)),
            threading.Thread(target=readiness_probe, args=(ports[0], stop, readiness)),
        ]
        for thread in threads:
            thread.start()
        try:
            wait_for(lambda: grpc_outcomes["OK"] >= 20 and rest_outcomes["200"] >= 20, "load")
            a.process.send_signal(signal.SIGTERM)
            code = a.process.wait(DRAIN_SECONDS + GRACE_SECONDS + 20)
            calls = (grpc_outcomes["OK"], rest_outcomes["200"])
            # The load goes on against B alone for a while.
            wait_for(
                lambda: (
                    grpc_outcomes["OK"] >= calls[0] + 20 and rest_outcomes["200"] >= calls[1] + 20
                ),
                "load on B after A stopped",
            )
        finally:
            stop.set()
            for thread in threads:
                thread.join(30)
    summary = (grpc_outcomes, rest_outcomes, a.log[-2000:])
    assert code == 0, summary
    assert set(grpc_outcomes) == {"OK"}, summary
    assert set(rest_outcomes) == {"200"}, summary
    # A said it was not ready before it stopped answering.
    assert 503 in readiness and readiness.index(503) < len(readiness) - 1, readiness
    assert "SIGTERM received: draining" in a.log
    assert "Traceback" not in a.log + b.log
