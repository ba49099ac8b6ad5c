"""`make image-test`: run the service image with podman and check what a host relies on.

Starts the image (``--network host``, so the server listens on free ports of
127.0.0.1 given through MAZZO_*_ADDR; the image's own defaults, 0.0.0.0, are
checked from its configuration; read-only root filesystem with a tmpfs at
/tmp, no capabilities, as on Kubernetes), then:

1. the image runs as the numeric non-root user 10001 and has a HEALTHCHECK;
2. the HEALTHCHECK (``python -m mazzo.service.healthcheck``) passes once it serves;
3. a whole game over gRPC and a whole game over REST, and a gRPC token
   played on over REST (every worker holds the same keys); expert
   suggestions over REST, which the workers' search processes run;
4. /metrics carries the calls just made, the build info and per-worker
   process CPU and memory;
5. SIGTERM stops it with exit status 0 within MAZZO_DRAIN_SECONDS +
   MAZZO_GRACE_SECONDS (plus start-up slack).

The container is removed at the end, whatever happened. Every wait is on a
condition with a generous bound; nothing depends on the machine's speed.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from mazzo_client import MazzoClient

USER_ID = "10001"
GRACE_SECONDS = 5
DRAIN_SECONDS = 1
START_TIMEOUT = 90.0
STOP_SLACK = 20.0
#: MAZZO_WORKERS as the image sets it (check_configuration reads it).
IMAGE_WORKERS = 2
MAX_PLIES = 2000
#: Expert moves asked for over REST: each runs in a worker's search process.
SUGGESTED_PLIES = 4


def step(message: str) -> None:
    print(f"image-test: {message}", flush=True)


def podman(*args: str, check: bool = True, timeout: float = 120) -> str:
    done = subprocess.run(
        ["podman", *args], capture_output=True, text=True, timeout=timeout, check=False
    )
    if check and done.returncode != 0:
        raise RuntimeError(f"podman {' '.join(args)}: {done.returncode}\n{done.stderr}")
    return done.stdout.strip()


def free_ports(count: int) -> list[int]:
    """Ports of 127.0.0.1 free right now (held together so that they differ)."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def wait_for(what: str, condition: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout:g} s")
        time.sleep(0.5)


@contextmanager
def container(image: str, ports: list[int]) -> Iterator[str]:
    name = f"mazzo-image-test-{os.getpid()}"
    key = base64.b64encode(os.urandom(32)).decode()
    env = {
        "MAZZO_GRPC_ADDR": f"127.0.0.1:{ports[0]}",
        "MAZZO_HTTP_ADDR": f"127.0.0.1:{ports[1]}",
        "MAZZO_METRICS_ADDR": f"127.0.0.1:{ports[2]}",
        "MAZZO_STATE_KEYS": f"k1={key}",
        "MAZZO_GRACE_SECONDS": str(GRACE_SECONDS),
        "MAZZO_DRAIN_SECONDS": str(DRAIN_SECONDS),
    }
    # As the Kubernetes manifests run it: read-only root, a writable /tmp only,
    # no capabilities, no privilege escalation.
    args = ["run", "--detach", "--name", name, "--network", "host", "--read-only"]
    args += ["--tmpfs", "/tmp", "--cap-drop", "ALL", "--security-opt", "no-new-privileges"]
    for variable, value in env.items():
        args += ["--env", f"{variable}={value}"]
    podman(*args, image)
    try:
        yield name
    except BaseException:
        print(podman("logs", name, check=False), file=sys.stderr)
        raise
    finally:
        podman("rm", "--force", "--time", "0", name, check=False)


def check_configuration(image: str) -> None:
    inspected = json.loads(podman("image", "inspect", image))[0]
    config = inspected["Config"]
    assert config["User"].split(":")[0] == USER_ID, f"user {config['User']!r}, not {USER_ID}"
    # podman shows the HEALTHCHECK beside Config (docker inside it).
    probe = inspected.get("Healthcheck") or config.get("Healthcheck") or {}
    assert probe.get("Test"), "no HEALTHCHECK (build with --format docker)"
    env = dict(item.split("=", 1) for item in config["Env"])
    for variable in ("MAZZO_GRPC_ADDR", "MAZZO_HTTP_ADDR", "MAZZO_METRICS_ADDR"):
        assert env[variable].startswith("0.0.0.0:"), f"{variable}={env[variable]}"
    assert int(env["MAZZO_WORKERS"]) == IMAGE_WORKERS
    workers = env["MAZZO_WORKERS"]
    step(f"image: user {config['User']}, HEALTHCHECK, listens on 0.0.0.0, workers {workers}")


