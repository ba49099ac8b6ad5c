"""MAZZO_WORKERS=2: one parent, two server processes behind the same three ports.

Each process is started on free ports of 127.0.0.1 with no MAZZO_STATE_KEYS,
so the workers must share the key their parent generated. A worker names
itself in every answer (REST header X-Mazzo-Worker, gRPC trailing metadata
x-mazzo-worker): that is how these tests see which worker served a call.
Connections are opened afresh for each call, so that the kernel spreads them.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client.parser import text_string_to_metric_families

from mazzo.v1 import engine_pb2 as pb
from mazzo.v1 import engine_pb2_grpc
from mazzo_client import MazzoClient, MazzoError
from tests.service.processes import (
    LISTENING,
    REPO,
    Served,
    environment,
    keep_alive_stream,
    started,
    wait_until_group_gone,
)

WORKERS = 2
#: Long enough that a busy machine stops well within it: a stop that took the
#: whole grace period would mean a call or a connection held a worker up.
GRACE_SECONDS = 30.0
#: How long a condition the test waits for may take on a busy machine.
WAIT_SECONDS = 60.0
#: Fresh connections made at most while waiting to see every worker answer.
MAX_TRIES = 200


def _ppid(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as stat:
        return int(stat.read().rpartition(")")[2].split()[1])


@dataclass(frozen=True)
class Reply:
    status: int
    body: Any
    headers: dict[str, str]

    @property
    def worker(self) -> int:
        return int(self.headers["X-Mazzo-Worker"])


def rest(port: int, method: str, path: str, body: object = None, raw: bytes | None = None) -> Reply:
    """One request on a fresh connection."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        data = raw if raw is not None else None if body is None else json.dumps(body).encode()
        connection.request(method, path, body=data)
        response = connection.getresponse()
        content = response.read()
        parsed = (
            json.loads(content)
            if response.getheader("Content-Type", "").endswith("json")
            else content.decode()
        )
        return Reply(response.status, parsed, dict(response.getheaders()))
    finally:
        connection.close()


def grpc_worker(call: grpc.Call | grpc.RpcError) -> int:
    return int(dict(call.trailing_metadata() or ())["x-mazzo-worker"])  # type: ignore[union-attr]


def grpc_call(target: str, method: str, request: Any) -> tuple[Any, int]:
    """One call on a fresh channel: the response and the pid of the worker that answered."""
    with grpc.insecure_channel(target) as channel:
        stub = engine_pb2_grpc.EngineStub(channel)
        response, call = getattr(stub, method).with_call(request, timeout=10)
        return response, grpc_worker(call)


def until_every_worker(call: Callable[[], int], expected: int = WORKERS) -> Counter[int]:
    """Repeat ``call`` (which returns a worker pid) until ``expected`` workers answered."""
    seen: Counter[int] = Counter()
    for _ in range(MAX_TRIES):
        seen[call()] += 1
        if len(seen) >= expected and sum(seen.values()) >= 10:
            break
    return seen


def sample(port: int, name: str, **labels: str) -> float:
    """One sample of a /metrics scrape (0 when absent), whatever the order of its labels."""
    reply = rest(port, "GET", "/metrics")
    assert reply.status == 200
    for family in text_string_to_metric_families(reply.body):
        for item in family.samples:
            if item.name == name and item.labels == labels:
                return float(item.value)
    return 0.0


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    with started(MAZZO_WORKERS=str(WORKERS), MAZZO_METRICS_ON_REST="true") as server:
        server.wait_until_listening()
        yield server


def new_game(seed: int) -> pb.NewGameRequest:
    return pb.NewGameRequest(players=2, scopa=pb.ScopaOptions(), seed=seed)


# ---------------------------------------------------------------- serving


