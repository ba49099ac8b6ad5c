"""What the suite sets in its own processes' environment, and only there.

gRPC's fork support is off. The suite runs programs in pseudo-terminals
(pexpect forks a test process, then the child closes its descriptors and execs)
while that process's own channels and servers are live. With fork support on,
grpcio (1.81 and later) restarts its polling thread in the forked child, and
that thread aborts the child ("epoll_wait error: Bad file descriptor") once the
child has closed the poller's descriptor: the program never starts, at random.
Nothing in the suite uses gRPC in a forked child, which is all that fork
support is for. It must be set before grpc is first imported
(tests/conftest.py does).

The servers and the terminal game the suite starts leave these out of their
environment (:func:`without_suite_settings`): they run as they run outside it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

SUITE_SETTINGS = {"GRPC_ENABLE_FORK_SUPPORT": "false"}


def apply_suite_settings() -> None:
    os.environ.update(SUITE_SETTINGS)


def without_suite_settings(environment: Mapping[str, str]) -> dict[str, str]:
    return {name: value for name, value in environment.items() if name not in SUITE_SETTINGS}
