"""The web table's geometry in Italian and Russian, at 1280 and 390 px wide: a
4-player Briscola at the person's first turn, read from the page once it rests.

Briscola's turn-up is a card, turned crosswise, under the stock (the stock on
top of it, the rest of it showing beside), the stock's count inside the stock,
the whole clear of the trick's cards; the score sheet's header cells each hold
their words ("Раздача", "Ваша команда"); nothing reaches past the right edge. The
log names the seats in lower case inside a sentence and the cards a verb takes in
the catalog's accusative. Screenshots are kept in build/test-artifacts/web/.
"""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Sequence
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

#: Pixels a box may pass another's edge by (sub-pixel rounding).
SLACK = 0.5

#: NewGame with seat 1 dealing: seats 2 and 3 play before the person's first turn,
#: so the trick lies on the table beside the stock and its turn-up.
FIRST_DEALER_ONE = """
const original = window.fetch;
window.fetch = (path, init) => {
  if (path === "/v1/games" && init?.method === "POST") {
    init = { ...init, body: JSON.stringify({ ...JSON.parse(init.body), firstDealer: 1 }) };
  }
  return original(path, init);
};
"""

#: What the test measures: the boxes of the deck, the stock (and its count's text),
#: the turn-up (and its transform), the trick's cards, the score sheet's header
#: cells (and their text), and which element is on top at two points.
GEOMETRY = """
const box = (r) => ({ left: r.left, top: r.top, right: r.right, bottom: r.bottom });
const textBox = (element) => {
  const range = document.createRange();
  range.selectNodeContents(element);
  return box(range.getBoundingClientRect());
};
const topmost = (x, y) => document.elementFromPoint(x, y)?.closest("[id]")?.id ?? "";
const stock = document.getElementById("stock");
const turnUp = document.getElementById("turn-up");
const found = {
  deck: box((document.getElementById("deck") ?? stock).getBoundingClientRect()),
  stock: box(stock.getBoundingClientRect()),
  stockText: textBox(stock),
  stockCount: stock.textContent,
  turnUp: turnUp && box(turnUp.getBoundingClientRect()),
  turnUpTransform: turnUp && getComputedStyle(turnUp).transform,
  trick: [...document.querySelectorAll("#table .card")].map((c) => box(c.getBoundingClientRect())),
  header: [...document.querySelectorAll("#scores thead th, #scores tfoot th")].map((cell) => ({
    words: cell.textContent,
    cell: box(cell.getBoundingClientRect()),
    text: textBox(cell),
  })),
};
if (turnUp) {
  const s = found.stock, u = found.turnUp;
  const middle = (a, b, c, d) => (Math.max(a, b) + Math.min(c, d)) / 2;
  const under = [
    middle(s.left, u.left, s.right, u.right),
    middle(s.top, u.top, s.bottom, u.bottom),
  ];
  found.onTopUnder = topmost(...under);
  found.onTopBeside = topmost((s.right + u.right) / 2, (u.top + u.bottom) / 2);
}
return found;
"""

Box = dict[str, float]


def _within(inner: Box, outer: Box) -> bool:
    return (
        inner["left"] >= outer["left"] - SLACK
        and inner["right"] <= outer["right"] + SLACK
        and inner["top"] >= outer["top"] - SLACK
        and inner["bottom"] <= outer["bottom"] + SLACK
    )


def _overlap(a: Box, b: Box) -> bool:
    return (
        min(a["right"], b["right"]) - max(a["left"], b["left"]) > SLACK
        and min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > SLACK
    )


def _accusatives(url: str, locale: str) -> set[str]:
    """The Italian deck's cards as a verb's objects, in ``locale``, from the catalog."""
    request = urllib.request.Request(f"{url}/v1/catalog", headers={"Accept-Language": locale})
    with urllib.request.urlopen(request, timeout=WAIT_SECONDS) as answer:
        catalog = json.load(answer)
    briscola = next(game for game in catalog["games"] if game["name"] == "briscola")
    face = next(face for face in briscola["faces"] if face["name"] == "FACE_ITALIAN")
    return {card["accusative"] for card in face["cards"]}


def _first_turn(driver: WebDriver, url: str, locale: str, width: int) -> None:
    metrics = {"width": width, "height": 860, "deviceScaleFactor": 1, "mobile": width < 700}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    console_errors(driver)  # forget the previous page's
    driver.get(f"{url}/play?fast=1&game=briscola&players=4&level=random&lang={locale}")
    WebDriverWait(driver, WAIT_SECONDS, poll_frequency=POLL_SECONDS).until(
        lambda d: data_of(d, "phase") == "setup"
    )
    driver.execute_script(FIRST_DEALER_ONE)
    driver.find_element(By.ID, "start").click()
    assert resting_phase(driver) == "your-turn", driver.find_element(By.ID, "status").text


