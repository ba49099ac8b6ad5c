"""What a caller uses: a typed Python client over gRPC (public API only)."""

from clients.grpc_client import MazzoClient, MazzoError

__all__ = ["MazzoClient", "MazzoError"]
