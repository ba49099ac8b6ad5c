"""The REST gateway: the proto's google.api.http routes over Flask.

It maps HTTP and JSON onto the same handlers as the gRPC servicer, with the
proto3 JSON mapping (lowerCamelCase names, every field printed including
defaults, 64-bit integers as strings, bytes as base64) and AIP-193 errors.
The mapping is mazzo.service.json_mapping: json_format's exact answers, compiled per
message type, encoded with orjson (compact UTF-8, one line).
"""

from __future__ import annotations

import logging
import pathlib
from collections.abc import Callable, Collection, Sequence

import orjson
from flask import Flask, Response, current_app, request
from google.protobuf.message import Message
from werkzeug.exceptions import HTTPException, MethodNotAllowed, RequestEntityTooLarge

from mazzo.engine.deal import invalid_seed
from mazzo.engine.errors import N_, Text
from mazzo.service import i18n
from mazzo.service.errors import HTTP_STATUS, ApiError, ServiceReason
from mazzo.service.handlers import EngineHandlers, Rpc, refusal_codes, rpcs
from mazzo.service.headers import ANSWER_HEADERS, DOCS_POLICY, PLAY_POLICY
from mazzo.service.http_server import REFUSED_ON_EVERY_ROUTE
from mazzo.service.json_mapping import (
    JsonMappingError,
    JsonValueError,
    message_to_json,
    parse,
)
from mazzo.service.metrics import Metrics, instrument_flask
from mazzo.service.state_token import STATE_UNRECOGNIZED

log = logging.getLogger(__name__)


def _json(body: object, status: int = 200) -> Response:
    return _json_bytes(orjson.dumps(body, option=orjson.OPT_APPEND_NEWLINE), status)


def _json_bytes(body: bytes, status: int = 200) -> Response:
    return Response(body, status=status, mimetype="application/json")


def _error_response(error: ApiError) -> Response:
    return _json(error.envelope(), error.http_status)


#: The request fields whose value the JSON mapping refuses with a reason of their
#: own, the one the server gives such a value over gRPC too (docs/api.md, Errors):
#: a state that is not base64 is no state token, as bytes that start with no
#: token format are; a seed out of 0..2**64-1 is INVALID_SEED, as the engine says.
_FIELD_REFUSALS: dict[str, Callable[[], ApiError]] = {
    "state": lambda: ApiError.invalid(
        STATE_UNRECOGNIZED,
        Text(N_("state is not a Mazzo state token: it is not base64 (standard or URL-safe)")),
    ),
    "idempotency_key": lambda: ApiError.invalid(
        ServiceReason.INVALID_IDEMPOTENCY_KEY,
        Text(N_("idempotency_key is not base64 (standard or URL-safe)")),
    ),
    "seed": lambda: ApiError.from_rule_error(invalid_seed()),
}


def _json_refusal(error: JsonMappingError, request: Message) -> ApiError:
    """A request body the JSON mapping refused: for a value of the right JSON type
    that its field cannot hold, the field's own reason, if it has one; else
    MALFORMED_REQUEST, in the parser's words (naming the field and what it holds),
    which stay English."""
    field = error.field
    if (
        isinstance(error, JsonValueError)
        and field is not None
        and field.containing_type is request.DESCRIPTOR
    ):
        refusal = _FIELD_REFUSALS.get(field.name)
        if refusal is not None:
            return refusal()
    return ApiError.invalid(ServiceReason.MALFORMED_REQUEST, Text("{why}", why=str(error)))


def _view(rpc: Rpc, max_bytes: int, *, strict_json: bool = False) -> Callable[[], Response]:
    # Unknown fields are ignored unless strict: a newer client talks to an older server.
    ignore_unknown = not strict_json
    has_body = rpc.http_method != "GET"

    def view() -> Response:
        message = rpc.request_type()
        if has_body:
            # The WSGI environ's own key: the headers' mapping would find it the long way.
            coding = request.environ.get("HTTP_CONTENT_ENCODING", "identity").strip().lower()
            if coding != "identity":
                message_text = Text(
                    "the body must not be encoded (Content-Encoding: {coding})",
                    coding=repr(coding[:40]),
                )
                return _error_response(ApiError.http(415, message_text))
            # MAX_CONTENT_LENGTH is one byte more than the limit, so that a body of
            # exactly the limit reads whole (Werkzeug refuses a read past its
            # limit even at the end of the body) and one byte more is seen.
            body = request.get_data(cache=False) or b"{}"
            if len(body) > max_bytes:
                raise RequestEntityTooLarge()
            try:
                parse(body, message, ignore_unknown_fields=ignore_unknown)
            except JsonMappingError as exc:
                return _error_response(_json_refusal(exc, message))
        try:
            reply = rpc.call(message)
        except ApiError as error:
            return _error_response(error)
        return _json_bytes(message_to_json(reply, newline=True))

    view.__name__ = rpc.name
    return view


