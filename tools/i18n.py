"""The server's message catalogs: extract the templates, merge them into the .po files.

    .venv/bin/python tools/i18n.py           # extract, then update every locale's .po
    .venv/bin/python tools/i18n.py --check   # exit 1 when a .po lacks or keeps a stale id

Babel's extractor reads the engine's and the service's sources (babel.cfg) for
the templates given to the refusal constructors (the keywords below); the
catalogs are service/mazzo/service/locale/<lang>/LC_MESSAGES/mazzo.po, read by
mazzo.service.i18n at run time. A new template lands in each .po untranslated
(tests/service/test_i18n_catalogs.py then fails until it is translated).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
LOCALES = ("en", "it", "es", "fr", "ru")
#: Where each refusal constructor takes its template (1-based; "c": a context).
KEYWORDS: dict[str, tuple[int | str, ...]] = {
    "InvalidInput": (2,),
    "IllegalMove": (2,),
    "RuleError": (2,),
    "StateTokenError": (2,),
    "ApiError": (3,),
    "invalid": (2,),
    "http": (2,),
    "denied": (2,),
    "refuse": (2,),
    "Text": (1,),
    "N_": (1,),
    "append": (1,),  # problems.append(Text(...)) is Text's; a bare literal would be too
    "_p": ("1c", 2),
    # An option's description, as its declaration gives it (mazzo.engine.options):
    # the catalog answers it in the caller's language.
    "number": (2,),
    "switch": (2,),
    "choice": (2,),
    "card": (1,),
}


@dataclass(frozen=True)
class Domain:
    """One set of catalogs: its sources (a babel.cfg), its keywords and its folder."""

    name: str
    mapping: Path
    keywords: dict[str, tuple[int | str, ...]]
    locale_dir: Path


DOMAINS = (
    Domain(
        "mazzo", ROOT / "babel.cfg", KEYWORDS, ROOT / "service" / "mazzo" / "service" / "locale"
    ),
    # `mazzo play`'s own words: gettext's _() and ngettext(), and N_() marks.
    Domain(
        "mazzo_play",
        ROOT / "clients" / "python" / "babel.cfg",
        {"_": (1,), "N_": (1,), "ngettext": (1, 2)},
        ROOT / "clients" / "python" / "src" / "mazzo_client" / "play" / "locale",
    ),
)


def _keywords(keywords: dict[str, tuple[int | str, ...]]) -> dict[str, tuple[object, ...]]:
    """Babel's spec: a context argument is written as (n, "c")."""
    spec: dict[str, tuple[object, ...]] = {}
    for name, places in keywords.items():
        spec[name] = tuple((int(p[:-1]), "c") if isinstance(p, str) else p for p in places)
    return spec


def extracted(domain: Domain = DOMAINS[0]) -> Catalog:
    with open(domain.mapping, encoding="utf-8") as config:
        method_map, options_map = parse_mapping_cfg(config)
    template = Catalog(project="mazzo", domain=domain.name)
    for filename, lineno, message, comments, context in extract_from_dir(
        str(ROOT),
        method_map,
        options_map,
        keywords=_keywords(domain.keywords),
        comment_tags=("i18n:",),
    ):
        if not message:
            continue
        if isinstance(message, tuple) and not all(message):
            continue
        template.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return template


def catalog_path(locale: str, domain: Domain = DOMAINS[0]) -> Path:
    return domain.locale_dir / locale / "LC_MESSAGES" / f"{domain.name}.po"


def read(locale: str, domain: Domain = DOMAINS[0]) -> Catalog:
    path = catalog_path(locale, domain)
    if not path.is_file():
        return Catalog(locale=locale, domain=domain.name, project="mazzo")
    with path.open("rb") as po:
        return read_po(po, locale=locale, domain=domain.name)


def _ids(catalog: Catalog) -> set[tuple[str, str | None]]:
    return {(str(m.id if isinstance(m.id, str) else m.id[0]), m.context) for m in catalog if m.id}


def update() -> None:
    for domain in DOMAINS:
        _update(domain)


def _update(domain: Domain) -> None:
    template = extracted(domain)
    for locale in LOCALES:
        catalog = read(locale, domain)
        created, ids = catalog.creation_date, _ids(catalog)
        catalog.update(template, no_fuzzy_matching=True)
        catalog.obsolete.clear()
        if _ids(catalog) == ids:  # the same messages: the header's date stays too
            catalog.creation_date = created
        path = catalog_path(locale, domain)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as po:
            # Where each message comes from by file, not line: a line moved in
            # the sources then leaves every catalog as it is.
            write_po(po, catalog, width=100, omit_header=False, include_lineno=False)


def stale() -> list[str]:
    """Each locale whose .po does not hold exactly the extracted ids, and why."""
    problems = []
    for domain in DOMAINS:
        wanted = _ids(extracted(domain))
        for locale in LOCALES:
            held = _ids(read(locale, domain))
            where = f"{domain.name} {locale}"
            for msgid, context in sorted(wanted - held, key=str):
                problems.append(f"{where}: missing {msgid!r} ({context or 'no context'})")
            for msgid, context in sorted(held - wanted, key=str):
                problems.append(f"{where}: no longer in the sources: {msgid!r} ({context})")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check the catalogs")
    args = parser.parse_args(argv)
    if args.check:
        problems = stale()
        print("\n".join(problems) or "the catalogs hold every extracted message")
        return 1 if problems else 0
    update()
    return 0


if __name__ == "__main__":
    sys.exit(main())
