"""The caller's language: refusal messages and card names in it, by gettext.

The catalogs are ``locale/<lang>/LC_MESSAGES/mazzo.po`` beside this module,
made from the engine's and the service's message templates by Babel's
extractor (``babel.cfg``; docs/api.md, Languages). They are read once, as the
server starts (:func:`load_catalogs`; a missing one stops it), and compiled in
memory: nothing to build first.

Each request names its language (REST: ``Accept-Language``; gRPC: the
``accept-language`` metadata), negotiated by Babel against :data:`LOCALES`;
anything else is English. The transport sets it for the request with
:func:`speaking`; messages and card names read it from there.
"""

from __future__ import annotations

import contextvars
import functools
import io
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from babel import Locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations
from werkzeug.datastructures import LanguageAccept
from werkzeug.http import parse_accept_header

from mazzo.engine import Card
from mazzo.engine.cards import RANK_OF, SUIT_OF
from mazzo.engine.scopa_rules import Face

#: The languages Mazzo speaks; English is the fallback.
LOCALES = ("en", "it", "es", "fr", "ru")
DEFAULT_LOCALE = "en"
DOMAIN = "mazzo"
#: The gRPC metadata naming the caller's languages, as HTTP's Accept-Language.
METADATA_KEY = "accept-language"
LOCALE_DIR = Path(__file__).with_name("locale")

T = TypeVar("T")

_speaking: contextvars.ContextVar[str] = contextvars.ContextVar(
    "mazzo_locale", default=DEFAULT_LOCALE
)


#: How many distinct Accept-Language values keep their negotiated locale: a
#: caller sends the same value on every call, and Babel takes a hundred
#: microseconds to negotiate one.
NEGOTIATED_HEADERS = 256


def negotiate(accept_language: str | None) -> str:
    """The locale of :data:`LOCALES` an Accept-Language value asks for (by its
    qualities), or English when it names none of them or does not parse."""
    if not accept_language:
        return DEFAULT_LOCALE
    return _negotiated(accept_language)


@functools.lru_cache(maxsize=NEGOTIATED_HEADERS)
def _negotiated(accept_language: str) -> str:
    asked = parse_accept_header(accept_language, LanguageAccept)
    preferred = [tag for tag in asked.values() if tag != "*"]
    chosen = Locale.negotiate(preferred, LOCALES, sep="-")
    return str(chosen) if chosen else DEFAULT_LOCALE


@contextmanager
def speaking(locale: str) -> Iterator[None]:
    """Within the block, messages and card names are in ``locale``."""
    token = _speaking.set(locale)
    try:
        yield
    finally:
        _speaking.reset(token)


def call_speaking(locale: str, call: Callable[..., T], *args: Any) -> T:
    """``call(*args)`` with messages and card names in ``locale``: :func:`speaking`
    for a transport's every call, with nothing to set when the call is already in
    that language (English, most of the time)."""
    if locale == _speaking.get():
        return call(*args)
    token = _speaking.set(locale)
    try:
        return call(*args)
    finally:
        _speaking.reset(token)


def set_locale(locale: str) -> None:
    """For the rest of this thread's request (REST: each request sets its own)."""
    _speaking.set(locale)


def current_locale() -> str:
    return _speaking.get()


class CatalogError(Exception):
    """A language Mazzo speaks has no catalog (a broken installation)."""


def load_catalogs() -> None:
    """Read every language's catalog now, as the server starts: a missing one
    stops the start (rather than answering in English), and no request pays
    for compiling one."""
    for locale in LOCALES:
        translations(locale)


@functools.cache
def translations(locale: str) -> NullTranslations:
    """The catalog of ``locale``, compiled in memory; English needs none."""
    if locale == DEFAULT_LOCALE:
        return NullTranslations()
    path = LOCALE_DIR / locale / "LC_MESSAGES" / f"{DOMAIN}.po"
    if not path.is_file():
        raise CatalogError(f"no message catalog for {locale!r}: {path} is missing")
    with path.open("rb") as po:
        catalog = read_po(po, locale=locale, domain=DOMAIN)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    return Translations(compiled, domain=DOMAIN)


def gettext() -> Callable[[str], str]:
    """The current request's translation of a message template."""
    return translations(current_locale()).gettext


# ---------------------------------------------------------------- card names


def _p(context: str, name: str) -> tuple[str, str]:
    """Marks a card word for the extractor (a context and its English)."""
    return context, name