def _http_error(exc: HTTPException) -> Response:
    status = exc.code or 500
    message: str | Text
    if status == 404:
        message = Text("no route {method} {path}", method=request.method, path=request.path[:100])
    elif status == 413:
        limit = current_app.config[MAX_BYTES_KEY]
        message = Text("the request body is larger than the {limit} bytes accepted", limit=limit)
    elif status == 405:
        message = Text("the route does not take {method}", method=request.method)
    else:  # Werkzeug's own words, in English
        message = Text("{why}", why=exc.description or exc.name)
    response = _error_response(ApiError.http(status, message))
    if isinstance(exc, MethodNotAllowed):
        # The route exists; only the verb is wrong: 405, with the Allow header HTTP requires.
        response.headers["Allow"] = ", ".join(sorted(exc.valid_methods or ()))
    return response


#: Longest request target (path and query) read; no route needs more than a few dozen.
MAX_TARGET_BYTES = 2048


def _refuse_long_targets() -> Response | None:
    environ = request.environ
    length = len(environ.get("PATH_INFO", "")) + len(environ.get("QUERY_STRING", ""))
    if length <= MAX_TARGET_BYTES:
        return None
    message = Text(
        "the request target is longer than the {limit} bytes accepted", limit=MAX_TARGET_BYTES
    )
    return _error_response(ApiError.http(414, message))


def refusal_statuses(http_method: str, request_fields: Collection[str]) -> list[int]:
    """Every HTTP status an API route refuses with, for its verb and its request
    message's fields (proto names): the HTTP layer's on any request, a target too
    long (414), on a route with a body what the body brings (a malformed one 400,
    too large 413, encoded 415), and its handler's refusals as grpc-gateway maps
    them. The OpenAPI document declares these (tools/gen_openapi.py)."""
    statuses = {*REFUSED_ON_EVERY_ROUTE, 414}
    if http_method != "GET":
        statuses |= {400, 413, 415}
    statuses |= {HTTP_STATUS[code] for code in refusal_codes(request_fields)}
    return sorted(statuses)


def _speak_the_asked_language() -> None:
    """This request's messages and card names in its Accept-Language (i18n)."""
    i18n.set_locale(i18n.negotiate(request.environ.get("HTTP_ACCEPT_LANGUAGE")))


SERVING = {"status": "SERVING"}
MAX_BYTES_KEY = "MAZZO_MAX_REQUEST_BYTES"


def _healthz() -> Response:
    """Live: the process serves (what a liveness probe asks)."""
    return _json(SERVING)


def _readyz(ready: Callable[[], bool]) -> Callable[[], Response]:
    def readyz() -> Response:
        """Ready: 200 while serving; 503 once draining, so that balancers send elsewhere."""
        if ready():
            return _json(SERVING)
        return _error_response(
            ApiError.http(503, "the server is stopping: send new requests to another instance")
        )

    return readyz


def _internal_error(exc: Exception) -> Response:
    log.exception("unexpected error on %s %s", request.method, request.path)
    return _error_response(ApiError.internal())


def create_app(
    handlers: EngineHandlers,
    metrics: Metrics,
    max_request_bytes: int = 65536,
    *,
    ready: Callable[[], bool] = lambda: True,
    metrics_on_rest: bool = False,
    strict_json: bool = False,
    cors_origins: Sequence[str] = (),
) -> Flask:
    """The gateway: the proto's routes, the probes /healthz and /readyz, the API
    reference (/openapi.json, /docs), the web table (/play), and /metrics only
    with ``metrics_on_rest`` (MAZZO_METRICS_ON_REST): by default it is on the
    metrics address alone, away from callers.

    ``ready`` says whether this process takes new work (False once it drains).
    """
    # No static folder: the gateway serves the routes above, nothing else. The import
    # name is this module's: mazzo itself is a namespace package, with no root path.
    app = Flask(__name__, static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = max_request_bytes + 1
    app.config[MAX_BYTES_KEY] = max_request_bytes
    for rpc in rpcs(handlers):
        view = _view(rpc, max_request_bytes, strict_json=strict_json)
        app.add_url_rule(rpc.http_path, rpc.name, view, methods=[rpc.http_method])
    app.add_url_rule("/healthz", "healthz", _healthz, methods=["GET"])
    app.before_request(_speak_the_asked_language)
    app.before_request(_refuse_long_targets)
    app.add_url_rule("/readyz", "readyz", _readyz(ready), methods=["GET"])
    allow_cross_origin(app, cors_origins)
    app.after_request(_add_security_headers)
    add_api_reference(app)
    add_play_page(app)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _internal_error)
    instrument_flask(app, metrics, serve_metrics=metrics_on_rest)
    return app


def _add_security_headers(response: Response) -> Response:
    """Every answer's (mazzo.service.headers); a page has set its own policy already."""
    for name, value in ANSWER_HEADERS:
        response.headers.setdefault(name, value)
    return response


# ---------------------------------------------------------------- CORS

#: How long a browser may keep a preflight's answer (seconds).
CORS_MAX_AGE = 600


