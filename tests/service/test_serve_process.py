"""`python -m mazzo.service` as a real process: ports from its log, keys, SIGTERM, bad config.

Every process here runs with MAZZO_WORKERS=1 (one process, no supervisor);
tests/service/test_workers.py runs several. The helpers that start them, read
their ports and kill them are in tests/service/processes.py.
"""

from __future__ import annotations

import base64
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass

import grpc
import pytest

from mazzo.service.headers import ANSWER_HEADERS
from mazzo_client import MazzoClient, MazzoError
from tests.service.processes import (
    LISTENING,
    REPO,
    STOP_TIMEOUT,
    Served,
    environment,
    keep_alive_stream,
    live_group_members,
    metric,
    started,
    wait_until_group_gone,
)
from tests.service.support import http_call

DEV_KEY_WARNING = "MAZZO_STATE_KEYS is not set"

KEY = base64.b64encode(bytes(range(32))).decode()
OTHER_KEY = base64.b64encode(bytes(range(50, 82))).decode()
KEYS = f"live={KEY}"


@dataclass
class Fleet:
    live: Served  # MAZZO_STATE_KEYS=live=KEY
    twin: Served  # the same keys
    stranger: Served  # another key id and secret
    dev: Served  # no MAZZO_STATE_KEYS


@pytest.fixture(scope="module")
def fleet() -> Iterator[Fleet]:
    """Four processes, started together (start-up is the slow part) and killed at the end."""
    with ExitStack() as stack:
        processes = Fleet(
            live=stack.enter_context(started(MAZZO_STATE_KEYS=KEYS, MAZZO_METRICS_ON_REST="true")),
            twin=stack.enter_context(started(MAZZO_STATE_KEYS=KEYS)),
            stranger=stack.enter_context(started(MAZZO_STATE_KEYS=f"other={OTHER_KEY}")),
            dev=stack.enter_context(started()),
        )
        for served in (processes.live, processes.twin, processes.stranger, processes.dev):
            served.wait_until_listening()
        yield processes


# ---------------------------------------------------------------- serving


def test_the_log_names_three_distinct_free_ports(fleet: Fleet) -> None:
    ports = fleet.live.ports
    assert set(ports) == {"gRPC", "REST", "metrics"}
    assert all(port > 0 for port in ports.values())
    assert len(set(ports.values())) == 3
    for line in fleet.live.lines:
        if match := LISTENING.search(line):
            assert match[2] == "127.0.0.1"


def test_both_transports_and_the_metrics_port_answer(fleet: Fleet) -> None:
    live = fleet.live
    games = 'mazzo_games_started_total{game="scopa"}'
    before = metric(live.ports["metrics"], games)
    with MazzoClient(live.grpc_target) as client:
        game = client.new_game(2, seed=11)
    assert game.status.seat_to_play == 0
    catalog = http_call(live.ports["REST"], "GET", "/v1/catalog")
    assert catalog.status == 200 and catalog.json()["games"][0]["name"] == "scopa"
    rest_game = http_call(live.ports["REST"], "POST", "/v1/games", {"scopa": {}, "seed": "11"})
    assert rest_game.status == 200
    assert rest_game.json()["events"][0]["deal"]["table"] == list(game.events[0].deal.table)
    # The metrics port and the REST port's /metrics (MAZZO_METRICS_ON_REST) show the same registry.
    assert metric(live.ports["metrics"], games) == before + 2
    assert metric(live.ports["REST"], games) == before + 2


def test_metrics_stay_off_the_rest_port_by_default(fleet: Fleet) -> None:
    assert http_call(fleet.twin.ports["REST"], "GET", "/metrics").status == 404
    assert http_call(fleet.twin.ports["metrics"], "GET", "/metrics").status == 200


def test_the_metrics_port_answers_with_the_security_headers(fleet: Fleet) -> None:
    # Its answers are data, as the REST port's: never sniffed, framed or loading.
    answer = http_call(fleet.twin.ports["metrics"], "GET", "/metrics")
    assert answer.status == 200
    for name, value in ANSWER_HEADERS:
        assert answer.headers.get(name.lower()) == value, name


def test_a_token_opens_in_another_process_with_the_same_keys(fleet: Fleet) -> None:
    with MazzoClient(fleet.live.grpc_target) as live, MazzoClient(fleet.twin.grpc_target) as twin:
        token = live.new_game(2, seed=5).state
        legal = twin.legal_moves(token)
        played = twin.play(token, legal.moves[0])
        assert played.status.seat_to_play == 1
        assert live.legal_moves(played.state).seat == 1  # and back again
    # Over REST too: the twin's gateway opens the live process's token.
    body = {"state": base64.b64encode(token).decode()}
    reply = http_call(fleet.twin.ports["REST"], "POST", "/v1/games:legalMoves", body)
    assert reply.status == 200 and reply.json()["seat"] == 0


