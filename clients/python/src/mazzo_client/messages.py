"""The request messages, built the same way by the sync and the asyncio client."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from mazzo_client._gen.mazzo.v1 import engine_pb2 as pb


def move(seat: int, card: str, take: Iterable[str] = ()) -> pb.Move:
    """Spell a move: ``move(0, "10D", ["2C", "8S"])``."""
    return pb.Move(seat=seat, card=card, take=list(take))


def new_game_request(
    players: int,
    scopa: pb.ScopaOptions | None,
    tressette: pb.TressetteOptions | None,
    seed: int | None,
    decks: Iterable[Sequence[str]],
    first_dealer: int | None,
    fields: dict[str, Any],
) -> pb.NewGameRequest:
    """Scopa (default options) unless Tressette options are given.

    ``fields`` are any other fields of NewGameRequest, by their proto names:
    fields added to the API after this client was written still reach it.
    """
    request = pb.NewGameRequest(
        players=players,
        seed=seed,
        decks=[pb.Deck(cards=list(deck)) for deck in decks],
        first_dealer=first_dealer,
        **fields,
    )
    if tressette is not None:
        request.tressette.CopyFrom(tressette)
    else:
        request.scopa.CopyFrom(scopa or pb.ScopaOptions())
    return request


def suggest_request(
    state: bytes,
    seat: int,
    level: str,
    budget_ms: int,
    seed: int | None,
    simulations: int,
    credential: str,
) -> pb.SuggestRequest:
    """A computer player's move for ``seat``; ``seed`` with ``simulations`` makes it
    reproducible."""
    return pb.SuggestRequest(
        state=state,
        seat=seat,
        level=level,
        budget_ms=budget_ms,
        seed=seed,
        simulations=simulations,
        seat_credential=credential,
    )
