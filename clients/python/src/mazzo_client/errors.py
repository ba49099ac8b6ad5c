"""Refused calls as one exception carrying the google.rpc.ErrorInfo of the status."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, cast

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2

# The trailer in which a server sends its google.rpc.Status with details.
STATUS_DETAILS_KEY = "grpc-status-details-bin"


class _FailedCall(Protocol):
    """What grpc.RpcError (sync) and grpc.aio.AioRpcError both offer."""

    def code(self) -> grpc.StatusCode: ...

    def details(self) -> str | None: ...

    def trailing_metadata(self) -> Iterable[tuple[str, str | bytes]] | None: ...


class MazzoError(Exception):
    """A refused call: the gRPC code, the ErrorInfo's stable reason and its metadata.

    ``reason`` is empty when the status carries no ErrorInfo (for example a
    deadline that ran out, or a server that cannot be reached).
    """

    def __init__(
        self, code: grpc.StatusCode, reason: str, message: str, metadata: dict[str, str]
    ) -> None:
        said = f"{code.name} {reason}" if reason else code.name
        super().__init__(f"{said}: {message}")
        self.code = code
        self.reason = reason
        self.message = message
        self.metadata = metadata

    @classmethod
    def from_rpc_error(cls, error: grpc.RpcError | _FailedCall) -> MazzoError:
        call = cast(_FailedCall, error)  # every RpcError that grpc raises is also a Call
        reason, metadata = "", {}
        for detail in _status_details(call):
            info = error_details_pb2.ErrorInfo()
            if detail.Unpack(info):
                reason, metadata = info.reason, dict(info.metadata)
                break
        return cls(call.code(), reason, call.details() or "", metadata)


def _status_details(call: _FailedCall) -> list[any_pb2.Any]:
    for key, value in call.trailing_metadata() or ():
        if key == STATUS_DETAILS_KEY and isinstance(value, bytes):
            return list(status_pb2.Status.FromString(value).details)
    return []
