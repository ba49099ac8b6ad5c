"""The server's catalogs: every extracted message, translated into every locale."""

from __future__ import annotations

import runpy
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from mazzo.service import i18n, main
from tests.i18n_support import all_problems, catalog_problems, placeholders

ROOT = Path(__file__).resolve().parents[2]
TRANSLATED = [loc for loc in i18n.LOCALES if loc != i18n.DEFAULT_LOCALE]


def test_the_catalogs_hold_exactly_the_messages_the_sources_give() -> None:
    tool = runpy.run_path(str(ROOT / "tools" / "i18n.py"))
    assert tool["stale"]() == []
    assert len(tool["extracted"]()) > 100  # the extractor found the templates


def test_every_message_is_translated_with_its_placeholders_in_every_locale() -> None:
    paths = [(i18n.LOCALE_DIR / loc / "LC_MESSAGES" / "mazzo.po", loc) for loc in TRANSLATED]
    assert all_problems(paths) == []


def test_the_check_catches_english_left_and_a_lost_placeholder(tmp_path: Path) -> None:
    po = tmp_path / "mazzo.po"
    po.write_text(
        'msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "the game is over"\nmsgstr "the game is over"\n\n'
        'msgid "{card} cannot take anything here"\nmsgstr "{carta} qui non prende"\n\n'
        'msgid "{why}"\nmsgstr "{why}"\n\n'
        'msgid "internal error"\nmsgstr ""\n',
        encoding="utf-8",
    )
    problems = catalog_problems(po, "it")
    assert len(problems) == 3, problems
    assert any("left in English" in p for p in problems)
    assert any("placeholders" in p for p in problems)
    assert any("no translation" in p for p in problems)


@pytest.mark.parametrize("locale", i18n.LOCALES)
def test_a_refusal_renders_in_each_locale_with_its_values(locale: str) -> None:
    from mazzo.engine import Card, IllegalMove, Reason

    refusal = IllegalMove(
        Reason.CARD_NOT_IN_HAND,
        "{card} is not in seat {seat}'s hand",
        card=Card.parse("7D"),
        seat=1,
    )
    with i18n.speaking(locale):
        text = refusal.text.render(i18n.gettext())
    assert "7D" in text and "1" in text
    assert (text == refusal.message) == (locale == "en")
    assert placeholders(refusal.text.template) == {"card", "seat"}


@pytest.mark.parametrize(
    ("header", "locale"),
    [
        (None, "en"),
        ("", "en"),
        ("it", "it"),
        ("es-MX,es;q=0.9,en;q=0.5", "es"),
        ("de-DE,fr;q=0.4", "fr"),
        ("en;q=0.2,ru;q=0.9", "ru"),
        ("de, pt-BR", "en"),
        ("*", "en"),
        ("@@ not a header ;;", "en"),
    ],
)
def test_the_locale_is_negotiated_from_accept_language(header: str | None, locale: str) -> None:
    assert i18n.negotiate(header) == locale
    assert i18n.negotiate(header) == locale  # the second time from what the first kept


def test_a_header_is_negotiated_once_and_the_headers_kept_are_bounded() -> None:
    i18n._negotiated.cache_clear()
    header = "es-MX,es;q=0.9,en;q=0.5"
    assert [i18n.negotiate(header) for _ in range(3)] == ["es"] * 3
    assert (i18n._negotiated.cache_info().misses, i18n._negotiated.cache_info().hits) == (1, 2)
    # A caller that sends a new value each time (a header varied on purpose) keeps
    # at most NEGOTIATED_HEADERS of them, and each is still answered right.
    for n in range(2 * i18n.NEGOTIATED_HEADERS):
        assert i18n.negotiate(f"x-{n},it;q=0.5") == "it"
    assert i18n._negotiated.cache_info().currsize == i18n.NEGOTIATED_HEADERS


#: The game's own Italian words, written so in Italian (and the napola in French).
PLAY_SAME_AS_ENGLISH = {
    "it": frozenset(
        (None, word)
        for word in (
            "settebello",
            "primiera",
            "napola",
            "re bello",
            "grande",
            "piccola",
            "napoletana",
        )
    ),
    "fr": frozenset({(None, "napola")}),
}
PLAY_LOCALE_DIR = ROOT / "clients" / "python" / "src" / "mazzo_client" / "play" / "locale"


def test_mazzo_play_words_are_translated_with_their_placeholders_in_every_locale() -> None:
    problems = [
        problem
        for locale in TRANSLATED
        for problem in catalog_problems(
            PLAY_LOCALE_DIR / locale / "LC_MESSAGES" / "mazzo_play.po",
            locale,
            PLAY_SAME_AS_ENGLISH.get(locale, frozenset()),
        )
    ]
    assert problems == []


@pytest.fixture
def catalogs_without_french(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The installed catalogs, French's lost (a broken installation)."""
    shutil.copytree(i18n.LOCALE_DIR, tmp_path / "locale")
    shutil.rmtree(tmp_path / "locale" / "fr")
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path / "locale")
    i18n.translations.cache_clear()
    yield tmp_path / "locale"
    i18n.translations.cache_clear()  # the real catalogs again for the other tests


def test_a_missing_catalog_is_an_error_not_english(catalogs_without_french: Path) -> None:
    with pytest.raises(i18n.CatalogError, match="'fr'"):
        i18n.load_catalogs()


def test_the_server_does_not_start_without_every_catalog(
    catalogs_without_french: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def served(*_: object) -> int:
        raise AssertionError("the server started without the French catalog")

    monkeypatch.setattr(main, "serve_one_process", served)
    monkeypatch.setenv("MAZZO_WORKERS", "1")
    assert main.main() == 2
    assert "no message catalog for 'fr'" in capsys.readouterr().err


#: A refusal that names several cards, in each locale: its words agree with a list.
CARDS_NOT_ON_THE_TABLE = {
    "en": "2C 5D not on the table",
    "it": "2C 5D non in tavola",
    "es": "no hay en la mesa: 2C 5D",
    "fr": "2C 5D pas sur la table",
    "ru": "2C 5D нет на столе",
}


@pytest.mark.parametrize("locale", sorted(CARDS_NOT_ON_THE_TABLE))
def test_a_refusal_naming_several_cards_agrees_with_them_in_each_locale(locale: str) -> None:
    from mazzo.engine import Card, IllegalMove, Reason
    from mazzo.engine.cards import format_cards

    cards = format_cards([Card.parse("2C"), Card.parse("5D")])
    refusal = IllegalMove(Reason.CARD_NOT_ON_TABLE, "{cards} not on the table", cards=cards)
    with i18n.speaking(locale):
        assert refusal.text.render(i18n.gettext()) == CARDS_NOT_ON_THE_TABLE[locale]