def test_a_process_with_another_key_refuses_the_token(fleet: Fleet) -> None:
    with MazzoClient(fleet.live.grpc_target) as live:
        token = live.new_game(2, seed=5).state
    for other in (fleet.stranger, fleet.dev):
        with MazzoClient(other.grpc_target) as client, pytest.raises(MazzoError) as caught:
            client.legal_moves(token)
        assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT
        assert caught.value.reason == "STATE_KEY_UNKNOWN"


def test_without_state_keys_the_log_warns_of_the_development_key(fleet: Fleet) -> None:
    (warning,) = [line for line in fleet.dev.lines if DEV_KEY_WARNING in line]
    assert " WARNING " in warning
    for served in (fleet.live, fleet.twin, fleet.stranger):
        assert DEV_KEY_WARNING not in served.log


# ---------------------------------------------------------------- SIGTERM

#: Long enough that a busy machine stops well within it: a stop that took the
#: whole grace period would mean a call or a connection held the server up.
GRACE_SECONDS = 30.0
#: How long a condition the test waits for may take on a busy machine.
WAIT_SECONDS = 60.0


def _grpc_stream(target: str, stop: threading.Event, outcomes: list[str]) -> None:
    with MazzoClient(target, timeout=GRACE_SECONDS) as client:
        while not stop.is_set():
            try:
                game = client.new_game(2, seed=3)
                client.legal_moves(game.state)
                outcomes.append("OK")
            except MazzoError as error:
                outcomes.append(error.code.name)
                time.sleep(0.01)


def _rest_stream(port: int, stop: threading.Event, outcomes: list[str]) -> None:
    while not stop.is_set():
        try:
            outcomes.append(str(http_call(port, "GET", "/v1/catalog").status))
        except ConnectionError as error:  # refused, or reset while closing
            outcomes.append(type(error).__name__)
            time.sleep(0.01)
        except Exception as error:
            outcomes.append(f"unexpected {error!r}")


def test_sigterm_drains_calls_in_flight_and_exits_zero() -> None:
    with started(MAZZO_STATE_KEYS=KEYS, MAZZO_GRACE_SECONDS=f"{GRACE_SECONDS:g}") as served:
        served.wait_until_listening()
        stop = threading.Event()
        grpc_outcomes: list[str] = []
        rest_outcomes: list[str] = []
        kept_alive: list[str] = []  # a client that keeps sending on one connection
        streams = [
            threading.Thread(target=_grpc_stream, args=(served.grpc_target, stop, grpc_outcomes)),
            threading.Thread(target=_rest_stream, args=(served.ports["REST"], stop, rest_outcomes)),
            threading.Thread(
                target=keep_alive_stream, args=(served.ports["REST"], stop, kept_alive)
            ),
        ]
        for stream in streams:
            stream.start()
        try:
            deadline = time.monotonic() + WAIT_SECONDS
            while (
                grpc_outcomes.count("OK") < 20
                or rest_outcomes.count("200") < 10
                or kept_alive.count("200") < 10
            ):
                assert time.monotonic() < deadline, (grpc_outcomes[-5:], rest_outcomes[-5:])
                time.sleep(0.01)
            signalled = time.monotonic()
            served.process.send_signal(signal.SIGTERM)
            code = served.process.wait(GRACE_SECONDS + 10)
            took = time.monotonic() - signalled
            # The streams go on calling the stopped server until each has found it gone.
            deadline = time.monotonic() + WAIT_SECONDS
            while time.monotonic() < deadline and not (
                "UNAVAILABLE" in grpc_outcomes and "ConnectionRefusedError" in rest_outcomes
            ):
                time.sleep(0.05)
        finally:
            stop.set()
            for stream in streams:
                stream.join(GRACE_SECONDS + 5)
    assert code == 0, served.log
    drains = [line for line in served.lines if "drained" in line or "in flight after" in line]
    # What the stop waited for comes first: pytest cuts long messages.
    summary = (
        took,
        drains,
        Counter(grpc_outcomes),
        Counter(rest_outcomes),
        Counter(kept_alive),
        served.log[-3000:],
    )
    assert took < GRACE_SECONDS, summary
    assert "SIGTERM received: draining" in served.log
    assert len(drains) == 1 and "drained: REST in" in drains[0], drains  # in time: no warning
    assert served.lines[-1].endswith("stopped")
    assert "Traceback" not in served.log
    # Every gRPC call succeeded or found the server gone; the stream outlived it.
    assert "UNAVAILABLE" in grpc_outcomes
    assert set(grpc_outcomes) <= {"OK", "UNAVAILABLE", "CANCELLED"}, sorted(set(grpc_outcomes))
    # Except for gRPC core's own race (grpc/grpc#41785): a call that reached the
    # server but was not yet handed to a handler when shutdown began is CANCELLED.
    # One sequential caller has at most one such call, and the grace period did
    # not run out (took < grace), so no call that was being handled was cut.
    assert grpc_outcomes.count("CANCELLED") <= 1, grpc_outcomes.count("CANCELLED")
    failed_rest = set(rest_outcomes) - {"200"}
    gone = {"ConnectionRefusedError", "ConnectionResetError", "RemoteDisconnected"}
    assert failed_rest <= gone | {"BrokenPipeError"}, summary
    assert "ConnectionRefusedError" in failed_rest
    # The kept-alive connection got one more answer, saying it closes, and no
    # request on it was dropped.
    assert not [outcome for outcome in kept_alive if outcome.startswith("lost")], summary
    assert "200 close" in kept_alive, summary