def allow_cross_origin(app: Flask, origins: Sequence[str]) -> None:
    """Let browsers on ``origins`` ("*": any) call the API; no origins: no CORS headers.

    Every answer to an allowed Origin (errors too, so that a page can read the
    reason) names it; a preflight (OPTIONS with Access-Control-Request-Method,
    answered by Flask's automatic OPTIONS with the route's Allow header) also
    gets the methods, the headers asked for and how long to keep the answer.
    """
    allowed = frozenset(origins)
    if not allowed:
        return
    any_origin = "*" in allowed

    @app.after_request
    def add_cors_headers(response: Response) -> Response:
        origin = request.headers.get("Origin")
        if origin is None or not (any_origin or origin in allowed):
            return response
        headers = response.headers
        headers["Access-Control-Allow-Origin"] = "*" if any_origin else origin
        if not any_origin:
            headers.add("Vary", "Origin")
        if request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers:
            headers["Access-Control-Allow-Methods"] = headers.get("Allow", "GET, POST, OPTIONS")
            asked = request.headers.get("Access-Control-Request-Headers")
            headers["Access-Control-Allow-Headers"] = asked or "Content-Type"
            headers["Access-Control-Max-Age"] = str(CORS_MAX_AGE)
        return response


# ---------------------------------------------------------------- the API reference

_STATIC = pathlib.Path(__file__).resolve().parent / "static"
#: The committed document (tools/gen_openapi.py) in a checkout; an installed copy
#: (the container image) carries it as package data instead.
OPENAPI_PATHS = (
    pathlib.Path(__file__).resolve().parents[3] / "docs" / "openapi.json",
    _STATIC / "openapi.json",
)
RAPIDOC = _STATIC / "rapidoc" / "rapidoc-min.js"

#: The page that renders /openapi.json with RapiDoc (vendored: no request leaves
#: for another site; load-fonts="false" and system fonts, so none is fetched either).
API_PAGE = b"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Mazzo API</title>
<link rel="icon" href="data:,">
<script type="module" src="/docs/rapidoc-min.js"></script>
</head>
<body>
<rapi-doc spec-url="/openapi.json" render-style="read" show-header="false"
  allow-try="true" allow-server-selection="false" schema-description-expanded="true"
  load-fonts="false" regular-font="system-ui, sans-serif"
  mono-font="ui-monospace, monospace"></rapi-doc>
</body>
</html>
"""


def add_api_reference(app: Flask) -> None:
    """GET /openapi.json (the OpenAPI 3.1 document) and GET /docs (a page rendering it)."""
    document = next((path for path in OPENAPI_PATHS if path.is_file()), None)
    if document is None:  # an install built without it: the API itself still works
        log.warning(
            "no OpenAPI document found (%s): /openapi.json and /docs are off",
            ", ".join(map(str, OPENAPI_PATHS)),
        )
        return
    body = document.read_bytes()
    script = RAPIDOC.read_bytes()

    def openapi() -> Response:
        return _json_bytes(body)

    def page() -> Response:
        response = Response(API_PAGE, mimetype="text/html")
        response.headers["Content-Security-Policy"] = DOCS_POLICY
        return response

    def rapidoc() -> Response:
        response = Response(script, mimetype="text/javascript")
        response.headers["Cache-Control"] = "public, max-age=86400"
        return response

    app.add_url_rule("/openapi.json", "openapi", openapi, methods=["GET"])
    app.add_url_rule("/docs", "api_page", page, methods=["GET"])
    app.add_url_rule("/docs/rapidoc-min.js", "rapidoc", rapidoc, methods=["GET"])


# ---------------------------------------------------------------- the web table

PLAY_PAGE = _STATIC / "play"
_MIMETYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css"}


def add_play_page(app: Flask) -> None:
    """GET /play: a page to play any game against the bots (service/mazzo/service/static/play),
    through the same REST calls as any client; its files are read once, here."""
    files = {
        path.name: (path.read_bytes(), _MIMETYPES[path.suffix])
        for path in sorted(PLAY_PAGE.glob("*"))
        if path.suffix in _MIMETYPES
    }
    if "index.html" not in files:  # an install built without it: the API itself still works
        log.warning("no web table found in %s: /play is off", PLAY_PAGE)
        return

    def page() -> Response:
        response = _static_file(files, "index.html")
        response.headers["Content-Security-Policy"] = PLAY_POLICY
        return response

    def asset(name: str) -> Response:
        return _static_file(files, name)

    app.add_url_rule("/play", "play_page", page, methods=["GET"])
    app.add_url_rule("/play/<name>", "play_asset", asset, methods=["GET"])


def _static_file(files: dict[str, tuple[bytes, str]], name: str) -> Response:
    if name not in files:
        return _error_response(ApiError.http(404, Text("no file {name}", name=repr(name))))
    body, mimetype = files[name]
    response = Response(body, mimetype=mimetype)
    # The page's files change with the server only: a browser checks again each load.
    response.headers["Cache-Control"] = "no-cache"
    return response