def test_the_parent_says_once_where_it_listens_after_every_worker_serves(served: Served) -> None:
    kinds = Counter(m[1] for line in served.lines if (m := LISTENING.search(line)))
    assert kinds == {"gRPC": 1, "REST": 1, "metrics": 1}
    assert len(set(served.ports.values())) == 3
    ready = [line for line in served.lines if "serving gRPC and REST" in line]
    assert len(ready) == WORKERS
    first_listening = next(i for i, line in enumerate(served.lines) if LISTENING.search(line))
    assert all(served.lines.index(line) < first_listening for line in ready)
    assert "Traceback" not in served.log


def test_rest_calls_are_spread_over_the_workers(served: Served) -> None:
    port = served.ports["REST"]
    seen = until_every_worker(lambda: rest(port, "GET", "/v1/catalog").worker)
    assert len(seen) == WORKERS, seen
    assert {_ppid(pid) for pid in seen} == {served.process.pid}


def test_grpc_calls_are_spread_over_the_workers_and_open_each_others_tokens(
    served: Served,
) -> None:
    target = served.grpc_target
    game, _ = grpc_call(target, "NewGame", new_game(7))
    request = pb.LegalMovesRequest(state=game.state)

    def legal_moves() -> int:
        moves, worker = grpc_call(target, "LegalMoves", request)
        assert moves.seat == 0 and moves.moves
        return worker

    seen = until_every_worker(legal_moves)
    assert len(seen) == WORKERS, seen
    assert {_ppid(pid) for pid in seen} == {served.process.pid}


def test_a_refused_grpc_call_names_its_worker_and_keeps_its_error_details(
    served: Served,
) -> None:
    with grpc.insecure_channel(served.grpc_target) as channel:
        stub = engine_pb2_grpc.EngineStub(channel)
        with pytest.raises(grpc.RpcError) as caught:
            stub.LegalMoves(pb.LegalMovesRequest(state=b"not a token"), timeout=10)
    assert _ppid(grpc_worker(caught.value)) == served.process.pid
    refused = MazzoError.from_rpc_error(caught.value)
    assert refused.code == grpc.StatusCode.INVALID_ARGUMENT
    assert refused.reason.startswith("STATE_")


def test_grpc_health_is_serving_on_every_worker(served: Served) -> None:
    for _ in range(10):
        with grpc.insecure_channel(served.grpc_target) as channel:
            check = health_pb2_grpc.HealthStub(channel).Check
            for service in ("", "mazzo.v1.Engine"):
                reply = check(health_pb2.HealthCheckRequest(service=service), timeout=10)
                assert reply.status == health_pb2.HealthCheckResponse.SERVING


def test_metrics_sum_the_calls_of_every_worker(served: Served) -> None:
    metrics_port, rest_port = served.ports["metrics"], served.ports["REST"]
    games = {"game": "scopa"}
    new_games_ok = {
        "grpc_type": "unary",
        "grpc_service": "mazzo.v1.Engine",
        "grpc_method": "NewGame",
        "grpc_code": "OK",
    }
    posts = {"method": "POST", "route": "/v1/games", "status": "200"}
    before = (
        sample(metrics_port, "mazzo_games_started_total", **games),
        sample(metrics_port, "grpc_server_handled_total", **new_games_ok),
        sample(metrics_port, "http_requests_total", **posts),
    )
    rest_workers: Counter[int] = Counter()
    grpc_workers: Counter[int] = Counter()
    calls = 0
    while calls < MAX_TRIES and (len(rest_workers) < WORKERS or len(grpc_workers) < WORKERS):
        reply = rest(rest_port, "POST", "/v1/games", {"scopa": {}, "seed": str(calls)})
        assert reply.status == 200
        rest_workers[reply.worker] += 1
        grpc_workers[grpc_call(served.grpc_target, "NewGame", new_game(calls))[1]] += 1
        calls += 1
    assert len(rest_workers) == len(grpc_workers) == WORKERS
    after = (
        sample(metrics_port, "mazzo_games_started_total", **games),
        sample(metrics_port, "grpc_server_handled_total", **new_games_ok),
        sample(metrics_port, "http_requests_total", **posts),
    )
    assert after == (before[0] + 2 * calls, before[1] + calls, before[2] + calls)
    # /metrics on the REST port shows the same sums, whichever worker answers it.
    for _ in range(4):
        assert sample(rest_port, "mazzo_games_started_total", **games) == after[0]


