"""The web table's layout as a newcomer looks at it, in Chromium: what is marked,
what keeps its shape, what fits a row, and what the page shows before a game.

Geometry is read from the page (getBoundingClientRect) once it rests, never after
a fixed wait; waits are on the page's data-phase and data-settled (tests/web/support.py).
"""

from __future__ import annotations

from typing import Any

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from tests.web.support import POLL_SECONDS, WAIT_SECONDS, data_of, resting_phase

WIDE = {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False}
MAX_TURNS = 200
#: A card's height over its width (the deck's proportions, 2:3).
CARD_RATIO = 1.5

RECT = "const r = arguments[0].getBoundingClientRect(); return [r.left, r.top, r.width, r.height];"


def _rect(driver: WebDriver, element: Any) -> list[float]:
    rect: list[float] = driver.execute_script(RECT, element)
    return rect


def _open(driver: WebDriver, url: str, query: str) -> None:
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", WIDE)
    driver.get(f"{url}/play?fast=1&{query}")
    WebDriverWait(driver, WAIT_SECONDS, poll_frequency=POLL_SECONDS).until(
        lambda d: data_of(d, "phase") == "setup"
    )


def _hand(driver: WebDriver) -> list[Any]:
    return driver.find_elements(By.CSS_SELECTOR, "#hand .card")


def test_before_new_game_the_page_shows_the_table_and_what_to_do(
    browser: WebDriver, server_url: str
) -> None:
    _open(browser, server_url, "game=scopa")
    board = browser.find_element(By.ID, "board")
    assert board.is_displayed()
    assert "New game" in browser.find_element(By.ID, "welcome").text


def test_a_ten_card_tressette_hand_fits_one_row_at_1280_px(
    browser: WebDriver, server_url: str
) -> None:
    _open(browser, server_url, "game=tressette&players=2&level=random")
    browser.find_element(By.ID, "start").click()
    assert resting_phase(browser) == "your-turn"
    tops = {round(_rect(browser, card)[1]) for card in _hand(browser)}
    assert len(_hand(browser)) == 10 and len(tops) == 1, tops


def test_a_raised_card_never_covers_the_seat_label(browser: WebDriver, server_url: str) -> None:
    _open(browser, server_url, "game=tressette&players=2&level=random")
    browser.find_element(By.ID, "start").click()
    assert resting_phase(browser) == "your-turn"
    label = browser.find_element(By.CSS_SELECTOR, "#me .seat-head")
    card = browser.find_elements(By.CSS_SELECTOR, "#hand .card.playable")[0]
    before = _rect(browser, card)[1]
    ActionChains(browser).move_to_element(card).perform()
    left, top, width, height = _rect(browser, label)
    raised_top = _rect(browser, card)[1]
    assert raised_top < before  # it is raised under the pointer
    assert raised_top >= top + height, (raised_top, top + height)


def _play_until_a_choice(driver: WebDriver) -> Any:
    """Clicks the first playable card each turn until a click offers a choice;
    returns the card clicked."""
    for _ in range(MAX_TURNS):
        phase = resting_phase(driver)
        assert phase == "your-turn", phase
        card = driver.find_elements(By.CSS_SELECTOR, "#hand .card.playable")[0]
        card.click()
        if resting_phase(driver) == "choosing":
            return card
    raise AssertionError(f"no choice offered in {MAX_TURNS} turns")


def test_the_clicked_card_stays_marked_while_a_capture_is_chosen(
    browser: WebDriver, server_url: str
) -> None:
    _open(browser, server_url, "game=scopa&variant=SCOPA_VARIANT_ESCOBA&players=2&level=random")
    browser.find_element(By.ID, "start").click()
    clicked = _play_until_a_choice(browser)
    ActionChains(browser).move_to_element(browser.find_element(By.TAG_NAME, "h1")).perform()
    others = [card for card in _hand(browser) if card != clicked]
    assert "chosen" in (clicked.get_attribute("class") or "")
    assert all("chosen" not in (card.get_attribute("class") or "") for card in others)
    # Marked where it lies, with the pointer gone: raised above the rest, and outlined.
    assert all(_rect(browser, clicked)[1] < _rect(browser, card)[1] for card in others)
    outline = browser.execute_script("return getComputedStyle(arguments[0]).outlineStyle", clicked)
    assert outline != "none"


def test_the_cards_inside_the_choice_buttons_keep_a_cards_shape(
    browser: WebDriver, server_url: str
) -> None:
    _open(browser, server_url, "game=scopa&variant=SCOPA_VARIANT_ESCOBA&players=2&level=random")
    browser.find_element(By.ID, "start").click()
    _play_until_a_choice(browser)
    shown = browser.find_elements(By.CSS_SELECTOR, "#choices .choice .card")
    assert shown, "a choice to take shows the cards it takes"
    for card in shown:
        width, height = _rect(browser, card)[2:]
        assert abs(height / width - CARD_RATIO) < 0.05, (width, height)
