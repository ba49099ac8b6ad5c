"""What every gettext catalog of the project must hold (tests/*/test_*catalogs*.py)."""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Mapping
from pathlib import Path

from babel.messages.pofile import read_po

#: Words written the same in English and in the language: allowed as their own
#: translation, by (context, msgid); each must still be in the catalog.
SAME_AS_ENGLISH: Mapping[str, frozenset[tuple[str | None, str]]] = {
    "fr": frozenset({("italian rank", "six"), ("french rank", "six"), ("spanish rank", "six")}),
}
_LETTER = re.compile(r"[^\W\d_]")
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")


def has_words(msgid: str) -> bool:
    """Whether a template has letters besides its {placeholders} (else it needs none)."""
    return bool(_LETTER.search(_PLACEHOLDER.sub("", msgid)))


def placeholders(text: str) -> set[str]:
    """The {names} of a str.format template."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def catalog_problems(
    path: Path, locale: str, same_as_english: frozenset[tuple[str | None, str]] | None = None
) -> list[str]:
    """Each message of ``path`` that is untranslated, left in English, fuzzy or
    has other placeholders than its msgid (each plural form, against the singular's)."""
    with path.open("rb") as po:
        catalog = read_po(po, locale=locale)
    allowed = (
        SAME_AS_ENGLISH.get(locale, frozenset()) if same_as_english is None else same_as_english
    )
    problems = []
    held = set()
    for message in catalog:
        if not message.id:
            continue
        ids = list(message.id) if isinstance(message.id, tuple | list) else [message.id]
        forms = (
            list(message.string) if isinstance(message.string, tuple | list) else [message.string]
        )
        msgid, key = str(ids[0]), (message.context, str(ids[0]))
        held.add(key)
        where = f"{path.name} [{locale}] {msgid!r}"
        if message.fuzzy:
            problems.append(f"{where}: fuzzy")
        for form in (str(f or "") for f in forms):
            if not form:
                problems.append(f"{where}: no translation")
            elif form in ids and has_words(msgid) and key not in allowed:
                problems.append(f"{where}: left in English")
            if form and placeholders(form) != placeholders(msgid):
                problems.append(
                    f"{where}: placeholders {placeholders(form)} for {placeholders(msgid)}"
                )
    problems += [f"{path.name} [{locale}]: no {key} to allow" for key in allowed - held]
    return problems


def all_problems(paths: Iterable[tuple[Path, str]]) -> list[str]:
    return [problem for path, locale in paths for problem in catalog_problems(path, locale)]
