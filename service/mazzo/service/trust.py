"""Who may see and do what: versioned states, seat credentials, scoped events.

A sealed token holds a *record*: the game's state, the game's id (random,
drawn by the service at NewGame) and the ply (moves played so far). The id
ties seat credentials to one game; the ply lets a store compare and set.

A seat credential is ``KID.SEAT.MAC``: the key id, the seat, and an HMAC-SHA256
(cut to 128 bits, URL-safe base64) over the game's id and the seat, under a key
derived from the state key ``KID`` (HKDF, its own purpose label). It is
verified without storage, rotates with the state keys (any configured key
verifies, the first one issues), and says nothing but the seat.
See docs/security.md for what this guarantees and what it does not.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import struct
from collections.abc import Iterable, Sequence
from hashlib import sha256
from typing import NamedTuple

import grpc

from mazzo.engine import InvalidInput, Reason, dump_state, load_state
from mazzo.engine.errors import Text
from mazzo.engine.events import Event
from mazzo.engine.registry import AnyState
from mazzo.engine.state import outside
from mazzo.service.errors import ApiError, ServiceReason
from mazzo.service.table import NO_TABLE, Table, dump_table, load_table

GAME_ID_BYTES = 12
MAC_BYTES = 16
#: The HKDF purpose of the seat credentials' keys: never the state keys themselves.
CREDENTIAL_PURPOSE = b"mazzo seat credential v1"
#: Format 1: the header, then the state. Format 2 (a game with computer seats or a
#: clock): the header, the table's length (2 bytes) and bytes, then the state.
_RECORD_FORMAT = 1
_TABLED_RECORD_FORMAT = 2
_RECORD = struct.Struct(f">B{GAME_ID_BYTES}sI")  # format, game id, ply
_TABLE_LENGTH = struct.Struct(">H")
#: The largest ply a token may hold: Status.ply is an int32, and a Play answers
#: with the ply after it. No game comes near (a hand is 40 plies at most).
MAX_PLY = 2**31 - 2


class Record(NamedTuple):
    """What a token holds, and when it was sealed."""

    state: AnyState
    game_id: bytes
    ply: int
    sealed_at: int
    table: Table = NO_TABLE


def dump_record(state: AnyState, game_id: bytes, ply: int, table: Table = NO_TABLE) -> bytes:
    """The payload a token seals: the record header, the table if there is one,
    then the engine's state bytes."""
    if table.empty:
        return _RECORD.pack(_RECORD_FORMAT, game_id, ply) + dump_state(state)
    raw = dump_table(table)
    header = _RECORD.pack(_TABLED_RECORD_FORMAT, game_id, ply) + _TABLE_LENGTH.pack(len(raw))
    return header + raw + dump_state(state)


def load_record(payload: bytes) -> tuple[AnyState, bytes, int]:
    """(state, game id, ply) from :func:`dump_record`'s bytes; STATE_CORRUPT if not."""
    return load_tabled_record(payload)[:3]


def load_tabled_record(payload: bytes) -> tuple[AnyState, bytes, int, Table]:
    """(state, game id, ply, table) from :func:`dump_record`'s bytes; STATE_CORRUPT if not."""
    if len(payload) < _RECORD.size or payload[0] not in (_RECORD_FORMAT, _TABLED_RECORD_FORMAT):
        raise InvalidInput(Reason.STATE_CORRUPT, "the state has no game id and ply")
    _, game_id, ply = _RECORD.unpack_from(payload)
    # The header is range-checked like the engine's fields: an authentic token
    # (a buggy writer, a leaked key) must not reach a field it cannot fill.
    problems = outside("ply", (ply,), 0, MAX_PLY)
    if problems:
        raise InvalidInput(
            Reason.STATE_CORRUPT, "the state is inconsistent: {problems}", problems=problems[0]
        )
    at, table = _RECORD.size, NO_TABLE
    if payload[0] == _TABLED_RECORD_FORMAT:
        if len(payload) < at + _TABLE_LENGTH.size:
            raise InvalidInput(Reason.STATE_CORRUPT, "the state's table is cut short")
        (length,) = _TABLE_LENGTH.unpack_from(payload, at)
        at += _TABLE_LENGTH.size
        table = load_table(payload[at : at + length])
        at += length
    return load_state(payload[at:]), game_id, ply, table


def game_id_text(game_id: bytes) -> str:
    """The id as Status shows it: URL-safe base64 without padding (16 characters)."""
    # Every answer writes one: binascii and a translation, not base64's three calls.
    raw = binascii.b2a_base64(game_id, newline=False).translate(_URL_SAFE)
    return raw.rstrip(b"=").decode("ascii")


_URL_SAFE = bytes.maketrans(b"+/", b"-_")


# ---------------------------------------------------------------- seat credentials


def denied(reason: ServiceReason, message: str | Text, **metadata: str) -> ApiError:
    """PERMISSION_DENIED (HTTP 403) with a stable reason."""
    return ApiError(grpc.StatusCode.PERMISSION_DENIED, reason, message, metadata)


class SeatCredentials:
    """Issues and verifies seat credentials under keys given as (key id, key), the
    issuing one first (:meth:`StateSealer.derived_keys`)."""

    def __init__(self, keys: Sequence[tuple[str, bytes]]) -> None:
        self._issuing_kid, self._issuing_key = keys[0]
        self._keys = dict(keys)

    def issue(self, game_id: bytes, seat: int) -> str:
        mac = _mac(self._issuing_key, game_id, seat)
        return f"{self._issuing_kid}.{seat}.{_b64(mac)}"

    def seat_of(self, credential: str, game_id: bytes) -> int:
        """The seat ``credential`` is for in the game ``game_id``, or
        PERMISSION_DENIED (SEAT_CREDENTIAL_INVALID): malformed, forged, from another
        game, or under a key this server does not have."""
        kid, seat_text, mac_text = (credential.split(".") + ["", ""])[:3]
        key = self._keys.get(kid)
        mac = _unb64(mac_text)
        if (
            key is None
            or credential.count(".") != 2
            or not seat_text.isdigit()
            or len(seat_text) > 2
            or mac is None
            or not hmac.compare_digest(mac, _mac(key, game_id, int(seat_text)))
        ):
            raise denied(
                ServiceReason.SEAT_CREDENTIAL_INVALID,
                "the seat credential is not valid for this game",
            )
        return int(seat_text)


def _mac(key: bytes, game_id: bytes, seat: int) -> bytes:
    return hmac.new(key, game_id + bytes((seat,)), sha256).digest()[:MAC_BYTES]


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes | None:
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        return None
    return raw if len(raw) == MAC_BYTES and _b64(raw) == text else None


# ---------------------------------------------------------------- scoped events


def events_for(events: Iterable[Event], seat: int | None) -> list[Event]:
    """The events ``seat`` may see: the public ones and its own; ``None``: the public ones."""
    return [event for event in events if event.visible_to in (None, seat)]
