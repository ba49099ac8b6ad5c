"""The security headers of every REST answer, and the policies of the two pages.

Every answer, JSON or page, from Flask or from the HTTP layer's own refusals,
carries :data:`ANSWER_HEADERS`: no MIME sniffing, no referrer passed on, and
a Content-Security-Policy. The API's answers are data, never a document: their
policy lets them load nothing and be framed nowhere. The two pages (the web
table at /play and the API reference at /docs) load only the server's own
files (no other host: the reference's fonts are the system's) and are framed
nowhere either.
"""

from __future__ import annotations

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
