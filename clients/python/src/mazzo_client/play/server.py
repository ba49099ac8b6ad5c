"""A Mazzo server for one session: `python -m mazzo.service` on free ports of 127.0.0.1."""

from __future__ import annotations

import importlib.util
import os
import re
import signal
import subprocess
import sys
import threading
from contextlib import suppress
from types import TracebackType

START_SECONDS = 60.0
STOP_SECONDS = 10.0
LISTENING = re.compile(r"\bgRPC listening on (\S+):(\d+)$")


class ServerError(Exception):
    """The local server could not be started."""


def server_installed() -> bool:
    """Whether the Mazzo server package (``mazzo.service``, ``mazzo.engine``) is importable."""
    try:
        return all(
            importlib.util.find_spec(name) is not None
            for name in ("mazzo.service.__main__", "mazzo.engine")
        )
    except ModuleNotFoundError:
        return False


class LocalServer:
    """Starts the server as a child in its own process group; stops it on exit.

    Ports 0 let the system pick free ports; the server logs the ones it got
    ("gRPC listening on 127.0.0.1:PORT") on stderr, which a thread keeps
    draining so the server never blocks on a full pipe.
    """

    def __init__(self) -> None:
        self._lines: list[str] = []
        self._changed = threading.Condition()
        self._process: subprocess.Popen[str] | None = None
        self._reader: threading.Thread | None = None
        self.target = ""

    def __enter__(self) -> LocalServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def log(self) -> str:
        with self._changed:
            return "\n".join(self._lines)

    def start(self) -> None:
        env = {name: value for name, value in os.environ.items() if not name.startswith("MAZZO_")}
        env.update(
            MAZZO_GRPC_ADDR="127.0.0.1:0",
            MAZZO_HTTP_ADDR="127.0.0.1:0",
            MAZZO_METRICS_ADDR="",  # no metrics port for a session
            MAZZO_WORKERS="1",
        )
        self._process = subprocess.Popen(
            [sys.executable, "-m", "mazzo.service"],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # a Ctrl-C at the prompt is ours, not the server's
        )
        self._reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._reader.start()
        self.target = self._wait_for_port()

    def _read_stderr(self) -> None:
        assert self._process is not None and self._process.stderr is not None
        for line in self._process.stderr:
            with self._changed:
                self._lines.append(line.rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    def _wait_for_port(self) -> str:
        assert self._process is not None
        process = self._process

        def listening() -> re.Match[str] | None:
            return next((m for line in self._lines if (m := LISTENING.search(line))), None)

        with self._changed:
            found = self._changed.wait_for(
                lambda: listening() is not None or process.poll() is not None, START_SECONDS
            )
            match = listening()
        if match is None:
            self.stop()
            why = "exited" if found else f"did not listen within {START_SECONDS:.0f} s"
            raise ServerError(f"the local Mazzo server {why}:\n{self.log}")
        return f"{match[1]}:{match[2]}"

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            with suppress(subprocess.TimeoutExpired):
                process.wait(STOP_SECONDS)
        with suppress(ProcessLookupError):  # its workers too, whatever happened
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(STOP_SECONDS)
        if self._reader is not None:
            self._reader.join(STOP_SECONDS)
