"""The web table (/play) in a real browser: Debian's Chromium, driven by Selenium.

A person's whole games are played by clicking (a card, then a capture when it
has several), against computer seats the server plays, on a server that
requires seat credentials (the page holds seat 0's only); the final score sheet is
checked against the API's own View of the final state, and every answer the page
received is checked for cards seat 0 may not see. Screenshots go to
build/test-artifacts/web/. Chromium comes from Debian (tests/web/support.py);
this test is never skipped. Waits are on the page's data-phase and data-settled attributes
(60 s bounds), and `?fast=1` shows events without animation time.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from tests.web.support import (
    ARTIFACTS,
    POLL_SECONDS,
    WAIT_SECONDS,
    console_errors,
    data_of,
    overflowing,
    resting_phase,
)

PHONE = {"width": 375, "height": 667, "deviceScaleFactor": 2, "mobile": True}
DESKTOP = {"width": 1100, "height": 860, "deviceScaleFactor": 1, "mobile": False}
MAX_CLICKS = 400

#: Wraps the page's fetch to keep every JSON answer, for the visibility check.
RECORD_ANSWERS = """
window.__answers = [];
const original = window.fetch;
window.fetch = async (...args) => {
  const response = await original(...args);
  response.clone().json().then((json) => window.__answers.push(json)).catch(() => {});
  return response;
};
"""


def _screenshot(driver: WebDriver, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(ARTIFACTS / f"{name}.png"))


def _viewport(driver: WebDriver, metrics: dict[str, Any]) -> None:
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)


def _open(driver: WebDriver, url: str, query: str, *, fast: bool = True) -> None:
    console_errors(driver)  # forget the previous page's
    driver.get(f"{url}/play?{'fast=1&' if fast else ''}{query}")
    assert _resting_phase_or_setup(driver) == "setup"
    driver.execute_script(RECORD_ANSWERS)


def _resting_phase_or_setup(driver: WebDriver) -> str:
    phase: str = WebDriverWait(driver, WAIT_SECONDS, poll_frequency=POLL_SECONDS).until(
        lambda d: data_of(d, "phase") if data_of(d, "phase") in ("setup", "error") else False
    )
    return phase


def _play_whole_game(driver: WebDriver, name: str, *, check_width: bool = False) -> dict[str, int]:
    """Clicks New game, then a playable card each turn (and a choice when offered)
    until the game is over; returns how many turns and choices were clicked."""
    driver.find_element(By.ID, "start").click()
    clicks = {"cards": 0, "choices": 0, "lays offered": 0}
    for turn in range(MAX_CLICKS):
        phase = resting_phase(driver)
        if phase == "over":
            assert console_errors(driver) == []
            return clicks
        assert phase != "error", driver.find_element(By.ID, "status").text
        if check_width:
            assert overflowing(driver) == []
        if turn == 6:
            _screenshot(driver, f"{name}-mid-game")
        if phase == "choosing":
            choices = driver.find_elements(By.CSS_SELECTOR, "#choices .choice")
            assert len(choices) >= 2, "a choice is offered only between several moves"
            lays = [choice for choice in choices if choice.get_attribute("data-lay") == "true"]
            clicks["lays offered"] += len(lays)
            choices[turn % len(choices)].click()
            clicks["choices"] += 1
        else:
            cards = driver.find_elements(By.CSS_SELECTOR, "#hand .card.playable")
            assert cards, "your turn, but no card to click"
            cards[turn % len(cards)].click()
            clicks["cards"] += 1
    raise AssertionError(f"the game did not end in {MAX_CLICKS} clicks")


def _api(url: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        url + path, json.dumps(body).encode(), {"content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=WAIT_SECONDS) as answer:
        reply: dict[str, Any] = json.load(answer)
        return reply


def _check_final_sheet_against_the_api(driver: WebDriver, url: str) -> dict[str, Any]:
    """The page's final scores, its score sheet and the API's View of its final state agree."""
    state, credential = data_of(driver, "state"), data_of(driver, "seat-credential")
    final = data_of(driver, "final-scores")
    assert state and credential and final
    status = _api(url, "/v1/games:view", {"state": state, "seat": 0, "seatCredential": credential})[
        "view"
    ]["status"]
    assert status["gameOver"] is True
    scores = [int(score) for score in final.split(",")]
    assert scores == status["scores"]
    assert max(scores) >= status["target"]
    match_row = driver.find_elements(By.CSS_SELECTOR, "#scores tfoot td")
    assert [int(cell.text) for cell in match_row] == status["scores"]
    # Each hand's row: the sides' points, which add up to the match score.
    rows = driver.find_elements(By.CSS_SELECTOR, "#scores tbody tr")
    assert rows, "no hand on the score sheet"
    per_hand = [[int(b.text) for b in row.find_elements(By.CSS_SELECTOR, "td b")] for row in rows]
    assert [sum(column) for column in zip(*per_hand, strict=True)] == status["scores"]
    assert status["handNumber"] == len(rows)
    return status


def _check_nothing_hidden_reached_the_page(driver: WebDriver) -> None:
    answers: list[dict[str, Any]] = driver.execute_script("return window.__answers")
    events = [event for answer in answers for event in answer.get("events", [])]
    assert events, "no events recorded"
    assert all(event.get("visibleTo", 0) == 0 for event in events)
    dealt = [event["cardsDealt"]["seat"] for event in events if "cardsDealt" in event]
    assert dealt and set(dealt) == {0}
    views = [answer["view"] for answer in answers if "view" in answer]
    assert views and all(view["seat"] == 0 for view in views)
    # The bots are computer seats: the page never asked for a move of theirs.
    assert not [answer for answer in answers if "simulations" in answer]


def test_a_whole_scopa_game_is_played_by_clicking_and_its_score_sheet_matches_the_api(
    browser: WebDriver, server_url: str
) -> None:
    _viewport(browser, DESKTOP)
    _open(browser, server_url, "game=scopa&players=2&level=greedy")
    _screenshot(browser, "scopa-setup")
    clicks = _play_whole_game(browser, "scopa")
    _screenshot(browser, "scopa-final")
    status = _check_final_sheet_against_the_api(browser, server_url)
    assert status["game"] == "scopa"
    assert clicks["cards"] >= 18, clicks  # a hand at least: 18 cards of seat 0
    _check_nothing_hidden_reached_the_page(browser)


def test_a_whole_tressette_game_on_a_phone_has_no_horizontal_scrolling(
    browser: WebDriver, server_url: str
) -> None:
    _viewport(browser, PHONE)
    _open(browser, server_url, "game=tressette&players=2&level=expert&budget=10&target=11")
    assert overflowing(browser) == []
    _screenshot(browser, "phone-setup")
    clicks = _play_whole_game(browser, "tressette-phone", check_width=True)
    assert overflowing(browser) == []
    _screenshot(browser, "tressette-phone-final")
    status = _check_final_sheet_against_the_api(browser, server_url)
    assert status["game"] == "tressette"
    assert clicks["cards"] >= 20, clicks
    _check_nothing_hidden_reached_the_page(browser)


def test_a_capture_with_several_choices_is_chosen_by_a_second_click(
    browser: WebDriver, server_url: str
) -> None:
    # Escoba (sums of fifteen, taking optional: a lay is a choice too), Spanish cards.
    _viewport(browser, DESKTOP)
    query = "game=scopa&variant=SCOPA_VARIANT_ESCOBA&players=2&level=random&target=11"
    _open(browser, server_url, query)
    clicks = _play_whole_game(browser, "escoba")
    _screenshot(browser, "escoba-final")
    assert clicks["choices"] > 0 and clicks["lays offered"] > 0, clicks
    _check_final_sheet_against_the_api(browser, server_url)
    faces = browser.find_elements(By.CSS_SELECTOR, "#face option:checked")
    assert [face.get_attribute("value") for face in faces] == ["FACE_SPANISH"]


def test_a_whole_four_player_team_game_on_a_phone(browser: WebDriver, server_url: str) -> None:
    # Scopone scientifico: three others side by side, a partner, the sheet by side.
    _viewport(browser, PHONE)
    query = "game=scopa&variant=SCOPA_VARIANT_SCOPONE_SCIENTIFICO&level=random&target=3"
    _open(browser, server_url, query)
    clicks = _play_whole_game(browser, "scopone-phone", check_width=True)
    _screenshot(browser, "scopone-phone-final")
    status = _check_final_sheet_against_the_api(browser, server_url)
    assert status["players"] == 4 and len(status["scores"]) == 2
    assert clicks["cards"] >= 10, clicks  # a Scopone hand: ten cards each
    headers = browser.find_elements(By.CSS_SELECTOR, "#scores thead th")
    assert [h.text for h in headers] == ["Hand", "Your side", "Their side"]
    _check_nothing_hidden_reached_the_page(browser)


def test_the_animated_table_settles_after_each_move(browser: WebDriver, server_url: str) -> None:
    # Without ?fast=1 the events take their animation time; the page says when it is done.
    _viewport(browser, DESKTOP)
    _open(browser, server_url, "game=scopa&players=2&level=greedy", fast=False)
    browser.find_element(By.ID, "start").click()
    assert resting_phase(browser) == "your-turn"
    for turn in range(3):
        ply = int(data_of(browser, "ply") or -1)
        browser.find_elements(By.CSS_SELECTOR, "#hand .card.playable")[0].click()
        if data_of(browser, "phase") == "choosing":
            browser.find_elements(By.CSS_SELECTOR, "#choices .choice")[0].click()
        assert data_of(browser, "settled") == "false"
        assert resting_phase(browser) == "your-turn"
        assert int(data_of(browser, "ply") or -1) == ply + 2  # the person's move and the bot's
        if turn == 1:
            _screenshot(browser, "scopa-animated")
    assert console_errors(browser) == []


#: Every game and variant of the catalog, its default players (and Tressette's
#: four), each against another bot level; target 1: a hand or two is a whole game.
#: Every game and variant of the catalog, with a player count it takes.
EVERY_VARIANT = [
    ("scopa", "SCOPA_VARIANT_SCOPA", 3),
    ("scopa", "SCOPA_VARIANT_SCOPONE_SCIENTIFICO", 4),
    ("scopa", "SCOPA_VARIANT_SCOPONE_CLASSICO", 4),
    ("scopa", "SCOPA_VARIANT_QUINDICI", 2),
    ("scopa", "SCOPA_VARIANT_ESCOBA", 4),
    ("scopa", "SCOPA_VARIANT_SCOPA_D_ASSI", 6),
    ("scopa", "SCOPA_VARIANT_CIRULLA", 2),
    ("scopa", "SCOPA_VARIANT_RE_BELLO", 2),
    ("tressette", "", 2),
    ("tressette", "", 4),
    ("briscola", "", 2),
    ("briscola", "", 3),
    ("briscola", "", 4),
]
LEVELS = ("random", "greedy", "intermediate", "expert")


def test_the_list_of_variants_played_is_the_catalog(server_url: str) -> None:
    with urllib.request.urlopen(f"{server_url}/v1/catalog", timeout=WAIT_SECONDS) as answer:
        catalog = json.load(answer)
    expected = {
        (game["name"], variant["name"]) for game in catalog["games"] for variant in game["variants"]
    } | {(game["name"], "") for game in catalog["games"] if not game["variants"]}
    assert {(game, variant) for game, variant, _ in EVERY_VARIANT} == expected


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(("name", "variant", "players"), EVERY_VARIANT)
def test_every_game_and_variant_plays_to_its_end_on_a_phone(
    browser: WebDriver, server_url: str, name: str, variant: str, players: int, level: str
) -> None:
    _viewport(browser, PHONE)
    query = f"game={name}&variant={variant}&players={players}&level={level}&budget=5&target=1"
    _open(browser, server_url, query)
    _play_whole_game(browser, f"{name}-{variant or players}", check_width=True)
    status = _check_final_sheet_against_the_api(browser, server_url)
    assert (status["game"], status["players"]) == (name, players)
    _check_nothing_hidden_reached_the_page(browser)
