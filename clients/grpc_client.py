"""A typed Python client for mazzo.v1.Engine over gRPC.

It uses only the generated stubs, never the engine or the service, so it is
exactly what a third-party back end would write::

    with MazzoClient("127.0.0.1:50051") as mazzo:
        game = mazzo.new_game(players=2, seed=42)
        moves = mazzo.legal_moves(game.state)
        played = mazzo.play(game.state, moves.moves[0])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from types import TracebackType
from typing import Any

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from mazzo.v1 import engine_pb2 as pb
from mazzo.v1 import engine_pb2_grpc


class MazzoError(Exception):
    """A refused call: the gRPC code and the ErrorInfo's reason and metadata."""

    def __init__(self, code: grpc.StatusCode, reason: str, message: str, metadata: dict[str, str]):
        super().__init__(f"{code.name} {reason}: {message}")
        self.code = code
        self.reason = reason
        self.message = message
        self.metadata = metadata

    @classmethod
    def from_rpc_error(cls, error: grpc.RpcError) -> MazzoError:
        status = rpc_status.from_call(error)
        reason, metadata = "", {}
        for detail in status.details if status else ():
            info = error_details_pb2.ErrorInfo()
            if detail.Unpack(info):
                reason, metadata = info.reason, dict(info.metadata)
        return cls(error.code(), reason, error.details() or "", metadata)


class MazzoClient:
    def __init__(self, target: str, *, timeout: float = 10.0):
        self._channel = grpc.insecure_channel(target)
        self._stub = engine_pb2_grpc.EngineStub(self._channel)
        self._timeout = timeout

    def __enter__(self) -> MazzoClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._channel.close()

    def _call(self, method: str, request: object) -> Any:
        try:
            return getattr(self._stub, method)(request, timeout=self._timeout)
        except grpc.RpcError as error:
            raise MazzoError.from_rpc_error(error) from error

    def catalog(self) -> pb.GetCatalogResponse:
        return self._call("GetCatalog", pb.GetCatalogRequest())

    def new_game(
        self,
        players: int = 2,
        *,
        scopa: pb.ScopaOptions | None = None,
        tressette: pb.TressetteOptions | None = None,
        seed: int | None = None,
        decks: Iterable[Sequence[str]] = (),
        first_dealer: int | None = None,
    ) -> pb.NewGameResponse:
        """Start a game: Scopa unless Tressette options are given."""
        game = (
            {"tressette": tressette}
            if tressette is not None
            else {"scopa": scopa or pb.ScopaOptions()}
        )
        request = pb.NewGameRequest(
            players=players,
            seed=seed,
            decks=[pb.Deck(cards=list(d)) for d in decks],
            first_dealer=first_dealer,
            **game,
        )
        return self._call("NewGame", request)

    def play(self, state: bytes, move: pb.Move) -> pb.PlayResponse:
        return self._call("Play", pb.PlayRequest(state=state, move=move))

    def validate(self, state: bytes, move: pb.Move) -> pb.ValidateResponse:
        request = pb.ValidateRequest(state=state, move=move)
        return self._call("Validate", request)

    def legal_moves(self, state: bytes) -> pb.LegalMovesResponse:
        request = pb.LegalMovesRequest(state=state)
        return self._call("LegalMoves", request)

    def view(self, state: bytes, seat: int) -> pb.ViewResponse:
        return self._call("View", pb.ViewRequest(state=state, seat=seat))

    def suggest(
        self,
        state: bytes,
        seat: int,
        level: str = "expert",
        *,
        budget_ms: int = 0,
        seed: int | None = None,
        simulations: int = 0,
    ) -> pb.SuggestResponse:
        """A computer player's move for ``seat`` (the seat to play)."""
        request = pb.SuggestRequest(
            state=state, seat=seat, level=level, budget_ms=budget_ms, simulations=simulations
        )
        if seed is not None:
            request.seed = seed
        return self._call("Suggest", request)


def move(seat: int, card: str, take: Iterable[str] = ()) -> pb.Move:
    """Spell a move: ``move(0, "10D", ["2C", "8S"])``."""
    return pb.Move(seat=seat, card=card, take=list(take))
