"""`make fleet-test`, short: replicas behind the committed HAProxy set-up, under load,
through a rolling update, a kill -9 and a key rotation; and the set-up itself.

`python -m loadtests.fleet` starts three replicas (one server process each)
and HAProxy on free ports of 127.0.0.1, drives whole games through the proxy
over both transports with Locust, and stops everything. A short run (phases
of SHORT_PHASE_SECONDS each, plus what their restarts take: about a minute)
must lose no call for a client that retries as docs/integration.md says,
refuse no token, and answer every keyed Play sent twice alike. Nothing here
depends on speed: every wait in the run is for a condition, with a bound far
above what it takes, and no rate is checked.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from contextlib import suppress
from pathlib import Path

from loadtests.fleet import (
    FAILURES,
    HAPROXY_CONFIG,
    PHASES,
    REPLICAS_EXAMPLE,
    by_phase,
    haproxy_command,
    proxy_retries,
    replicas_config,
)
from tests.suite_env import without_suite_settings

REPO = Path(__file__).resolve().parents[2]
PHASE_COUNT = len(PHASES)
SHORT_PHASE_SECONDS = 2
#: A bound on the whole run, far above what it takes (about a minute).
RUN_TIMEOUT = 900


def test_the_committed_replicas_file_is_what_the_fleet_test_writes_for_three_hosts() -> None:
    hosts = [(f"mazzo-{n}", 8080, 50051) for n in (1, 2, 3)]
    assert REPLICAS_EXAMPLE.read_text() == replicas_config(hosts)


def test_haproxy_accepts_the_committed_set_up(tmp_path: Path) -> None:
    checked = subprocess.run(
        [haproxy_command(), "-c", "-f", str(HAPROXY_CONFIG), "-f", str(REPLICAS_EXAMPLE)],
        env={**os.environ, "MAZZO_PROXY_SOCKET": str(tmp_path / "admin.sock")},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "Configuration file is valid" in checked.stdout + checked.stderr


#: Two requests in HAProxy's log (httplog, as the fleet test writes it): a Play sent
#: again to another replica ("+1" retries), then a plain one.
PROXY_LOG = (
    "<134>Dec  7 19:01:11 haproxy[18195]: 127.0.0.1:34430 [07/Dec/2026:19:01:11.935]"
    " mazzo-grpc mazzo-grpc/mazzo-3 0/0/0/1/1 200 347 - - ---- 3/1/1/0/+1 0/0"
    ' "POST http://127.0.0.1:52877/mazzo.v1.Engine/Play HTTP/2.0"\n'
    "<134>Dec  7 19:01:12 haproxy[18195]: 127.0.0.1:35442 [07/Dec/2026:19:01:12.002]"
    " mazzo-rest mazzo-rest/mazzo-2 0/0/0/1/1 200 296 - - ---- 3/2/1/1/0 0/0"
    ' "POST /v1/games:legalMoves HTTP/1.1"\n'
)


def test_the_calls_the_proxy_sent_again_are_read_from_its_log_and_counted_by_phase(
    tmp_path: Path,
) -> None:
    log = tmp_path / "haproxy.log"
    log.write_text(PROXY_LOG)
    (retried,) = proxy_retries(log)
    assert (retried["transport"], retried["outcome"]) == ("grpc", "proxy retried")
    began = retried["at"] - 0.5
    table = by_phase([retried], [("steady", began - 60), ("kill -9", began)])
    assert table["kill -9", "grpc"]["proxy retried"] == 1
    assert not table["steady", "grpc"] and not table["kill -9", "rest"]


def test_a_short_fleet_run_loses_no_call_through_updates_a_kill_and_a_key_rotation(
    tmp_path: Path,
) -> None:
    fleet = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "loadtests.fleet",
            "--duration",
            str(SHORT_PHASE_SECONDS * PHASE_COUNT),
            "--results",
            str(tmp_path),
        ],
        cwd=REPO,
        env=without_suite_settings(os.environ),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        output, _ = fleet.communicate(timeout=RUN_TIMEOUT)
    finally:
        if fleet.poll() is None:  # it stops what it started on SIGTERM
            fleet.send_signal(signal.SIGTERM)
            with suppress(subprocess.TimeoutExpired):
                fleet.wait(60)
            with suppress(ProcessLookupError):
                os.killpg(fleet.pid, signal.SIGKILL)
            fleet.wait(10)
    assert fleet.returncode == 0, output[-5000:]
    assert output.rstrip().endswith("PASSED"), output[-5000:]
    verdict = json.loads((tmp_path / "fleet_verdict.json").read_text())
    assert verdict["passed"] and not verdict["problems"], verdict
    for phase in PHASES:
        for transport in ("grpc", "rest"):
            counts = verdict["phases"][f"{phase} {transport}"]
            assert counts.get("ok", 0) + counts.get("retried", 0) > 0, (phase, transport)
            assert not FAILURES & set(counts), (phase, transport, counts)
    alike = sum(counts.get("alike", 0) for counts in verdict["phases"].values())
    assert alike > 0
    # Each replica started once, again at each of three rolling updates, and one
    # once more after its kill -9: a log each time.
    logs = sorted(tmp_path.glob("mazzo-*.log"))
    assert len(logs) == 3 * 4 + 1, [path.name for path in logs]
    # Every stop but the kill was a SIGTERM that drained (the run checked each exited 0).
    drained = [path.name for path in logs if "drain over after" in path.read_text()]
    assert len(drained) == len(logs) - 1, drained
