"""API errors: one shape for both transports (AIP-193).

Every refusal is an :class:`ApiError`: a gRPC status code, a stable reason
(UPPER_SNAKE_CASE), a readable message and string metadata. Over gRPC it
becomes a status with one ``google.rpc.ErrorInfo`` (domain ``mazzo``); over
REST, the JSON envelope ``{"error": {"code", "status", "message", "details"}}``
with the HTTP code that grpc-gateway v2 uses for the gRPC code.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from enum import StrEnum

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2

from mazzo.engine import IllegalMove, RuleError
from mazzo.engine.errors import Text
from mazzo.service import i18n

DOMAIN = "mazzo"

log = logging.getLogger("mazzo")

#: grpc-gateway v2's HTTPStatusFromCode.
HTTP_STATUS: dict[grpc.StatusCode, int] = {
    grpc.StatusCode.OK: 200,
    grpc.StatusCode.CANCELLED: 499,
    grpc.StatusCode.UNKNOWN: 500,
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.UNAUTHENTICATED: 401,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.FAILED_PRECONDITION: 400,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.OUT_OF_RANGE: 400,
    grpc.StatusCode.UNIMPLEMENTED: 501,
    grpc.StatusCode.INTERNAL: 500,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DATA_LOSS: 500,
}


class ServiceReason(StrEnum):
    """Reasons the transports give themselves; the engine's are mazzo.engine.Reason."""

    MALFORMED_REQUEST = "MALFORMED_REQUEST"
    MOVE_MISSING = "MOVE_MISSING"
    REQUEST_TOO_LARGE = "REQUEST_TOO_LARGE"
    NOT_FOUND = "NOT_FOUND"
    METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"
    BAD_REQUEST = "BAD_REQUEST"
    REQUEST_TIMEOUT = "REQUEST_TIMEOUT"
    URI_TOO_LONG = "URI_TOO_LONG"
    UNSUPPORTED_MEDIA_TYPE = "UNSUPPORTED_MEDIA_TYPE"
    HEADERS_TOO_LARGE = "HEADERS_TOO_LARGE"
    NOT_READY = "NOT_READY"
    INTERNAL = "INTERNAL"
    #: Seat credentials and versions (docs/security.md).
    SEAT_CREDENTIAL_INVALID = "SEAT_CREDENTIAL_INVALID"
    SEAT_CREDENTIAL_REQUIRED = "SEAT_CREDENTIAL_REQUIRED"
    SEAT_NOT_PERMITTED = "SEAT_NOT_PERMITTED"
    STATE_VERSION_MISMATCH = "STATE_VERSION_MISMATCH"
    INVALID_LEVEL = "INVALID_LEVEL"
    INVALID_BUDGET = "INVALID_BUDGET"
    #: Computer seats, clocks and safe retries (docs/api.md).
    INVALID_COMPUTERS = "INVALID_COMPUTERS"
    INVALID_CLOCK = "INVALID_CLOCK"
    INVALID_IDEMPOTENCY_KEY = "INVALID_IDEMPOTENCY_KEY"
    COMPUTER_SEAT = "COMPUTER_SEAT"
    TIME_EXPIRED = "TIME_EXPIRED"


#: What each HTTP status the gateway's HTTP layer answers with means in the API:
#: the gRPC code and the reason of its envelope. The HTTP status is kept as is.
HTTP_REFUSALS: dict[int, tuple[grpc.StatusCode, ServiceReason]] = {
    400: (grpc.StatusCode.INVALID_ARGUMENT, ServiceReason.BAD_REQUEST),
    404: (grpc.StatusCode.NOT_FOUND, ServiceReason.NOT_FOUND),
    405: (grpc.StatusCode.UNIMPLEMENTED, ServiceReason.METHOD_NOT_ALLOWED),
    408: (grpc.StatusCode.DEADLINE_EXCEEDED, ServiceReason.REQUEST_TIMEOUT),
    413: (grpc.StatusCode.INVALID_ARGUMENT, ServiceReason.REQUEST_TOO_LARGE),
    414: (grpc.StatusCode.INVALID_ARGUMENT, ServiceReason.URI_TOO_LONG),
    415: (grpc.StatusCode.INVALID_ARGUMENT, ServiceReason.UNSUPPORTED_MEDIA_TYPE),
    431: (grpc.StatusCode.INVALID_ARGUMENT, ServiceReason.HEADERS_TOO_LARGE),
    500: (grpc.StatusCode.INTERNAL, ServiceReason.INTERNAL),
    503: (grpc.StatusCode.UNAVAILABLE, ServiceReason.NOT_READY),
}


