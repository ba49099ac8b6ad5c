"""What the service seals beside a game's state: who sits at the table and the clock.

The engine knows moves and views; the *table* is the service's: the seats the
server plays itself (computer seats, with the level and budget of Suggest's
players), the clock of the people's moves (the seconds each move may take,
what happens when they run out, and the seat to play's deadline), and a
forfeit. It rides in the sealed record (:mod:`mazzo.service.trust`) and is
written compactly; a game with no computers and no clock has the empty table
and its record keeps the format it always had.

Also here: the randomness of a move, fresh from the system or, for a safe
retry, derived from a secret only the server holds (:class:`MoveRandomness`).
"""

from __future__ import annotations

import os
import struct
from collections.abc import Sequence
from typing import NamedTuple

from cryptography.hazmat.primitives import hashes, hmac

from mazzo.engine.errors import InvalidInput, Reason, Text
from mazzo.engine.events import Event
from mazzo.service.errors import ApiError, ServiceReason
from mazzo.service.state_token import random_u64

#: What Clock.on_timeout names to end the game for the late seat's side.
FORFEIT = "forfeit"
#: The level that plays for a late seat when the clock names none.
DEFAULT_TIMEOUT_LEVEL = "greedy"
#: The longest move a clock may give: a week (correspondence games).
MAX_MOVE_SECONDS = 7 * 24 * 3600
#: The longest a computer seat may think per move (the table writes it in 2 bytes).
MAX_COMPUTER_BUDGET_MS = 60_000
#: The least bytes an idempotency key has: 128 random bits cannot be guessed.
MIN_IDEMPOTENCY_KEY_BYTES = 16
MAX_IDEMPOTENCY_KEY_BYTES = 64
#: The HKDF purpose of the retry randomness key: never the state keys themselves.
RETRY_PURPOSE = b"mazzo move randomness v1"

_NO_SIDE = 0xFF
_COMPUTER = struct.Struct(">BHB")  # seat, budget ms, level length (then the level)
_CLOCK = struct.Struct(">IQB")  # move seconds, deadline (ms since the epoch; 0 none), length


class ComputerSeat(NamedTuple):
    """A seat the server plays: Suggest's ``level`` with ``budget_ms`` per move."""

    seat: int
    level: str
    budget_ms: int


class Clock(NamedTuple):
    """Each person's move may take ``move_seconds``; then ``on_timeout`` (a level, or
    FORFEIT) decides. ``deadline_ms`` is the seat to play's, set at every seal."""

    move_seconds: int
    on_timeout: str
    deadline_ms: int = 0


class Table(NamedTuple):
    computers: tuple[ComputerSeat, ...] = ()
    clock: Clock | None = None
    #: The side that lost on time (Clock.on_timeout FORFEIT); the game is then over.
    forfeited_side: int | None = None

    @property
    def empty(self) -> bool:
        return self == NO_TABLE

    def computer(self, seat: int | None) -> ComputerSeat | None:
        """The computer that plays ``seat``, or None: a person's seat (or no seat)."""
        for computer in self.computers:
            if computer.seat == seat:
                return computer
        return None


NO_TABLE = Table()


def forfeit_winner(scores: Sequence[int], lost: int) -> int:
    """The side that wins when side ``lost`` forfeits: the best placed of the other
    sides by score (the other one, with two), the lower side of a tie."""
    others = [side for side in range(len(scores)) if side != lost]
    return max(others, key=lambda side: (scores[side], -side))


# ---------------------------------------------------------------- the table's events
# What the table does to a game, told as the engine's events are (public: no
# visible_to), beside them in a call's answer.


class _TimeExpiredFields(NamedTuple):
    seat: int
    level: str


class TimeExpired(Event, _TimeExpiredFields):
    """The seat to play ran out of time: the computer at ``level`` plays its move."""

    __slots__ = ()


#: Why a side forfeits: its time ran out (the wire's FORFEIT_REASON_TIME_EXPIRED).
TIME_EXPIRED = "TIME_EXPIRED"


class _ForfeitFields(NamedTuple):
    seat: int
    side: int
    reason: str


class Forfeit(Event, _ForfeitFields):
    """Seat ``seat``'s side lost the game before its end, for ``reason``."""

    __slots__ = ()


