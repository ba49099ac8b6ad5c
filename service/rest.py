"""The REST gateway: the proto's google.api.http routes over Flask.

It maps HTTP and JSON onto the same handlers as the gRPC servicer, with the
proto3 JSON mapping (lowerCamelCase names, every field printed including
defaults, 64-bit integers as strings, bytes as base64) and AIP-193 errors.
The mapping is service.json_mapping: json_format's exact answers, compiled per
message type, encoded with orjson (compact UTF-8, one line).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import orjson
from flask import Flask, Response, current_app, request
from werkzeug.exceptions import HTTPException, MethodNotAllowed, RequestEntityTooLarge

from service.errors import ApiError, ServiceReason
from service.handlers import EngineHandlers, Rpc, rpcs
from service.json_mapping import JsonMappingError, message_to_json, parse
from service.metrics import Metrics, instrument_flask

log = logging.getLogger(__name__)


def _json(body: object, status: int = 200) -> Response:
    return _json_bytes(orjson.dumps(body, option=orjson.OPT_APPEND_NEWLINE), status)


def _json_bytes(body: bytes, status: int = 200) -> Response:
    return Response(body, status=status, mimetype="application/json")


def _error_response(error: ApiError) -> Response:
    return _json(error.envelope(), error.http_status)


def _view(rpc: Rpc) -> Callable[[], Response]:
    def view() -> Response:
        message = rpc.request_type()
        if rpc.http_method != "GET":
            coding = request.headers.get("Content-Encoding", "identity").strip().lower()
            if coding != "identity":
                message_text = f"the body must not be encoded (Content-Encoding: {coding[:40]!r})"
                return _error_response(ApiError.http(415, message_text))
            # MAX_CONTENT_LENGTH is one byte more than the limit, so that a body of
            # exactly the limit reads whole (Werkzeug refuses a read past its
            # limit even at the end of the body) and one byte more is seen.
            body = request.get_data(cache=False) or b"{}"
            if len(body) > current_app.config[MAX_BYTES_KEY]:
                raise RequestEntityTooLarge()
            try:
                parse(body, message)
            except JsonMappingError as exc:
                return _error_response(ApiError.invalid(ServiceReason.MALFORMED_REQUEST, str(exc)))
        try:
            reply = rpc.call(message)
        except ApiError as error:
            return _error_response(error)
        return _json_bytes(message_to_json(reply, newline=True))

    view.__name__ = rpc.name
    return view


def _http_error(exc: HTTPException) -> Response:
    status = exc.code or 500
    if status == 404:
        message = f"no route {request.method} {request.path[:100]}"
    elif status == 413:
        limit = current_app.config[MAX_BYTES_KEY]
        message = f"the request body is larger than the {limit} bytes accepted"
    else:
        message = exc.description or exc.name
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
    message = f"the request target is longer than the {MAX_TARGET_BYTES} bytes accepted"
    return _error_response(ApiError.http(414, message))


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
        message = "the server is stopping: send new requests to another instance"
        return _error_response(ApiError.http(503, message))

    return readyz


def _internal_error(exc: Exception) -> Response:
    log.exception("unexpected error on %s %s", request.method, request.path)
    return _error_response(ApiError.internal())


def create_app(
    handlers: EngineHandlers,
    metrics: Metrics,
    max_request_bytes: int = 65536,
    ready: Callable[[], bool] = lambda: True,
) -> Flask:
    """The gateway: the proto's routes, /metrics, and the probes /healthz and /readyz.

    ``ready`` says whether this process takes new work (False once it drains).
    """
    # No static folder: the gateway serves the proto's routes, /metrics and probes, nothing else.
    app = Flask("mazzo", static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = max_request_bytes + 1
    app.config[MAX_BYTES_KEY] = max_request_bytes
    for rpc in rpcs(handlers):
        app.add_url_rule(rpc.http_path, rpc.name, _view(rpc), methods=[rpc.http_method])
    app.add_url_rule("/healthz", "healthz", _healthz, methods=["GET"])
    app.before_request(_refuse_long_targets)
    app.add_url_rule("/readyz", "readyz", _readyz(ready), methods=["GET"])
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _internal_error)
    instrument_flask(app, metrics)
    return app