class ApiError(Exception):
    def __init__(
        self,
        code: grpc.StatusCode,
        reason: str,
        message: str | Text,
        metadata: Mapping[str, str] | None = None,
        *,
        http_status: int | None = None,
    ):
        #: The message as a template and parameters, given in the caller's
        #: language when answered; ``message`` is its English.
        self.text = message if isinstance(message, Text) else Text(message)
        self.message = self.text.render()
        super().__init__(self.message)
        self.code = code
        self.reason = reason
        self.metadata = dict(metadata or {})
        # Only for HTTP-level refusals that the gRPC table cannot express (405).
        self._http_status = http_status

    @classmethod
    def from_rule_error(cls, error: RuleError) -> ApiError:
        """An illegal move in a valid state is FAILED_PRECONDITION; bad input INVALID_ARGUMENT."""
        code = (
            grpc.StatusCode.FAILED_PRECONDITION
            if isinstance(error, IllegalMove)
            else grpc.StatusCode.INVALID_ARGUMENT
        )
        return cls(code, error.reason.value, error.text, error.details)

    @classmethod
    def invalid(cls, reason: str, message: str | Text, **metadata: str) -> ApiError:
        return cls(grpc.StatusCode.INVALID_ARGUMENT, reason, message, metadata)

    @classmethod
    def http(cls, status: int, message: str | Text) -> ApiError:
        """A refusal of the HTTP layer (a status of HTTP_REFUSALS; any other 4xx is a 400)."""
        if status not in HTTP_REFUSALS:
            status = 500 if status >= 500 else 400
        code, reason = HTTP_REFUSALS[status]
        return cls(code, reason, message, http_status=status)

    @classmethod
    def internal(cls) -> ApiError:
        """A bug: the caller learns nothing of it but that it was not their fault."""
        return cls(grpc.StatusCode.INTERNAL, ServiceReason.INTERNAL, Text("internal error"))

    def localized(self) -> str:
        """The message in the language of the request being answered (i18n)."""
        return self.text.render(i18n.gettext())

    def error_info(self) -> error_details_pb2.ErrorInfo:
        return error_details_pb2.ErrorInfo(
            reason=self.reason, domain=DOMAIN, metadata=self.metadata
        )

    def to_status(self) -> status_pb2.Status:
        detail = any_pb2.Any()
        detail.Pack(self.error_info())
        return status_pb2.Status(
            code=getattr(code_pb2, self.code.name), message=self.localized(), details=[detail]
        )

    @property
    def http_status(self) -> int:
        return self._http_status or HTTP_STATUS[self.code]

    def envelope(self) -> dict[str, object]:
        """The AIP-193 JSON error body."""
        return {
            "error": {
                "code": self.http_status,
                "status": self.code.name,
                "message": self.localized(),
                "details": [
                    {
                        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                        "reason": self.reason,
                        "domain": DOMAIN,
                        "metadata": self.metadata,
                    }
                ],
            }
        }


class RefusalLog:
    """One short log line per ``interval`` seconds at most about refused requests.

    Malformed requests are the caller's fault, and an attacker can send
    thousands a second: the log says that they happen (and how many were not
    written out), never with a traceback and never flooding.
    """

    def __init__(self, interval: float = 10.0) -> None:
        self.interval = interval
        self._lock = threading.Lock()
        self._next = 0.0
        self._unlogged = 0

    def __call__(self, transport: str, where: str, error: ApiError) -> None:
        now = time.monotonic()
        with self._lock:
            if now < self._next:
                self._unlogged += 1
                return
            self._next = now + self.interval
            unlogged, self._unlogged = self._unlogged, 0
        more = f" (and {unlogged} more since the last such line)" if unlogged else ""
        log.info("refused a malformed %s request to %s: %s%s", transport, where, error.reason, more)


#: The process's one refusal log (gRPC and REST share it).
log_refusal = RefusalLog()
