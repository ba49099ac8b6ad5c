"""SIGTERM drains every server process and SIGINT none, whoever receives the signal.

A served Mazzo with MAZZO_WORKERS=2 gets the signal either as its supervisor
alone (`kill -TERM PID`, as an orchestrator sends it; `kill -INT PID`) or as
its whole process group (`kill -TERM -PGID`; Ctrl-C in a terminal, SIGINT to
the group). Each worker logs how it stops, and the server exits 0. After
SIGINT the drain delay is far longer than the test waits: a worker that
drained would still be serving when the wait ends.
"""

from __future__ import annotations

import os
import re
import signal

import pytest

from tests.service.processes import started, wait_until_group_gone

WORKERS = 2
#: How long the stop may take on a busy machine: well under LONG_DRAIN.
STOP_WAIT = 60.0
LONG_DRAIN = 600
SERVING = re.compile(r"worker (\d+) serving gRPC and REST$", re.MULTILINE)


@pytest.mark.parametrize("to_group", [False, True], ids=["to-the-supervisor", "to-the-group"])
@pytest.mark.parametrize(
    ("signum", "drain_seconds", "how"),
    [
        (signal.SIGTERM, 1, "draining for 1 s"),
        (signal.SIGINT, LONG_DRAIN, "without the drain delay"),
    ],
    ids=["SIGTERM", "SIGINT"],
)
def test_sigterm_drains_every_worker_and_sigint_none_whoever_receives_it(
    signum: signal.Signals, drain_seconds: int, how: str, to_group: bool
) -> None:
    with started(MAZZO_WORKERS=str(WORKERS), MAZZO_DRAIN_SECONDS=str(drain_seconds)) as served:
        served.wait_until_listening()
        workers = {int(pid) for pid in SERVING.findall(served.log)}
        assert len(workers) == WORKERS, served.log
        if to_group:
            os.killpg(served.process.pid, signum)
        else:
            served.process.send_signal(signum)
        code = served.process.wait(STOP_WAIT)
        wait_until_group_gone(served.process.pid)
    log = served.log
    assert code == 0, log[-3000:]
    assert f"{signum.name} received: " in log
    for pid in workers:
        assert f"worker {pid} stopping, {how}" in log, log[-3000:]
    assert "Traceback" not in log
