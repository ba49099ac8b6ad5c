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
from tests.web.support import (
    ARTIFACTS,
    POLL_SECONDS,
    WAIT_SECONDS,
    chromium,
    console_errors,
    resting_phase,
)

PAGE = REPO / "service" / "mazzo" / "service" / "static" / "play"
DOCS = Path(os.environ.get("MAZZO_SCREENSHOTS_DIR") or ARTIFACTS)
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


def _t(locale: str, key: str, **values: str) -> str:
    """The page's t() (play.js): the key's text in ``locale`` with its values."""
    text = str(page_messages()[locale].get(key, key))
    return re.sub(r"\{(\w+)\}", lambda m: values.get(m[1], m[0]), text)


def _say(locale: str, key: str, **values: str) -> str:
    """The page's sentence(t()) (play.js): each sentence begun by a capital letter."""
    text = _t(locale, key, **values)
    return re.sub(r"(^|[.!?]\s+)([^\W\d_])", lambda m: m[1] + m[2].upper(), text)


#: Per language: you play the 3 of swords; seat 1 plays the ace of coins; you take the 2
#: of cups and that ace with the 3; seat 1 sweeps the 2 with the 3; you are dealt the 3
#: and the king of batons; seat 1 draws the king; the knave of swords is turned up;
#: seat 1 deals with the 2 of cups on the table.
CARD_SENTENCES = {
    "en": [
        "You play the three of swords.",
        "Seat 1 (greedy) plays the ace of coins.",
        "You take the two of cups, the ace of coins with the three of swords.",
        "Seat 1 (greedy) takes the two of cups with the three of swords: a sweep (scopa)!",
        "You are dealt the three of swords, the king of batons.",
        "Seat 1 (greedy) draws the king of batons.",
        "The knave of swords is turned up: trumps are swords.",
        "Hand 2: seat 1 (greedy) deals; on the table two of cups.",
    ],
    "it": [
        "Giochi il tre di spade.",
        "Il posto 1 (goloso) gioca l'asso di denari.",
        "Prendi il due di coppe, l'asso di denari con il tre di spade.",
        "Il posto 1 (goloso) prende il due di coppe con il tre di spade: scopa!",
        "Ricevi il tre di spade, il re di bastoni.",
        "Il posto 1 (goloso) pesca il re di bastoni.",
        "Si scopre il fante di spade: la briscola è spade.",
        "Mano 2: distribuisce il posto 1 (goloso); in tavola due di coppe.",
    ],
    "es": [
        "Juegas el tres de espadas.",
        "El asiento 1 (codicioso) juega el as de oros.",
        "Tomas el dos de copas, el as de oros con el tres de espadas.",
        "El asiento 1 (codicioso) toma el dos de copas con el tres de espadas: ¡escoba!",
        "Recibes el tres de espadas, el rey de bastos.",
        "El asiento 1 (codicioso) roba el rey de bastos.",
        "Se vuelve la sota de espadas: el triunfo es espadas.",
        "Mano 2: reparte el asiento 1 (codicioso); en la mesa dos de copas.",
    ],
    "fr": [
        "Vous jouez le trois d'épées.",
        "La place 1 (glouton) joue l'as de deniers.",
        "Vous prenez le deux de coupes, l'as de deniers avec le trois d'épées.",
        "La place 1 (glouton) prend le deux de coupes avec le trois d'épées : un balayage"
        " (scopa) !",
        "Vous recevez le trois d'épées, le roi de bâtons.",
        "La place 1 (glouton) pioche le roi de bâtons.",
        "On retourne le valet d'épées : l'atout est épées.",
        "Donne 2 : la place 1 (glouton) distribue ; sur la table deux de coupes.",
    ],
    "ru": [
        "Вы играете тройку мечей.",
        "Место 1 (жадный) играет туза денариев.",
        "Вы берёте двойку кубков, туза денариев, сыграв тройку мечей.",
        "Место 1 (жадный) берёт двойку кубков, сыграв тройку мечей: скопа!",
        "Вы получаете тройку мечей, короля жезлов.",
        "Место 1 (жадный) добирает короля жезлов.",
        "Открывают валета мечей: козыри — мечи.",
        "Раздача 2: сдаёт место 1 (жадный); на столе двойка кубков.",
    ],
}


@pytest.mark.parametrize("locale", sorted(CARD_SENTENCES))
def test_the_page_templates_that_take_a_card_are_grammatical_in_each_language(
    locale: str,
) -> None:
    """The catalog's names and accusatives (the server's, in ``locale``) in the
    page's templates, as play.js fills them: a card a verb or a preposition takes
    as its accusative, a listed card by its name, a seat in lower case."""
    from mazzo.engine import Card
    from mazzo.engine.scopa_rules import Face
    from mazzo.service import i18n

    with i18n.speaking(locale):
        name = {c: i18n.card_name(Card.parse(c), Face.ITALIAN) for c in ("2C",)}
        obj = {
            c: i18n.card_accusative(Card.parse(c), Face.ITALIAN)
            for c in ("3S", "1D", "2C", "10B", "8S")
        }
        swords = i18n.suit_name(2, Face.ITALIAN)
    seat = _t(locale, "seat {seat} ({level})", seat="1", level=_t(locale, "greedy"))
    table = _t(locale, "; on the table {cards}", cards=name["2C"])
    said = [
        _say(locale, "You play {card}.", card=obj["3S"]),
        _say(locale, "{seat} plays {card}.", seat=seat, card=obj["1D"]),
        _say(
            locale,
            "You take {cards} with {card}.",
            cards=f"{obj['2C']}, {obj['1D']}",
            card=obj["3S"],
        ),
        _say(
            locale,
            "{seat} takes {cards} with {card}: a sweep (scopa)!",
            seat=seat,
            cards=obj["2C"],
            card=obj["3S"],
        ),
        _say(locale, "You are dealt {cards}.", cards=f"{obj['3S']}, {obj['10B']}"),
        _say(locale, "{seat} draws {card}.", seat=seat, card=obj["10B"]),
        _say(locale, "{card} is turned up: trumps are {suit}.", card=obj["8S"], suit=swords),
        _say(locale, "Hand {number}: {seat} deals{table}.", number="2", seat=seat, table=table),
    ]
    assert said == CARD_SENTENCES[locale]
