"""The language of `mazzo play`: its own words by stdlib gettext, and the
language the server is asked for (accept-language) for its messages and card names.

The catalogs are ``locale/<lang>/LC_MESSAGES/mazzo_play.mo`` beside this module,
compiled from the .po files by the package's build (setup.py). ``--lang`` or
$LANG (``it_IT.UTF-8``, ``es``...) picks one, as gettext reads such names;
anything else is English.
"""

from __future__ import annotations

import gettext
import os
from pathlib import Path

LOCALE_DIR = Path(__file__).with_name("locale")
DOMAIN = "mazzo_play"
ENGLISH = "en"
#: The gRPC metadata asking the server for a language (docs/api.md, Languages).
METADATA_KEY = "accept-language"

_translation: gettext.NullTranslations = gettext.NullTranslations()


def choose(asked: str | None = None) -> str:
    """Speak ``asked`` (else $LANG) from now on; the language found, "en" if none."""
    global _translation
    wanted = asked or os.environ.get("LANG", "")
    languages = [wanted] if wanted else []
    _translation = gettext.translation(DOMAIN, LOCALE_DIR, languages=languages, fallback=True)
    return str(_translation.info().get("language", ENGLISH)) or ENGLISH


def _(message: str) -> str:
    return _translation.gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    return _translation.ngettext(singular, plural, count)


def N_(message: str) -> str:  # noqa: N802 (gettext's marker name)
    """Marks a message for the extractor; translated where it is shown."""
    return message
