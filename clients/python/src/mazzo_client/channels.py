"""Channels: TLS (server roots, client certificate) or insecure, and call metadata."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import grpc

# gRPC metadata: (key, value) pairs; keys are lowercase, values of "-bin" keys are bytes.
Metadata = Sequence[tuple[str, str | bytes]]
ChannelOptions = Sequence[tuple[str, object]]


@dataclass(frozen=True)
class TLS:
    """How to open a secure channel.

    ``TLS()`` trusts the system's root certificates. ``root_certificates``
    (PEM) trusts a private CA instead; ``private_key`` and
    ``certificate_chain`` (PEM) present a client certificate for mutual TLS;
    ``server_name`` checks the server's certificate against that name rather
    than the target's host (a test CA, or a target given by IP address).
    """

    root_certificates: bytes | None = None
    private_key: bytes | None = None
    certificate_chain: bytes | None = None
    server_name: str | None = None

    def credentials(self) -> grpc.ChannelCredentials:
        return grpc.ssl_channel_credentials(
            root_certificates=self.root_certificates,
            private_key=self.private_key,
            certificate_chain=self.certificate_chain,
        )

    def options(self) -> list[tuple[str, object]]:
        if self.server_name is None:
            return []
        return [("grpc.ssl_target_name_override", self.server_name)]


def merged(default: Metadata, extra: Metadata | None) -> list[tuple[str, str | bytes]]:
    """The client's metadata, then the call's (a server reads the last value of a key)."""
    return [*default, *(extra or ())]