#: Suggest calls the server has begun (its gRPC interceptor counts them at the start).
SUGGESTS_STARTED = (
    'grpc_server_started_total{grpc_method="Suggest",grpc_service="mazzo.v1.Engine",'
    'grpc_type="unary"}'
)


def test_a_call_that_outlasts_the_grace_period_is_cut_and_the_log_says_so() -> None:
    settings = {"MAZZO_GRACE_SECONDS": "0.5", "MAZZO_MAX_SUGGEST_MS": "3000"}
    with started(**settings) as served:
        served.wait_until_listening()
        outcome: list[str] = []

        def think_long() -> None:
            with MazzoClient(served.grpc_target, timeout=WAIT_SECONDS) as client:
                token = client.new_game(2, seed=5).state
                try:
                    client.suggest(token, 0, "expert", budget_ms=3000)
                    outcome.append("OK")
                except MazzoError as error:
                    outcome.append(error.code.name)

        caller = threading.Thread(target=think_long)
        caller.start()
        deadline = time.monotonic() + WAIT_SECONDS
        while not metric(served.ports["metrics"], SUGGESTS_STARTED):
            assert time.monotonic() < deadline, served.log
            time.sleep(0.05)
        served.process.send_signal(signal.SIGTERM)
        assert served.process.wait(WAIT_SECONDS) == 0, served.log
        caller.join(WAIT_SECONDS)
    assert outcome and outcome != ["OK"], outcome
    assert "gRPC calls were still in flight after 0.5 s: cancelled" in served.log, served.log
    assert "Traceback" not in served.log


def test_searches_run_in_processes_of_their_own_that_stop_with_the_server() -> None:
    # The search is bounded by its simulations, not by time (a busy machine).
    with started(MAZZO_SEARCH_PROCESSES="2", MAZZO_MAX_SUGGEST_MS="60000") as served:
        served.wait_until_listening()
        members = live_group_members(served.process.pid)
        assert len([c for c in members if "spawn_main" in c]) == 2, members
        with MazzoClient(served.grpc_target) as client:
            token = client.new_game(2, seed=5).state
            chosen = client.suggest(token, 0, "expert", budget_ms=60_000, seed=1, simulations=60)
            assert chosen.simulations > 0
            assert client.play(token, chosen.move).status.seat_to_play == 1
        os.killpg(served.process.pid, signal.SIGINT)  # Ctrl-C: the terminal's whole group
        assert served.process.wait(STOP_TIMEOUT) == 0, served.log
        wait_until_group_gone(served.process.pid)
        assert "Traceback" not in served.log, served.log


def test_search_processes_exit_when_their_server_process_is_killed() -> None:
    with started(MAZZO_SEARCH_PROCESSES="2") as served:
        served.wait_until_listening()
        members = live_group_members(served.process.pid)
        assert len([c for c in members if "spawn_main" in c]) == 2, members
        served.process.kill()  # SIGKILL: no pool to close, no drain
        served.process.wait(STOP_TIMEOUT)
        wait_until_group_gone(served.process.pid)


# ---------------------------------------------------------------- bad configuration


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("MAZZO_GRPC_ADDR", "127.0.0.1"),
        ("MAZZO_HTTP_ADDR", "127.0.0.1:99999"),
        ("MAZZO_METRICS_ADDR", "::1:9464"),
        ("MAZZO_STATE_KEYS", "live=not*base64*secret"),
        ("MAZZO_GRACE_SECONDS", "-1"),
        ("MAZZO_GRPC_THREADS", "zero"),
        ("MAZZO_MAX_REQUEST_BYTES", "0"),
        ("MAZZO_LOG_LEVEL", "LOUD"),
    ],
)
def test_a_bad_setting_exits_2_naming_the_variable(variable: str, value: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mazzo.service"],
        cwd=REPO,
        env=environment(**{variable: value}),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2, result.stderr
    assert variable in result.stderr
    assert "configuration error" in result.stderr
    assert "Traceback" not in result.stderr
    assert "listening" not in result.stderr
    if variable == "MAZZO_STATE_KEYS":
        assert "secret" not in result.stderr  # a malformed key is never echoed
