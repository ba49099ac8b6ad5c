"""Service overhead: Validate and Play against do-nothing baselines on the same server.

The server (benchmarks/service_server.py) is one process with the real gRPC
server and REST gateway, plus an echo RPC on the same grpc.server and an empty
route in the same Flask app. The load comes from another process
(benchmarks/service_client.py) keeping a few calls in flight. With two cores or
more, the server is pinned to one core and the client to another, so the
server's figures are one core's. Each repeat measures every target in turn, so
a ratio compares figures taken seconds apart, under the same conditions.

Validate and Play are measured twice against the same baselines. Warm (the
target rows): on the tokens the server itself returned, as a caller's next
call brings them, which the server remembers (it is primed before each warm
run: a cold run pushes them out). Cold: on tokens the server has never seen
(after a restart, or a game whose calls land on another worker process), the
same positions sealed anew by the client, more of them than the server
remembers, taken in turn so that every one is a miss. The server counts its
hits and misses, and the table shows the share of calls whose token it knew.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
from typing import IO, Any

from benchmarks.service_client import TARGETS, WARM_TARGETS
from benchmarks.service_server import BUSY_MICROSECONDS
from benchmarks.stats import Figure, Table, ratio

ROOT = pathlib.Path(__file__).resolve().parent.parent

#: (row label, target, baseline target or None)
ROWS = [
    ("gRPC Validate", "grpc_validate", "grpc_echo_validate"),
    ("gRPC Validate (cold token)", "grpc_validate_cold", "grpc_echo_validate"),
    ("gRPC echo, Validate's sizes", "grpc_echo_validate", None),
    (f"gRPC echo + {BUSY_MICROSECONDS} us of Python", "grpc_busy_validate", "grpc_echo_validate"),
    ("gRPC Play", "grpc_play", "grpc_echo_play"),
    ("gRPC Play (cold token)", "grpc_play_cold", "grpc_echo_play"),
    ("gRPC echo, Play's sizes", "grpc_echo_play", None),
    ("REST validate", "rest_validate", "rest_empty_validate"),
    ("REST validate (cold token)", "rest_validate_cold", "rest_empty_validate"),
    ("REST empty route, validate's sizes", "rest_empty_validate", None),
    ("REST play", "rest_play", "rest_empty_play"),
    ("REST play (cold token)", "rest_play_cold", "rest_empty_play"),
    ("REST empty route, play's sizes", "rest_empty_play", None),
]
#: The performance target: throughput as a share of the baseline's. It applies to the
#: warm targets (what a caller does); cold tokens and the calibration have none.
TARGET_RATIOS = {"validate": 0.85, "play": 0.70}


class _Process:
    """A child speaking JSON lines on its standard input and output."""

    def __init__(self, module: str, cpu: int | None, *args: str) -> None:
        self.module = module
        self.popen = subprocess.Popen(
            [sys.executable, "-m", module, *args],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        if cpu is not None:
            # Threads started from now on inherit it; the child has started none yet.
            os.sched_setaffinity(self.popen.pid, {cpu})

    def read(self) -> Any:
        stdout: IO[str] = self.popen.stdout  # type: ignore[assignment]
        line = stdout.readline()
        if not line:
            raise RuntimeError(f"{self.module} exited ({self.popen.wait()})")
        answer = json.loads(line)
        if isinstance(answer, dict) and "error" in answer:
            raise RuntimeError(f"{self.module}: {answer['error']}")
        return answer

    def ask(self, command: dict[str, Any]) -> Any:
        stdin: IO[str] = self.popen.stdin  # type: ignore[assignment]
        stdin.write(json.dumps(command) + "\n")
        stdin.flush()
        return self.read()

    def stop(self) -> None:
        if self.popen.stdin is not None:
            self.popen.stdin.close()
        try:
            self.popen.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait()


def _cpu_seconds(pid: int) -> float:
    """User + system CPU of every thread of a process (Linux /proc)."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _cpus() -> tuple[int | None, int | None]:
    """One core for the server, another for the client, when there are two."""
    try:
        available = sorted(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return None, None
    if len(available) < 2:
        return None, None
    return available[0], available[1]


def run(
    *,
    repeats: int,
    seconds: float,
    warmup_seconds: float,
    concurrency: int,
    games: int,
    plies: int,
) -> list[Table]:
    server_cpu, client_cpu = _cpus()
    server = _Process("benchmarks.service_server", server_cpu)
    client = None
    try:
        ready = server.read()
        client = _Process("benchmarks.service_client", client_cpu)
        setup = client.ask(
            {
                "cmd": "setup",
                "grpc_port": ready["grpc_port"],
                "http_port": ready["http_port"],
                "games": games,
                "plies": plies,
                "seed": 1,
                "cold_tokens": 2 * ready["opened_states"],
            }
        )
        setup["opened_states"] = ready["opened_states"]
        for target in TARGETS:
            client.ask(
                {
                    "cmd": "run",
                    "target": target,
                    "seconds": warmup_seconds,
                    "concurrency": concurrency,
                }
            )
        samples: dict[str, list[dict[str, float]]] = {t: [] for t in TARGETS}
        for _ in range(repeats):
            for target in TARGETS:
                if target in WARM_TARGETS:
                    client.ask({"cmd": "prime"})
                known = client.ask({"cmd": "stats"})
                before = _cpu_seconds(ready["pid"])
                result = client.ask(
                    {"cmd": "run", "target": target, "seconds": seconds, "concurrency": concurrency}
                )
                used = _cpu_seconds(ready["pid"]) - before
                result["server_cpu_us"] = used / max(result["calls"], 1) * 1e6
                after = client.ask({"cmd": "stats"})
                result["hits"] = after["hits"] - known["hits"]
                result["misses"] = after["misses"] - known["misses"]
                samples[target].append(result)
    finally:
        if client is not None:
            client.stop()
        server.stop()
    return _tables(samples, setup, server_cpu, client_cpu, seconds, concurrency)


def _tables(
    samples: dict[str, list[dict[str, float]]],
    setup: dict[str, Any],
    server_cpu: int | None,
    client_cpu: int | None,
    seconds: float,
    concurrency: int,
) -> list[Table]:
    def figure(target: str, key: str, unit: str) -> Figure:
        return Figure.of([s[key] for s in samples[target]], unit)

    pinned = (
        f"server pinned to CPU {server_cpu}, client to CPU {client_cpu}"
        if server_cpu is not None
        else "server and client not pinned (fewer than two CPUs)"
    )
    table = Table(
        "service",
        "Service overhead: one server process, same stack (median of runs, min..max)",
        [
            "call",
            "calls/s",
            "p50 ms",
            "p99 ms",
            "server CPU us/call",
            "req B",
            "resp B",
            "calls/s vs baseline",
            "token known",
        ],
        notes=[
            f"{concurrency} calls in flight from a separate client process; {seconds:g} s per",
            f"measurement; {pinned}. Requests: every position of seeded random 2-player",
            f"Scopa games ({setup['positions']} positions), the move played there.",
            "Warm rows (the targets): the tokens the server returned when the client played",
            "those games through its gRPC Play, which it remembers; one EngineHandlers serves",
            "gRPC and REST, so REST replays the same tokens; primed before each warm run.",
            "Cold rows: the same positions with tokens the server never saw (sealed anew by",
            f"the client with the server's key), {setup['cold_tokens']} distinct tokens per"
            f" target, over twice the {setup['opened_states']} states",
            "the server remembers, taken in turn: every call opens and decodes its token.",
            "Token known: the share of calls whose token the server remembered.",
            "Baselines: an echo method on the same grpc.server (through the same metrics",
            "interceptor) and an empty route in the same Flask app (same hooks), answering",
            "zero bytes of the real reply's size to a request of the real request's size.",
            f"Calibration: the echo after {BUSY_MICROSECONDS} us of pure-Python work (a spin).",
        ],
    )
    ratios = Table(
        "service_ratios",
        "Service overhead: throughput as a share of the baseline's (the performance targets)",
        ["call", "calls/s ratio", "target", "met", "server CPU us over baseline"],
    )
    errors = sum(int(s["errors"]) for runs in samples.values() for s in runs)
    if errors:
        table.notes.append(f"ERRORS: {errors} calls failed")
    for label, target, baseline in ROWS:
        calls = figure(target, "calls_per_s", "calls/s")
        versus = ratio(calls, figure(baseline, "calls_per_s", "calls/s")) if baseline else None
        table.add(
            label,
            calls,
            figure(target, "p50_ms", "ms"),
            figure(target, "p99_ms", "ms"),
            figure(target, "server_cpu_us", "us"),
            round(setup["sizes"][target]),
            round(setup["response_sizes"][target]),
            versus,
            _known(samples[target]),
        )
        if baseline is not None and versus is not None:
            extra = Figure.of(
                [
                    a["server_cpu_us"] - b["server_cpu_us"]
                    for a, b in zip(samples[target], samples[baseline], strict=True)
                ],
                "us",
            )
            if target not in WARM_TARGETS:  # a cold token or the calibration: no bar
                ratios.add(label, versus, "-", "-", extra)
                continue
            bar = TARGET_RATIOS["validate" if "validate" in target else "play"]
            met = "yes" if versus.median >= bar else "no"
            ratios.add(label, versus, f">= {bar:.2f}", met, extra)
    return [table, ratios]


def _known(runs: list[dict[str, float]]) -> str | None:
    """The share of the calls whose token the server remembered, over every run."""
    looked_up = sum(r["hits"] + r["misses"] for r in runs)
    return f"{sum(r['hits'] for r in runs) / looked_up:.0%}" if looked_up else None