def healthy(name: str) -> bool:
    probe = subprocess.run(["podman", "healthcheck", "run", name], capture_output=True, check=False)
    return probe.returncode == 0


def rest(port: int, path: str, body: object | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data)
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.loads(reply.read())


def play_grpc(target: str) -> bytes:
    """A whole 2-player Scopa game over gRPC; the state after the first move."""
    with MazzoClient(target) as mazzo:
        state = mazzo.new_game(players=2, seed=42).state
        after_first = b""
        for _ in range(MAX_PLIES):
            legal = mazzo.legal_moves(state)
            played = mazzo.play(state, legal.moves[0])
            state = played.state
            after_first = after_first or state
            if played.status.game_over:
                return after_first
    raise AssertionError(f"gRPC game not over after {MAX_PLIES} moves")


def play_rest(port: int, state: str) -> int:
    """Play on from `state` over REST until the game ends; the number of moves."""
    for plies in range(1, MAX_PLIES):
        legal = rest(port, "/v1/games:legalMoves", {"state": state})
        played = rest(port, "/v1/games:play", {"state": state, "move": legal["moves"][0]})
        state = played["state"]
        if played["status"]["gameOver"]:
            return plies
    raise AssertionError(f"REST game not over after {MAX_PLIES} moves")


def expert_suggestions(port: int, state: str) -> int:
    """Expert moves for the first few turns over REST, each sent to Play; their simulations."""
    simulations = 0
    for _ in range(SUGGESTED_PLIES):
        seat = rest(port, "/v1/games:legalMoves", {"state": state}).get("seat", 0)
        body = {"state": state, "seat": seat, "level": "expert", "budgetMs": 100}
        suggested = rest(port, "/v1/games:suggest", body)
        simulations += suggested.get("simulations", 0)
        state = rest(port, "/v1/games:play", {"state": state, "move": suggested["move"]})["state"]
    return simulations


def metric_lines(port: int) -> list[str]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as reply:
        body: bytes = reply.read()
    return body.decode().splitlines()


def check_metrics(port: int) -> None:
    lines = metric_lines(port)

    def value(prefix: str) -> float:
        return sum(float(line.split()[-1]) for line in lines if line.startswith(prefix))

    assert value('grpc_server_handled_total{grpc_code="OK",grpc_method="Play"') > 0, "no gRPC Play"
    assert value('http_requests_total{method="POST",route="/v1/games:play",status="200"}') > 0
    assert value('mazzo_moves_total{game="scopa",outcome="applied"}') > 0
    assert value("mazzo_build_info{") == 1
    for metric in ("process_resident_memory_bytes", "process_cpu_seconds_total"):
        processes = [line for line in lines if line.startswith(metric + "{")]
        roles = sorted(line.split('role="')[1].split('"')[0] for line in processes)
        assert roles == ["supervisor"] + ["worker"] * IMAGE_WORKERS, (metric, processes)
    step(
        f"/metrics: calls counted, build info, CPU and memory of {IMAGE_WORKERS} workers"
        " and the supervisor"
    )


def run(image: str) -> None:
    check_configuration(image)
    ports = free_ports(3)
    started = time.monotonic()
    with container(image, ports) as name:
        assert podman("exec", name, "id", "-u") == USER_ID
        wait_for("HEALTHCHECK passes", lambda: healthy(name), START_TIMEOUT)
        step(f"healthy after {time.monotonic() - started:.1f} s (HEALTHCHECK through gRPC health)")
        first = play_grpc(f"127.0.0.1:{ports[0]}")
        plies = play_rest(ports[1], base64.b64encode(first).decode())
        step(f"a game over gRPC, and one continued over REST from its token ({plies} moves)")
        simulations = expert_suggestions(ports[1], base64.b64encode(first).decode())
        assert simulations > 0, "the expert ran no simulation"
        step(f"{SUGGESTED_PLIES} expert moves over REST ({simulations} simulations in all)")
        check_metrics(ports[2])
        podman("kill", "--signal", "TERM", name)
        stopping = time.monotonic()
        limit = DRAIN_SECONDS + GRACE_SECONDS + STOP_SLACK
        status = podman("wait", name, timeout=limit)
        took = time.monotonic() - stopping
        assert status == "0", f"exit status {status} after SIGTERM"
        step(f"SIGTERM: exit 0 after {took:.1f} s (bound {limit:g} s)")
    step(f"passed in {time.monotonic() - started:.1f} s; container removed")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--image", default="localhost/mazzo:dev")
    run(parser.parse_args().image)
    return 0


if __name__ == "__main__":
    sys.exit(main())