def dump_table(table: Table) -> bytes:
    """The table's bytes: the computers, the clock and the forfeit."""
    out = bytearray((len(table.computers),))
    for computer in table.computers:
        level = computer.level.encode("ascii")
        out += _COMPUTER.pack(computer.seat, computer.budget_ms, len(level)) + level
    clock = table.clock
    if clock is None:
        out.append(0)
    else:
        on_timeout = clock.on_timeout.encode("ascii")
        out.append(1)
        out += _CLOCK.pack(clock.move_seconds, clock.deadline_ms, len(on_timeout)) + on_timeout
    out.append(_NO_SIDE if table.forfeited_side is None else table.forfeited_side)
    return bytes(out)


def load_table(raw: bytes) -> Table:
    """:func:`dump_table`'s bytes back; STATE_CORRUPT when they do not read whole."""
    try:
        table, end = _read_table(raw)
    except (IndexError, struct.error, UnicodeDecodeError):
        raise _corrupt() from None
    if end != len(raw):
        raise _corrupt()
    return table


def _read_table(raw: bytes) -> tuple[Table, int]:
    at = 1
    computers = []
    for _ in range(raw[0]):
        seat, budget_ms, length = _COMPUTER.unpack_from(raw, at)
        at += _COMPUTER.size
        computers.append(ComputerSeat(seat, _ascii(raw, at, length), budget_ms))
        at += length
    clock = None
    has_clock = raw[at]
    at += 1
    if has_clock:
        move_seconds, deadline_ms, length = _CLOCK.unpack_from(raw, at)
        at += _CLOCK.size
        clock = Clock(move_seconds, _ascii(raw, at, length), deadline_ms)
        at += length
    side = raw[at]
    return Table(tuple(computers), clock, None if side == _NO_SIDE else side), at + 1


def _ascii(raw: bytes, at: int, length: int) -> str:
    if at + length > len(raw):
        raise IndexError("past the end")
    return raw[at : at + length].decode("ascii")


def _corrupt() -> InvalidInput:
    return InvalidInput(Reason.STATE_CORRUPT, "the state's table (computers, clock) is corrupt")


# ---------------------------------------------------------------- a move's randomness


class MoveRandomness:
    """The 64-bit numbers one call draws: each deal's or draw's entropy, each
    computer's seed, in the order the call needs them.

    Without an idempotency key they are fresh (os.urandom), so forks of a token
    predict nothing. With one they are HMAC-SHA256 under a key derived from the
    state key that sealed the token (the one its key id names, not the server's
    sealing key), over the token, the call's move and the idempotency key, and a
    counter: the same call repeated draws the same numbers on every server that
    opens the token, and a caller that knows its own key still cannot compute
    them, nor learn from one branch anything of another key's.
    """

    def __init__(self, secret: bytes | None = None, context: Sequence[bytes] = ()) -> None:
        self._secret = secret
        self._counter = 0
        # Each part prefixed with its length: no two contexts read alike.
        self._context = b"".join(len(part).to_bytes(4, "big") + part for part in context)

    @property
    def derived(self) -> bool:
        return self._secret is not None

    def next_u64(self) -> int:
        if self._secret is None:
            return random_u64()
        mac = hmac.HMAC(self._secret, hashes.SHA256())
        mac.update(self._context + self._counter.to_bytes(4, "big"))
        self._counter += 1
        return int.from_bytes(mac.finalize()[:8], "big")


def check_idempotency_key(key: bytes) -> None:
    """Refuse a key too short to be unguessable (or absurdly long)."""
    if key and not MIN_IDEMPOTENCY_KEY_BYTES <= len(key) <= MAX_IDEMPOTENCY_KEY_BYTES:
        raise ApiError.invalid(
            ServiceReason.INVALID_IDEMPOTENCY_KEY,
            Text(
                "idempotency_key must be {low} to {high} random bytes, not {size}",
                low=MIN_IDEMPOTENCY_KEY_BYTES,
                high=MAX_IDEMPOTENCY_KEY_BYTES,
                size=len(key),
            ),
        )


def random_key() -> bytes:
    """An idempotency key as a caller should choose one (tests and clients)."""
    return os.urandom(MIN_IDEMPOTENCY_KEY_BYTES)