_RANKS = {
    Face.ITALIAN: (
        _p("italian rank", "ace"),
        _p("italian rank", "two"),
        _p("italian rank", "three"),
        _p("italian rank", "four"),
        _p("italian rank", "five"),
        _p("italian rank", "six"),
        _p("italian rank", "seven"),
        _p("italian rank", "knave"),
        _p("italian rank", "knight"),
        _p("italian rank", "king"),
    ),
    Face.FRENCH: (
        _p("french rank", "ace"),
        _p("french rank", "two"),
        _p("french rank", "three"),
        _p("french rank", "four"),
        _p("french rank", "five"),
        _p("french rank", "six"),
        _p("french rank", "seven"),
        _p("french rank", "jack"),
        _p("french rank", "queen"),
        _p("french rank", "king"),
    ),
    Face.SPANISH: (
        _p("spanish rank", "ace"),
        _p("spanish rank", "two"),
        _p("spanish rank", "three"),
        _p("spanish rank", "four"),
        _p("spanish rank", "five"),
        _p("spanish rank", "six"),
        _p("spanish rank", "seven"),
        _p("spanish rank", "jack"),
        _p("spanish rank", "knight"),
        _p("spanish rank", "king"),
    ),
}
_SUITS = {
    Face.ITALIAN: (
        _p("italian suit", "of coins"),
        _p("italian suit", "of cups"),
        _p("italian suit", "of swords"),
        _p("italian suit", "of batons"),
    ),
    Face.FRENCH: (
        _p("french suit", "of diamonds"),
        _p("french suit", "of hearts"),
        _p("french suit", "of spades"),
        _p("french suit", "of clubs"),
    ),
    Face.SPANISH: (
        _p("spanish suit", "of coins"),
        _p("spanish suit", "of cups"),
        _p("spanish suit", "of swords"),
        _p("spanish suit", "of clubs"),
    ),
}

#: The ranks as a verb's object, before their suit: with the definite article where the
#: language sets one there ("il tre"), in the accusative where it declines ("тройку").
_RANK_ACCUSATIVES = {
    Face.ITALIAN: (
        _p("italian rank, accusative", "the ace"),
        _p("italian rank, accusative", "the two"),
        _p("italian rank, accusative", "the three"),
        _p("italian rank, accusative", "the four"),
        _p("italian rank, accusative", "the five"),
        _p("italian rank, accusative", "the six"),
        _p("italian rank, accusative", "the seven"),
        _p("italian rank, accusative", "the knave"),
        _p("italian rank, accusative", "the knight"),
        _p("italian rank, accusative", "the king"),
    ),
    Face.FRENCH: (
        _p("french rank, accusative", "the ace"),
        _p("french rank, accusative", "the two"),
        _p("french rank, accusative", "the three"),
        _p("french rank, accusative", "the four"),
        _p("french rank, accusative", "the five"),
        _p("french rank, accusative", "the six"),
        _p("french rank, accusative", "the seven"),
        _p("french rank, accusative", "the jack"),
        _p("french rank, accusative", "the queen"),
        _p("french rank, accusative", "the king"),
    ),
    Face.SPANISH: (
        _p("spanish rank, accusative", "the ace"),
        _p("spanish rank, accusative", "the two"),
        _p("spanish rank, accusative", "the three"),
        _p("spanish rank, accusative", "the four"),
        _p("spanish rank, accusative", "the five"),
        _p("spanish rank, accusative", "the six"),
        _p("spanish rank, accusative", "the seven"),
        _p("spanish rank, accusative", "the jack"),
        _p("spanish rank, accusative", "the knight"),
        _p("spanish rank, accusative", "the king"),
    ),
}

#: The suits' own names, as the players call them ("swords", "spade", "мечи").
_SUIT_NAMES = {
    Face.ITALIAN: (
        _p("italian suit name", "coins"),
        _p("italian suit name", "cups"),
        _p("italian suit name", "swords"),
        _p("italian suit name", "batons"),
    ),
    Face.FRENCH: (
        _p("french suit name", "diamonds"),
        _p("french suit name", "hearts"),
        _p("french suit name", "spades"),
        _p("french suit name", "clubs"),
    ),
    Face.SPANISH: (
        _p("spanish suit name", "coins"),
        _p("spanish suit name", "cups"),
        _p("spanish suit name", "swords"),
        _p("spanish suit name", "clubs"),
    ),
}


def card_name(card: Card, face: Face) -> str:
    """The card's name in the current language with the face's ranks and suits:
    ``7D`` of the Italian face is "sette di denari" in Italian, "siete de oros"
    in Spanish, "seven of coins" in English."""
    return _card_words(card, _RANKS[face], face)


def card_accusative(card: Card, face: Face) -> str:
    """The card's name as the object of a verb or a preposition ("you play …"):
    "тройку мечей" in Russian, "il tre di spade" in Italian, "the three of
    swords" in English."""
    return _card_words(card, _RANK_ACCUSATIVES[face], face)


def suit_name(suit: int, face: Face) -> str:
    """The name of the face's suit ``suit`` (0..3: D, C, S, B) in the current language."""
    return str(translations(current_locale()).pgettext(*_SUIT_NAMES[face][suit]))


def _card_words(card: Card, ranks: tuple[tuple[str, str], ...], face: Face) -> str:
    words = translations(current_locale())
    rank = words.pgettext(*ranks[RANK_OF[card] - 1])
    suit = words.pgettext(*_SUITS[face][SUIT_OF[card]])
    return f"{rank} {suit}"
