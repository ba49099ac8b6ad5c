"""The web table in the players' languages: its own words (static/play/messages.js)
complete in every language, and whole games played in Chromium in Spanish (the
browser's language) and in Italian (chosen with the page's selector), whose
screenshots are kept in build/test-artifacts/web/ (play-es.png, play-it.png), or in
the folder $MAZZO_SCREENSHOTS_DIR names: `make screenshots` writes docs/'s, so
that `make test` changes no file of the checkout."""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select, WebDriverWait

from tests.i18n_support import SAME_AS_ENGLISH, has_words, placeholders
from tests.service.processes import REPO
from tests.web.support import POLL_SECONDS, WAIT_SECONDS, chromium, console_errors, resting_phase

PAGE = REPO / "service" / "mazzo" / "service" / "static" / "play"
DOCS = Path(os.environ.get("MAZZO_SCREENSHOTS_DIR") or REPO / "build" / "test-artifacts" / "web")
LOCALES = ("it", "es", "fr", "ru")
#: The game's own Italian words, kept as they are where a language writes them so.
PAGE_SAME_AS_ENGLISH = {
    "it": {"Scopa!", "denari", "primiera", "napola", "grande", "piccola", "napoletana"},
    "fr": {"napola"},
}
MAX_CLICKS = 400


def page_messages() -> dict[str, dict[str, object]]:
    text = (PAGE / "messages.js").read_text(encoding="utf-8")
    body = text[text.index("export default ") + len("export default ") :].rstrip().rstrip(";")
    tables: dict[str, dict[str, object]] = json.loads(body)
    return tables


def page_keys() -> set[str]:
    """The English keys play.js and index.html give t()."""
    script = (PAGE / "play.js").read_text(encoding="utf-8")
    keys = set(re.findall(r'(?:\bt|\bN_)\("((?:[^"\\]|\\.)*)"', script))
    markup = (PAGE / "index.html").read_text(encoding="utf-8")
    keys |= {
        html.unescape(k) for k in re.findall(r'data-i18n(?:-html|-label|-title)?="([^"]*)"', markup)
    }
    keys.add("Mazzo · play against the computer")
    return keys


def _forms(value: object) -> list[str]:
    return list(value.values()) if isinstance(value, dict) else [str(value)]


def test_the_page_words_are_translated_in_every_language() -> None:
    tables, keys = page_messages(), page_keys()
    assert len(keys) > 60
    problems = []
    for locale in LOCALES:
        table = tables[locale]
        problems += [f"{locale}: no {key!r}" for key in sorted(keys - table.keys())]
        problems += [f"{locale}: unused {key!r}" for key in sorted(table.keys() - keys)]
        allowed = PAGE_SAME_AS_ENGLISH.get(locale, set())
        for key, value in table.items():
            for form in _forms(value):
                if form == key and has_words(key) and key not in allowed:
                    problems.append(f"{locale}: {key!r} left in English")
                if placeholders(form) != placeholders(key):
                    problems.append(f"{locale}: {key!r} has {placeholders(form)}")
            if isinstance(value, dict):
                assert "other" in value, (locale, key)
    assert problems == []
    assert SAME_AS_ENGLISH  # the server's allowances are the server's; these are the page's


def test_every_score_field_of_every_game_has_its_words_translated() -> None:
    """The score sheet names each field of a game's score message in words (play.js,
    detail()); each such word is a key the page translates."""
    from mazzo.v1 import engine_pb2 as pb

    game = pb.SideScore.DESCRIPTOR.oneofs_by_name["game"]
    words = {
        re.sub(r"([A-Z])", r" \1", field.json_name).lower()
        for kind in game.fields
        for field in kind.message_type.fields
    }
    assert words, "no score fields found"
    assert words <= page_keys(), sorted(words - page_keys())


@pytest.fixture(scope="module")
def spanish_browser() -> Iterator[WebDriver]:
    with chromium(languages="es-ES,es") as driver:
        yield driver