def test_the_metrics_port_serves_only_metrics(served: Served) -> None:
    reply = rest(served.ports["metrics"], "GET", "/v1/catalog")
    assert reply.status == 200 and "# TYPE mazzo_games_started_total counter" in reply.body
    assert rest(served.ports["metrics"], "POST", "/v1/games", {"scopa": {}}).status != 200


def test_rest_errors_are_the_same_as_from_one_process(served: Served) -> None:
    port = served.ports["REST"]
    missing = rest(port, "GET", "/v1/nowhere")
    assert (missing.status, missing.body["error"]["status"]) == (404, "NOT_FOUND")
    wrong_verb = rest(port, "GET", "/v1/games")
    assert wrong_verb.status == 405 and "POST" in wrong_verb.headers["Allow"].split(", ")
    too_large = rest(port, "POST", "/v1/games", raw=b'{"scopa": {}}' + b" " * 70_000)
    assert too_large.status == 413
    assert too_large.body["error"]["details"][0]["reason"] == "REQUEST_TOO_LARGE"
    malformed = rest(port, "POST", "/v1/games", raw=b"{not json")
    assert malformed.status == 400
    assert malformed.body["error"]["details"][0]["reason"] == "MALFORMED_REQUEST"
    # A streamed body over the limit is refused, not cut at the limit and served.
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.putrequest("POST", "/v1/games")
    connection.putheader("Transfer-Encoding", "chunked")
    connection.endheaders()
    for part in [b'{"scopa": {}}', *[b" " * 10_000] * 8, b""]:
        connection.send(b"%x\r\n%s\r\n" % (len(part), part))
    assert connection.getresponse().status == 413
    connection.close()


def test_without_a_metrics_port_rest_still_serves_the_sums() -> None:
    with started(
        MAZZO_WORKERS=str(WORKERS), MAZZO_METRICS_ADDR="", MAZZO_METRICS_ON_REST="true"
    ) as served:
        deadline = time.monotonic() + 30
        with served.changed:
            while not any("REST listening on" in line for line in served.lines):
                assert served.process.poll() is None, served.log
                assert time.monotonic() < deadline, served.log
                served.changed.wait(0.1)
            kinds = Counter(m[1] for line in served.lines if (m := LISTENING.search(line)))
        assert kinds == {"gRPC": 1, "REST": 1}
        port = int(
            next(m[3] for line in served.lines if (m := LISTENING.search(line)) and m[1] == "REST")
        )
        seen = until_every_worker(lambda: rest(port, "POST", "/v1/games", {"scopa": {}}).worker)
        assert sample(port, "mazzo_games_started_total", game="scopa") == sum(seen.values())


# ---------------------------------------------------------------- crashes


def _wait_for_line(served: Served, text: str, timeout: float = WAIT_SECONDS) -> str:
    deadline = time.monotonic() + timeout
    with served.changed:
        while True:
            found = [line for line in served.lines if text in line]
            if found:
                return found[-1]
            assert served.process.poll() is None, served.log
            assert time.monotonic() < deadline, f"no line with {text!r}: {served.log}"
            served.changed.wait(0.1)


