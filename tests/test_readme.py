"""The README works as printed: its curl session, its client snippet, its settings table."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest
from werkzeug.serving import make_server

from service.config import settings_table_markdown
from service.grpc_server import GrpcServer
from service.handlers import EngineHandlers
from service.metrics import Metrics
from service.rest import create_app
from service.state_token import StateSealer, generate_dev_key

README = (pathlib.Path(__file__).parent.parent / "README.md").read_text()


def _fenced(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.S)


@pytest.fixture(scope="module")
def handlers() -> EngineHandlers:
    return EngineHandlers(StateSealer([generate_dev_key()]), Metrics())


@pytest.fixture(scope="module")
def rest_address(handlers: EngineHandlers) -> Iterator[str]:
    server = make_server("127.0.0.1", 0, create_app(handlers, Metrics()), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def grpc_address(handlers: EngineHandlers) -> Iterator[str]:
    server = GrpcServer(handlers, Metrics(), "127.0.0.1:0")
    server.start()
    yield f"127.0.0.1:{server.port}"
    server.stop(0)


def _session() -> list[tuple[str, str]]:
    """The console block as (command, expected output) pairs."""
    (block,) = _fenced("console")
    steps: list[tuple[str, str]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], ""))
        else:
            command, output = steps[-1]
            steps[-1] = (command, output + line + "\n")
    return steps


def test_readme_curl_session_prints_what_the_readme_shows(
    rest_address: str, tmp_path: pathlib.Path
) -> None:
    steps = _session()
    script = "".join(
        f"echo '@@step {i}@@'\n{command.replace('localhost:8080', rest_address)}\n"
        for i, (command, _) in enumerate(steps)
    )
    result = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    outputs = re.split(r"@@step \d+@@\n", result.stdout)[1:]
    assert len(outputs) == len(steps)
    for (command, expected), actual in zip(steps, outputs, strict=True):
        assert actual == expected, command


def test_readme_python_client_snippet_runs(grpc_address: str) -> None:
    (snippet,) = _fenced("python")
    code = snippet.replace("127.0.0.1:50051", grpc_address)
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "1\n"


def test_readme_configuration_table_matches_the_settings() -> None:
    assert settings_table_markdown().strip() in README
