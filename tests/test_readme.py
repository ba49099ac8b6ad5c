"""The README works as printed: its curl session, its client snippet, its settings table."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest
from google.protobuf import json_format

from mazzo.service.config import settings_table_markdown
from mazzo.service.grpc_server import GrpcServer
from mazzo.service.handlers import EngineHandlers
from mazzo.service.http_server import HttpLimits, HttpServer, bind, port_of
from mazzo.service.metrics import Metrics
from mazzo.service.rest import create_app
from mazzo.service.state_token import StateSealer, generate_dev_key
from mazzo.v1 import engine_pb2 as pb

README = (pathlib.Path(__file__).parent.parent / "README.md").read_text()


def _fenced(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.S)


@pytest.fixture(scope="module")
def handlers() -> EngineHandlers:
    return EngineHandlers(StateSealer([generate_dev_key()]), Metrics())


@pytest.fixture(scope="module")
def rest_address(handlers: EngineHandlers) -> Iterator[str]:
    sock = bind(("127.0.0.1", 0))
    server = HttpServer([(sock, create_app(handlers, Metrics()))], HttpLimits())
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    yield f"127.0.0.1:{port_of(sock)}"
    server.close()
    thread.join(5)


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
    snippet = _fenced("python")[0]
    code = snippet.replace("127.0.0.1:50051", grpc_address)
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "1\nGAME_OVER\n"


def test_readme_game_against_the_expert_runs_to_its_end(grpc_address: str) -> None:
    snippet = _fenced("python")[1]
    assert "expert" in snippet
    code = snippet.replace("127.0.0.1:50051", grpc_address)
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr
    assert re.fullmatch(r"winner: side [01] scores \[\d+, \d+\]\n", result.stdout)


def test_readme_asyncio_client_snippet_runs(grpc_address: str) -> None:
    snippet = _fenced("python")[2]
    assert "AsyncMazzoClient" in snippet
    code = snippet.replace("127.0.0.1:50051", grpc_address)
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "game over: True\n"


def _game_starts() -> list[str]:
    """The request bodies of the README's table of games."""
    table = README.split("Games today", 1)[1].split("\n\n", 2)[1]
    return re.findall(r"\| `(\{.*\})` \|", table)


def test_readme_starts_every_game_and_variant_as_shown(handlers: EngineHandlers) -> None:
    bodies = _game_starts()
    assert len(bodies) == 11
    variants = {pb.ScopaVariant.Name(v) for v in pb.ScopaVariant.values()} - {
        "SCOPA_VARIANT_UNSPECIFIED",
        "SCOPA_VARIANT_SCOPA",
    }
    assert {v for v in variants if v in "".join(bodies)} == variants
    for body in bodies:
        request = json_format.Parse(body, pb.NewGameRequest())
        started = handlers.new_game(request)
        assert not started.status.game_over and started.state, body


def test_readme_configuration_table_matches_the_settings() -> None:
    assert settings_table_markdown().strip() in README