def test_a_crashed_worker_is_logged_and_replaced() -> None:
    with started(MAZZO_WORKERS=str(WORKERS)) as served:
        served.wait_until_listening()
        port = served.ports["REST"]
        workers = until_every_worker(lambda: rest(port, "GET", "/v1/catalog").worker)
        rest(port, "POST", "/v1/games", {"scopa": {}})
        games = sample(served.ports["metrics"], "mazzo_games_started_total", game="scopa")
        victim, survivor = sorted(workers)
        os.kill(victim, signal.SIGKILL)

        line = _wait_for_line(served, f"worker {victim} stopped unexpectedly")
        assert " ERROR " in line and "starting a replacement" in line
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            ready = {
                int(line.split("worker ")[1].split()[0])
                for line in served.lines
                if "serving gRPC and REST" in line
            }
            replacements = ready - set(workers)
            if replacements:
                break
            assert time.monotonic() < deadline, served.log
            time.sleep(0.1)
        (replacement,) = replacements

        now = until_every_worker(lambda: rest(port, "GET", "/v1/catalog").worker)
        assert set(now) == {survivor, replacement}
        via_grpc = until_every_worker(
            lambda: grpc_call(served.grpc_target, "GetCatalog", pb.GetCatalogRequest())[1]
        )
        assert set(via_grpc) == {survivor, replacement}
        # The dead worker's counts stay in the sums.
        assert sample(served.ports["metrics"], "mazzo_games_started_total", game="scopa") == games
        assert served.process.poll() is None


_FAIL_TO_BOOT = """
import sys
import mazzo.service.grpc_server

def refuse(self):
    raise OSError("no gRPC today")

mazzo.service.grpc_server.GrpcServer.start = refuse
from mazzo.service.main import main
sys.exit(main())
"""


def test_a_worker_that_cannot_start_stops_the_server_with_status_3() -> None:
    result = subprocess.run(
        [sys.executable, "-c", _FAIL_TO_BOOT],
        cwd=REPO,
        env=environment(MAZZO_WORKERS=str(WORKERS)),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 3, result.stderr
    assert "no gRPC today" in result.stderr
    assert "Worker failed to boot" in result.stderr
    assert "listening on" not in result.stderr


def test_a_grpc_port_in_use_is_refused_at_start() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "mazzo.service"],
            cwd=REPO,
            env=environment(MAZZO_WORKERS=str(WORKERS), MAZZO_GRPC_ADDR=f"127.0.0.1:{port}"),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode == 1, result.stderr
    assert f"cannot listen for gRPC on 127.0.0.1:{port}" in result.stderr
    assert "Traceback" not in result.stderr
    assert "listening on" not in result.stderr


# ---------------------------------------------------------------- SIGTERM


@dataclass(frozen=True)
class Cancelled:
    """A gRPC call answered CANCELLED: when (time.monotonic()) and with what message."""

    at: float
    message: str


def _grpc_stream(
    target: str, stop: threading.Event, outcomes: list[str], cancelled: list[Cancelled]
) -> None:
    with MazzoClient(target, timeout=GRACE_SECONDS) as client:
        while not stop.is_set():
            try:
                game = client.new_game(2, seed=3)
                client.legal_moves(game.state)
                outcomes.append("OK")
            except MazzoError as error:
                outcomes.append(error.code.name)
                if error.code == grpc.StatusCode.CANCELLED:
                    cancelled.append(Cancelled(time.monotonic(), error.message))
                time.sleep(0.01)


def _rest_stream(port: int, stop: threading.Event, outcomes: list[str], workers: set[int]) -> None:
    while not stop.is_set():
        try:
            reply = rest(port, "POST", "/v1/games", {"scopa": {}})
            outcomes.append(str(reply.status))
            workers.add(reply.worker)
        except ConnectionError as error:  # refused, or reset while closing
            outcomes.append(type(error).__name__)
            time.sleep(0.01)
        except Exception as error:
            outcomes.append(f"unexpected {error!r}")


