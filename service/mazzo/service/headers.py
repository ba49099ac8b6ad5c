"""The security headers of every REST answer, and the policies of the two pages.

Every answer, JSON or page, from Flask or from the HTTP layer's own refusals
(and the metrics port's, :func:`with_answer_headers`), carries
:data:`ANSWER_HEADERS`: no MIME sniffing, no referrer passed on, and
a Content-Security-Policy. The API's answers are data, never a document: their
policy lets them load nothing and be framed nowhere. The two pages (the web
table at /play and the API reference at /docs) load only the server's own
files (no other host: the reference's fonts are the system's) and are framed
nowhere either.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

#: The policy of an answer that is data (JSON, /metrics): nothing to load or frame.
DATA_POLICY = "default-src 'none'; frame-ancestors 'none'"

_PAGE_BASE = "default-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'"

#: /play: its script and style sheet, its calls to the API, its icon (a data: URL).
PLAY_POLICY = (
    f"{_PAGE_BASE}; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:"
)

#: /docs: RapiDoc (its script, the OpenAPI document and the calls of "try" to this
#: server); RapiDoc sets style attributes in the markup it renders, hence
#: 'unsafe-inline' for styles alone (no script runs inline), and shows data: images.
DOCS_POLICY = (
    f"{_PAGE_BASE}; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self';"
    " img-src 'self' data:"
)

#: On every answer; a page replaces the policy by its own.
ANSWER_HEADERS: tuple[tuple[str, str], ...] = (
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("Content-Security-Policy", DATA_POLICY),
)


def with_answer_headers(
    app: Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]],
) -> Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]:
    """A WSGI app that is not Flask's (the metrics port's Prometheus exposition)
    with :data:`ANSWER_HEADERS` on every answer, unless it sets one itself."""

    def wrapped(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        def start(status: str, headers: list[tuple[str, str]], *exc_info: Any) -> Any:
            present = {name.lower() for name, _ in headers}
            added = [(n, v) for n, v in ANSWER_HEADERS if n.lower() not in present]
            return start_response(status, [*headers, *added], *exc_info)

        return app(environ, start)

    return wrapped
