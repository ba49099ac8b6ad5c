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

from tests.service.processes import REPO, started

CLIENT = REPO / "clients" / "typescript"
COMPILED_TESTS = CLIENT / "dist" / "test"
RUN_TIMEOUT = 600.0


def test_typescript_client_plays_whole_games_against_a_live_server() -> None:
    node = shutil.which("node")
    assert node is not None, "node (20 or newer) is needed for the TypeScript client"
    assert COMPILED_TESTS.is_dir(), "build it first: make test (or npm ci && npm run build)"
    with started() as served:
        served.wait_until_listening()
        env = {**os.environ, "MAZZO_URL": f"http://127.0.0.1:{served.ports['REST']}"}
        done = subprocess.run(
            [node, "--test", "--test-reporter=spec", str(COMPILED_TESTS)],
            cwd=CLIENT,
            env=env,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
        )
    report = done.stdout + done.stderr
    assert done.returncode == 0, report
    passed = re.search(r"^ℹ pass (\d+)$", report, re.MULTILINE)
    assert passed and int(passed[1]) > 0 and re.search(r"^ℹ fail 0$", report, re.MULTILINE), report
    assert "✔ a Scopa game plays to its end" in report, report

