"""The blocking client: one gRPC channel, one method per RPC of mazzo.v1.Engine."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from types import TracebackType
from typing import Any, TypeVar

import grpc
from google.protobuf.message import Message

from mazzo_client._gen.mazzo.v1 import engine_pb2 as pb
from mazzo_client._gen.mazzo.v1 import engine_pb2_grpc
from mazzo_client.channels import TLS, ChannelOptions, Metadata, merged
from mazzo_client.errors import MazzoError
from mazzo_client.messages import (
    advance_request,
    game_options,
    new_game_request,
    play_request,
    suggest_request,
    table_fields,
)

Response = TypeVar("Response")


class MazzoClient:
    """Calls a Mazzo server over one channel; use it as a context manager or close() it.

    ``tls=None`` opens an insecure channel (a server on this machine);
    ``tls=TLS(...)`` a secure one. ``metadata`` is sent with every call, and
    each method takes its own ``metadata`` and ``timeout`` (seconds; the
    client's ``timeout`` when left out). ``credential`` (a seat credential from
    NewGame's ``seat_credentials``) limits a call to that seat; ``expected_ply``
    makes Play and Validate compare and set on ``status.ply``.
    """

    def __init__(
        self,
        target: str,
        *,
        tls: TLS | None = None,
        timeout: float | None = 10.0,
        metadata: Metadata = (),
        options: ChannelOptions = (),
    ) -> None:
        if tls is None:
            self._channel = grpc.insecure_channel(target, options=list(options))
        else:
            channel_options = [*options, *tls.options()]
            self._channel = grpc.secure_channel(target, tls.credentials(), channel_options)
        self._stub = engine_pb2_grpc.EngineStub(self._channel)  # type: ignore[no-untyped-call]
        self._timeout = timeout
        self._metadata = tuple(metadata)

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

    def _call(
        self,
        method: str,
        request: Any,
        answer: type[Response],
        metadata: Metadata | None,
        timeout: float | None,
    ) -> Response:
        """Call ``method``, whose response is of type ``answer``; refusals raise MazzoError."""
        try:
            response: Response = getattr(self._stub, method)(
                request,
                timeout=self._timeout if timeout is None else timeout,
                metadata=merged(self._metadata, metadata),
            )
        except grpc.RpcError as error:
            raise MazzoError.from_rpc_error(error) from error
        return response

    def catalog(
        self, *, metadata: Metadata | None = None, timeout: float | None = None
    ) -> pb.GetCatalogResponse:
        """The games, their player counts, options, variants and card faces."""
        request = pb.GetCatalogRequest()
        return self._call("GetCatalog", request, pb.GetCatalogResponse, metadata, timeout)

    def new_game(
        self,
        players: int = 2,
        *,
        options: Message | None = None,
        seed: int | None = None,
        decks: Iterable[Sequence[str]] = (),
        first_dealer: int | None = None,
        computers: Iterable[pb.ComputerSeat] = (),
        clock: pb.Clock | None = None,
        metadata: Metadata | None = None,
        timeout: float | None = None,
        **fields: Any,
    ) -> pb.NewGameResponse:
        """Shuffle (or take ``decks``) and deal the game ``options`` names (its options
        message, e.g. ``pb.BriscolaOptions(target=2)``; default Scopa's), or the game's
        own keyword does, as NewGameRequest names it: ``briscola=pb.BriscolaOptions()``.

        ``computers`` (see :func:`mazzo_client.computer`) are the seats the server
        plays itself; ``clock`` times the people's moves. Any other field of
        NewGameRequest may be given by its proto name; any other keyword is refused
        (TypeError).
        """
        chosen, fields = game_options(options, fields)
        fields = table_fields(computers, clock, fields)
        request = new_game_request(players, chosen, seed, decks, first_dealer, fields)
        return self._call("NewGame", request, pb.NewGameResponse, metadata, timeout)

    def play(
        self,
        state: bytes,
        move: pb.Move,
        *,
        credential: str = "",
        expected_ply: int | None = None,
        events_seat: int | None = None,
        idempotency_key: bytes = b"",
        metadata: Metadata | None = None,
        timeout: float | None = None,
    ) -> pb.PlayResponse:
        """Check and apply a move, then the computer seats' up to a person's turn: the
        new state, the events and the status. ``idempotency_key`` (see
        :func:`mazzo_client.idempotency_key`) makes a retry answer as the first call."""
        request = play_request(state, move, credential, expected_ply, events_seat, idempotency_key)
        return self._call("Play", request, pb.PlayResponse, metadata, timeout)

    def advance(
        self,
        state: bytes,
        *,
        credential: str = "",
        expected_ply: int | None = None,
        events_seat: int | None = None,
        idempotency_key: bytes = b"",
        metadata: Metadata | None = None,
        timeout: float | None = None,
    ) -> pb.AdvanceResponse:
        """Move the game on without a person: computer seats, and a seat out of time."""
        request = advance_request(state, credential, expected_ply, events_seat, idempotency_key)
        return self._call("Advance", request, pb.AdvanceResponse, metadata, timeout)

    def validate(
        self,
        state: bytes,
        move: pb.Move,
        *,
        credential: str = "",
        expected_ply: int | None = None,
        metadata: Metadata | None = None,
        timeout: float | None = None,
    ) -> pb.ValidateResponse:
        """Whether a move is legal and, if not, the reason (no new state)."""
        request = pb.ValidateRequest(
            state=state, move=move, seat_credential=credential, expected_ply=expected_ply
        )
        return self._call("Validate", request, pb.ValidateResponse, metadata, timeout)

    def legal_moves(
        self,
        state: bytes,
        *,
        credential: str = "",
        metadata: Metadata | None = None,
        timeout: float | None = None,
    ) -> pb.LegalMovesResponse:
        """Every legal move of the seat to play."""
        request = pb.LegalMovesRequest(state=state, seat_credential=credential)
        return self._call("LegalMoves", request, pb.LegalMovesResponse, metadata, timeout)

    def view(
        self,
        state: bytes,
        seat: int = 0,
        *,
        credential: str = "",
        spectator: bool = False,
        metadata: Metadata | None = None,
        timeout: float | None = None,
    ) -> pb.ViewResponse:
        """What one seat may see: its hand, the table, the public summary; with
        ``spectator`` the public view (no hand; no credential needed)."""
        request = pb.ViewRequest(
            state=state, seat=seat, seat_credential=credential, spectator=spectator
        )
        return self._call("View", request, pb.ViewResponse, metadata, timeout)

    def suggest(
        self,
        state: bytes,
        seat: int,
        level: str = "expert",
        *,
        budget_ms: int = 0,
        seed: int | None = None,
        simulations: int = 0,
        credential: str = "",
        metadata: Metadata | None = None,
        timeout: float | None = None,
    ) -> pb.SuggestResponse:
        """A computer player's move for ``seat`` (the seat to play), ready for Play."""
        request = suggest_request(state, seat, level, budget_ms, seed, simulations, credential)
        return self._call("Suggest", request, pb.SuggestResponse, metadata, timeout)
