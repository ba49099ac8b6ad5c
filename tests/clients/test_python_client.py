"""mazzo-client installs on its own and plays whole games against a live server.

A fresh virtual environment outside the repository gets the package the way a
user installs it: from a checkout (`pip install clients/python`, built in
place) and from its sdist (built elsewhere, where the repository's proto/ is
out of reach). Its dependencies come from the package index (pip's cache
makes the second build quick).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.service.processes import REPO, Served, started

INSTALL_TIMEOUT = 900.0
PLAY_TIMEOUT = 300.0
PLAY_SCRIPT = Path(__file__).with_name("play_python.py")


def run(*args: str | Path, cwd: Path, timeout: float) -> str:
    """Run a command outside the repository, with no trace of the test's own venv."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, f"{args} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the repository's client and proto, laid out as in a checkout."""
    root = tmp_path_factory.mktemp("checkout")
    shutil.copytree(REPO / "proto", root / "proto")
    shutil.copytree(
        REPO / "clients" / "python",
        root / "clients" / "python",
        ignore=shutil.ignore_patterns("_gen", "proto", "build", "*.egg-info", "__pycache__"),
    )
    return root


@pytest.fixture(scope="module")
def fresh_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    venv = tmp_path_factory.mktemp("venv")
    run(sys.executable, "-m", "venv", venv, cwd=venv, timeout=INSTALL_TIMEOUT)
    return venv / "bin" / "python"


@pytest.fixture(scope="module")
def live() -> Iterator[Served]:
    with started() as served:
        served.wait_until_listening()
        yield served


def play(python: Path, target: str, cwd: Path) -> dict[str, Any]:
    script = cwd / PLAY_SCRIPT.name
    shutil.copy(PLAY_SCRIPT, script)
    return json.loads(run(python, script, target, cwd=cwd, timeout=PLAY_TIMEOUT))  # type: ignore[no-any-return]


def assert_whole_games(report: dict[str, Any], python: Path) -> None:
    """Both games went to the end, and the client came from the fresh venv alone."""
    venv = python.parent.parent
    assert Path(report["client_file"]).is_relative_to(venv)
    assert not report["server_importable"]
    sync = report["sync"]
    assert "scopa" in sync["games"] and "tressette" in sync["games"]
    assert sync["plies"] >= 36 and max(sync["scores"]) >= 11
    assert sync["out_of_turn"]["reason"] == "NOT_YOUR_TURN"
    assert sync["after_the_end"] == {
        "code": "FAILED_PRECONDITION",
        "reason": "GAME_OVER",
        "metadata": {},
    }
    assert sync["view_status_game_over"]
    game = report["async"]
    assert game["game"] == "tressette" and game["plies"] >= 40
    assert game["after_the_end"]["reason"] == "GAME_OVER"


def test_python_client_installed_from_a_checkout_plays_whole_games(
    checkout: Path, fresh_python: Path, live: Served, tmp_path: Path
) -> None:
    pip = (fresh_python, "-m", "pip")
    run(*pip, "install", checkout / "clients" / "python", cwd=tmp_path, timeout=INSTALL_TIMEOUT)
    assert_whole_games(play(fresh_python, live.grpc_target, tmp_path), fresh_python)


def test_mazzo_play_without_the_engine_library_says_records_need_it(
    checkout: Path, fresh_python: Path, live: Served, tmp_path: Path
) -> None:
    # The client alone (no mazzo-engine): it plays, but records and replays need the library.
    pip = (fresh_python, "-m", "pip")
    run(*pip, "install", checkout / "clients" / "python", cwd=tmp_path, timeout=INSTALL_TIMEOUT)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    mazzo = fresh_python.parent / "mazzo"
    for option in ("--record", "--replay"):
        done = subprocess.run(
            [mazzo, "play", "--server", live.grpc_target, option, tmp_path / "game.json"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=PLAY_TIMEOUT,
        )
        assert done.returncode == 2, done.stdout + done.stderr
        assert "need the engine library: install mazzo-engine" in done.stderr
        assert "A game of" not in done.stdout


def test_python_client_sdist_carries_the_proto_and_builds_without_the_repository(
    checkout: Path, fresh_python: Path, live: Served, tmp_path: Path
) -> None:
    project = checkout / "clients" / "python"
    build_sdist = f"from setuptools import build_meta; print(build_meta.build_sdist('{tmp_path}'))"
    printed = run(sys.executable, "-c", build_sdist, cwd=project, timeout=INSTALL_TIMEOUT)
    sdist = tmp_path / printed.split()[-1]
    with tarfile.open(sdist) as archive:
        members = archive.getnames()
    assert any(m.endswith("proto/mazzo/v1/engine.proto") for m in members)
    assert not any("/_gen/" in m for m in members)
    pip = (fresh_python, "-m", "pip")
    run(*pip, "uninstall", "--yes", "mazzo-client", cwd=tmp_path, timeout=INSTALL_TIMEOUT)
    run(*pip, "install", sdist, cwd=tmp_path, timeout=INSTALL_TIMEOUT)
    assert_whole_games(play(fresh_python, live.grpc_target, tmp_path), fresh_python)
