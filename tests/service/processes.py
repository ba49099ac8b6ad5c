"""Mazzo as real processes (`python -m mazzo.service`), for the tests that start them.

A process listens on 127.0.0.1 port 0 for gRPC, REST and metrics and is read
for the ports it got ("gRPC listening on 127.0.0.1:PORT", ...). It runs in a
process group of its own; at the end of the ``started`` block it gets SIGTERM,
then the whole group (its workers too) SIGKILL, whatever happened.
"""

from __future__ import annotations

import http.client
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

from tests.service.support import http_call
from tests.suite_env import without_suite_settings

REPO = Path(__file__).resolve().parents[2]
START_TIMEOUT = 60.0
STOP_TIMEOUT = 30.0
LISTENING = re.compile(r"\b(gRPC|REST|metrics) listening on (\S+):(\d+)$")


@dataclass
class Served:
    """A running `python -m mazzo.service` and what it wrote to stderr."""

    process: subprocess.Popen[str]
    lines: list[str] = field(default_factory=list)
    changed: threading.Condition = field(default_factory=threading.Condition)
    ports: dict[str, int] = field(default_factory=dict)

    def read_stderr(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            with self.changed:
                self.lines.append(line.rstrip("\n"))
                self.changed.notify_all()
        with self.changed:
            self.changed.notify_all()

    def wait_until_listening(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        with self.changed:
            while len(self.ports) < 3:
                self.ports = {
                    m[1]: int(m[3]) for line in self.lines if (m := LISTENING.search(line))
                }
                if len(self.ports) == 3:
                    break
                assert self.process.poll() is None, f"exited early: {self.log}"
                assert time.monotonic() < deadline, f"did not start: {self.log}"
                self.changed.wait(0.1)

    @property
    def log(self) -> str:
        with self.changed:
            return "\n".join(self.lines)

    @property
    def grpc_target(self) -> str:
        return f"127.0.0.1:{self.ports['gRPC']}"


def environment(**settings: str) -> dict[str, str]:
    """The test's environment without any MAZZO_* setting (nor the suite's own,
    tests/suite_env.py), plus ``settings``.

    Free ports of 127.0.0.1, 4 gRPC threads, one process (MAZZO_WORKERS=1) and
    no drain delay on SIGTERM unless ``settings`` say otherwise.
    """
    env = {
        name: value
        for name, value in without_suite_settings(os.environ).items()
        if not name.startswith("MAZZO_") and name != "PROMETHEUS_MULTIPROC_DIR"
    }
    env.update(
        MAZZO_GRPC_ADDR="127.0.0.1:0",
        MAZZO_HTTP_ADDR="127.0.0.1:0",
        MAZZO_METRICS_ADDR="127.0.0.1:0",
        MAZZO_GRPC_THREADS="4",
        MAZZO_WORKERS="1",
        MAZZO_DRAIN_SECONDS="0",
    )
    env.update(settings)
    return env


@contextmanager
def started(
    python: str | Path = sys.executable, cwd: Path = REPO, **settings: str
) -> Iterator[Served]:
    """Start a server process (not yet listening); kill it on the way out, always.

    ``python -m mazzo.service``: by default this venv's, in the checkout.
    """
    process = subprocess.Popen(
        [str(python), "-m", "mazzo.service"],
        cwd=cwd,
        env=environment(**settings),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: its workers are killed with it
    )
    served = Served(process)
    reader = threading.Thread(target=served.read_stderr, daemon=True)
    reader.start()
    try:
        yield served
    finally:
        if process.poll() is None:  # a clean stop first: the parent removes its files
            process.send_signal(signal.SIGTERM)
            with suppress(subprocess.TimeoutExpired):
                process.wait(STOP_TIMEOUT)
        with suppress(ProcessLookupError):  # the group is gone once every member exited
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)
        reader.join(5)


def live_group_members(pgid: int) -> list[str]:
    """The command lines of the live processes of a process group (zombies,
    exited and waiting for init to reap them, are not live)."""
    commands = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue  # gone meanwhile
        if int(fields[2]) == pgid and fields[0] != "Z":
            commands.append(command)
    return commands


def wait_until_group_gone(pgid: int, timeout: float = STOP_TIMEOUT) -> None:
    """Wait until no process of the group lives: a worker's helpers (its search
    processes, multiprocessing's resource tracker) may end a moment after it."""
    deadline = time.monotonic() + timeout
    while members := live_group_members(pgid):
        assert time.monotonic() < deadline, f"still alive: {members}"
        time.sleep(0.05)


def metric(port: int, line_start: str) -> float:
    reply = http_call(port, "GET", "/metrics")
    assert reply.status == 200
    for line in reply.body.decode().splitlines():
        if line.startswith(line_start + " "):
            return float(line.split()[-1])
    return 0.0


def keep_alive_stream(port: int, stop: threading.Event, outcomes: list[str]) -> None:
    """GET /v1/catalog back to back on one kept-alive connection, until ``stop``.

    Each outcome is the status, with " close" when the answer said
    ``Connection: close`` (a draining server's last answer on a connection;
    http.client then opens a new one for the next request); or the error's
    name, with "lost " in front when the request went out on a kept-alive
    connection that the server closed without an answer or a warning.
    """
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=STOP_TIMEOUT)
    try:
        while not stop.is_set():
            kept_alive = connection.sock is not None
            try:
                connection.request("GET", "/v1/catalog")
                response = connection.getresponse()
                response.read()
                outcomes.append(f"{response.status}{' close' if response.will_close else ''}")
            except (OSError, http.client.HTTPException) as error:
                connection.close()
                outcomes.append(f"{'lost ' if kept_alive else ''}{type(error).__name__}")
                time.sleep(0.01)
    finally:
        connection.close()