def _wait(driver: WebDriver, condition: object) -> object:
    return WebDriverWait(driver, WAIT_SECONDS, poll_frequency=POLL_SECONDS).until(condition)  # type: ignore[arg-type]


def _open(driver: WebDriver, url: str) -> None:
    console_errors(driver)
    driver.get(f"{url}/play?fast=1&game=scopa&players=2&level=greedy")
    _wait(
        driver, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-phase") == "setup"
    )


def _play_to_the_end(driver: WebDriver, screenshot: Path) -> None:
    """New game; a screenshot at the person's third turn; then a card (or a choice) each turn."""
    driver.find_element(By.ID, "start").click()
    for turn in range(MAX_CLICKS):
        phase = resting_phase(driver)
        if phase == "over":
            assert console_errors(driver) == []
            return
        assert phase != "error", driver.find_element(By.ID, "status").text
        if turn == 2:
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(str(screenshot))
        if phase == "choosing":
            choices = driver.find_elements(By.CSS_SELECTOR, "#choices .choice")
            choices[turn % len(choices)].click()
        else:
            cards = driver.find_elements(By.CSS_SELECTOR, "#hand .card.playable")
            cards[turn % len(cards)].click()
    raise AssertionError(f"the game did not end in {MAX_CLICKS} clicks")


def _log(driver: WebDriver) -> list[str]:
    return [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#log li")]


def test_a_game_in_spanish_the_browser_language(
    spanish_browser: WebDriver, server_url: str
) -> None:
    driver = spanish_browser
    driver.set_window_size(1280, 860)
    _open(driver, server_url)
    assert driver.execute_script("return navigator.languages[0]").startswith("es")
    assert driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "es"
    assert (
        Select(driver.find_element(By.ID, "lang")).first_selected_option.get_attribute("value")
        == "es"
    )
    assert driver.find_element(By.ID, "start").text == "Nueva partida"
    assert "Elige un juego" in driver.find_element(By.ID, "welcome").text
    _play_to_the_end(driver, DOCS / "play-es.png")
    lines = _log(driver)
    assert any(line.startswith("Juegas ") for line in lines), lines[:5]
    assert any("Mano 1" in line for line in lines)
    # The card names come from the server, in Spanish with the Italian deck's suits.
    assert any(re.search(r"\b(oros|copas|espadas|bastos)\b", line) for line in lines)
    assert not any(re.search(r"\b(denari|coppe|bastoni)\b", line) for line in lines)
    assert "Fin de la partida" in driver.find_element(By.ID, "status").text
    assert re.search(r"^(Ganas|Gana) ", driver.find_element(By.ID, "result-text").text)
    assert (DOCS / "play-es.png").stat().st_size > 10_000


def test_a_game_in_italian_chosen_with_the_selector(browser: WebDriver, server_url: str) -> None:
    browser.set_window_size(1280, 860)
    _open(browser, server_url)
    assert browser.find_element(By.ID, "start").text == "New game"  # the browser's English
    Select(browser.find_element(By.ID, "lang")).select_by_value("it")
    _wait(browser, lambda d: d.find_element(By.ID, "start").text == "Nuova partita")
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "it"
    # The faces' names are the page's, filled once the catalog is read again in Italian.
    _wait(
        browser,
        lambda d: (
            "Italiane"
            in d.execute_script(
                "return [...document.getElementById('face').options].map((o) => o.text)"
            )
        ),
    )
    _play_to_the_end(browser, DOCS / "play-it.png")
    lines = _log(browser)
    assert any(line.startswith("Giochi ") for line in lines), lines[:5]
    assert any(re.search(r"\bdi (denari|coppe|spade|bastoni)\b", line) for line in lines)
    hand_titles = browser.execute_script(
        "return [...document.querySelectorAll('#log li')].map((li) => li.textContent).join(' ')"
    )
    assert " of " not in hand_titles
    assert "Partita finita" in browser.find_element(By.ID, "status").text
    assert browser.find_element(By.CSS_SELECTOR, "#sheet h2").text == "Segnapunti"
    assert (DOCS / "play-it.png").stat().st_size > 10_000