def test_sigterm_drains_every_worker_and_exits_zero() -> None:
    streams_per_transport = 3
    with started(MAZZO_WORKERS=str(WORKERS), MAZZO_GRACE_SECONDS=f"{GRACE_SECONDS:g}") as served:
        served.wait_until_listening()
        stop = threading.Event()
        grpc_outcomes: list[list[str]] = [[] for _ in range(streams_per_transport)]
        cancelled: list[Cancelled] = []
        rest_outcomes: list[str] = []
        rest_workers: set[int] = set()
        # Clients that keep sending on kept-alive connections, too: a draining
        # worker closes each after one more answer instead of waiting for a pause.
        kept_alive: list[str] = []
        streams = (
            [
                threading.Thread(
                    target=_grpc_stream, args=(served.grpc_target, stop, outcomes, cancelled)
                )
                for outcomes in grpc_outcomes
            ]
            + [
                threading.Thread(
                    target=_rest_stream,
                    args=(served.ports["REST"], stop, rest_outcomes, rest_workers),
                )
                for _ in range(streams_per_transport)
            ]
            + [
                threading.Thread(
                    target=keep_alive_stream, args=(served.ports["REST"], stop, kept_alive)
                )
                for _ in range(streams_per_transport)
            ]
        )
        for stream in streams:
            stream.start()
        try:
            deadline = time.monotonic() + WAIT_SECONDS
            while (
                min(outcomes.count("OK") for outcomes in grpc_outcomes) < 10
                or rest_outcomes.count("200") < 30
                or kept_alive.count("200") < 30
                or len(rest_workers) < WORKERS
            ):
                assert time.monotonic() < deadline, (grpc_outcomes, rest_outcomes[-5:])
                time.sleep(0.01)
            signalled = time.monotonic()
            served.process.send_signal(signal.SIGTERM)
            code = served.process.wait(GRACE_SECONDS + 10)
            took = time.monotonic() - signalled
            # No worker outlives its parent, nor a worker's helpers (search processes).
            wait_until_group_gone(served.process.pid)
            # The streams go on calling the stopped server until each has found it gone.
            deadline = time.monotonic() + WAIT_SECONDS
            while time.monotonic() < deadline and not (
                all("UNAVAILABLE" in outcomes for outcomes in grpc_outcomes)
                and "ConnectionRefusedError" in rest_outcomes
            ):
                time.sleep(0.05)
        finally:
            stop.set()
            for stream in streams:
                stream.join(GRACE_SECONDS + 5)
    every_grpc = [outcome for outcomes in grpc_outcomes for outcome in outcomes]
    drains = [line for line in served.lines if "drained" in line or "in flight after" in line]
    # What each process's stop waited for comes first: pytest cuts long messages.
    summary = (
        took,
        drains,
        Counter(every_grpc),
        Counter(rest_outcomes),
        Counter(kept_alive),
        served.log[-3000:],
    )
    assert code == 0, summary
    assert took < GRACE_SECONDS, summary
    assert "SIGTERM received: draining" in served.log
    assert len(drains) == WORKERS and all("drained: REST in" in d for d in drains), drains
    assert served.lines[-1].endswith("stopped")
    assert "Traceback" not in served.log
    assert "stopped unexpectedly" not in served.log
    # Every gRPC call succeeded or found the server gone, except for gRPC core's
    # race (grpc/grpc#41785, see test_serve_process): a call that reaches a
    # worker after its stop began, before the client has read the worker's
    # GOAWAY, is CANCELLED by gRPC core with its bare message, and no handler
    # ran it (Mazzo itself never answers CANCELLED, and a handler cut by the
    # grace period would be UNAVAILABLE and make the stop take the grace).
    # How many such calls a stream meets is up to gRPC and the scheduler
    # (each worker stops on its own, and a stream moves between them), so
    # they are not counted; each must come after SIGTERM and be core's.
    assert set(every_grpc) <= {"OK", "UNAVAILABLE", "CANCELLED"}, summary
    for outcomes in grpc_outcomes:
        assert "UNAVAILABLE" in outcomes, summary
    assert all(call.at > signalled and call.message == "CANCELLED" for call in cancelled), (
        [(call.at - signalled, call.message) for call in cancelled],
        summary,
    )
    failed_rest = set(rest_outcomes) - {"200"}
    gone = {"ConnectionRefusedError", "ConnectionResetError", "RemoteDisconnected"}
    assert failed_rest <= gone | {"BrokenPipeError"}, summary
    assert "ConnectionRefusedError" in failed_rest
    # No request on a kept-alive connection was dropped: each draining worker
    # answered it, saying that the connection closes.
    assert not [outcome for outcome in kept_alive if outcome.startswith("lost")], summary
    assert "200 close" in kept_alive, summary
