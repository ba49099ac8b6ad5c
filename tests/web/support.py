"""Shared helpers of the browser tests: Debian's Chromium under Selenium, and waits on the pages.

Imported as ``tests.web.support``; the fixtures that start the server and the
browser are in ``conftest.py``. Chromium comes from Debian (`make test`
installs it when missing); without it a test fails saying how to install it.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from tests.service.processes import REPO

INSTALL = "apt-get update && apt-get install -y chromium chromium-driver"
#: Where the browser tests keep their screenshots.
ARTIFACTS = REPO / "build" / "test-artifacts" / "web"
WAIT_SECONDS = 60.0
#: How often a wait looks again (a wait ends as soon as its condition holds).
POLL_SECONDS = 0.02
#: Phases where the web table waits for the person, or has finished.
RESTING = ("your-turn", "choosing", "over", "error")


def _executable(name: str) -> str:
    found = shutil.which(name)
    assert found, f"{name} is missing; install Debian's Chromium and its driver: {INSTALL}"
    return found


@contextmanager
def chromium(*, network_log: bool = False, languages: str | None = None) -> Iterator[WebDriver]:
    """Headless Chromium with a fresh profile; its console kept, and with
    ``network_log`` its DevTools network events too (``get_log("performance")``);
    ``languages`` ("es-ES,es"): the browser's languages (navigator.languages)."""
    options = webdriver.ChromeOptions()
    if languages:
        options.add_argument(f"--lang={languages.split(',')[0]}")
        options.add_experimental_option("prefs", {"intl.accept_languages": languages})
    options.binary_location = _executable("chromium")
    profile = tempfile.mkdtemp(prefix="mazzo-chromium-")
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        f"--user-data-dir={profile}",
        "--window-size=1100,860",
    ):
        options.add_argument(flag)
    logs = {"browser": "ALL", **({"performance": "ALL"} if network_log else {})}
    options.set_capability("goog:loggingPrefs", logs)
    driver = webdriver.Chrome(service=Service(_executable("chromedriver")), options=options)
    driver.set_page_load_timeout(WAIT_SECONDS)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def console_errors(driver: WebDriver) -> list[str]:
    """What the page logged as errors since the last look (uncaught exceptions and
    Content-Security-Policy violations too)."""
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def data_of(driver: WebDriver, name: str) -> str | None:
    """The page's ``data-<name>`` attribute of its body (the web table's state)."""
    return driver.find_element(By.TAG_NAME, "body").get_attribute(f"data-{name}")


def resting_phase(driver: WebDriver) -> str:
    """The web table's phase once it has shown every event and waits (or has finished)."""

    def rested(d: WebDriver) -> str | bool:
        phase = data_of(d, "phase")
        return phase if phase in RESTING and data_of(d, "settled") == "true" else False

    phase: str = WebDriverWait(driver, WAIT_SECONDS, poll_frequency=POLL_SECONDS).until(rested)
    return phase


def overflowing(driver: WebDriver) -> list[str]:
    """Elements reaching past the viewport's right edge, and the page's own overflow."""
    found: list[str] = driver.execute_script(
        """
        const width = document.documentElement.clientWidth;
        const wide = [...document.querySelectorAll("body *")]
          .filter((e) => !e.classList.contains("flying") && e.getClientRects().length)
          .filter((e) => e.getBoundingClientRect().right > width + 0.5)
          .map((e) => `${e.tagName}#${e.id}.${e.className}: ${e.getBoundingClientRect().right}`);
        const scrolled = document.documentElement.scrollWidth;
        if (scrolled > width) wide.push(`scrollWidth ${scrolled} > ${width}`);
        return wide;
        """
    )
    return found
