"""Byte packing shared by the games' compact state codecs.

A card is one byte (its index); a zone (a hand, the table, a pile) is a length
byte followed by its cards; explicit decks still to use are a count byte
followed by 40 bytes each, and end the state.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from mazzo.engine.cards import DECK, DECK_SIZE, Card, check_full_deck
from mazzo.engine.errors import N_, InvalidInput, Listing, Reason, Text

S = TypeVar("S")


def write_zones(out: bytearray, zones: Iterable[Sequence[Card]]) -> None:
    flat: list[int] = []  # one bytes() for all the zones: a Play writes eight or more
    for zone in zones:
        flat.append(len(zone))
        flat += zone
    out += bytes(flat)


#: A side's game score and one more counter of its (Scopa's sweeps, Tressette's napoletana).
_SIDE = struct.Struct(">IB")
_SCORE = struct.Struct(">I")


def write_sides(out: bytearray, scores: Sequence[int], counters: Sequence[int]) -> None:
    for score, counter in zip(scores, counters, strict=True):
        out += _SIDE.pack(score, counter)


def read_sides(
    data: memoryview, pos: int, sides: int
) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """:func:`write_sides`' scores and counters; the position after them."""
    pairs = [_SIDE.unpack_from(data, pos + _SIDE.size * k) for k in range(sides)]
    scores = tuple(score for score, _ in pairs)
    return scores, tuple(counter for _, counter in pairs), pos + _SIDE.size * sides


def write_scores(out: bytearray, scores: Sequence[int]) -> None:
    for score in scores:
        out += _SCORE.pack(score)


def read_scores(data: memoryview, pos: int, sides: int) -> tuple[tuple[int, ...], int]:
    """:func:`write_scores`' scores; the position after them."""
    if len(data) < pos + _SCORE.size * sides:
        raise ValueError("the scores are cut short")
    scores = tuple(_SCORE.unpack_from(data, pos + _SCORE.size * k)[0] for k in range(sides))
    return scores, pos + _SCORE.size * sides


def write_decks(out: bytearray, decks: tuple[tuple[Card, ...], ...]) -> None:
    out.append(len(decks))
    for deck in decks:
        out += bytes(deck)


def read_zones(data: memoryview, pos: int, count: int) -> tuple[list[tuple[Card, ...]], int]:
    """Read ``count`` zones from ``pos``; return them and the position after them."""
    zones = []
    for _ in range(count):
        size = data[pos]
        # DECK[b] is the card of byte b; a byte past 39 raises IndexError.
        zone = tuple(map(DECK.__getitem__, data[pos + 1 : pos + 1 + size]))
        if len(zone) != size:
            raise ValueError("a card zone is cut short")
        zones.append(zone)
        pos += 1 + size
    return zones, pos


def read_decks(data: memoryview, pos: int) -> tuple[tuple[Card, ...], ...]:
    """Read the decks that end the state; nothing may follow them."""
    count = data[pos]
    pos += 1
    if pos + DECK_SIZE * count != len(data):
        raise ValueError("trailing or missing bytes")
    decks = tuple(
        tuple(map(DECK.__getitem__, data[pos + DECK_SIZE * i : pos + DECK_SIZE * (i + 1)]))
        for i in range(count)
    )
    for deck in decks:
        check_full_deck(deck)
    return decks


def decode_checked(
    data: bytes,
    read: Callable[[memoryview], S],
    inconsistencies: Callable[[S], Sequence[str | Text]],
) -> S:
    """Read a state with ``read``, then refuse it if ``inconsistencies`` finds any:
    either way ``InvalidInput(STATE_CORRUPT)``, never another exception."""
    try:
        state = read(memoryview(data))
    except (struct.error, IndexError) as exc:
        raise InvalidInput(
            Reason.STATE_CORRUPT, N_("the state does not decode: cut short")
        ) from exc
    except KeyError as exc:
        raise InvalidInput(
            Reason.STATE_CORRUPT, N_("the state does not decode: a value no field can take")
        ) from exc
    except (ValueError, InvalidInput) as exc:  # the readers' own words, or a rule refused
        raise InvalidInput(
            Reason.STATE_CORRUPT, "the state does not decode: {why}", why=exc
        ) from exc
    problems = inconsistencies(state)
    if problems:
        listed = Listing(p if isinstance(p, Text) else Text(p) for p in problems)
        raise InvalidInput(
            Reason.STATE_CORRUPT, "the state is inconsistent: {problems}", problems=listed
        )
    return state
