"""The TypeScript client plays whole games with node against a live REST gateway.

`make test` builds clients/typescript first (npm ci, types generated from the
proto, tsc); this runs its compiled tests with node's test runner, MAZZO_URL
pointing at a server started here on a free port of 127.0.0.1.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator

import pytest

from tests.service.processes import REPO, started

CLIENT = REPO / "clients" / "typescript"
COMPILED_TESTS = CLIENT / "dist" / "test"
RUN_TIMEOUT = 600.0


@pytest.fixture(scope="module")
def rest_url() -> Iterator[str]:
    # Suggest's budget may be long: the tests bound a search by its simulations,
    # never by time, so that a busy machine changes no answer.
    with started(MAZZO_MAX_SUGGEST_MS="60000") as served:
        served.wait_until_listening()
        yield f"http://127.0.0.1:{served.ports['REST']}"


def node(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """node run in clients/typescript, where `import "mazzo-client"` names the built client."""
    found = shutil.which("node")
    assert found is not None, "node (20 or newer) is needed for the TypeScript client"
    assert COMPILED_TESTS.is_dir(), "build it first: make test (or npm ci && npm run build)"
    return subprocess.run(
        [found, *args],
        cwd=CLIENT,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )


def test_typescript_client_plays_whole_games_against_a_live_server(rest_url: str) -> None:
    done = node("--test", "--test-reporter=spec", str(COMPILED_TESTS), env={"MAZZO_URL": rest_url})
    report = done.stdout + done.stderr
    assert done.returncode == 0, report
    passed = re.search(r"^ℹ pass (\d+)$", report, re.MULTILINE)
    assert passed and int(passed[1]) > 0 and re.search(r"^ℹ fail 0$", report, re.MULTILINE), report
    assert "✔ a Scopa game plays to its end" in report, report
    assert "✔ a game against a bot with seat credentials" in report, report
    assert "✔ suggest answers a legal move" in report, report


def test_readme_typescript_snippet_plays_a_game(rest_url: str) -> None:
    readme = (REPO / "README.md").read_text()
    (snippet,) = re.findall(r"^```js\n(.*?)^```$", readme, re.MULTILINE | re.DOTALL)
    code = snippet.replace("http://127.0.0.1:8080", rest_url)
    done = node("--input-type=module", "--eval", code)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "1\nGAME_OVER\n"
