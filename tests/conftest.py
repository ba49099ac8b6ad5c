"""Settings for the whole suite.

Hypothesis, by default, fails an example that runs longer than 200 ms and
warns about slow data generation: both depend on how busy the machine is, and
this suite must pass on a machine whose cores are busy. The profile below
turns them off for every property test, including those that set their own
example counts with ``@settings``.

The environment of the suite's own processes is set here too, before any
test module imports grpc (tests/suite_env.py says what and why).
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

from tests.suite_env import apply_suite_settings

apply_suite_settings()

settings.register_profile("mazzo", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("mazzo")
