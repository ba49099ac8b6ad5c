"""Settings for the whole suite.

Hypothesis, by default, fails an example that runs longer than 200 ms and
warns about slow data generation: both depend on how busy the machine is, and
this suite must pass on a machine whose cores are busy. The profile below
turns them off for every property test, including those that set their own
example counts with ``@settings``.

gRPC's fork support is off for the suite's processes, set before any test
module imports grpc. The suite runs programs in pseudo-terminals (pexpect
forks this process, then the child closes its descriptors and execs) while its
own channels and servers are live. With fork support on, grpcio (1.81 and
later) restarts its polling thread in the forked child, and that thread aborts
the child ("epoll_wait error: Bad file descriptor") once the child has closed
the poller's descriptor: the program never starts, at random. Nothing here uses
gRPC in a forked child, which is all that fork support is for.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

os.environ["GRPC_ENABLE_FORK_SUPPORT"] = "false"

settings.register_profile("mazzo", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("mazzo")
