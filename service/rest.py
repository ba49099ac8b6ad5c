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

import grpc
import orjson
from flask import Flask, Response, request
from werkzeug.exceptions import HTTPException, MethodNotAllowed

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
            body = request.get_data(cache=False) or b"{}"
            # Werkzeug cuts a streamed (chunked) body at MAX_CONTENT_LENGTH without
            # a word; reading on raises 413 (REQUEST_TOO_LARGE) if it reached it.
            request.stream.read(1)
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


_HTTP_ERRORS = {
    404: (grpc.StatusCode.NOT_FOUND, ServiceReason.NOT_FOUND),
    405: (grpc.StatusCode.UNIMPLEMENTED, ServiceReason.METHOD_NOT_ALLOWED),
    413: (grpc.StatusCode.INVALID_ARGUMENT, ServiceReason.REQUEST_TOO_LARGE),
}


def _http_error(exc: HTTPException) -> Response:
    code, reason = _HTTP_ERRORS.get(
        exc.code or 500, (grpc.StatusCode.INVALID_ARGUMENT, ServiceReason.BAD_REQUEST)
    )
    message = exc.description or exc.name
    if not isinstance(exc, MethodNotAllowed):
        return _error_response(ApiError(code, reason, message))
    # The route exists; only the verb is wrong: 405, with the Allow header HTTP requires.
    response = _error_response(ApiError(code, reason, message, http_status=405))
    response.headers["Allow"] = ", ".join(sorted(exc.valid_methods or ()))
    return response


def _internal_error(exc: Exception) -> Response:
    log.exception("unexpected error on %s %s", request.method, request.path)
    return _error_response(ApiError.internal())


def create_app(
    handlers: EngineHandlers,
    metrics: Metrics,
    max_request_bytes: int = 65536,
    metrics_on_rest: bool = False,
) -> Flask:
    """The gateway; /metrics only with ``metrics_on_rest`` (MAZZO_METRICS_ON_REST):
    by default it is on the metrics address alone, away from callers."""
    # No static folder: the gateway serves the proto's routes (and /metrics), nothing else.
    app = Flask("mazzo", static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = max_request_bytes
    for rpc in rpcs(handlers):
        app.add_url_rule(rpc.http_path, rpc.name, _view(rpc), methods=[rpc.http_method])
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _internal_error)
    instrument_flask(app, metrics, serve_metrics=metrics_on_rest)
    return app