def _check_the_turn_up_lies_under_the_stock(seen: dict[str, Any]) -> None:
    stock, turn_up = seen["stock"], seen["turnUp"]
    assert turn_up, "Briscola's turn-up is drawn as a card"
    # Turned a quarter: the card's matrix(cos, sin, -sin, cos, ...) is (0, ±1, ∓1, 0).
    a, b = (float(n) for n in re.findall(r"-?[\d.e-]+", seen["turnUpTransform"])[:2])
    assert abs(a) < 0.01 and abs(abs(b) - 1) < 0.01, seen["turnUpTransform"]
    width, height = turn_up["right"] - turn_up["left"], turn_up["bottom"] - turn_up["top"]
    assert abs(width / height - 1.5) < 0.05, (width, height)  # a card on its side
    assert _overlap(stock, turn_up), (stock, turn_up)
    assert seen["onTopUnder"] == "stock"  # the stock lies on the turn-up
    assert turn_up["right"] - stock["right"] > height / 2, (stock, turn_up)  # half of it shows
    assert seen["onTopBeside"] == "turn-up"
    assert _within(turn_up, seen["deck"]), (turn_up, seen["deck"])  # its room is the deck's


def _check_the_stock_and_the_trick(seen: dict[str, Any]) -> None:
    assert re.fullmatch(r"\d+", seen["stockCount"]), seen["stockCount"]
    assert _within(seen["stockText"], seen["stock"]), (seen["stockText"], seen["stock"])
    assert len(seen["trick"]) == 2, "seats 2 and 3 played before the person"
    assert not [card for card in seen["trick"] if _overlap(card, seen["deck"])], seen


def _check_the_sheet_header_holds_its_words(header: Sequence[dict[str, Any]]) -> None:
    assert [cell["words"] for cell in header if cell["words"]], header
    for cell in header:
        assert _within(cell["text"], cell["cell"]), cell
    texts = [cell["text"] for cell in header]
    for i, text in enumerate(texts):
        assert not any(_overlap(text, other) for other in texts[i + 1 :]), header


#: Per language: the team's headers, the dealer's line and a bot's play (a verb's object).
WORDS = {
    "it": (
        "La tua squadra",
        "Mano 1: distribuisce il posto 1 (casuale).",
        r"Il posto \d \(casuale\) gioca ",
    ),
    "ru": (
        "Ваша команда",
        "Раздача 1: сдаёт место 1 (случайный).",
        r"Место \d \(случайный\) играет ",
    ),
}


def _seen(driver: WebDriver, url: str, locale: str, width: int) -> dict[str, Any]:
    """The person's first turn, measured, and its screenshot kept."""
    _first_turn(driver, url, locale, width)
    seen: dict[str, Any] = driver.execute_script(GEOMETRY)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    screenshot = ARTIFACTS / f"briscola-table-{locale}-{width}.png"
    driver.save_screenshot(str(screenshot))
    assert screenshot.stat().st_size > 10_000
    assert overflowing(driver) == []
    assert console_errors(driver) == []
    return seen


LOCALES = pytest.mark.parametrize("locale", sorted(WORDS))


@pytest.fixture(
    scope="module",
    params=[(locale, width) for locale in sorted(WORDS) for width in (1280, 390)],
    ids=lambda table: f"{table[0]}-{table[1]}",
)
def table(
    request: pytest.FixtureRequest, browser: WebDriver, server_url: str
) -> tuple[str, dict[str, Any]]:
    """A locale and its first turn measured at a width: once for every test of it."""
    locale, width = request.param
    return locale, _seen(browser, server_url, locale, width)


def test_briscolas_turn_up_is_a_card_turned_under_the_stock_beside_the_trick(
    table: tuple[str, dict[str, Any]],
) -> None:
    _, seen = table
    _check_the_turn_up_lies_under_the_stock(seen)
    _check_the_stock_and_the_trick(seen)


def test_the_score_sheets_header_cells_hold_their_words(
    table: tuple[str, dict[str, Any]],
) -> None:
    locale, seen = table
    _check_the_sheet_header_holds_its_words(seen["header"])
    assert WORDS[locale][0] in [cell["words"] for cell in seen["header"]]


@LOCALES
def test_the_log_names_seats_in_lower_case_mid_sentence_and_cards_played_as_objects(
    browser: WebDriver, server_url: str, locale: str
) -> None:
    _first_turn(browser, server_url, locale, 1280)
    _team, dealt, plays = WORDS[locale]
    log = [item.text for item in browser.find_elements(By.CSS_SELECTOR, "#log li")]
    assert dealt in log, log
    played = [line for line in log if re.match(plays, line)]
    objects = _accusatives(server_url, locale)
    assert len(played) == 2, log
    assert all(re.sub(plays, "", line)[:-1] in objects for line in played), played
