"""The server and the browser of the browser tests, one of each per test module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from selenium.webdriver.remote.webdriver import WebDriver

from tests.service.processes import started
from tests.web.support import chromium


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    """``python -m mazzo.service`` on free ports of 127.0.0.1, requiring seat credentials
    (the web table holds seat 0's only): the REST address."""
    with started(MAZZO_REQUIRE_SEAT_CREDENTIALS="true") as served:
        served.wait_until_listening()
        yield f"http://127.0.0.1:{served.ports['REST']}"


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    with chromium() as driver:
        yield driver
