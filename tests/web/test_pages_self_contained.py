"""The pages load nothing from outside the server, and break none of their policies.

Chromium records every request a page makes (DevTools network events, from
chromedriver's performance log) while /docs renders the API reference and
tries a call, and while a game is started and played on /play. A URL whose
host is not 127.0.0.1 fails the test (data: URLs, which fetch nothing, aside),
and so does any error in the console: a Content-Security-Policy violation is
one, and so is a load the policy blocked.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from tests.web.support import (
    POLL_SECONDS,
    WAIT_SECONDS,
    chromium,
    console_errors,
    data_of,
    resting_phase,
)

HOST = "127.0.0.1"
#: Run in the page: true once RapiDoc has rendered the operations.
RENDERED = """
const doc = document.querySelector("rapi-doc");
return Boolean(doc && doc.shadowRoot && doc.shadowRoot.textContent.includes("/v1/games:play"));
"""
#: Run in the page: clicks RapiDoc's TRY of GET /v1/catalog.
TRY_THE_CATALOG = """
const root = document.querySelector("rapi-doc").shadowRoot;
const request = root.querySelector("div[id='get-/v1/catalog'] api-request").shadowRoot;
[...request.querySelectorAll("button")].find((b) => b.textContent.trim() === "TRY").click();
"""
#: Run in the page: true once RapiDoc shows the tried call's answer, a success.
TRIED = """
const root = document.querySelector("rapi-doc").shadowRoot;
const request = root.querySelector("div[id='get-/v1/catalog'] api-request").shadowRoot;
const status = request.querySelector(".response-message");
return Boolean(status && status.classList.contains("success"));
"""
#: Run in the page (asynchronously): waits until every font the page asked for is loaded.
FONTS_SETTLED = """
const done = arguments[arguments.length - 1];
document.fonts.ready.then(() => done(true));
"""


@pytest.fixture(scope="module")
def recording_browser() -> Iterator[WebDriver]:
    with chromium(network_log=True) as driver:
        yield driver


def requested(driver: WebDriver) -> list[str]:
    """Every URL a page asked for since the last look (not the browser's own pages:
    its new-tab page, chrome://, which it opens before the test's first page)."""
    urls = []
    for entry in driver.get_log("performance"):
        event = json.loads(entry["message"])["message"]
        if event["method"] != "Network.requestWillBeSent":
            continue
        params = event["params"]
        if urlsplit(params.get("documentURL", "")).scheme != "chrome":
            urls.append(params["request"]["url"])
    return urls


def elsewhere(urls: list[str]) -> list[str]:
    """The URLs that leave 127.0.0.1 (a data: URL fetches nothing)."""
    parts = [(url, urlsplit(url)) for url in urls]
    return [url for url, part in parts if part.scheme != "data" and part.hostname != HOST]


def _forget(driver: WebDriver) -> None:
    requested(driver)
    console_errors(driver)


def _wait(driver: WebDriver, script: str) -> object:
    return WebDriverWait(driver, WAIT_SECONDS, poll_frequency=POLL_SECONDS).until(
        lambda d: d.execute_script(script)
    )


def test_the_api_reference_renders_and_tries_a_call_with_nothing_from_another_host(
    recording_browser: WebDriver, server_url: str
) -> None:
    driver = recording_browser
    _forget(driver)
    driver.get(f"{server_url}/docs")
    _wait(driver, RENDERED)
    driver.execute_script(TRY_THE_CATALOG)
    _wait(driver, TRIED)
    driver.execute_async_script(FONTS_SETTLED)
    urls = requested(driver)
    for own in ("/docs", "/docs/rapidoc-min.js", "/openapi.json", "/v1/catalog"):
        assert f"{server_url}{own}" in urls, (own, urls)  # what was recorded is the page's
    assert elsewhere(urls) == []
    assert console_errors(driver) == []


def test_the_web_table_plays_with_nothing_from_another_host(
    recording_browser: WebDriver, server_url: str
) -> None:
    driver = recording_browser
    _forget(driver)
    driver.get(f"{server_url}/play?fast=1&game=scopa&players=2&level=greedy")
    WebDriverWait(driver, WAIT_SECONDS, poll_frequency=POLL_SECONDS).until(
        lambda d: data_of(d, "phase") == "setup"
    )
    driver.find_element(By.ID, "start").click()
    for _ in range(2):
        assert resting_phase(driver) == "your-turn"
        driver.find_elements(By.CSS_SELECTOR, "#hand .card.playable")[0].click()
        if data_of(driver, "phase") == "choosing":
            driver.find_elements(By.CSS_SELECTOR, "#choices .choice")[0].click()
    assert resting_phase(driver) in ("your-turn", "over")
    driver.execute_async_script(FONTS_SETTLED)
    urls = requested(driver)
    for own in ("/play/play.js", "/play/play.css", "/v1/catalog", "/v1/games", "/v1/games:play"):
        assert any(url.startswith(f"{server_url}{own}") for url in urls), (own, urls)
    assert elsewhere(urls) == []
    assert console_errors(driver) == []
