"""A typed Python client for the Mazzo rules engine (service mazzo.v1.Engine over gRPC).

It uses only the generated stubs: exactly what a third-party back end writes::

    from mazzo_client import MazzoClient, move

    with MazzoClient("127.0.0.1:50051") as mazzo:
        game = mazzo.new_game(players=2, seed=42)
        played = mazzo.play(game.state, move(0, "9C"))

A single-player game is one call per person's move: the server plays the
computer seats (``computer(1, "expert", 100)``) itself::

    game = mazzo.new_game(players=2, computers=[computer(1)])
    played = mazzo.play(game.state, move(0, "9C"), idempotency_key=idempotency_key())

``AsyncMazzoClient`` is the same over asyncio. Results are the protobuf
messages of ``mazzo_client.pb`` (typed by their .pyi stubs); a refused call
raises ``MazzoError`` with the reason and metadata of its ErrorInfo.
"""

from mazzo_client._gen.mazzo.v1 import engine_pb2 as pb
from mazzo_client.aio import AsyncMazzoClient
from mazzo_client.channels import TLS, Metadata
from mazzo_client.client import MazzoClient
from mazzo_client.errors import MazzoError
from mazzo_client.messages import computer, idempotency_key, move

__all__ = [
    "TLS",
    "AsyncMazzoClient",
    "MazzoClient",
    "MazzoError",
    "Metadata",
    "computer",
    "idempotency_key",
    "move",
    "pb",
]
