"""The request messages, built the same way by the sync and the asyncio client."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

from google.protobuf.message import Message

from mazzo_client._gen.mazzo.v1 import engine_pb2 as pb


def move(seat: int, card: str, take: Iterable[str] = ()) -> pb.Move:
    """Spell a move: ``move(0, "10D", ["2C", "8S"])``."""
    return pb.Move(seat=seat, card=card, take=list(take))


def computer(seat: int, level: str = "expert", budget_ms: int = 0) -> pb.ComputerSeat:
    """A seat the server plays itself: ``computer(1, "expert", 100)``."""
    return pb.ComputerSeat(seat=seat, level=level, budget_ms=budget_ms)


def idempotency_key() -> bytes:
    """A fresh key for one move (16 random bytes): send it again only to retry that move."""
    return os.urandom(16)


def table_fields(
    computers: Iterable[pb.ComputerSeat], clock: pb.Clock | None, fields: dict[str, Any]
) -> dict[str, Any]:
    """``fields`` with NewGame's computer seats and clock added."""
    table = dict(fields)
    computers = list(computers)
    if computers:
        table["computers"] = computers
    if clock is not None:
        table["clock"] = clock
    return table


def play_request(
    state: bytes,
    move: pb.Move,
    credential: str,
    expected_ply: int | None,
    events_seat: int | None,
    key: bytes,
) -> pb.PlayRequest:
    return pb.PlayRequest(
        state=state,
        move=move,
        seat_credential=credential,
        expected_ply=expected_ply,
        events_seat=events_seat,
        idempotency_key=key,
    )


def advance_request(
    state: bytes,
    credential: str,
    expected_ply: int | None,
    events_seat: int | None,
    key: bytes,
) -> pb.AdvanceRequest:
    return pb.AdvanceRequest(
        state=state,
        seat_credential=credential,
        expected_ply=expected_ply,
        events_seat=events_seat,
        idempotency_key=key,
    )


#: NewGameRequest's oneof ``game``: one field per game, named as the game, of the
#: game's options message. new_game() takes each as a keyword (``briscola=``...).
GAME_ONEOF = pb.NewGameRequest.DESCRIPTOR.oneofs_by_name["game"]


def new_game_request(
    players: int,
    options: Message | None,
    seed: int | None,
    decks: Iterable[Sequence[str]],
    first_dealer: int | None,
    fields: dict[str, Any],
) -> pb.NewGameRequest:
    """``options`` is a game's options message (``pb.ScopaOptions()``,
    ``pb.BriscolaOptions(target=2)``...): it names the game, as the field of
    NewGameRequest's oneof ``game`` of its type. None: Scopa with its defaults.

    ``fields`` are any other fields of NewGameRequest, by their proto names:
    fields added to the API after this client was written still reach it. A
    name that is no field of NewGameRequest is refused (TypeError).
    """
    unknown = sorted(set(fields) - set(pb.NewGameRequest.DESCRIPTOR.fields_by_name))
    if unknown:
        raise TypeError(
            f"new_game() got unexpected keyword(s) {', '.join(unknown)}: no field of NewGameRequest"
        )
    request = pb.NewGameRequest(
        players=players,
        seed=seed,
        decks=[pb.Deck(cards=list(deck)) for deck in decks],
        first_dealer=first_dealer,
        **fields,
    )
    options = options if options is not None else pb.ScopaOptions()
    getattr(request, game_field(options)).CopyFrom(options)
    return request


def game_field(options: Message) -> str:
    """The field of NewGameRequest's oneof ``game`` that holds ``options``'s type."""
    kind = options.DESCRIPTOR.full_name
    for field in GAME_ONEOF.fields:
        if field.message_type is not None and field.message_type.full_name == kind:
            return str(field.name)
    raise TypeError(f"{kind} is no game's options message")


def game_options(
    options: Message | None, fields: dict[str, Any]
) -> tuple[Message | None, dict[str, Any]]:
    """The game's options message, and the other fields: ``options``, or the one
    message given by the game's own keyword, a field of NewGameRequest's oneof
    ``game`` (``scopa=``, ``tressette=``, ``briscola=``: every game the proto
    names), which must be of that field's type. More than one is refused."""
    rest = dict(fields)
    given = [] if options is None else [options]
    for field in GAME_ONEOF.fields:
        message = rest.pop(field.name, None)
        if message is None:
            continue
        wanted = field.message_type.full_name if field.message_type is not None else ""
        if not isinstance(message, Message) or message.DESCRIPTOR.full_name != wanted:
            raise TypeError(f"{field.name}= takes a {wanted}, not {type(message).__name__}")
        given.append(message)
    if len(given) > 1:
        raise TypeError("give one game's options message")
    return (given[0] if given else None), rest


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
